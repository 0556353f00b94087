// What a sweep keeps of each point, and the two tables it writes:
// results.csv (every point) and pareto.csv (the Pareto-optimal points).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/sweep/expansion.h"
#include "sim/sweep/sweep_spec.h"

namespace npusim::sweep {

enum class Status { Pending, Ok, Failed, Timeout, Pruned };
const char* to_string(Status s);

// The metric columns of results.csv, in order; also the names objectives use:
// cycles, time_us, hw_mac_util, useful_mac_util, dram_read_bytes,
// dram_write_bytes, dram_bytes (read + written), energy_uj (total energy:
// dynamic + leakage, docs/energy.md), area_mm2 (the area estimate,
// docs/area.md), sram_bytes (cache.size_kib * 1024), macs_per_cycle (peak:
// units * array_rows * array_cols), wall_s (the simulator's own wall time for
// the point).
const std::vector<std::string>& metric_names();
// The metrics an estimate's report.json gives (`npusim estimate`): cycles,
// time_us, hw_mac_util (dense MACs over peak), area_mm2, sram_bytes,
// macs_per_cycle, wall_s. The others are NaN, an empty results.csv field.
const std::vector<std::string>& estimate_metric_names();

struct PointResult {
  Status status = Status::Pending;
  std::string reason;           // why a point failed: "exit 1", "signal 11", "timeout after 30 s"
  std::vector<double> metrics;  // metric_names() order; empty unless Ok
};

// Reads the metrics from a point's report.json; throws std::runtime_error when
// a field is missing.
PointResult result_from_report(const nlohmann::json& report);

// results.csv: a header (id, every parameter name, status, the metrics,
// reason), then one row per point in `points` order. `results[i]` belongs to
// `points[i]`.
std::string results_csv(const SweepSpec& spec, const std::vector<Point>& points,
                        const std::vector<PointResult>& results);

// The indices of the finished (Ok) points that are Pareto-optimal over the
// spec's objectives, ordered by the objectives. `results[i]` belongs to `points[i]`.
std::vector<std::size_t> pareto_indices(const SweepSpec& spec, const std::vector<Point>& points,
                                        const std::vector<PointResult>& results);

}  // namespace npusim::sweep
