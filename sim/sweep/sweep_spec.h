// A design-space-exploration sweep as read from its JSON file (docs/sweeps.md):
// a base hardware config, a workload, the parameters to vary (lists, ranges,
// random or Latin-hypercube samples), constraints that prune points before
// they run, and the objectives of the Pareto front. Every bad input throws
// ConfigError naming the sweep file and the JSON pointer of the bad value.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/constraint_expr.h"

namespace npusim::sweep {

enum class Target { Hardware, Workload };

struct SampleSpec {
  enum class Kind { Random, LatinHypercube };
  Kind kind = Kind::Random;
  double min = 0, max = 0;
  bool integer = false;
  bool log = false;    // uniform in log(value) instead of value
  uint32_t count = 0;  // > 0: this parameter alone, `count` values crossed with the grid;
                       // 0: one coordinate of the sweep's `samples` joint sample points
};

struct Parameter {
  Target target = Target::Hardware;
  std::string path;  // as written: a JSON pointer ("/compute/array_rows") or dotted
  std::string name;  // column and constraint variable: "compute.array_rows",
                     // "workload.layers.0.K" for a workload parameter
  std::vector<nlohmann::json> values;  // a list or an expanded range; empty when sampled
  std::optional<SampleSpec> sample;
  std::string spec_pointer;  // "/parameters/<i>" in the sweep file
};

struct Constraint {
  std::string text;          // the expression (a structured form is turned into one)
  std::string spec_pointer;  // "/constraints/<i>"
  std::shared_ptr<const Expr> expr;
};

struct Objective {
  std::string metric;  // a results.csv metric column (metric_names()) or a parameter name
  bool maximise = false;
  int parameter = -1;  // the parameter's index when `metric` names a numeric parameter
};

struct SweepSpec {
  std::string file;  // the sweep file, for errors
  std::string name;
  nlohmann::json base_hw = nlohmann::json::object();  // before any parameter is applied
  std::string base_hw_origin;  // the file it came from, or "<sweep file> (base_hw)"
  std::string workload_path;   // resolved against the sweep file's folder; "" = default network
  nlohmann::json workload;     // the workload JSON, loaded when a parameter targets it
  std::vector<Parameter> parameters;
  uint64_t seed = 1;
  uint32_t samples = 0;  // joint random / Latin-hypercube points
  std::vector<Constraint> constraints;
  std::vector<Objective> objectives;  // default: cycles, sram_bytes (both minimised)
  bool timing_only = true;
  // Each point runs `npusim estimate` (the compiler's estimate, no
  // simulation): only the metrics estimate_metric_names() lists.
  bool estimate_only = false;
};

// Parses a sweep; relative paths in it resolve against the folder of `file`.
SweepSpec parse_sweep(const nlohmann::json& j, const std::string& file);
SweepSpec load_sweep(const std::string& path);

// "/compute/array_rows" or "compute.array_rows" -> "compute.array_rows".
std::string dotted_name(const std::string& path);

}  // namespace npusim::sweep
