#include "sim/runner/runner.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "models/banked_dram.h"
#include "sim/compiler/kernel_stream.h"
#include "sim/compiler/mapper.h"
#include "sim/compiler/program_emitter.h"
#include "sim/compiler/tiler.h"
#include "sim/program/batch_rows.h"
#include "sim/program/program_fit.h"
#include "sim/program/vector_tiling.h"
#include "sim/reference/gemm_s16.h"
#include "sim/runner/compile_trials.h"
#include "sim/runner/graph_reference.h"
#include "sim/runner/kernel_summary_cache.h"
#include "sim/runner/layer_io.h"
#include "sim/runner/progress_meter.h"
#include "sim/runner/simulation_record.h"
#include "sim/workload/layer_data.h"

namespace npusim {
namespace {

// An output (N,H,W,K: a layer's int8 bytes, or a graph operator's int32
// values) against its reference: the digest, and the first difference.
template <typename T>
LayerCheck compare(const Tensor<T>& sim, const Tensor<T>& ref) {
  LayerCheck check;
  check.checked = true;
  check.digest = digest_hex(sim.data.data(), sim.size() * sizeof(T));
  if (sim.shape != ref.shape) {
    const auto dims = [](const auto& shape) {
      std::ostringstream s;
      for (size_t d = 0; d < shape.size(); ++d) s << (d ? "x" : "") << shape[d];
      return s.str();
    };
    check.mismatch = "the simulator's output is " + dims(sim.shape) +
                     " (N,H,W,K), the reference's " + dims(ref.shape);
    return check;
  }
  for (uint64_t i = 0; i < sim.size(); ++i) {
    if (sim.data[i] != ref.data[i]) {
      const uint32_t K = sim.shape[3], W = sim.shape[2], H = sim.shape[1];
      std::ostringstream s;
      s << "at [n=" << i / (uint64_t(H) * W * K) << ", h=" << (i / (uint64_t(W) * K)) % H
        << ", w=" << (i / K) % W << ", k=" << i % K << "]: simulator " << int64_t(sim.data[i])
        << ", reference " << int64_t(ref.data[i]);
      check.mismatch = s.str();
      return check;
    }
  }
  check.match = true;
  return check;
}

// The data every graph input gets.
std::vector<TensorI8> graph_input_data(const NetworkConfig& net) {
  std::vector<TensorI8> inputs;
  for (const GraphInput& g : net.graph_inputs) inputs.push_back(make_graph_input(g));
  return inputs;
}

// Every layer's reference output, in the form its store writes. A chained
// layer's input is its producer's reference output, never the simulator's,
// so the check stays independent of the model.
std::vector<TensorI8> reference_outputs(const NetworkConfig& net, const Program& program,
                                        const std::vector<LayerData>& data) {
  std::vector<TensorI8> expected;
  expected.reserve(net.layers.size());
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const bool chained = l > 0 && net.chained[l];
    try {
      expected.push_back(reference_output(net.layers[l], program.layers[l], data[l],
                                          chained ? expected[l - 1] : data[l].input));
    } catch (const std::invalid_argument& e) {  // the reference's refusals name no layer
      throw std::invalid_argument("layer '" + net.layers[l].name + "': " + e.what());
    }
  }
  return expected;
}

}  // namespace

void check_kernel_streams(const Program& p, const std::vector<KernelStream>& kernels,
                          const std::vector<std::string>& layer_lines) {
  // "format raw, 6130 non-zero coefficients in 96 kernels"
  const auto stream = [](WeightFormat format, const KernelCounts& nonzeros) {
    uint64_t total = 0;
    for (uint32_t n : nonzeros) total += n;
    return "format " + std::string(to_string(format)) + ", " + std::to_string(total) +
           " non-zero coefficients in " + std::to_string(nonzeros.size()) + " kernels";
  };
  for (size_t l = 0; l < p.layers.size() && l < kernels.size(); ++l) {
    const LayerDescriptor& d = p.layers[l];
    if (d.weight_format != kernels[l].format || d.kernel_nonzeros != kernels[l].nonzeros)
      throw ProgramError((l < layer_lines.size() ? layer_lines[l] + ": " : std::string()) +
                         "layer " + d.name + ": the program's kernel stream (" +
                         stream(d.weight_format, d.kernel_nonzeros) +
                         ") does not match the workload's weights (" +
                         stream(kernels[l].format, kernels[l].nonzeros) +
                         "); recompile it for this workload and compute.mode");
  }
}

// For each layer, the earlier array operator whose weight region it shares
// (the compiler gives operators with the same seeded weights one region), or
// -1. A batch_matmul's "weights" are an activation and are never shared.
static std::vector<int64_t> shared_weight_sources(const NetworkConfig& net, const Program& p) {
  std::vector<int64_t> from(net.layers.size(), -1);
  std::map<uint64_t, size_t> first;  // weights_address -> first layer
  for (size_t l = 0; l < net.layers.size() && l < p.layers.size(); ++l) {
    const LayerConfig& L = net.layers[l];
    if (!L.quantized || !runs_on_array(L.op) || L.op == OpKind::BatchMatMul) continue;
    const auto [it, inserted] = first.emplace(p.layers[l].weights_address, l);
    if (!inserted) from[l] = int64_t(it->second);
  }
  return from;
}

Program compile_for_workload(const NetworkConfig& network, const HardwareConfig& hw,
                             const NetworkEstimate* estimate) {
  Program program = compile_network(network, hw, estimate);
  // A program file holds each kernel stream's format and non-zero counts, not its
  // bytes: counted from the seeded draws without storing them, once per weight
  // region (operators the emitter gave one region take the first one's).
  const std::string cache = kernel_summary_cache_dir();
  const std::vector<int64_t> weights_from = shared_weight_sources(network, program);
  for (size_t l = 0; l < network.layers.size(); ++l) {
    if (!runs_on_array(network.layers[l].op)) continue;
    LayerDescriptor& d = program.layers[l];
    if (weights_from[l] >= 0) {
      const LayerDescriptor& first = program.layers[size_t(weights_from[l])];
      d.weight_format = first.weight_format;
      d.kernel_nonzeros = first.kernel_nonzeros;
      continue;
    }
    attach_kernel_stream(
        d, timing_kernel_summary(network.layers[l], kernel_stream_mode(d, hw.compute_mode), cache));
  }
  return program;
}

bool RunResult::ok() const {
  return outcome.status == RunOutcome::Status::Completed &&
         (summary.timing_only || all_layers_match(summary));
}

namespace {

// The summary's pointers into the result and the figures it copies from it.
void point_summary_at_result(RunResult& r, bool timing_only) {
  r.summary.hw = &r.hw;
  r.summary.compile_trials = &r.compile_trials;
  if (r.hw.dram.model == DramModel::Banked) {
    r.summary.dram_channels = &r.outcome.dram_channels;
    r.summary.dram_sustained_bytes_per_cycle =
        sustained_read_bytes_per_cycle(r.hw.dram, r.hw.clock_mhz);
  }
  r.summary.network = &r.network;
  r.summary.stats = r.stats.get();
  r.summary.total_cycles = r.outcome.cycles;
  r.summary.timing_only = timing_only;
}

}  // namespace

std::unique_ptr<RunResult> run_network(const NetworkConfig& network, const HardwareConfig& hw,
                                       const RunOptions& options) {
  return run_network(NetworkConfig(network), hw, options);
}

std::unique_ptr<RunResult> run_network(NetworkConfig&& network, const HardwareConfig& hw,
                                       const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  // A timing-only run allocates no activations, so only its weights count.
  const uint64_t tensor_bytes =
      options.timing_only ? workload_weight_bytes(network) : workload_tensor_bytes(network);
  if (tensor_bytes > options.max_workload_bytes) {
    const auto mib = [](uint64_t b) { return std::to_string(b >> 20); };
    char held[32];
    std::snprintf(held, sizeof held, "%.1f", double(tensor_bytes) / double(1 << 20));
    throw std::invalid_argument(
        "workload " + network.name + " holds " + held +
        (options.timing_only
             ? " MiB of weights (a timing-only run counts its weights, not its activations)"
             : " MiB of tensors (every layer's input, weights and output)") +
        ", more than the limit of " + mib(options.max_workload_bytes) +
        " MiB; raise it with --max-workload-mib if the host "
        "has the memory (a functional run needs a few times this)");
  }
  // Before the progress meter's thread starts: the trials are forked children.
  CompileTrials compile_trials;
  // The chosen trial's estimate (or, with no trials to simulate, compile_network's own
  // partition): the program is compiled from it.
  NetworkEstimate chosen_estimate;
  std::string chosen_record;  // the chosen trial's simulation (simulation_record.h)
  if (options.program == nullptr && runs_compile_trials(hw))
    compile_trials =
        run_compile_trials(network, hw, options.progress, 0, &chosen_estimate, &chosen_record);
  const NetworkEstimate* estimate =
      chosen_estimate.partition.units != 0 ? &chosen_estimate : options.estimate;
  // A progress line on a terminal for runs past a second (progress_meter.h);
  // the meter's thread reads only these atomics and the DRAM model's.
  std::atomic<const Accelerator*> running{nullptr};
  std::atomic<int> phase{0};
  const uint32_t layer_count = uint32_t(network.layers.size());
  ProgressMeter meter(options.progress, [&running, &phase, layer_count] {
    static const char* const kPhases[] = {"preparing", "simulating", "checking outputs"};
    ProgressSample sample;
    sample.layers = layer_count;
    if (const Accelerator* a = running.load()) {
      const Dram::Progress p = a->progress();
      sample.done = p.stored;
      sample.total = p.total;
      sample.layers_done = p.layers_done;
    }
    sample.phase = kPhases[phase.load()];
    return sample;
  });
  auto result = std::make_unique<RunResult>();
  RunResult& r = *result;
  r.network = std::move(network);  // not used below: a decoder's 51,084 operators are not copied
  r.hw = hw;
  r.compile_trials = std::move(compile_trials);
  const size_t layers = r.network.layers.size();
  // A timing-only run of the program a compile trial simulated takes that
  // trial's simulation: the program its process compiled and simulated on the
  // same timed hardware, every counter and each layer's tiling
  // (docs/compile-trials.md#the-run-after-the-trials). It compiles nothing and
  // holds no program. A trace, the DRAM transfers or an edited program need a
  // simulation of their own.
  if (options.timing_only && !chosen_record.empty() && !options.record_timeline &&
      !options.record_dram_transfers && !options.edit_program) {
    DecodedSimulation trial = decode_simulation(chosen_record, uint32_t(layers));
    std::string().swap(chosen_record);
    meter.stop();
    if (options.progress)
      spdlog::info(
          "simulation: the chosen compile trial's ({} instructions, timing only, the same "
          "program)",
          trial.instructions);
    r.simulated_by_trial = true;
    r.stats = std::move(trial.stats);
    r.outcome = std::move(trial.outcome);
    r.summary.checks.assign(layers, LayerCheck{});
    point_summary_at_result(r, true);
    r.summary.tiling = std::move(trial.tiling);
    r.summary.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return result;
  }
  std::vector<LayerData> data;
  std::vector<KernelStream> kernels;
  data.reserve(layers);
  const bool graph = r.network.is_graph();
  const std::string summary_cache = options.timing_only ? kernel_summary_cache_dir() : "";
  // The program first: operators the compiler gave one weight region (the same
  // seeded weights) share one host copy too (docs/decoders.md#key-value-cache).
  // What the program is compiled for: the trials' choice, or the replayed
  // program's header (r.hw).
  const HardwareConfig target =
      options.program != nullptr ? r.hw : compile_target(r.hw, r.compile_trials);
  if (options.program != nullptr)
    r.program = *options.program;
  else
    r.program = compile_network(r.network, target, estimate);
  const std::vector<int64_t> weights_from = shared_weight_sources(r.network, r.program);
  for (size_t l = 0; l < layers; ++l) {
    const LayerConfig& L = r.network.layers[l];
    if (weights_from[l] >= 0) {
      const size_t f = size_t(weights_from[l]);
      // Functional: drawn again (one operator's worth at a time) to check that
      // they are the same, then dropped.
      data.push_back(options.timing_only ? LayerData{} : make_layer_data(L, false));
      if (!options.timing_only && data[l].weights.data != data[f].weights.data)
        throw ProgramError(
            "operators " + r.network.layers[f].name + " and " + L.name + " share weights_address " +
            std::to_string(r.program.layers[l].weights_address) + " but their weights differ");
      data[l].weights = TensorI8();  // the reference reads layer f's
      KernelStream same;  // the format and counts; its bytes are laid out once, at f's region
      same.format = kernels[f].format;
      same.nonzeros = kernels[f].nonzeros;
      kernels.push_back(std::move(same));
      continue;
    }
    if (options.timing_only) {
      // Timing needs only each kernel's non-zero count (zero-skip) and the stream's format:
      // the layer's weights are drawn, counted and dropped, one layer at a time (or the
      // counts come from a sweep's cache); no inputs, no encoded bytes.
      data.emplace_back();
      kernels.push_back(
          runs_on_array(L.op)
              ? timing_kernel_summary(L, kernel_stream_mode(r.program.layers[l], r.hw.compute_mode),
                                      summary_cache)
              : KernelStream{});
      continue;
    }
    data.push_back(make_layer_data(L, !graph && (l == 0 || !r.network.chained[l])));
    kernels.push_back(
        runs_on_array(L.op)
            ? encode_layer_kernels(L, data[l].weights,
                                   kernel_stream_mode(r.program.layers[l], r.hw.compute_mode))
            : KernelStream{});
  }
  const std::vector<TensorI8> graph_inputs =
      options.timing_only ? std::vector<TensorI8>{} : graph_input_data(r.network);
  if (options.program != nullptr)
    check_kernel_streams(r.program, kernels, options.program_layer_lines);
  else
    for (size_t l = 0; l < layers; ++l) attach_kernel_stream(r.program.layers[l], kernels[l]);
  if (options.edit_program) options.edit_program(r.program);
  if (!options.skip_validation) validate_program(r.program);
  try {
    check_program_fits(r.program, r.network, r.hw);
  } catch (const ProgramError& e) {
    // A replayed program's error names its file ("p.jsonl:3" is a layer line's place).
    if (options.program == nullptr || options.program_layer_lines.empty()) throw;
    const std::string& line = options.program_layer_lines.front();
    throw ProgramError(line.substr(0, line.rfind(':')) + ": " + e.what());
  }
  r.timeline = Timeline(options.record_timeline);
  meter.clear_line();
  if (options.progress)
    spdlog::info("compiled {} layers into {} instructions", layers, r.program.instructions.size());

    // The reference depends only on the layers' data and the program's output
    // formats, never on the simulation, so it runs on a second thread while
    // the model simulates (both only read `data` and the program). Sanitizer
    // builds compute it after the simulation instead: with a second thread,
    // LeakSanitizer at exit sometimes takes a SystemC coroutine stack for the
    // main thread's and crashes reading it ("Tracer caught signal 11").
#ifdef NPUSIM_SANITIZE_BUILD
  constexpr std::launch kReferencePolicy = std::launch::deferred;
#else
  constexpr std::launch kReferencePolicy = std::launch::async;
#endif
  // The reference's instruction-set level is chosen here, before the
  // simulation: a bad NPUSIM_REFERENCE_ISA stops the run before it starts.
  if (!options.timing_only) reference::gemm_level();
  std::future<std::vector<TensorI8>> expected;
  std::future<std::vector<TensorI32>> expected_values;  // graph workloads
  if (!options.timing_only && !graph)
    expected = std::async(kReferencePolicy, reference_outputs, std::cref(r.network),
                          std::cref(r.program), std::cref(data));
  if (!options.timing_only && graph)
    expected_values =
        std::async(kReferencePolicy, graph_reference_outputs, std::cref(r.network), std::cref(data),
                   std::cref(graph_inputs), r.hw.requantiser, weights_from);

  r.stats = std::make_unique<StatsRegistry>(static_cast<uint32_t>(layers));
  quiet_systemc();
  // Timed with the part of the array the program uses (compiler.array_rows/cols);
  // r.hw keeps the physical array for the report's area, energy and peak.
  const HardwareConfig timed = array_in_use(target);
  Accelerator accelerator(
      "npu", timed, r.program, *r.stats,
      {!options.timing_only, options.record_dram_transfers ? &r.dram_transfers : nullptr},
      r.timeline);
  for (size_t i = 0; !options.timing_only && i < graph_inputs.size(); ++i)
    std::memcpy(accelerator.dram_image().data() + r.program.graph_input_addresses[i],
                graph_inputs[i].data.data(), graph_inputs[i].size());
  for (size_t l = 0; !options.timing_only && l < layers; ++l)
    if (runs_on_array(r.network.layers[l].op)) {
      lay_out_layer(accelerator.dram_image(), r.program.layers[l], r.network.layers[l], data[l],
                    kernels[l]);
      std::vector<int8_t>().swap(kernels[l].bytes);  // in the DRAM image now
    } else if (has_norm_params(r.network.layers[l].op))
      lay_out_norm_params(accelerator.dram_image(), r.program.layers[l], data[l]);
  meter.clear_line();
  if (options.progress)
    spdlog::info("simulating ({})", options.timing_only ? "timing only" : "functional");
  // Stops the meter before `accelerator` is destroyed, also when unwinding.
  struct StopMeter {
    ProgressMeter& meter;
    ~StopMeter() { meter.stop(); }
  } stop_meter{meter};
  running.store(&accelerator);
  phase.store(1);
  r.outcome = accelerator.run();
  phase.store(2);

  r.summary.checks.assign(layers, LayerCheck{});
  if (!options.timing_only && graph) {
    const std::vector<TensorI32> reference = expected_values.get();
    if (r.outcome.status == RunOutcome::Status::Completed) {
      meter.clear_line();
      if (options.progress) spdlog::info("checking outputs against the reference");
      for (size_t l = 0; l < layers; ++l) {
        TensorI32 simulated = read_operator_output(accelerator.dram_image(), r.program.layers[l]);
        // In the workload's shape: the compiler maps a batched matmul as one image of rows.
        const LayerConfig& L = r.network.layers[l];
        simulated.shape = {L.N, L.out_h(), L.out_w(), L.K};
        r.summary.checks[l] = compare(simulated, reference[l]);
        if (options.keep_outputs) r.operator_outputs.push_back(std::move(simulated));
      }
      if (options.keep_outputs) r.graph_inputs = graph_inputs;
    }
  } else if (!options.timing_only) {
    // Joined whatever the outcome: the thread reads `data`, which must outlive it.
    const std::vector<TensorI8> reference = expected.get();
    if (r.outcome.status == RunOutcome::Status::Completed) {
      meter.clear_line();
      if (options.progress) spdlog::info("checking outputs against the reference");
      for (size_t l = 0; l < layers; ++l) {
        TensorI8 simulated = read_output(accelerator.dram_image(), r.program.layers[l]);
        r.summary.checks[l] = compare(simulated, reference[l]);
        if (options.keep_outputs) r.outputs.push_back(std::move(simulated));
      }
    }
  }

  point_summary_at_result(r, options.timing_only);
  // The mapper's estimate of each array layer's mapping, for the estimator's
  // error against the simulated cycles (docs/mapping.md#estimator-error).
  NetworkConfig view_storage;
  const NetworkConfig& view = program_view(r.network, view_storage);
  std::vector<bool> params_per_tile(r.program.layers.size(), false);
  for (const Instruction& in : r.program.instructions)
    if (in.op == Opcode::LoadParams && in.k_count() != r.program.layers[in.layer].K)
      params_per_tile[in.layer] = true;
  for (const LayerDescriptor& d : r.program.layers) {
    LayerTiling t;
    const size_t l = r.summary.tiling.size();
    if (runs_on_array(d.op) && d.k_tile != 0 && d.rows_per_piece != 0)
      t.estimate_cycles = estimate_of_program_layer(view.layers[l], timed, d, params_per_tile[l]);
    t.k_tile = d.k_tile;
    t.rows_per_piece = d.rows_per_piece;
    t.pieces = d.rows_per_piece == 0
                   ? 0
                   : (d.out_h + d.rows_per_piece - 1) / d.rows_per_piece * d.column_runs();
    t.cols_per_piece = d.cols_per_piece;
    t.half_bytes = d.half_bytes;
    t.weight_buffers = d.weight_buffers;
    if (runs_on_array(d.op) && d.k_tile != 0) t.units = d.units != 0 ? d.units : r.hw.compute.units;
    t.input_channel_tiles = d.input_channel_tiles;
    t.feature_stationary = d.loop_order == LoopOrder::FeatureStationary;
    t.channels_per_part = d.channels_per_part;
    t.output_in = d.output_resident ? "cache" : d.output_on_chip ? "kv_region" : "dram";
    if (op_info(d.op).weights) t.weights_in = d.weights_resident ? "cache" : "dram";
    r.summary.tiling.push_back(t);
  }
  r.summary.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace npusim
