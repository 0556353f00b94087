// `npusim gpu`: simulate a layer or network, run the same layers with the
// same data on a CUDA device (seed 000 binary kernel, int8 kernel, float
// baseline), check the GPU outputs bit for bit against the simulator's, and
// print simulated cycles beside GPU times (docs/gpu.md).
//
// Exit codes: 0 all outputs match; 1 a simulation or GPU output mismatch or a
// CUDA error; 2 bad input (as `npusim run`); 3 no CUDA device, or a build
// without CUDA support.
#include <spdlog/spdlog.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "sim/cli/child_process.h"
#include "sim/cli/commands.h"
#include "sim/cli/workload_options.h"
#include "sim/gpu/gpu_comparison.h"
#include "sim/gpu/gpu_runner.h"
#include "sim/gpu/layer_job.h"
#include "sim/io/atomic_file.h"
#include "sim/reference/binary_reference.h"
#include "sim/reference/reference_conv.h"
#include "sim/report/report_figures.h"
#include "sim/runner/runner.h"
#include "sim/tensor/layout.h"
#include "sim/workload/layer_data.h"

namespace npusim::cli {
namespace {

constexpr int kNoCudaDevice = 3;

struct GpuArguments {
  WorkloadOptions in;
  int repeats = 20;
  std::string json_file;
  int device = 0;
  std::string tiling = "fill";  // "fill" (tiling rule 5 on) or "largest"
  bool quiet = false;
};

// Empty when equal, else where the first difference is.
std::string first_difference(const TensorI8& gpu, const TensorI8& simulated) {
  if (gpu.shape != simulated.shape) return "shape differs";
  for (size_t i = 0; i < gpu.data.size(); ++i)
    if (gpu.data[i] != simulated.data[i])
      return "element " + std::to_string(i) + ": gpu " + std::to_string(gpu.data[i]) +
             ", simulator " + std::to_string(simulated.data[i]);
  return {};
}

gpu::KernelComparison judged(gpu::KernelTiming timing, const TensorI8& gpu_output,
                             const TensorI8& simulated) {
  gpu::KernelComparison k;
  k.timing = std::move(timing);
  k.note = first_difference(gpu_output, simulated);
  k.match = k.note.empty() ? gpu::Match::Yes : gpu::Match::No;
  return k;
}

// The float kernel's sums are checked through the layer's own output rule,
// where they are exact integers (|sum| <= 2^24); beyond that a float
// convolution rounds and is not expected to match.
template <typename Rule>
gpu::KernelComparison judged_float(gpu::FloatRun run, const gpu::ConvShape& shape,
                                   uint32_t max_abs_product, const TensorI8& simulated,
                                   Rule output_rule) {
  if (!gpu::float_sums_exact(shape, max_abs_product)) {
    gpu::KernelComparison k;
    k.timing = std::move(run.timing);
    k.note = "float sums may round above 2^24";
    return k;
  }
  TensorI8 out(simulated.shape);
  for (size_t i = 0; i < run.sums.size() && i < out.data.size(); ++i)
    out.data[i] = output_rule(int32_t(std::lround(run.sums[i])), uint32_t(i % shape.k));
  return judged(std::move(run.timing), out, simulated);
}

// `stores_signs`: the layer feeds a binary one, so the simulator stored the
// signs of its int8 outputs as +-1 (docs/binary.md#mixed); compare those.
void compare_int8_layer(const gpu::DeviceInfo& dev, const LayerConfig& L, const LayerData& data,
                        const TensorI8& input, const TensorI8& simulated, bool stores_signs,
                        int repeats, gpu::LayerComparison& out) {
  const gpu::ConvShape shape = gpu::conv_shape_of(L);
  const gpu::DirectParams p = gpu::requantize_params_of(L, data);
  const auto as_stored = [&](const TensorI8& t) {
    return stores_signs ? reference::sign_to_pm1(t) : t;
  };
  gpu::Int8Run i8 = gpu::gpu_int8_conv(dev, input, data.weights, shape, p, repeats);
  out.kernels.push_back(judged(std::move(i8.timing), as_stored(i8.output), simulated));
  out.kernels.push_back(judged_float(
      gpu::gpu_float_conv(dev, input, data.weights, shape, 0, repeats), shape, 128 * 128, simulated,
      [&](int32_t sum, uint32_t k) {
        const int8_t v = reference::requantize(sum, p.bias[k], p.scale[k], p.shift, p.relu);
        return stores_signs ? int8_t(v >= 0 ? 1 : -1) : v;
      }));
}

void compare_binary_layer(const gpu::DeviceInfo& dev, const LayerConfig& L, const LayerData& data,
                          const TensorI8& input, const TensorI8& simulated, int repeats,
                          gpu::LayerComparison& out) {
  const gpu::ConvShape shape = gpu::conv_shape_of(L);
  const gpu::BinaryParams bp = gpu::binary_params_of(L, data);
  gpu::BinaryRun bin = gpu::gpu_binary_conv(dev, pack_nhwc(input, bp.bits),
                                            pack_nhwc(data.weights, bp.bits), shape, bp, repeats);
  out.kernels.push_back(judged(std::move(bin.timing), unpack_to_nhwc(bin.output), simulated));

  // The same +-1 values through the int8 kernel and the float baseline.
  const gpu::DirectParams p = gpu::binarize_params_of(bp);
  const int8_t pad = p.pad_value;
  gpu::Int8Run i8 = gpu::gpu_int8_conv(dev, input, data.weights, shape, p, repeats);
  out.kernels.push_back(judged(std::move(i8.timing), i8.output, simulated));
  out.kernels.push_back(
      judged_float(gpu::gpu_float_conv(dev, input, data.weights, shape, pad, repeats), shape, 1,
                   simulated, [&](int32_t sum, uint32_t k) {
                     return reference::binarize(sum, bp.threshold[k], bp.flip[k]);
                   }));
}

int run_gpu(const GpuArguments& a) {
  if (a.quiet) spdlog::set_level(spdlog::level::warn);
  // Bad input is reported first, as by `npusim run` (exit 2).
  const HardwareConfig hw = resolve_hardware(a.in);
  const NetworkConfig net = resolve_workload(a.in);
  if (net.is_graph())
    throw std::invalid_argument(net.name +
                                ": the CUDA path runs plain conv2d layers; graph workloads are "
                                "not supported there yet (docs/graphs.md#limits)");
  if (a.repeats < 1) throw std::invalid_argument("--repeats must be >= 1");

  std::string why;
  const int devices = gpu::cuda_device_count(why);
  if (!gpu::cuda_built()) {
    std::cerr << "npusim gpu: built without CUDA support (configure with a CUDA compiler; "
                 "see docs/gpu.md)\n";
    return kNoCudaDevice;
  }
  if (devices == 0) {
    std::cerr << "npusim gpu: no CUDA device: " << why << '\n';
    return kNoCudaDevice;
  }
  if (a.device < 0 || a.device >= devices)
    throw std::invalid_argument("--device " + std::to_string(a.device) + ": there are " +
                                std::to_string(devices) + " CUDA devices");
  gpu::GpuComparison cmp;
  cmp.device = gpu::open_device(a.device);
  if (a.tiling == "largest") cmp.device.limits.resident_warps = 0;  // rule 5 off
  cmp.tiling = a.tiling;
  cmp.npu_clock_mhz = hw.clock_mhz;
  cmp.repeats = a.repeats;
  spdlog::info("running {} ({} layers) on hardware '{}' and on {}", net.name, net.layers.size(),
               hw.name, cmp.device.name);

  RunOptions options;
  options.keep_outputs = true;
  options.progress = !a.quiet;
  const std::unique_ptr<RunResult> sim = run_network(net, hw, options);
  if (!sim->ok()) {
    std::cerr << "error: the simulation failed or differs from the reference: "
              << sim->outcome.message << '\n';
    return kSimulationFailed;
  }

  bool all_match = true;
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const LayerConfig& L = sim->network.layers[l];
    const bool chained = l > 0 && sim->network.chained[l];
    const LayerData data = make_layer_data(L, !chained);
    const TensorI8& input = chained ? sim->outputs[l - 1] : data.input;
    gpu::LayerComparison row;
    row.name = L.name, row.dtype = to_string(L.dtype), row.shape = shape_string(L);
    row.sim_cycles = sim->stats->get("layer.cycles").at(l);
    row.sim_us = double(row.sim_cycles) / hw.clock_mhz;
    if (!a.quiet) spdlog::info("layer {}: GPU kernels", L.name);
    if (L.is_binary())
      compare_binary_layer(cmp.device, L, data, input, sim->outputs[l], a.repeats, row);
    else
      compare_int8_layer(cmp.device, L, data, input, sim->outputs[l],
                         sim->program.layers[l].output_bits != 0, a.repeats, row);
    all_match = all_match && row.all_match();
    cmp.layers.push_back(std::move(row));
  }

  gpu::print_comparison_table(std::cout, cmp);
  if (!a.json_file.empty()) {
    make_parent_dirs(a.json_file);
    write_file_atomically(a.json_file, gpu::comparison_json(cmp).dump(2) + "\n");
  }
  if (!all_match) {
    std::cerr << "error: a GPU output differs from the simulator's (see the table above)\n";
    return kSimulationFailed;
  }
  return kOk;
}

int run_gpu_mapping_errors(const GpuArguments& a) {
  try {
    return run_gpu(a);
  } catch (const gpu::GpuError& e) {  // a CUDA failure is not bad input
    std::cerr << "npusim gpu: " << e.what() << '\n';
    return kSimulationFailed;
  }
}

}  // namespace

void add_gpu_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<GpuArguments>();
  CLI::App* cmd = app.add_subcommand(
      "gpu",
      "Run a layer or network on the simulator and on a CUDA GPU (binary, int8 and float "
      "kernels); check the GPU outputs against the simulator's and compare cycles and times.");
  add_workload_options(cmd, args->in);
  cmd->add_option("--repeats", args->repeats,
                  "Timed launches per kernel; the median is reported (default 20)")
      ->check(positive_number());
  cmd->add_option("--json", args->json_file, "Also write the comparison as JSON to this file");
  cmd->add_option("--device", args->device, "CUDA device index (default 0)")
      ->check(non_negative_number());
  cmd->add_option("--tiling", args->tiling,
                  "Tiling rule: 'fill' (default) shrinks thread tiles until the launch has half "
                  "the warps the GPU can hold; 'largest' keeps the largest tiles (docs/gpu.md)")
      ->check(CLI::IsMember({"fill", "largest"}));
  cmd->add_flag("-q,--quiet", args->quiet, "Only warnings and errors on stderr");
  cmd->callback([args, &action] { action = [args] { return run_gpu_mapping_errors(*args); }; });
}

}  // namespace npusim::cli
