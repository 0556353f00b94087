#include "sim/regress/golden.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"

namespace npusim::regress {

const std::vector<std::string> kGoldenCounters = {
    "dram.read_bytes",
    "dram.write_bytes",
    "compute.macs_performed",
    "compute.macs_skipped",
    "load.host_lowering_bytes",
    "stall.data_dependency_cycles",
    "stall.memory_dependency_cycles",
    "stall.buffer_space_cycles",
    "stall.bus_cycles",
    "stall.cache_port_cycles",
};

namespace {

using nlohmann::json;

const json& at(const json& j, const char* key, const std::string& what) {
  const auto it = j.find(key);
  if (it == j.end()) throw std::runtime_error(what + " has no \"" + key + "\"");
  return *it;
}

json key_counters(const json& counters) {
  json out = json::object();
  for (const std::string& name : kGoldenCounters) {
    const auto it = counters.find(name);
    if (it != counters.end()) out[name] = *it;
  }
  return out;
}

struct Comparer {
  const std::map<std::string, double>& tolerance;
  std::vector<FieldChange> changes;

  void value(const std::string& field, const std::string& tolerance_class, const json& old_value,
             const json& new_value) {
    if (old_value == new_value) return;
    FieldChange c{field, old_value, new_value, false};
    const auto tol = tolerance.find(tolerance_class);
    if (tol != tolerance.end() && old_value.is_number() && new_value.is_number()) {
      const double o = old_value.get<double>(), n = new_value.get<double>();
      c.within_tolerance = std::fabs(n - o) <= tol->second * std::fabs(o);
    }
    changes.push_back(std::move(c));
  }

  void counters(const std::string& prefix, const json& old_counters, const json& new_counters) {
    std::set<std::string> names;
    for (const auto& item : old_counters.items()) names.insert(item.key());
    for (const auto& item : new_counters.items()) names.insert(item.key());
    for (const std::string& name : kGoldenCounters) {
      if (names.count(name) == 0) continue;
      value(prefix + name, name, old_counters.value(name, json()),
            new_counters.value(name, json()));
    }
  }
};

json layer_names(const json& layers) {
  json names = json::array();
  for (const json& l : layers) names.push_back(l.value("name", ""));
  return names;
}

std::string signed_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.0f", v);
  return buf;
}

// A golden's "counters" object: known counter names, whole numbers.
void check_counters(const json& counters, const std::string& file, const std::string& pointer) {
  JsonReader reader(counters, file, pointer);
  for (const std::string& name : kGoldenCounters) reader.get_uint(name, 0, UINT64_MAX, 0);
  reader.finish();
}

void check_layer(const json& layer, const std::string& file, const std::string& pointer) {
  JsonReader reader(layer, file, pointer);
  reader.require_string("name");
  reader.require_uint("cycles", 0, UINT64_MAX);
  const json* digest = reader.find("digest");
  if (digest == nullptr || !(digest->is_null() || digest->is_string()))
    reader.fail("digest", "a digest (string) or null (not checked)",
                digest == nullptr ? "nothing (required key is missing)" : describe_json(*digest));
  const json* counters = reader.find("counters");
  if (counters == nullptr)
    reader.fail("counters", "an object of counters", "nothing (required key is missing)");
  reader.finish();
  check_counters(*counters, file, reader.pointer_to("counters"));
}

}  // namespace

void check_golden(const json& record, const std::string& file) {
  JsonReader reader(record, file);
  const uint64_t format = reader.require_uint("format", 0, UINT64_MAX);
  if (format != uint64_t(kGoldenFormat))
    reader.fail("format",
                "golden format " + std::to_string(kGoldenFormat) + " (re-bless with this npusim)",
                describe_json(*reader.find("format")));
  reader.require_string("case");
  reader.get_bool("timing_only", false);
  reader.require_uint("cycles", 0, UINT64_MAX);
  const json* counters = reader.find("counters");
  const json* layers = reader.find("layers");
  if (counters == nullptr)
    reader.fail("counters", "an object of counters", "nothing (required key is missing)");
  if (layers == nullptr || !layers->is_array())
    reader.fail("layers", "an array of layer records",
                layers == nullptr ? "nothing (required key is missing)" : describe_json(*layers));
  reader.finish();
  check_counters(*counters, file, "/counters");
  for (std::size_t i = 0; i < layers->size(); ++i)
    check_layer((*layers)[i], file, "/layers/" + std::to_string(i));
}

json golden_from_report(const std::string& case_name, const json& report) {
  const json& totals = at(report, "totals", "report.json");
  json layers = json::array();
  for (const json& l : at(report, "layers", "report.json")) {
    const json& check = at(l, "check", "a report layer");
    const bool checked = check.value("checked", false);
    layers.push_back({{"name", at(l, "name", "a report layer")},
                      {"cycles", at(l, "cycles", "a report layer")},
                      {"digest", checked ? check.at("digest") : json()},
                      {"counters", key_counters(at(l, "counters", "a report layer"))}});
  }
  return {{"format", kGoldenFormat},
          {"case", case_name},
          {"timing_only", report.value("timing_only", false)},
          {"cycles", at(totals, "cycles", "report.json totals")},
          {"counters", key_counters(at(totals, "counters", "report.json totals"))},
          {"layers", std::move(layers)}};
}

std::string FieldChange::difference() const {
  if (old_value.is_null()) return "added";
  if (new_value.is_null()) return "removed";
  if (!old_value.is_number() || !new_value.is_number()) return "differs";
  const double o = old_value.get<double>(), n = new_value.get<double>();
  std::string text = signed_text(n - o);
  if (o != 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " (%+.2f%%)", 100.0 * (n - o) / std::fabs(o));
    text += buf;
  }
  if (within_tolerance) text += " within tolerance";
  return text;
}

std::vector<FieldChange> compare_golden(const json& golden, const json& fresh,
                                        const std::map<std::string, double>& tolerance) {
  Comparer cmp{tolerance, {}};
  const json null;
  cmp.value("format", "", golden.value("format", null), fresh.value("format", null));
  cmp.value("timing_only", "", golden.value("timing_only", null), fresh.value("timing_only", null));
  cmp.value("cycles", "cycles", golden.value("cycles", null), fresh.value("cycles", null));
  cmp.counters("", golden.value("counters", json::object()),
               fresh.value("counters", json::object()));
  const json old_layers = golden.value("layers", json::array());
  const json new_layers = fresh.value("layers", json::array());
  cmp.value("layers", "", layer_names(old_layers), layer_names(new_layers));
  // Layers are matched by name; a layer on one side only shows up in "layers" above.
  std::unordered_map<std::string, std::vector<const json*>> by_name;
  for (const json& n : new_layers) by_name[n.value("name", "")].push_back(&n);
  for (const json& o : old_layers) {
    const auto same = by_name.find(o.value("name", ""));
    if (same == by_name.end()) continue;
    for (const json* n_ptr : same->second) {
      const json& n = *n_ptr;
      const std::string prefix = o.value("name", "") + "/";
      cmp.value(prefix + "cycles", "cycles", o.value("cycles", null), n.value("cycles", null));
      cmp.value(prefix + "digest", "", o.value("digest", null), n.value("digest", null));
      cmp.counters(prefix, o.value("counters", json::object()),
                   n.value("counters", json::object()));
    }
  }
  return cmp.changes;
}

bool has_regression(const std::vector<FieldChange>& changes) {
  for (const FieldChange& c : changes)
    if (!c.within_tolerance) return true;
  return false;
}

std::string golden_text(const json& record) { return record.dump(2) + "\n"; }

}  // namespace npusim::regress
