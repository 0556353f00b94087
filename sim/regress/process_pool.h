// A small process pool: runs commands as child processes, at most N at a
// time, each with its output in a log file and a wall-clock limit after which
// it is killed. Used by `npusim regress`, whose cases must each run in their
// own process (SystemC elaborates once per process).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace npusim::regress {

struct Job {
  std::vector<std::string> argv;  // argv[0] is the executable's path (no shell, no PATH search)
  std::string log_path;           // stdout and stderr, after a "$ command" line
  double timeout_s = 60;          // killed (SIGKILL) after this many seconds
};

struct JobResult {
  int exit_code = -1;  // when the child exited normally
  int signal = 0;      // when a signal ended it (SIGKILL after a timeout)
  bool timed_out = false;
  double wall_s = 0;
  bool ok() const { return exit_code == 0 && signal == 0 && !timed_out; }
  std::string describe() const;  // "exit 2", "killed by signal 11", "timed out after 5 s"
};

// Runs every job, `parallel` at a time, in order of index; calls `done` in the
// calling thread as each one finishes (in completion order).
void run_jobs(const std::vector<Job>& jobs, std::size_t parallel,
              const std::function<void(std::size_t index, const JobResult&)>& done);

// The command line a job runs, shell-quoted, for logs and reports.
std::string command_line(const std::vector<std::string>& argv);

}  // namespace npusim::regress
