#include "sim/sweep/sweep_spec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/load_workload.h"
#include "sim/frontend/scalesim/scalesim_topology.h"
#include "sim/graph/workload.h"
#include "sim/sweep/expansion.h"
#include "sim/sweep/results.h"

namespace npusim::sweep {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxValues = 100000;

double require_number(JsonReader& r, const std::string& key) {
  const json* v = r.find(key);
  if (v == nullptr) r.fail(key, "a number (required)", "nothing");
  if (!v->is_number()) r.fail(key, "number", describe_json(*v));
  return v->get<double>();
}

bool is_integral(const json& v) { return v.is_number_integer() || v.is_number_unsigned(); }

std::string resolve_path(const std::string& path, const std::string& sweep_file) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (std::filesystem::path(sweep_file).parent_path() / p).lexically_normal().string();
}

// {"start", "stop", "step"} or {"start", "stop", "factor"}; stop is included when hit.
std::vector<json> expand_range(JsonReader r) {
  const json* start_j = r.find("start");
  const double start = require_number(r, "start"), stop = require_number(r, "stop");
  const bool has_step = r.has("step"), has_factor = r.has("factor");
  if (has_step == has_factor)
    r.fail("", "exactly one of \"step\" and \"factor\"", "both or neither");
  const std::string key = has_step ? "step" : "factor";
  const double by = require_number(r, key);
  const bool integers = is_integral(*start_j) && is_integral(*r.find(key));
  r.finish();
  if (stop < start) r.fail("stop", "stop >= start", "stop < start");
  if (has_step ? by <= 0 : by <= 1)
    r.fail(key, has_step ? "step > 0" : "factor > 1", "number " + std::to_string(by));
  std::vector<json> values;
  for (std::size_t i = 0;; ++i) {
    const double x = has_step ? start + by * static_cast<double>(i)
                              : start * std::pow(by, static_cast<double>(i));
    if (x > stop + 1e-9 * std::max(1.0, std::fabs(stop))) break;
    if (values.size() == kMaxValues) r.fail("", "a range of at most 100000 values", "more");
    if (integers)
      values.push_back(x >= 0 ? json(static_cast<uint64_t>(std::llround(x)))
                              : json(static_cast<int64_t>(std::llround(x))));
    else
      values.push_back(json(x));
  }
  return values;
}

SampleSpec parse_sample(JsonReader r) {
  SampleSpec s;
  s.kind = r.require_choice("kind", {"random", "latin_hypercube"}) == 0
               ? SampleSpec::Kind::Random
               : SampleSpec::Kind::LatinHypercube;
  s.count = static_cast<uint32_t>(r.get_uint("count", 1, kMaxValues, 0));
  s.min = require_number(r, "min");
  s.max = require_number(r, "max");
  s.integer = r.get_bool("integer", false);
  s.log = r.get_bool("log", false);
  r.finish();
  if (!(s.min < s.max)) r.fail("max", "max > min", "max <= min");
  if (s.log && s.min <= 0) r.fail("min", "min > 0 (log sampling)", std::to_string(s.min));
  if (s.integer && (s.min != std::floor(s.min) || s.max != std::floor(s.max)))
    r.fail("min", "integer min and max (\"integer\": true)", "fractions");
  return s;
}

Parameter parse_parameter(const json& j, const std::string& file, const std::string& pointer) {
  JsonReader r(j, file, pointer);
  Parameter p;
  p.spec_pointer = pointer;
  p.path = r.require_string("pointer");
  if (p.path.empty() || p.path == "/")
    r.fail("pointer", "a JSON pointer such as /cache/size_kib", "an empty path");
  p.target = r.get_choice("target", {"hardware", "workload"}, 0) == 0 ? Target::Hardware
                                                                      : Target::Workload;
  p.name = (p.target == Target::Workload ? "workload." : "") + dotted_name(p.path);
  const json* values = r.find("values");
  const json* range = r.find("range");
  const json* sample = r.find("sample");
  r.finish();  // unknown keys first: a misspelt "values" is reported as such
  const int forms = (values != nullptr) + (range != nullptr) + (sample != nullptr);
  if (forms != 1)
    r.fail("", "exactly one of \"values\", \"range\" and \"sample\"",
           std::to_string(forms) + " of them");
  if (values != nullptr) {
    const std::string vp = r.pointer_to("values");
    if (!values->is_array() || values->empty() || values->size() > kMaxValues)
      throw ConfigError(file, vp, "an array of 1..100000 values", describe_json(*values));
    for (std::size_t i = 0; i < values->size(); ++i) {
      const json& v = (*values)[i];
      if (!v.is_number() && !v.is_string() && !v.is_boolean())
        throw ConfigError(file, vp + "/" + std::to_string(i), "a number, string or boolean",
                          describe_json(v));
      p.values.push_back(v);
    }
  } else if (range != nullptr) {
    p.values = expand_range(JsonReader(*range, file, r.pointer_to("range")));
  } else {
    p.sample = parse_sample(JsonReader(*sample, file, r.pointer_to("sample")));
  }
  return p;
}

Constraint parse_constraint(const json& j, const std::string& file, const std::string& pointer) {
  if (!j.is_object() || j.size() != 1)
    throw ConfigError(file, pointer,
                      "an object with one key: \"expr\", or \"max_<variable>\" / "
                      "\"min_<variable>\" with a number",
                      describe_json(j));
  const std::string key = j.begin().key();
  const json& v = j.begin().value();
  Constraint c;
  c.spec_pointer = json_pointer_append(pointer, key);
  if (key == "expr") {
    c.text = expect_string(v, file, c.spec_pointer, "string (an expression)");
  } else if ((key.rfind("max_", 0) == 0 || key.rfind("min_", 0) == 0) && key.size() > 4) {
    if (!v.is_number()) throw ConfigError(file, c.spec_pointer, "number", describe_json(v));
    c.text = key.substr(4) + (key[1] == 'a' ? " <= " : " >= ") + v.dump();
  } else {
    throw ConfigError(file, c.spec_pointer, "\"expr\", \"max_<variable>\" or \"min_<variable>\"",
                      "key \"" + key + "\"");
  }
  try {
    c.expr = parse_expr(c.text);
  } catch (const ExprError& e) {
    throw ConfigError(file, c.spec_pointer, "an expression (docs/sweeps.md)", e.what());
  }
  return c;
}

Objective parse_objective(const json& j, const std::string& file, const std::string& pointer,
                          const std::vector<Parameter>& params) {
  Objective o;
  std::string text = expect_string(j, file, pointer, "string: a metric, \"max:<metric>\"");
  if (text.rfind("max:", 0) == 0 || text.rfind("min:", 0) == 0) {
    o.maximise = text[1] == 'a';
    text = text.substr(4);
  }
  std::vector<std::string> names = metric_names();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Parameter& p = params[i];
    const bool numeric = p.sample || std::all_of(p.values.begin(), p.values.end(),
                                                 [](const json& v) { return v.is_number(); });
    if (numeric) names.push_back(p.name);
    if (numeric && p.name == text) o.parameter = static_cast<int>(i);
  }
  if (std::find(names.begin(), names.end(), text) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw ConfigError(file, pointer, "a metric or numeric parameter: " + list, "\"" + text + "\"",
                      nearest_key(text, names));
  }
  o.metric = text;
  return o;
}

// Every variable a constraint names must exist (checked on the first point).
void check_variables(const SweepSpec& spec) {
  Point first;
  for (const Parameter& p : spec.parameters)
    first.values.push_back(p.sample ? map_unit(*p.sample, 0) : p.values.front());
  const json resolved = to_json(parse_hardware_config(spec.base_hw, spec.base_hw_origin));
  const Variables vars = point_variables(spec, first, resolved);
  std::vector<std::string> known;
  for (const auto& kv : vars) known.push_back(kv.first);
  for (const Constraint& c : spec.constraints) {
    std::vector<std::string> used;
    c.expr->collect_variables(used);
    for (const std::string& name : used)
      if (vars.count(name) == 0)
        throw ConfigError(spec.file, c.spec_pointer, "a known variable (docs/sweeps.md)",
                          "unknown variable \"" + name + "\"", nearest_key(name, known));
  }
}

}  // namespace

std::string dotted_name(const std::string& path) {
  if (path.empty() || path[0] != '/') return path;
  std::string out;
  for (std::size_t i = 1; i < path.size(); ++i) {
    if (path[i] == '/') {
      out += '.';
    } else if (path[i] == '~' && i + 1 < path.size() &&
               (path[i + 1] == '0' || path[i + 1] == '1')) {
      out += path[++i] == '0' ? '~' : '/';
    } else {
      out += path[i];
    }
  }
  return out;
}

SweepSpec parse_sweep(const json& j, const std::string& file) {
  // Before anything copies it: an inline base_hw 100,000 deep would overflow the stack.
  check_json_depth(j, file);
  JsonReader r(j, file);
  SweepSpec spec;
  spec.file = file;
  spec.name = r.get_string("name", std::filesystem::path(file).stem().string());
  r.get_string("description", "");
  spec.base_hw_origin = "<default hardware>";
  if (const json* hw = r.find("base_hw")) {
    if (hw->is_string()) {
      spec.base_hw_origin = resolve_path(hw->get<std::string>(), file);
      spec.base_hw = load_json_file(spec.base_hw_origin);
    } else if (hw->is_object()) {
      spec.base_hw_origin = file + " (base_hw)";
      spec.base_hw = *hw;
    } else {
      r.fail("base_hw", "a path to a hardware JSON file, or a hardware object", describe_json(*hw));
    }
  }
  parse_hardware_config(spec.base_hw, spec.base_hw_origin);  // a bad base fails here
  bool onnx_workload = false;
  if (r.has("workload")) {
    spec.workload_path = resolve_path(r.require_string("workload"), file);
    // An ONNX model is run as it is by every point (each point's `npusim run`
    // imports it): only hardware parameters vary, as it has no JSON to vary.
    const std::string& w = spec.workload_path;
    onnx_workload = w.size() > 5 && w.compare(w.size() - 5, 5, ".onnx") == 0;
    if (onnx_workload) {
      try {  // missing, a directory, too large: said here, not once per point
        read_input_file(w, "a readable ONNX model");
      } catch (const ConfigError& e) {
        r.fail("workload", e.expected(), "\"" + w + "\", " + e.found());
      }
    } else {
      // A SCALE-Sim topology becomes its JSON network, so workload parameters
      // point into the same keys as for a JSON file.
      spec.workload = is_scalesim_topology(spec.workload_path)
                          ? to_json(load_workload(spec.workload_path))
                          : load_json_file(spec.workload_path);
      parse_workload(spec.workload, spec.workload_path);
    }
  }
  const json* params = r.find("parameters");
  if (params == nullptr || !params->is_array() || params->empty())
    r.fail("parameters", "a non-empty array of parameters",
           params ? describe_json(*params) : "nothing");
  for (std::size_t i = 0; i < params->size(); ++i) {
    spec.parameters.push_back(
        parse_parameter((*params)[i], file, "/parameters/" + std::to_string(i)));
    for (std::size_t k = 0; k < i; ++k)
      if (spec.parameters[k].name == spec.parameters[i].name)
        throw ConfigError(file, "/parameters/" + std::to_string(i) + "/pointer",
                          "a parameter not varied twice",
                          "\"" + spec.parameters[i].path + "\" again (also /parameters/" +
                              std::to_string(k) + ")");
  }
  spec.seed = r.get_uint("seed", 0, UINT64_MAX, 1);
  spec.samples = static_cast<uint32_t>(r.get_uint("samples", 1, 1000000, 0));
  const bool joint =
      std::any_of(spec.parameters.begin(), spec.parameters.end(),
                  [](const Parameter& p) { return p.sample && p.sample->count == 0; });
  if (joint && spec.samples == 0)
    r.fail("samples", "a number of samples (a parameter samples without \"count\")", "nothing");
  if (!joint && spec.samples > 0)
    r.fail("samples", "no \"samples\" (every sampled parameter has its own \"count\")",
           std::to_string(spec.samples));
  const bool workload_params =
      std::any_of(spec.parameters.begin(), spec.parameters.end(),
                  [](const Parameter& p) { return p.target == Target::Workload; });
  if (workload_params && onnx_workload) {
    const auto p = std::find_if(spec.parameters.begin(), spec.parameters.end(),
                                [](const Parameter& q) { return q.target == Target::Workload; });
    throw ConfigError(file, "/parameters/" + std::to_string(p - spec.parameters.begin()),
                      "a hardware parameter (an ONNX workload has no JSON keys to vary)",
                      "workload parameter \"" + p->path + "\"");
  }
  if (workload_params && spec.workload.is_null()) {
    spec.workload = to_json(default_network());
    spec.workload_path = "<default network>";
  }
  if (const json* cs = r.find("constraints")) {
    if (!cs->is_array()) r.fail("constraints", "an array", describe_json(*cs));
    for (std::size_t i = 0; i < cs->size(); ++i)
      spec.constraints.push_back(
          parse_constraint((*cs)[i], file, "/constraints/" + std::to_string(i)));
  }
  if (const json* os = r.find("objectives")) {
    if (!os->is_array() || os->empty() || os->size() > 8)
      r.fail("objectives", "an array of 1..8 metrics", describe_json(*os));
    for (std::size_t i = 0; i < os->size(); ++i)
      spec.objectives.push_back(
          parse_objective((*os)[i], file, "/objectives/" + std::to_string(i), spec.parameters));
  } else {
    spec.objectives = {{"cycles", false}, {"sram_bytes", false}};
  }
  spec.timing_only = r.get_bool("timing_only", true);
  spec.estimate_only = r.get_bool("estimate_only", false);
  if (spec.estimate_only && !spec.timing_only)
    throw ConfigError(file, "/timing_only",
                      "true or left out (an estimate_only sweep simulates nothing, so it has "
                      "no functional check)",
                      "false");
  if (spec.estimate_only)
    for (std::size_t i = 0; i < spec.objectives.size(); ++i) {
      const Objective& o = spec.objectives[i];
      const auto& available = estimate_metric_names();
      if (o.parameter >= 0 ||
          std::find(available.begin(), available.end(), o.metric) != available.end())
        continue;
      std::string list;
      for (const auto& n : available) list += (list.empty() ? "" : ", ") + n;
      throw ConfigError(file, "/objectives/" + std::to_string(i),
                        "a metric an estimate_only sweep gives (" + list +
                            ") or a numeric parameter: estimates simulate nothing, so they "
                            "count no energy, DRAM bytes or decoder figures",
                        "\"" + o.metric + "\"");
    }
  r.finish();
  check_variables(spec);
  return spec;
}

SweepSpec load_sweep(const std::string& path) { return parse_sweep(load_json_file(path), path); }

}  // namespace npusim::sweep
