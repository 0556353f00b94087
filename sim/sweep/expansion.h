// From a sweep spec to the list of points: grid (cartesian) expansion of lists
// and ranges, seeded random and Latin-hypercube sampling, a stable id per
// point, per-point validation of the hardware (and workload) config, and
// constraint pruning before anything runs.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/sweep/constraint_expr.h"
#include "sim/sweep/sweep_spec.h"

namespace npusim::sweep {

// splitmix64: a small, fast, fully specified generator, so a seed gives the
// same points on every platform and compiler (std:: distributions do not).
class Prng {
 public:
  explicit Prng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  double uniform();                        // [0, 1), 53 random bits
  uint64_t below(uint64_t n);              // [0, n), unbiased; n > 0
  void shuffle(std::vector<uint32_t>& v);  // Fisher-Yates

 private:
  uint64_t state_;
};

// `count` values of one sampled parameter: Random draws u uniformly, Latin
// hypercube draws one u in each of the `count` strata [k/count, (k+1)/count)
// in a random order; u then maps to [min, max] (log-uniformly when `log`,
// to integers when `integer`, every integer of the range equally likely).
std::vector<nlohmann::json> sample_values(const SampleSpec& s, uint32_t count, Prng& prng);
// Maps u in [0, 1) onto the parameter's range as sample_values does.
nlohmann::json map_unit(const SampleSpec& s, double u);

struct Point {
  std::string id;                      // 16 hex digits, a hash of the values (point_id)
  std::vector<nlohmann::json> values;  // one per parameter, in the spec's order
};

// FNV-1a 64 of the canonical JSON {"<target>:<path>": value, ...} (keys sorted),
// so the id depends only on which parameter has which value.
std::string point_id(const SweepSpec& spec, const std::vector<nlohmann::json>& values);

// The hardware JSON of a point: base_hw with every hardware parameter applied
// (the same overrides `npusim run --set` applies); likewise the workload.
nlohmann::json point_hardware(const SweepSpec& spec, const Point& p);
nlohmann::json point_workload(const SweepSpec& spec, const Point& p);

// What a constraint can read about a point: every field of the resolved
// hardware config by dotted name (compute.array_rows, scheduler.policy, ...),
// every parameter by its name, and the derived sram_bytes (= cache.size_kib *
// 1024, the on-chip SRAM), sram_kib, cache_bytes (= sram_bytes) and
// macs_per_cycle (= compute.units * array_rows * array_cols).
Variables point_variables(const SweepSpec& spec, const Point& p, const nlohmann::json& resolved_hw);

struct Plan {
  std::vector<Point> points;   // to run, in expansion order
  std::vector<Point> pruned;   // rejected by a constraint
  std::size_t duplicates = 0;  // identical points merged (sampling can repeat integers)
};

// Expands the grid (last parameter varies fastest), then the joint samples
// (innermost); validates every point's hardware config (ConfigError at the
// guilty parameter of the sweep file) and drops points a constraint rejects.
Plan make_plan(const SweepSpec& spec);

}  // namespace npusim::sweep
