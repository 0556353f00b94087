// Host emulation of the GPU kernels against the simulator's own outputs on the
// network `npusim gpu` is tested with, fed the way the command feeds the
// kernels: make_layer_data, and the simulator's previous output for a chained
// layer. Runs without a GPU; it is the CPU stand-in for the device test of
// test_gpu_command.cpp, not a GPU result.
#include <catch2/catch.hpp>

#include "sim/gpu/host_emulation.h"
#include "sim/gpu/layer_job.h"
#include "sim/reference/binary_reference.h"
#include "sim/runner/runner.h"
#include "sim/tensor/layout.h"
#include "sim/workload/layer_data.h"
#include "tests/integration/test_gpu_shapes.h"
#include "tests/support/test_support.h"

using namespace npusim;
using namespace npusim::gpu;

namespace {

// An H100-like limit set (any would do: the outputs must not depend on it).
const DeviceLimits kDevice{227 * 1024, 255, 65536, 1024, 32};

}  // namespace

TEST_CASE("host emulation of the GPU kernels equals the simulator on the gpu test network",
          "[gpu][emulation]") {
  const NetworkConfig net = test::workload(test::kGpuNetwork);
  RunOptions options;
  options.keep_outputs = true;
  options.progress = false;
  const std::unique_ptr<RunResult> sim = run_network(net, HardwareConfig{}, options);
  REQUIRE(sim->ok());
  REQUIRE(sim->outputs.size() == net.layers.size());
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const LayerConfig& L = sim->network.layers[l];
    INFO("layer " << L.name);
    const bool chained = l > 0 && sim->network.chained[l];
    const LayerData data = make_layer_data(L, !chained);
    const TensorI8& input = chained ? sim->outputs[l - 1] : data.input;
    const ConvShape shape = conv_shape_of(L);
    if (L.is_binary()) {
      const BinaryParams bp = binary_params_of(L, data);
      const TilingPlan plan = plan_tiling(KernelKind::Binary, shape, bp.bits, kDevice);
      const PackedTensor out = emulate_binary_conv(
          pack_nhwc(input, bp.bits), pack_nhwc(data.weights, bp.bits), shape, bp, plan);
      CHECK(unpack_to_nhwc(out).data == sim->outputs[l].data);
      CHECK(emulate_direct_int8(input, data.weights, shape, binarize_params_of(bp),
                                plan_tiling(KernelKind::Int8, shape, 32, kDevice))
                .data == sim->outputs[l].data);
    } else {
      TensorI8 out = emulate_direct_int8(input, data.weights, shape, requantize_params_of(L, data),
                                         plan_tiling(KernelKind::Int8, shape, 32, kDevice));
      // An int8 layer feeding a binary one is stored as its signs.
      if (sim->program.layers[l].output_bits != 0) out = reference::sign_to_pm1(out);
      CHECK(out.data == sim->outputs[l].data);
    }
  }
}
