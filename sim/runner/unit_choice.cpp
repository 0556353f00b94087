#include "sim/runner/unit_choice.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "sim/compiler/mapper.h"
#include "sim/compiler/network_estimate.h"
#include "sim/runner/runner.h"

namespace npusim {

namespace {

// What a child writes back: "ok CYCLES ESTIMATE" or "fail MESSAGE".
constexpr size_t kMaxReply = 2048;  // under PIPE_BUF: the child never blocks

struct Child {
  pid_t pid = -1;
  int read_fd = -1;
  size_t trial = 0;
};

// In the child: simulate `hw` (compiler.units set) timing only and write the
// reply. Never returns.
[[noreturn]] void run_trial(int write_fd, const NetworkConfig& network, const HardwareConfig& hw) {
  std::string reply;
  try {
    const uint64_t estimate = estimate_network(network, hw).cycles;
    RunOptions options;
    options.timing_only = true;
    options.progress = false;
    const std::unique_ptr<RunResult> r = run_network(network, hw, options);
    if (r->outcome.status == RunOutcome::Status::Completed)
      reply = "ok " + std::to_string(r->summary.total_cycles) + " " + std::to_string(estimate);
    else
      reply = "fail " + r->outcome.message;
  } catch (const std::exception& e) {
    reply = std::string("fail ") + e.what();
  }
  if (reply.size() > kMaxReply) reply.resize(kMaxReply);
  const char* p = reply.data();
  size_t left = reply.size();
  while (left > 0) {
    const ssize_t n = ::write(write_fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= size_t(n);
  }
  ::_exit(0);  // no atexit handlers: they belong to the parent
}

Child start_trial(const NetworkConfig& network, const HardwareConfig& hw, size_t trial) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("choosing the units in use: pipe failed: ") +
                             std::strerror(errno));
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("choosing the units in use: fork failed: ") +
                             std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    // The trial's log lines and progress are not the run's.
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (null_fd >= 0) {
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
    }
    run_trial(fds[1], network, hw);
  }
  ::close(fds[1]);
  return {pid, fds[0], trial};
}

void finish_trial(const Child& child, UnitTrial& trial) {
  std::string reply;
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(child.read_fd, buffer, sizeof buffer);
    if (n > 0) {
      reply.append(buffer, size_t(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  ::close(child.read_fd);
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  unsigned long long cycles = 0, estimate = 0;
  if (reply.rfind("ok ", 0) == 0 &&
      std::sscanf(reply.c_str() + 3, "%llu %llu", &cycles, &estimate) == 2) {
    trial.ok = true;
    trial.cycles = cycles;
    trial.estimate = estimate;
  } else if (reply.rfind("fail ", 0) == 0) {
    trial.failure = reply.substr(5);
  } else {
    trial.failure = WIFSIGNALED(status)
                        ? "the trial's process ended on signal " + std::to_string(WTERMSIG(status))
                        : "the trial's process wrote no result";
  }
}

}  // namespace

bool chooses_units_by_simulation(const HardwareConfig& hw) {
  return hw.mapper == Mapper::Cost && hw.units_chosen_by == UnitsChosenBy::Simulation &&
         hw.compiler.units == 0 && hw.compute.units > 1;
}

UnitChoice choose_units_by_simulation(const NetworkConfig& network, const HardwareConfig& hw,
                                      unsigned jobs) {
  UnitChoice choice;
  if (!chooses_units_by_simulation(hw)) return choice;
  for (const uint32_t u : unit_counts(hw)) {
    choice.trials.emplace_back();
    choice.trials.back().units = u;
  }
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Child> running;
  size_t next = 0;
  try {
    while (next < choice.trials.size() || !running.empty()) {
      while (next < choice.trials.size() && running.size() < jobs) {
        HardwareConfig trial_hw = hw;
        trial_hw.compiler.units = choice.trials[next].units;
        running.push_back(start_trial(network, trial_hw, next));
        ++next;
      }
      // Children finish in about the order they started; wait for the oldest.
      finish_trial(running.front(), choice.trials[running.front().trial]);
      running.erase(running.begin());
    }
  } catch (...) {
    for (const Child& c : running) finish_trial(c, choice.trials[c.trial]);
    throw;
  }
  const UnitTrial* fastest = nullptr;
  const UnitTrial* estimated = nullptr;
  for (const UnitTrial& t : choice.trials) {
    if (!t.ok) continue;
    // Strictly fewer cycles, or as few with fewer units (later in the list).
    if (fastest == nullptr || t.cycles <= fastest->cycles) fastest = &t;
    if (estimated == nullptr || t.estimate < estimated->estimate) estimated = &t;
  }
  if (fastest != nullptr) choice.units = fastest->units;
  if (estimated != nullptr) choice.estimated_units = estimated->units;
  return choice;
}

HardwareConfig with_units(const HardwareConfig& hw, const UnitChoice& choice) {
  HardwareConfig out = hw;
  if (choice.units != 0) out.compiler.units = choice.units;
  return out;
}

}  // namespace npusim
