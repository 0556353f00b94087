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
#include <utility>
#include <vector>

#include "sim/compiler/estimate_memo.h"
#include "sim/compiler/mapper.h"
#include "sim/compiler/network_estimate.h"
#include "sim/compiler/program_emitter.h"
#include "sim/compiler/tiler.h"
#include "sim/program/trace_io.h"
#include "sim/runner/kernel_summary_cache.h"
#include "sim/runner/runner.h"
#include "sim/runner/simulation_record.h"
#include "sim/runner/trial_choice_cache.h"

namespace npusim {

namespace {

// Halved cache budgets are tried while their estimate is within this
// fraction of the whole cache's, at most kCacheTrialDepth programs below the
// whole cache's (a halving that compiles the program of the budget before
// it is skipped, not counted). On the grid of
// docs/compile-trials.md#compile-trials, 5 % and three halvings took the cache
// moves with more cycles from 47 to 11 for 1.85 times the trials; larger
// margins ran more trials and removed none more.
constexpr double kCacheTrialMargin = 0.05;
constexpr uint32_t kCacheTrialDepth = 3;
// Smaller parts of the array are tried, rows and columns this many fewer at
// a time, while their estimate is within this fraction of the whole
// array's (docs/compile-trials.md#array-in-use).
constexpr uint32_t kArrayTrialStep = 8;
constexpr double kArrayTrialMargin = 0.05;

// What a child writes back: "ok CYCLES DRAM_BYTES", a newline and its
// simulation's record (simulation_record.h), or "fail MESSAGE". The parent
// reads the children in the order they started; one that finished first waits
// on its pipe, its simulation done, until the parent reaches it.
constexpr size_t kMaxFailure = 2048;

struct Child {
  pid_t pid = -1;
  int read_fd = -1;
  size_t trial = 0;
};

// In the child: simulate `hw` (the trial's compiler.units and cache_kib)
// timing only and write the reply. Never returns. Never inlined: tools/bench
// counts a trial's own instructions as this function's in the child's profile.
[[noreturn, gnu::noinline]] void run_trial(int write_fd, const NetworkConfig& network,
                                           const HardwareConfig& hw,
                                           const NetworkEstimate& estimate) {
  std::string reply;
  try {
    RunOptions options;
    options.timing_only = true;
    options.progress = false;
    options.estimate = &estimate;  // the parent's: the program is not mapped again
    const std::unique_ptr<RunResult> r = run_network(network, hw, options);
    const auto counted = [&](const char* name) {
      const Counter* c = r->stats->find(name);
      return c != nullptr ? c->total() : 0;
    };
    if (r->outcome.status == RunOutcome::Status::Completed)
      reply = "ok " + std::to_string(r->summary.total_cycles) + " " +
              std::to_string(counted("dram.read_bytes") + counted("dram.write_bytes")) + "\n" +
              encode_simulation(*r->stats, r->outcome, r->summary.tiling,
                                r->program.instructions.size());
    else
      reply = "fail " + r->outcome.message.substr(0, kMaxFailure);
  } catch (const std::exception& e) {
    reply = "fail " + std::string(e.what()).substr(0, kMaxFailure);
  }
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

Child start_trial(const NetworkConfig& network, const HardwareConfig& hw,
                  const NetworkEstimate& estimate, size_t trial) {
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
    run_trial(fds[1], network, hw, estimate);
  }
  ::close(fds[1]);
  return {pid, fds[0], trial};
}

// Reads the child's reply into `trial`, and its simulation's record into `record`.
void finish_trial(const Child& child, CompileTrial& trial, std::string& record) {
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
  const size_t line_end = reply.find('\n');
  if (reply.rfind("ok ", 0) == 0 && line_end != std::string::npos &&
      std::sscanf(reply.substr(3, line_end - 3).c_str(), "%llu %llu", &cycles, &bytes) == 2) {
    trial.ok = true;
    trial.cycles = cycles;
    trial.dram_bytes = bytes;
    record = reply.substr(line_end + 1);
  } else if (reply.rfind("fail ", 0) == 0) {
    trial.failure = reply.substr(5);
  } else {
    trial.failure = WIFSIGNALED(status)
                        ? "the trial's process ended on signal " + std::to_string(WTERMSIG(status))
                        : "the trial's process wrote no result";
  }
}

}  // namespace

// The header and layers are their program-file text; the instructions,
// thousands of them, are their fields as raw bytes (every field the file
// writes, and the AGU registers it derives from the layer), which costs a
// tenth of writing them as text.
std::string program_fingerprint(const Program& program, bool graph) {
  Program layers;
  layers.layers = program.layers;
  layers.dram_bytes = program.dram_bytes;
  layers.graph_input_addresses = program.graph_input_addresses;
  for (LayerDescriptor& d : layers.layers)
    d.half_bytes = d.weight_region_bytes = d.params_region_bytes = d.vector_region_bytes = 0;
  std::ostringstream text;
  write_program_jsonl(text, layers, nlohmann::json::object(), nlohmann::json::object(), graph);
  // Each instruction's fields are gathered as words and appended at once (one
  // append per instruction, not per field; the string grows as it did).
  std::string bytes = text.str();
  std::vector<uint64_t> words;
  const auto put = [&words](uint64_t v) { words.push_back(v); };
  for (const Instruction& in : program.instructions) {
    words.clear();
    put(in.id);
    put(uint64_t(in.op));
    put(in.layer);
    put(in.unit);
    put(in.half);
    put(in.batch);
    put(in.k_begin);
    put(in.k_end);
    put(in.out_row_begin);
    put(in.out_row_end);
    put(in.out_col_begin);
    put(in.out_col_end);
    put(in.stages);
    put(in.channel_begin);
    put(in.channel_end);
    put(in.deps.size());
    for (const Dependency& d : in.deps) put(uint64_t(d.producer) << 8 | uint64_t(d.kind));
    if (in.op == Opcode::AguInit && in.layer < layers.layers.size())
      for (const AguRegister& r : agu_registers(layers.layers[in.layer])) put(r.value);
    bytes.append(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(uint64_t));
  }
  return bytes;
}

bool runs_compile_trials(const HardwareConfig& hw) {
  return hw.mapper == Mapper::Cost && hw.trial_mode == TrialMode::Simulate &&
         ((hw.compiler.units == 0 && hw.compute.units > 1) || hw.compiler.cache_kib == 0 ||
          array_parts(hw).size() > 1 || hw.loop_order == LoopOrder::Auto ||
          hw.residency == Residency::Auto);
}

namespace {

// `h` with compiler.loop_order weight_stationary: a trial's twin.
HardwareConfig weight_stationary_twin(HardwareConfig h) {
  h.loop_order = LoopOrder::WeightStationary;
  return h;
}

// Adds `trial`, compiled for `h` and estimated `e`; under compiler.loop_order
// auto, when some layer is feature-stationary, also its twin compiled
// weight-stationary everywhere: the per-layer estimates may prefer
// feature-stationary where the simulation does not, so both run. Returns the
// larger of the two estimates: the margins of the smaller budgets and parts
// are taken against it, so they keep every budget and part the
// weight-stationary trials would (a budget's per-layer estimate is at most
// its weight-stationary one).
// Each trial's estimate goes to `estimates`, in step with choice.trials.
uint64_t add_with_twin(const NetworkConfig& network, const HardwareConfig& h, CompileTrial trial,
                       const NetworkEstimate& e, CompileTrials& choice,
                       std::vector<NetworkEstimate>& estimates, MachineEstimates& memo) {
  const bool feature_stationary =
      std::any_of(e.operators.begin(), e.operators.end(),
                  [](const OperatorEstimate& o) { return o.feature_stationary; });
  trial.estimate = e.cycles;
  choice.trials.push_back(trial);
  estimates.push_back(e);
  if (h.loop_order == LoopOrder::Auto && feature_stationary) {
    CompileTrial twin = trial;
    twin.weight_stationary = true;
    estimates.push_back(estimate_network(network, weight_stationary_twin(h), &memo));
    twin.estimate = estimates.back().cycles;
    choice.trials.push_back(twin);
    return std::max(trial.estimate, twin.estimate);
  }
  return trial.estimate;
}

// Under compiler.residency auto, each trial that fits is followed by its twin
// compiled without the memory plan: the same mappings (the estimate does not
// weigh the plan), so the trials keep the plan only where it runs faster, and
// an `auto` run never takes more cycles than `off` with the same trials.
void add_residency_twins(CompileTrials& choice, std::vector<NetworkEstimate>& estimates) {
  std::vector<CompileTrial> trials;
  std::vector<NetworkEstimate> twinned;
  for (size_t i = 0; i < choice.trials.size(); ++i) {
    trials.push_back(choice.trials[i]);
    twinned.push_back(estimates[i]);
    if (!choice.trials[i].failure.empty()) continue;
    trials.push_back(choice.trials[i]);
    trials.back().residency_off = true;
    twinned.push_back(estimates[i]);
  }
  choice.trials = std::move(trials);
  estimates = std::move(twinned);
}

// The programs a budget's trials run: its program (compiled from its
// estimate `e`, which holds the partition and mappings compile_network would
// choose again) and, under loop_order auto, its weight-stationary twin too
// (two budgets may share the per-layer program and not the twin).
std::string budget_fingerprint(const NetworkConfig& network, const HardwareConfig& h,
                               const NetworkEstimate& e) {
  std::string text = program_fingerprint(compile_network(network, h, &e), network.is_graph());
  if (h.loop_order == LoopOrder::Auto)
    text += program_fingerprint(compile_network(network, weight_stationary_twin(h)),
                                network.is_graph());
  return text;
}

// One unit count's trials on one part of the array: the whole cache (or
// compiler.cache_kib), and below it the halved budgets whose estimate is
// within the margin of the whole cache's. Returns the whole cache's trial,
// its estimate the one the margins are taken against (add_with_twin). With
// `limit` (a smaller part of the array: the whole array's estimate plus its
// margin), a whole cache estimated above it ends there: the caller drops the
// part, so its halved budgets are not estimated.
CompileTrial plan_cache_budgets(const NetworkConfig& network, HardwareConfig h,
                                CompileTrials& choice, std::vector<NetworkEstimate>& estimates,
                                MachineEstimates& memo, double limit = 0) {
  CompileTrial whole;
  whole.units = h.compiler.units;
  whole.cache_kib = h.compiler.cache_kib != 0 ? h.compiler.cache_kib : h.cache.size_kib;
  whole.array_rows = h.rows_in_use();
  whole.array_cols = h.cols_in_use();
  NetworkEstimate estimate;
  try {
    estimate = estimate_network(network, h, &memo, limit);
  } catch (const std::exception& e) {
    whole.failure = e.what();
    return whole;
  }
  whole.estimate = estimate.cycles;  // UINT64_MAX over the limit: the caller drops the part
  if (estimate.over_limit) return whole;
  const uint64_t reference = add_with_twin(network, h, whole, estimate, choice, estimates, memo);
  if (h.compiler.cache_kib != 0 || (limit > 0 && double(reference) > limit)) {
    whole.estimate = reference;
    return whole;
  }
  // The budget before each halving: its estimate and, once needed, its
  // program's fingerprint (compiled only where two estimates are equal: a
  // different estimate is a different program).
  uint32_t previous_kib = 0;  // 0: the whole cache (or compiler.cache_kib)
  uint64_t previous_estimate = whole.estimate;
  NetworkEstimate previous_network = estimate;  // the budget before's, whole
  std::string previous;
  uint32_t programs = 0;
  NetworkEstimate halved;
  // The most a halved budget may be estimated at and still be tried.
  const double margin = double(reference) * (1 + kCacheTrialMargin);
  for (uint32_t kib = h.cache.size_kib / 2; kib > h.cache.kv_kib && programs < kCacheTrialDepth;
       kib /= 2) {
    h.compiler.cache_kib = kib;
    uint64_t estimate = 0;
    bool same = false;
    try {
      halved = estimate_network(network, h, &memo, margin);
      estimate = halved.cycles;
      if (halved.over_limit || double(estimate) > margin) break;
      if (estimate == previous_estimate) {
        if (previous.empty()) {
          HardwareConfig before = h;
          before.compiler.cache_kib = previous_kib;
          previous = budget_fingerprint(network, before, previous_network);
        }
        std::string fingerprint = budget_fingerprint(network, h, halved);
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
    previous_network = halved;
    // The larger budget's program again: it would run the same cycles.
    if (same) continue;
    ++programs;
    CompileTrial part = whole;
    part.cache_kib = kib;
    add_with_twin(network, h, part, halved, choice, estimates, memo);
  }
  whole.estimate = reference;
  return whole;
}

// The trials: for every unit count, the whole array and then each smaller
// part of it whose whole-cache estimate is within the margin of the whole
// array's, each with its cache budgets.
void plan_trials(const NetworkConfig& network, const HardwareConfig& hw, CompileTrials& choice,
                 std::vector<NetworkEstimate>& estimates) {
  const std::vector<uint32_t> counts =
      hw.compiler.units != 0 ? std::vector<uint32_t>{hw.compiler.units} : unit_counts(hw);
  const std::vector<std::pair<uint32_t, uint32_t>> parts = array_parts(hw);
  for (const uint32_t u : counts) {
    uint64_t whole_array = 0;
    for (size_t p = 0; p < parts.size(); ++p) {
      // The estimates of this unit count and part of the array, shared by
      // its cache budgets (and loop-order twins); none serves another.
      MachineEstimates memo;
      HardwareConfig h = hw;
      h.compiler.units = u;
      h.compiler.array_rows = parts[p].first;
      h.compiler.array_cols = parts[p].second;
      const size_t before = choice.trials.size();
      const CompileTrial whole =
          plan_cache_budgets(network, h, choice, estimates, memo,
                             p == 0 ? 0 : double(whole_array) * (1 + kArrayTrialMargin));
      if (p == 0) {
        if (!whole.failure.empty()) {
          choice.trials.push_back(whole);  // reported: this unit count does not fit
          estimates.emplace_back();
          break;
        }
        whole_array = whole.estimate;
        continue;
      }
      // A smaller part estimated beyond the margin, or not fitting: the
      // parts below it would be estimated slower still.
      if (!whole.failure.empty() ||
          double(whole.estimate) > double(whole_array) * (1 + kArrayTrialMargin)) {
        choice.trials.resize(before);
        estimates.resize(before);
        break;
      }
    }
  }
}

}  // namespace

// A machine 8, 16, ... rows and columns larger lists every part a smaller one
// lists.
std::vector<std::pair<uint32_t, uint32_t>> array_parts(const HardwareConfig& hw) {
  if (hw.compiler.array_rows != 0 || hw.compiler.array_cols != 0)
    return {{hw.rows_in_use(), hw.cols_in_use()}};
  const uint32_t rows = hw.compute.array_rows, cols = hw.compute.array_cols;
  std::vector<std::pair<uint32_t, uint32_t>> parts = {{rows, cols}};
  if (hw.array_parts == ArrayParts::Whole) return parts;
  for (uint32_t less = kArrayTrialStep;; less += kArrayTrialStep) {
    const auto shrink = [less](uint32_t n) {
      const uint32_t floor = std::min(n, kArrayTrialStep);
      return n > less + floor ? n - less : floor;
    };
    const std::pair<uint32_t, uint32_t> part = {shrink(rows), shrink(cols)};
    if (part == parts.back()) break;
    parts.push_back(part);
  }
  return parts;
}

CompileTrials run_compile_trials(const NetworkConfig& network, const HardwareConfig& hw,
                                 bool announce, unsigned jobs, NetworkEstimate* chosen_estimate,
                                 std::string* chosen_record) {
  CompileTrials choice;
  if (!runs_compile_trials(hw)) return choice;
  // A run of this network on this hardware by this build settled the trials already: its
  // choice is compiled straight away (trial_choice_cache.h).
  const std::string cache = kernel_summary_cache_dir();
  const std::string key = cache.empty() ? "" : trial_choice_key(network, hw);
  NetworkEstimate kept_estimate;
  if (read_trial_choice(cache, key, choice, kept_estimate)) {
    if (announce)
      spdlog::info(
          choice.trials.empty()
              ? "compile trials: none to simulate; the mapping an earlier run of this network "
                "and hardware chose (kept in {})"
              : "compile trials: the choice of an earlier run of this network and hardware "
                "(kept in {})",
          cache);
    if (chosen_estimate != nullptr) *chosen_estimate = std::move(kept_estimate);
    return choice;
  }
  std::vector<NetworkEstimate> estimates;  // each trial's, in step with choice.trials
  plan_trials(network, hw, choice, estimates);
  if (hw.residency == Residency::Auto) add_residency_twins(choice, estimates);
  size_t runnable = 0;
  for (const CompileTrial& t : choice.trials) runnable += t.failure.empty() ? 1 : 0;
  if (runnable <= 1) {
    choice.trials.clear();  // one program: nothing to choose by simulating
    // The partition compile_network would choose, worked out here so that it is kept too: a
    // later run maps nothing. Where it cannot be chosen, compile_network says why.
    try {
      NetworkEstimate partition = network_partition(network, hw);
      write_trial_choice(cache, key, choice, partition);
      if (chosen_estimate != nullptr) *chosen_estimate = std::move(partition);
    } catch (const std::exception&) {
    }
    return choice;
  }
  // Counted once here, the trials' processes inherit the counts (and the run after them).
  warm_kernel_counts(network, hw.compute_mode);
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  if (announce)
    spdlog::info(
        "compile trials: simulating {} programs (unit counts, parts of the array, cache "
        "budgets and loop orders), {} at a time",
        runnable, std::min<size_t>(jobs, runnable));
  std::vector<std::string> records(choice.trials.size());  // each simulated trial's
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
          trial_hw.compiler.array_rows = t.array_rows;
          trial_hw.compiler.array_cols = t.array_cols;
          if (t.weight_stationary) trial_hw.loop_order = LoopOrder::WeightStationary;
          if (t.residency_off) trial_hw.residency = Residency::Off;
          // A trial is one program: its child compiles it and tries nothing
          // more (loop_order auto alone would start trials again).
          trial_hw.trial_mode = TrialMode::Off;
          running.push_back(start_trial(network, trial_hw, estimates[next], next));
        }
        ++next;
      }
      if (running.empty()) continue;
      // Children finish in about the order they started; wait for the oldest.
      finish_trial(running.front(), choice.trials[running.front().trial],
                   records[running.front().trial]);
      running.erase(running.begin());
    }
  } catch (...) {
    for (const Child& c : running) finish_trial(c, choice.trials[c.trial], records[c.trial]);
    throw;
  }
  // The fewest cycles; on a tie the fewer units, then the larger cache, then
  // the larger part of the array.
  const auto preferred = [](const CompileTrial& a, const CompileTrial& b) {
    if (a.cycles != b.cycles) return a.cycles < b.cycles;
    if (a.units != b.units) return a.units < b.units;
    if (a.cache_kib != b.cache_kib) return a.cache_kib > b.cache_kib;
    return uint64_t(a.array_rows) * a.array_cols > uint64_t(b.array_rows) * b.array_cols;
  };
  const CompileTrial* fastest = nullptr;
  const CompileTrial* estimated = nullptr;
  for (const CompileTrial& t : choice.trials) {
    if (!t.ok) continue;
    if (fastest == nullptr || preferred(t, *fastest)) fastest = &t;
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
  if (estimated != nullptr) choice.estimated = *estimated;
  if (chosen != nullptr) {
    choice.chosen = *chosen;
    write_trial_choice(cache, key, choice, estimates[size_t(chosen - choice.trials.data())]);
    if (chosen_estimate != nullptr)
      *chosen_estimate = std::move(estimates[size_t(chosen - choice.trials.data())]);
    if (chosen_record != nullptr)
      *chosen_record = std::move(records[size_t(chosen - choice.trials.data())]);
  }
  return choice;
}

HardwareConfig compile_target(const HardwareConfig& hw, const CompileTrials& choice) {
  HardwareConfig out = hw;
  if (choice.chosen.units != 0) {
    const CompileTrial& c = choice.chosen;
    // Recorded even for the whole cache and the whole array, so that a
    // compile from the program's header tries nothing more.
    out.compiler.units = c.units;
    out.compiler.cache_kib = c.cache_kib;
    out.compiler.array_rows = c.array_rows;
    out.compiler.array_cols = c.array_cols;
    if (c.weight_stationary) out.loop_order = LoopOrder::WeightStationary;
    if (c.residency_off) out.residency = Residency::Off;
  }
  return out;
}

}  // namespace npusim
