// The CUDA kernels on a real device against the CPU reference and the host
// emulation, over the shape set of the unit tests. Compiled in every build;
// each test prints "SKIPPED: no CUDA device" and returns when
// cudaGetDeviceCount finds none (or the build has no CUDA).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>

#include "sim/gpu/gpu_runner.h"
#include "sim/gpu/host_emulation.h"
#include "sim/reference/binary_reference.h"
#include "sim/reference/reference_conv.h"
#include "sim/tensor/layout.h"
#include "sim/workload/layer_data.h"
#include "tests/support/gpu_test_support.h"

using namespace npusim;
using namespace npusim::gpu;

namespace {

bool gpu_kernels_skipped_without_device() {
  std::string why;
  if (cuda_device_count(why) > 0) return false;
  std::printf("SKIPPED: no CUDA device (%s)\n", why.c_str());
  WARN("SKIPPED: no CUDA device (" << why << ")");
  return true;
}

TensorI8 random_values(std::vector<uint32_t> shape, uint64_t seed, bool pm1) {
  TensorI8 t(std::move(shape));
  SeededRandom rng(seed);
  for (int8_t& v : t.data) v = pm1 ? (rng.uniform(0, 1) ? 1 : -1) : int8_t(rng.uniform(-128, 127));
  return t;
}

const test::GpuGeometry kGeometries[] = {{9, 7, 1, 1, 0}, {19, 21, 3, 1, 1}, {23, 17, 3, 2, 1}};

}  // namespace

TEST_CASE("GPU binary kernel equals the reference and the host emulation", "[gpu][device]") {
  if (gpu_kernels_skipped_without_device()) return;
  const DeviceInfo dev = open_device(0);
  uint64_t seed = 1;
  for (const test::GpuGeometry& geo : kGeometries)
    for (uint32_t C : test::kGpuChannels)
      for (reference::BinaryPadding pad : test::kGpuPads)
        for (uint32_t bits : {32u, 64u}) {
          ++seed;
          const uint32_t K = bits == 32 ? 40 : 70;
          const TensorI8 in = random_values({2, geo.h, geo.w, C}, seed * 3, true);
          const TensorI8 w = random_values({K, geo.rs, geo.rs, C}, seed * 3 + 1, true);
          reference::BinaryConvParams rp;
          rp.stride = geo.stride, rp.padding = geo.padding, rp.pad_mode = pad;
          SeededRandom rng(seed);
          for (uint32_t k = 0; k < K; ++k) {
            rp.threshold.push_back(int32_t(rng.uniform(-8, 8)));
            rp.flip.push_back(uint8_t(rng.uniform(0, 1)));
          }
          const BinaryParams bp{bits, test::pad_mode(pad), rp.threshold, rp.flip};  // see unit test
          const ConvShape shape = test::shape_of(in, w, geo);
          const BinaryRun run =
              gpu_binary_conv(dev, pack_nhwc(in, bits), pack_nhwc(w, bits), shape, bp, 1);
          INFO("C" << C << " " << geo.rs << "x" << geo.rs << "/" << geo.stride << " pad "
                   << int(pad) << " bits " << bits << ": " << run.timing.plan);
          CHECK(run.output.words == pack_nhwc(reference::conv2d_binary(in, w, rp), bits).words);
          const TilingPlan plan = plan_tiling(KernelKind::Binary, shape, bits, dev.limits);
          CHECK(
              run.output.words ==
              emulate_binary_conv(pack_nhwc(in, bits), pack_nhwc(w, bits), shape, bp, plan).words);
        }
}

TEST_CASE("GPU int8 kernel equals the reference requantisation", "[gpu][device]") {
  if (gpu_kernels_skipped_without_device()) return;
  const DeviceInfo dev = open_device(0);
  uint64_t seed = 500;
  for (const test::GpuGeometry& geo : kGeometries)
    for (uint32_t C : test::kGpuChannels) {
      ++seed;
      const uint32_t K = 45;
      const TensorI8 in = random_values({2, geo.h, geo.w, C}, seed, false);
      const TensorI8 w = random_values({K, geo.rs, geo.rs, C}, seed + 1, false);
      const reference::ConvParams rp = test::random_requant(K, C, geo, seed);
      const DirectParams dp{
          DirectEpilogue::Requantize, 0, rp.relu, rp.bias, rp.scale, rp.shift, {}, {}};
      const Int8Run run = gpu_int8_conv(dev, in, w, test::shape_of(in, w, geo), dp, 1);
      INFO("C" << C << " " << geo.rs << "x" << geo.rs << "/" << geo.stride << ": "
               << run.timing.plan);
      CHECK(run.output.data == reference::conv2d_int8(in, w, rp).data);
    }
}

TEST_CASE("GPU float kernel sums equal the reference dot on +-1 values", "[gpu][device]") {
  if (gpu_kernels_skipped_without_device()) return;
  const DeviceInfo dev = open_device(0);
  uint64_t seed = 900;
  for (const test::GpuGeometry& geo : kGeometries)
    for (reference::BinaryPadding pad : test::kGpuPads) {
      ++seed;
      const TensorI8 in = random_values({1, geo.h, geo.w, 100}, seed, true);
      const TensorI8 w = random_values({37, geo.rs, geo.rs, 100}, seed + 1, true);
      reference::BinaryConvParams rp;
      rp.stride = geo.stride, rp.padding = geo.padding, rp.pad_mode = pad;
      const TensorI32 dot = reference::binary_conv_dot(in, w, rp);
      const FloatRun run = gpu_float_conv(dev, in, w, test::shape_of(in, w, geo),
                                          pad_value_of(test::pad_mode(pad)), 3);
      REQUIRE(run.sums.size() == dot.data.size());
      CHECK(std::equal(run.sums.begin(), run.sums.end(), dot.data.begin(),
                       [](float f, int32_t d) { return int32_t(f) == d; }));
      CHECK(run.timing.times_ms.size() == 3);
      CHECK(run.timing.max_block_cycles > 0);
    }
}
