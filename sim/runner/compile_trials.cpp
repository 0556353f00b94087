#include "sim/runner/compile_trials.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "sim/compiler/mapper.h"
#include "sim/compiler/network_estimate.h"
#include "sim/compiler/tiler.h"
#include "sim/program/trace_io.h"
#include "sim/runner/runner.h"

namespace npusim {

namespace {

// Halved cache budgets are tried while their estimate is within this
// fraction of the whole cache's, at most kCacheTrialDepth programs below the
// whole cache's (a halving that compiles the program of the budget before
// it is skipped, not counted). On the grid of
// docs/performance.md#compile-trials, 5 % and three halvings took the cache
// moves with more cycles from 47 to 11 for 1.85 times the trials; larger
// margins ran more trials and removed none more.
constexpr double kCacheTrialMargin = 0.05;
constexpr uint32_t kCacheTrialDepth = 3;

// What a child writes back: "ok CYCLES DRAM_BYTES" or "fail MESSAGE".
constexpr size_t kMaxReply = 2048;  // under PIPE_BUF: the child never blocks

struct Child {
  pid_t pid = -1;
  int read_fd = -1;
  size_t trial = 0;
};

// In the child: simulate `hw` (the trial's compiler.units and cache_kib)
// timing only and write the reply. Never returns.
[[noreturn]] void run_trial(int write_fd, const NetworkConfig& network, const HardwareConfig& hw) {
  std::string reply;
  try {
    RunOptions options;
    options.timing_only = true;
    options.progress = false;
    const std::unique_ptr<RunResult> r = run_network(network, hw, options);
    const auto counted = [&](const char* name) {
      const Counter* c = r->stats->find(name);
      return c != nullptr ? c->total() : 0;
    };
    if (r->outcome.status == RunOutcome::Status::Completed)
      reply = "ok " + std::to_string(r->summary.total_cycles) + " " +
              std::to_string(counted("dram.read_bytes") + counted("dram.write_bytes"));
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
    throw std::runtime_error(std::string("compile trials: pipe failed: ") + std::strerror(errno));
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("compile trials: fork failed: ") + std::strerror(errno));
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

void finish_trial(const Child& child, CompileTrial& trial) {
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
  unsigned long long cycles = 0, bytes = 0;
  if (reply.rfind("ok ", 0) == 0 &&
      std::sscanf(reply.c_str() + 3, "%llu %llu", &cycles, &bytes) == 2) {
    trial.ok = true;
    trial.cycles = cycles;
    trial.dram_bytes = bytes;
  } else if (reply.rfind("fail ", 0) == 0) {
    trial.failure = reply.substr(5);
  } else {
    trial.failure = WIFSIGNALED(status)
                        ? "the trial's process ended on signal " + std::to_string(WTERMSIG(status))
                        : "the trial's process wrote no result";
  }
}

}  // namespace

bool runs_compile_trials(const HardwareConfig& hw) {
  return hw.mapper == Mapper::Cost && hw.trial_mode == TrialMode::Simulate &&
         ((hw.compiler.units == 0 && hw.compute.units > 1) || hw.compiler.cache_kib == 0);
}

namespace {

// The program's text without its region sizes. Two budgets whose programs
// differ only there run the same cycles: the model reads the sizes only for
// the cache.allocated_bytes counter (the runner checks them against the
// cache), so the smaller one need not be simulated.
std::string program_fingerprint(Program program, bool graph) {
  for (LayerDescriptor& d : program.layers)
    d.half_bytes = d.weight_region_bytes = d.params_region_bytes = d.vector_region_bytes = 0;
  std::ostringstream text;
  write_program_jsonl(text, program, nlohmann::json::object(), nlohmann::json::object(), graph);
  return text.str();
}

// The trials: every unit count with the whole cache (or compiler.cache_kib),
// and below it the halved budgets whose estimate is within the margin.
void plan_trials(const NetworkConfig& network, const HardwareConfig& hw, CompileTrials& choice) {
  const std::vector<uint32_t> counts =
      hw.compiler.units != 0 ? std::vector<uint32_t>{hw.compiler.units} : unit_counts(hw);
  for (const uint32_t u : counts) {
    HardwareConfig h = hw;
    h.compiler.units = u;
    CompileTrial whole;
    whole.units = u;
    whole.cache_kib = hw.compiler.cache_kib != 0 ? hw.compiler.cache_kib : hw.cache.size_kib;
    try {
      whole.estimate = estimate_network(network, h).cycles;
    } catch (const std::exception& e) {
      whole.failure = e.what();
      choice.trials.push_back(whole);
      continue;
    }
    choice.trials.push_back(whole);
    if (hw.compiler.cache_kib != 0) continue;
    // The budget before each halving: its estimate and, once needed, its
    // program's fingerprint (compiled only where two estimates are equal: a
    // different estimate is a different program).
    uint32_t previous_kib = 0;  // 0: the whole cache (or compiler.cache_kib)
    uint64_t previous_estimate = whole.estimate;
    std::string previous;
    uint32_t programs = 0;
    for (uint32_t kib = hw.cache.size_kib / 2; kib > hw.cache.kv_kib && programs < kCacheTrialDepth;
         kib /= 2) {
      h.compiler.cache_kib = kib;
      uint64_t estimate = 0;
      bool same = false;
      try {
        estimate = estimate_network(network, h).cycles;
        if (double(estimate) > double(whole.estimate) * (1 + kCacheTrialMargin)) break;
        if (estimate == previous_estimate) {
          if (previous.empty()) {
            HardwareConfig before = h;
            before.compiler.cache_kib = previous_kib;
            previous = program_fingerprint(compile_network(network, before), network.is_graph());
          }
          std::string fingerprint =
              program_fingerprint(compile_network(network, h), network.is_graph());
          same = fingerprint == previous;
          previous = std::move(fingerprint);
        } else {
          previous.clear();
        }
      } catch (const std::exception&) {
        break;  // nothing smaller fits either
      }
      previous_kib = kib;
      previous_estimate = estimate;
      // The larger budget's program again: it would run the same cycles.
      if (same) continue;
      ++programs;
      CompileTrial part;
      part.units = u;
      part.cache_kib = kib;
      part.estimate = estimate;
      choice.trials.push_back(part);
    }
  }
}

}  // namespace

CompileTrials run_compile_trials(const NetworkConfig& network, const HardwareConfig& hw,
                                 bool announce, unsigned jobs) {
  CompileTrials choice;
  if (!runs_compile_trials(hw)) return choice;
  plan_trials(network, hw, choice);
  size_t runnable = 0;
  for (const CompileTrial& t : choice.trials) runnable += t.failure.empty() ? 1 : 0;
  if (runnable <= 1) {
    choice.trials.clear();  // one program: nothing to choose by simulating
    return choice;
  }
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  if (announce)
    spdlog::info(
        "compile trials: simulating {} programs (unit counts and cache budgets), {} at a time",
        runnable, std::min<size_t>(jobs, runnable));
  std::vector<Child> running;
  size_t next = 0;
  try {
    while (next < choice.trials.size() || !running.empty()) {
      while (next < choice.trials.size() && running.size() < jobs) {
        const CompileTrial& t = choice.trials[next];
        if (t.failure.empty()) {
          HardwareConfig trial_hw = hw;
          trial_hw.compiler.units = t.units;
          trial_hw.compiler.cache_kib = t.cache_kib;
          running.push_back(start_trial(network, trial_hw, next));
        }
        ++next;
      }
      if (running.empty()) continue;
      // Children finish in about the order they started; wait for the oldest.
      finish_trial(running.front(), choice.trials[running.front().trial]);
      running.erase(running.begin());
    }
  } catch (...) {
    for (const Child& c : running) finish_trial(c, choice.trials[c.trial]);
    throw;
  }
  const CompileTrial* fastest = nullptr;
  const CompileTrial* estimated = nullptr;
  for (const CompileTrial& t : choice.trials) {
    if (!t.ok) continue;
    // The fewest cycles; on a tie the fewer units, then the larger cache.
    if (fastest == nullptr || t.cycles < fastest->cycles ||
        (t.cycles == fastest->cycles &&
         (t.units < fastest->units ||
          (t.units == fastest->units && t.cache_kib > fastest->cache_kib))))
      fastest = &t;
    if (estimated == nullptr || t.estimate < estimated->estimate) estimated = &t;
  }
  // compiler.traffic_margin: of the programs within the margin of the
  // fewest cycles, the one that moves the fewest DRAM bytes (in trial order
  // on a tie, after the fastest).
  const CompileTrial* chosen = fastest;
  if (fastest != nullptr && hw.compiler.traffic_margin > 0) {
    const double limit = double(fastest->cycles) * (1 + hw.compiler.traffic_margin);
    for (const CompileTrial& t : choice.trials)
      if (t.ok && double(t.cycles) <= limit && t.dram_bytes < chosen->dram_bytes) chosen = &t;
  }
  if (chosen != nullptr) {
    choice.units = chosen->units;
    choice.cache_kib = chosen->cache_kib;
  }
  if (estimated != nullptr) {
    choice.estimated_units = estimated->units;
    choice.estimated_cache_kib = estimated->cache_kib;
  }
  return choice;
}

HardwareConfig compile_target(const HardwareConfig& hw, const CompileTrials& choice) {
  HardwareConfig out = hw;
  if (choice.units != 0) {
    out.compiler.units = choice.units;
    out.compiler.cache_kib = choice.cache_kib == hw.cache.size_kib ? 0 : choice.cache_kib;
  }
  return out;
}

}  // namespace npusim
