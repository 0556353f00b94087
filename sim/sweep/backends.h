// Where the points of a sweep run: a local process pool, or a Slurm job array.
// Both run `binary` (the npusim executable) once per point and report each
// finished point to the session, which keeps results.csv current.
#pragma once

#include <string>
#include <vector>

#include "sim/sweep/sweep_store.h"

namespace npusim::sweep {

// Set by SIGINT, SIGTERM or SIGHUP while a backend runs: stop starting points,
// stop (local) or cancel (Slurm) the running ones, keep every finished one.
bool stop_requested();

// Installs the handlers above for its lifetime and restores the old ones.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

struct LocalOptions {
  unsigned jobs = 1;     // points running at once
  double timeout_s = 0;  // per point; 0 = none
};
// Runs the points `indices`; returns false when stopped by a signal.
bool run_local(SweepSession& session, const std::vector<std::size_t>& indices,
               const std::string& binary, const LocalOptions& options);

struct SlurmOptions {
  unsigned max_running = 0;              // the array's %N throttle; 0 = no limit
  double timeout_s = 0;                  // per point (the task's --time gets a margin)
  double poll_s = 2;                     // squeue polling interval
  std::vector<std::string> sbatch_args;  // extra arguments, e.g. --partition=short
};

// Refuses (std::runtime_error) a sweep folder or executable path with a newline or
// another control character: #SBATCH lines cannot quote them (docs/sweeps.md).
void check_slurm_paths(const std::string& sweep_dir, const std::string& binary);

// Writes DIR/slurm/<n>/job.sh (one array task per point, each running
// `binary sweep-point DIR <id>`), submits it with sbatch, polls squeue until
// the job leaves the queue while collecting finished points, then marks any
// point its task left without a result as failed. Returns false when stopped
// by a signal (the job is cancelled with scancel). Throws std::runtime_error
// when sbatch fails.
bool run_slurm(SweepSession& session, const std::vector<std::size_t>& indices,
               const std::string& binary, const SlurmOptions& options);

// Runs a shell command and returns its exit code (or 128 + signal) and stdout.
int capture_command(const std::string& command, std::string& out);
// '...' with embedded quotes escaped, for /bin/sh.
std::string sh_quote(const std::string& s);

}  // namespace npusim::sweep
