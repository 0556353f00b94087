// One simulation run, end to end: compile the network for the hardware, lay
// its tensors into the DRAM image, run the SystemC model, read the outputs
// back and compare them bit for bit with the independent reference.
// SystemC elaborates once per process: call run_network once per process.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/accelerator.h"
#include "sim/compiler/network_estimate.h"
#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"
#include "sim/program/program_fit.h"
#include "sim/report/report.h"
#include "sim/stats/stats_registry.h"
#include "sim/stats/timeline.h"
#include "sim/tensor/tensor.h"

namespace npusim {

// 4 GiB of tensors; the whole ResNet-50 graph holds 57 MiB (docs/robustness.md#limits).
inline constexpr uint64_t kDefaultMaxWorkloadBytes = uint64_t(4) << 30;

struct RunOptions {
  bool timing_only = false;   // skip arithmetic and the reference check; same cycles
  bool keep_outputs = false;  // keep each layer's output tensor in the result
  bool progress = true;       // progress lines on stderr
  // Fault injection for tests: edits the compiled program before it runs
  // (e.g. drops a dependency to show the buffers catch the early read).
  std::function<void(Program&)> edit_program;
  // Run this program (e.g. replayed from a trace) instead of compiling one.
  const Program* program = nullptr;
  // Where each of its layers was read ("file.jsonl:3"), named in errors; may be empty.
  std::vector<std::string> program_layer_lines;
  // The compiler's estimate for the hardware the program is compiled for
  // (estimate_network's result, e.g. a compile trial's): the program takes its
  // partition and mappings instead of choosing them again (compile_network).
  const NetworkEstimate* estimate = nullptr;
  bool record_timeline = false;        // fill RunResult::timeline (for --trace)
  bool record_dram_transfers = false;  // fill RunResult::dram_transfers (tests)
  // Tests only: skip validate_program, to show the deadlock detector works on
  // a program no file or compiler can produce (a dependency pointing forward).
  bool skip_validation = false;
  // Refuse (std::invalid_argument, before allocating anything) a workload whose
  // tensors (workload_tensor_bytes) exceed this: `run --max-workload-mib`.
  uint64_t max_workload_bytes = kDefaultMaxWorkloadBytes;
};

struct RunResult {
  NetworkConfig network;
  HardwareConfig hw;
  Program program;
  std::unique_ptr<StatsRegistry> stats;
  Timeline timeline;
  std::vector<DramTransferRecord> dram_transfers;  // when RunOptions::record_dram_transfers
  RunOutcome outcome;
  // The stats, outcome and tilings are the chosen compile trial's simulation
  // (a timing-only run after the trials), not a simulation of its own; then
  // `program` is empty: the trial's process compiled it.
  bool simulated_by_trial = false;
  // The compile trials that settled the program's units and cache
  // (compile_trials.h); no trials when there was nothing to choose.
  CompileTrials compile_trials;
  RunSummary summary;             // points into the members above
  std::vector<TensorI8> outputs;  // N,Ho,Wo,K per layer when keep_outputs
  // Graph workloads: each operator's output values (int8/uint8/int32), N,Ho,Wo,K.
  std::vector<TensorI32> operator_outputs;
  // Graph workloads: each graph input's N,H,W,C bytes the run used (when keep_outputs).
  std::vector<TensorI8> graph_inputs;

  // Completed, and (unless timing-only) every layer matches the reference.
  bool ok() const;
};

struct KernelStream;
// A replayed program must carry the kernel streams of the workload's weights. Throws
// ProgramError naming the layer, and its line (`layer_lines[l]`, "file.jsonl:3") when given.
void check_kernel_streams(const Program& program, const std::vector<KernelStream>& kernels,
                          const std::vector<std::string>& layer_lines = {});

// compile_network plus the kernel streams (seed 002) of the workload's weights.
Program compile_for_workload(const NetworkConfig& network, const HardwareConfig& hw,
                             const NetworkEstimate* estimate = nullptr);

// Throws CompileError when a layer does not fit, std::runtime_error for data
// problems (e.g. a .npy of the wrong shape). Simulation errors and deadlocks
// are reported in RunResult::outcome.
std::unique_ptr<RunResult> run_network(const NetworkConfig& network, const HardwareConfig& hw,
                                       const RunOptions& options);
// The same, keeping `network` in RunResult::network without a copy.
std::unique_ptr<RunResult> run_network(NetworkConfig&& network, const HardwareConfig& hw,
                                       const RunOptions& options);

}  // namespace npusim
