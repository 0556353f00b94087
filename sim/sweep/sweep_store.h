// The output folder of a sweep and its bookkeeping:
//
//   DIR/sweep.json          what was swept (checked on resume: same base hardware,
//                           workload and mode, or the run is refused)
//   DIR/base_hw.json        the base hardware every point starts from
//   DIR/points/<id>/        one folder per point: point.json (its values and the
//                           `npusim run` arguments), log, report.json (+ the run's
//                           other report files) once it finished, status.json
//   DIR/results.csv         every point; rewritten atomically after each one
//   DIR/pareto.csv          the Pareto-optimal points over the objectives
//
// A point is finished when its report.json exists; that file appears by a
// rename, so an interrupted sweep never leaves a half-finished point behind.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "sim/sweep/expansion.h"
#include "sim/sweep/results.h"
#include "sim/sweep/sweep_spec.h"

namespace npusim::sweep {

class SweepSession {
 public:
  // Opens (or creates) `dir` for the sweep; throws std::runtime_error when the
  // folder holds a different sweep. Loads the state of every point.
  SweepSession(const SweepSpec& spec, Plan plan, const std::string& dir, bool quiet);

  const std::string& dir() const { return dir_; }  // absolute
  const Plan& plan() const { return plan_; }
  std::string point_dir(std::size_t index) const;
  const std::vector<PointResult>& results() const { return results_; }

  // Indices of the points still to run (no report yet; failed ones run again).
  std::vector<std::size_t> pending() const;
  // Writes points/<id>/point.json (and workload.json where the point changes
  // the workload) for each pending point; removes a stale attempt folder.
  void prepare(const std::vector<std::size_t>& indices) const;
  // Re-reads one point's state from its folder (for results written by other
  // processes, e.g. Slurm tasks).
  PointResult load(std::size_t index) const;

  // Records a finished point: updates the counters, rewrites results.csv and
  // pareto.csv, and prints a progress line on stderr.
  void finished(std::size_t index, const PointResult& result);
  // Rewrites results.csv and pareto.csv from the current state.
  void write_tables() const;

  std::size_t failures() const { return failed_; }
  std::size_t ok_count() const;

 private:
  SweepSpec spec_;
  Plan plan_;
  std::string dir_;
  bool quiet_;
  std::vector<PointResult> results_;
  std::size_t total_ = 0, started_done_ = 0, done_this_run_ = 0, failed_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The arguments of `npusim run` for one point, as stored in point.json (the
// caller adds --out).
std::vector<std::string> point_arguments(const nlohmann::json& point_json);

// Reads points/<id>/{report,status}.json: Ok when the report exists, the
// recorded failure when only status.json does, else Pending.
PointResult load_point_state(const std::string& point_dir);

}  // namespace npusim::sweep
