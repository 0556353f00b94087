#include "sim/sweep/expansion.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <unordered_set>

#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/load_workload.h"
#include "sim/graph/workload.h"

namespace npusim::sweep {

using nlohmann::json;

uint64_t Prng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double Prng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

uint64_t Prng::below(uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // reject the biased tail
  uint64_t x;
  do x = next();
  while (x >= limit);
  return x % n;
}

void Prng::shuffle(std::vector<uint32_t>& v) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
}

json map_unit(const SampleSpec& s, double u) {
  if (s.integer) {
    const double lo = s.min, hi = s.max + 1;  // every integer of [min, max] gets a slice
    const double x =
        s.log ? std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo))) : lo + u * (hi - lo);
    const double v = std::min(std::max(std::floor(x), s.min), s.max);
    if (v >= 0) return json(static_cast<uint64_t>(v));
    return json(static_cast<int64_t>(v));
  }
  if (s.log) return json(std::exp(std::log(s.min) + u * (std::log(s.max) - std::log(s.min))));
  return json(s.min + u * (s.max - s.min));
}

namespace {

// The unit coordinates of `count` samples of one dimension.
std::vector<double> unit_samples(SampleSpec::Kind kind, uint32_t count, Prng& prng) {
  std::vector<double> u(count);
  if (kind == SampleSpec::Kind::Random) {
    for (double& x : u) x = prng.uniform();
    return u;
  }
  std::vector<uint32_t> strata(count);
  for (uint32_t k = 0; k < count; ++k) strata[k] = k;
  prng.shuffle(strata);
  for (uint32_t k = 0; k < count; ++k) u[k] = (strata[k] + prng.uniform()) / count;
  return u;
}

// Each parameter draws from its own stream, so adding a parameter to a sweep
// does not change the values drawn for the others.
Prng parameter_prng(uint64_t seed, std::size_t index) {
  Prng mixer(seed + 0x632BE59BD9B4E019ULL * (index + 1));
  return Prng(mixer.next());
}

std::string as_pointer(const std::string& name) {
  std::string p = "/" + name;
  std::replace(p.begin(), p.end(), '.', '/');
  return p;
}

void flatten(const json& j, const std::string& prefix, Variables& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (j.is_string()) {
    out[prefix] = Value{true, 0, j.get<std::string>()};
  } else if (j.is_number() || j.is_boolean()) {
    out[prefix] = Value{false, j.is_boolean() ? (j.get<bool>() ? 1.0 : 0.0) : j.get<double>(), {}};
  }
}

json apply_parameters(const SweepSpec& spec, const Point& p, Target target, json config,
                      const std::string& origin) {
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const Parameter& param = spec.parameters[i];
    if (param.target == target)
      apply_override(config, param.path + "=" + p.values[i].dump(), origin);
  }
  return config;
}

// Rethrows a config error of one point at the parameter of the sweep file that set the bad field.
[[noreturn]] void blame_parameter(const SweepSpec& spec, const Point& p, Target target,
                                  const ConfigError& e) {
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const Parameter& param = spec.parameters[i];
    if (param.target != target || as_pointer(dotted_name(param.path)) != e.pointer()) continue;
    throw ConfigError(spec.file, param.spec_pointer + "/" + (param.sample ? "sample" : "values"),
                      e.expected() + " (at " + e.pointer() + " of the " +
                          (target == Target::Hardware ? "hardware" : "workload") + ")",
                      e.found() + " in point " + p.id);
  }
  throw ConfigError(spec.file, "/parameters", "parameters giving a valid config",
                    "in point " + p.id + ": " + e.what());
}

}  // namespace

std::vector<json> sample_values(const SampleSpec& s, uint32_t count, Prng& prng) {
  std::vector<json> values;
  for (double u : unit_samples(s.kind, count, prng)) values.push_back(map_unit(s, u));
  return values;
}

std::string point_id(const SweepSpec& spec, const std::vector<json>& values) {
  json canonical = json::object();
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const Parameter& p = spec.parameters[i];
    canonical[(p.target == Target::Hardware ? "hw:" : "workload:") + p.name] = values[i];
  }
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : canonical.dump()) h = (h ^ c) * 0x100000001B3ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
  return buf;
}

json point_hardware(const SweepSpec& spec, const Point& p) {
  return apply_parameters(spec, p, Target::Hardware, spec.base_hw, spec.base_hw_origin);
}

json point_workload(const SweepSpec& spec, const Point& p) {
  return apply_parameters(spec, p, Target::Workload, spec.workload, spec.workload_path);
}

Variables point_variables(const SweepSpec& spec, const Point& p, const json& resolved_hw) {
  Variables vars;
  flatten(resolved_hw, "", vars);
  for (std::size_t i = 0; i < spec.parameters.size(); ++i)
    flatten(p.values[i], spec.parameters[i].name, vars);
  const double sram = vars["cache.size_kib"].number * 1024;
  vars["sram_bytes"] = Value{false, sram, {}};
  vars["cache_bytes"] = Value{false, sram, {}};
  vars["sram_kib"] = Value{false, sram / 1024, {}};
  vars["macs_per_cycle"] = Value{false,
                                 vars["compute.units"].number * vars["compute.array_rows"].number *
                                     vars["compute.array_cols"].number,
                                 {}};
  return vars;
}

Plan make_plan(const SweepSpec& spec) {
  // Dimensions of the grid, and the parameters sampled jointly.
  std::vector<std::vector<json>> grid(spec.parameters.size());
  std::vector<std::size_t> joint;
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const Parameter& p = spec.parameters[i];
    if (!p.sample) {
      grid[i] = p.values;
    } else if (p.sample->count > 0) {
      Prng prng = parameter_prng(spec.seed, i);
      grid[i] = sample_values(*p.sample, p.sample->count, prng);
    } else {
      joint.push_back(i);
    }
  }
  std::vector<std::vector<json>> joint_values(joint.size());
  for (std::size_t k = 0; k < joint.size(); ++k) {
    Prng prng = parameter_prng(spec.seed, joint[k]);
    joint_values[k] = sample_values(*spec.parameters[joint[k]].sample, spec.samples, prng);
  }
  const uint64_t samples = joint.empty() ? 1 : spec.samples;
  uint64_t total = samples;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    if (grid[i].empty()) continue;  // jointly sampled
    total *= grid[i].size();
    if (total > 1000000)
      throw ConfigError(spec.file, "/parameters", "at most 1000000 points",
                        "more (grid and samples multiply)");
  }

  Plan plan;
  std::unordered_set<std::string> seen;
  std::vector<std::size_t> digit(grid.size(), 0);
  for (uint64_t n = 0; n < total; ++n) {
    // Mixed-radix counter over the grid dimensions, the last one fastest; the
    // joint sample index is the innermost digit.
    const uint64_t s = n % samples;
    if (n > 0 && s == 0) {
      for (std::size_t i = grid.size(); i-- > 0;) {
        if (grid[i].empty()) continue;
        if (++digit[i] < grid[i].size()) break;
        digit[i] = 0;
      }
    }
    Point p;
    p.values.resize(spec.parameters.size());
    for (std::size_t i = 0; i < grid.size(); ++i)
      if (!grid[i].empty()) p.values[i] = grid[i][digit[i]];
    for (std::size_t k = 0; k < joint.size(); ++k) p.values[joint[k]] = joint_values[k][s];
    p.id = point_id(spec, p.values);
    if (!seen.insert(p.id).second) {
      ++plan.duplicates;
      continue;
    }

    json resolved;
    try {
      resolved = to_json(parse_hardware_config(point_hardware(spec, p), spec.base_hw_origin));
    } catch (const ConfigError& e) {
      blame_parameter(spec, p, Target::Hardware, e);
    }
    if (!spec.workload.is_null()) {
      try {
        parse_workload(point_workload(spec, p), spec.workload_path);
      } catch (const ConfigError& e) {
        blame_parameter(spec, p, Target::Workload, e);
      }
    }
    const Variables vars = point_variables(spec, p, resolved);
    bool keep = true;
    for (const Constraint& c : spec.constraints) {
      try {
        keep = holds(*c.expr, vars);
      } catch (const ExprError& e) {
        throw ConfigError(spec.file, c.spec_pointer, "a constraint that evaluates to a number",
                          std::string(e.what()) + " (point " + p.id + ")");
      }
      if (!keep) break;
    }
    (keep ? plan.points : plan.pruned).push_back(std::move(p));
  }
  return plan;
}

}  // namespace npusim::sweep
