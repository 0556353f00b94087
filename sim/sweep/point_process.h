// Runs one sweep point as a child `npusim run` process (SystemC elaborates
// once per process) and files its outcome in the point's folder.
//
// The child writes its reports into a fresh attempt folder inside the point
// folder, with stdout and stderr going to the point's `log`. When it exits 0
// the report files move into the point folder, report.json last (a rename),
// so report.json exists only for a complete point. Any other end (an error
// exit, a signal, a timeout) writes status.json with the reason instead.
#pragma once

#include <sys/types.h>

#include <string>

#include "sim/sweep/results.h"

namespace npusim::sweep {

struct RunningPoint {
  pid_t pid = -1;
  std::string point_dir;
  std::string attempt_dir;
  double start_s = 0;  // monotonic_seconds() at the start
  bool timed_out = false;
  double timeout_s = 0;
};

double monotonic_seconds();

// Starts `binary` with the arguments in point_dir/point.json plus --out. The
// child gets its own process group (so a terminal's Ctrl-C reaches only the
// sweep, which then stops its children) and dies with its parent.
RunningPoint start_point(const std::string& binary, const std::string& point_dir, double timeout_s);

// Non-blocking: true once the child has exited (and fills `wait_status`).
// Kills a child that ran past its timeout.
bool poll_point(RunningPoint& p, int& wait_status);

// Files the outcome of an exited child (see above) and returns it.
PointResult finish_point(const RunningPoint& p, int wait_status);

// Stops a running child (SIGKILL), waits for it and removes its attempt
// folder: the point stays pending.
void abandon_point(RunningPoint& p);

// Starts, waits (polling every 20 ms) and finishes one point.
PointResult run_point(const std::string& binary, const std::string& point_dir, double timeout_s);

}  // namespace npusim::sweep
