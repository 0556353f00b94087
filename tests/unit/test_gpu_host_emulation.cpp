// Host emulation of the GPU kernels (sim/gpu/host_emulation.h) against the
// CPU reference. The emulation runs the kernels' block/stage/thread loops on
// the CPU with the same __host__ __device__ functions and tiling plan as the
// CUDA kernels, so this checks their index math, staging, masking, output
// rule and ballot packing. It is NOT a GPU result.
#include <algorithm>
#include <catch2/catch.hpp>

#include "sim/gpu/host_emulation.h"
#include "sim/reference/binary_reference.h"
#include "sim/reference/reference_conv.h"
#include "sim/tensor/layout.h"
#include "sim/workload/layer_data.h"
#include "tests/support/gpu_test_support.h"

using namespace npusim;
using namespace npusim::gpu;

namespace {

DeviceLimits big_device() { return {227 * 1024, 255, 65536, 1024, 32}; }
// Small enough that a stage holds one channel group (several stages per block)
// and blocks shrink below 16x16.
DeviceLimits tiny_device() { return {6 * 1024, 255, 65536, 1024, 32}; }
// Tiling rule 5 on: thread tiles shrink to 1x1 on these small shapes.
DeviceLimits filled_device() {
  DeviceLimits d = big_device();
  d.resident_warps = 132 * 64;
  return d;
}

TensorI8 gpu_host_emulation_random_pm1(std::vector<uint32_t> shape, uint64_t seed) {
  TensorI8 t(std::move(shape));
  SeededRandom rng(seed);
  for (int8_t& v : t.data) v = rng.uniform(0, 1) ? 1 : -1;
  return t;
}

TensorI8 random_int8(std::vector<uint32_t> shape, uint64_t seed) {
  TensorI8 t(std::move(shape));
  SeededRandom rng(seed);
  for (int8_t& v : t.data) v = int8_t(rng.uniform(-128, 127));
  return t;
}

// 1x1, 3x3 (same size), 3x3 stride 2; odd, non-square sizes that no block
// tile divides.
const test::GpuGeometry kGeometries[] = {{9, 7, 1, 1, 0}, {9, 7, 3, 1, 1}, {11, 9, 3, 2, 1}};

// Thresholds around zero, within the dot's range, so both decisions occur.
reference::BinaryConvParams binary_params(uint32_t K, uint32_t taps, const test::GpuGeometry& g,
                                          reference::BinaryPadding pad, uint64_t seed) {
  reference::BinaryConvParams p;
  p.stride = g.stride, p.padding = g.padding, p.pad_mode = pad;
  SeededRandom rng(seed);
  const int64_t range = std::max<int64_t>(1, taps / 8);
  for (uint32_t k = 0; k < K; ++k) {
    p.threshold.push_back(int32_t(rng.uniform(-range, range)));
    p.flip.push_back(uint8_t(rng.uniform(0, 1)));
  }
  return p;
}

}  // namespace

TEST_CASE("host emulation of the binary kernel equals the reference packed bit for bit",
          "[gpu][emulation]") {
  uint64_t seed = 1;
  for (const test::GpuGeometry& geo : kGeometries) {
    for (uint32_t C : test::kGpuChannels) {
      for (reference::BinaryPadding pad : test::kGpuPads) {
        for (uint32_t bits : {32u, 64u}) {
          ++seed;
          const uint32_t K = bits == 32 ? 40 : 70;  // a partial last output group
          const TensorI8 in = gpu_host_emulation_random_pm1({2, geo.h, geo.w, C}, seed * 3);
          const TensorI8 w = gpu_host_emulation_random_pm1({K, geo.rs, geo.rs, C}, seed * 3 + 1);
          const reference::BinaryConvParams rp =
              binary_params(K, C * geo.rs * geo.rs, geo, pad, seed * 3 + 2);
          // The expected output, packed: unused high bits of the last group are 0.
          const PackedTensor expected = pack_nhwc(reference::conv2d_binary(in, w, rp), bits);
          // Copy-constructed, not assigned: GCC 12 warns (-Wnonnull) on a vector
          // assigned to an empty one here.
          const BinaryParams bp{bits, test::pad_mode(pad), rp.threshold, rp.flip};
          const ConvShape shape = test::shape_of(in, w, geo);
          for (const DeviceLimits& d : {big_device(), tiny_device(), filled_device()}) {
            const TilingPlan plan = plan_tiling(KernelKind::Binary, shape, bits, d);
            INFO("C" << C << " " << geo.rs << "x" << geo.rs << "/" << geo.stride << " pad mode "
                     << int(pad) << " bits " << bits << ": " << plan.describe());
            const PackedTensor got =
                emulate_binary_conv(pack_nhwc(in, bits), pack_nhwc(w, bits), shape, bp, plan);
            CHECK(got.n == expected.n);
            CHECK(got.c == expected.c);
            CHECK(got.h == expected.h);
            CHECK(got.w == expected.w);
            CHECK(got.words == expected.words);
          }
        }
      }
    }
  }
}

TEST_CASE("host emulation: the kernel's masked XOR-popcount dot equals the reference dot",
          "[gpu][emulation]") {
  // The float baseline keeps the raw sums; on +-1 values they are exact, so
  // this compares the direct kernel's loops with binary_conv_dot as well.
  uint64_t seed = 100;
  for (const test::GpuGeometry& geo : kGeometries) {
    for (uint32_t C : {31u, 33u, 100u}) {
      for (reference::BinaryPadding pad : test::kGpuPads) {
        ++seed;
        const TensorI8 in = gpu_host_emulation_random_pm1({1, geo.h, geo.w, C}, seed);
        const TensorI8 w = gpu_host_emulation_random_pm1({37, geo.rs, geo.rs, C}, seed + 7);
        const reference::BinaryConvParams rp = binary_params(37, C, geo, pad, seed);
        const TensorI32 dot = reference::binary_conv_dot(in, w, rp);
        const ConvShape shape = test::shape_of(in, w, geo);
        const std::vector<float> sums =
            emulate_direct_float(in, w, shape, pad_value_of(test::pad_mode(pad)),
                                 plan_tiling(KernelKind::Float, shape, 32, tiny_device()));
        REQUIRE(sums.size() == dot.data.size());
        for (size_t i = 0; i < sums.size(); ++i) REQUIRE(int32_t(sums[i]) == dot.data[i]);
      }
    }
  }
  // One word by hand: 5 valid channels, a = +1 -1 +1 +1 -1, w = +1 +1 -1 +1 -1
  // -> products +1 -1 -1 +1 +1 = 1; the high bits of the pad word are masked.
  const uint32_t a = 0b01101, wv = 0b01011, mask = group_mask<uint32_t>(0, 5);
  CHECK(mask == 0b11111u);
  CHECK(masked_dot<uint32_t>(a, wv, mask) == 1);
  CHECK(masked_dot<uint32_t>(pad_word<uint32_t>(PadMode::PlusOne), wv, mask) == 1);  // 3 - 2
  CHECK(masked_dot<uint64_t>(~uint64_t(0), 0, group_mask<uint64_t>(1, 100)) == -36);
}

TEST_CASE("host emulation of the int8 kernel equals the reference requantisation",
          "[gpu][emulation]") {
  uint64_t seed = 500;
  for (const test::GpuGeometry& geo : kGeometries) {
    for (uint32_t C : test::kGpuChannels) {
      ++seed;
      const uint32_t K = 45;
      const TensorI8 in = random_int8({2, geo.h, geo.w, C}, seed);
      const TensorI8 w = random_int8({K, geo.rs, geo.rs, C}, seed + 1);
      const reference::ConvParams rp = test::random_requant(K, C, geo, seed);
      const TensorI8 expected = reference::conv2d_int8(in, w, rp);
      const DirectParams dp{
          DirectEpilogue::Requantize, 0, rp.relu, rp.bias, rp.scale, rp.shift, {}, {}};
      const ConvShape shape = test::shape_of(in, w, geo);
      for (const DeviceLimits& d : {big_device(), tiny_device(), filled_device()}) {
        const TilingPlan plan = plan_tiling(KernelKind::Int8, shape, 32, d);
        INFO("C" << C << " " << geo.rs << "x" << geo.rs << "/" << geo.stride << ": "
                 << plan.describe());
        CHECK(emulate_direct_int8(in, w, shape, dp, plan).data == expected.data);
      }
    }
  }
  // The shared requantisation is the reference's, including rounding and clamps.
  for (int32_t acc : {-70000, -129, -64, -1, 0, 1, 63, 64, 65, 127, 128, 100000})
    for (uint32_t shift : {0u, 1u, 7u})
      for (bool relu : {false, true})
        CHECK(requantize(acc, 3, 5, shift, relu) == reference::requantize(acc, 3, 5, shift, relu));
}

TEST_CASE("host emulation of the int8 kernel on +-1 values binarises like the reference",
          "[gpu][emulation]") {
  uint64_t seed = 900;
  for (const test::GpuGeometry& geo : kGeometries) {
    for (reference::BinaryPadding pad : test::kGpuPads) {
      ++seed;
      const TensorI8 in = gpu_host_emulation_random_pm1({1, geo.h, geo.w, 33}, seed);
      const TensorI8 w = gpu_host_emulation_random_pm1({50, geo.rs, geo.rs, 33}, seed + 1);
      const reference::BinaryConvParams rp =
          binary_params(50, 33 * geo.rs * geo.rs, geo, pad, seed);
      const DirectParams dp{DirectEpilogue::Binarize,
                            pad_value_of(test::pad_mode(pad)),
                            false,
                            {},
                            {},
                            0,
                            rp.threshold,
                            rp.flip};
      const ConvShape shape = test::shape_of(in, w, geo);
      const TilingPlan plan = plan_tiling(KernelKind::Int8, shape, 32, tiny_device());
      CHECK(emulate_direct_int8(in, w, shape, dp, plan).data ==
            reference::conv2d_binary(in, w, rp).data);
    }
  }
}

TEST_CASE("the ballot packing: lane i's decision is bit i, 64-bit words take two ballots",
          "[gpu][emulation]") {
  bool d[32] = {};
  d[0] = d[5] = d[31] = true;
  CHECK(pack_decisions(d, 32) == ((1u << 0) | (1u << 5) | (1u << 31)));
  CHECK(combine_ballots(0x1u, 0x80000000u) == 0x8000000000000001ull);
  CHECK(binary_decision(3, 3, 0));
  CHECK_FALSE(binary_decision(2, 3, 0));
  CHECK(binary_decision(3, 3, 1));
  CHECK_FALSE(binary_decision(4, 3, 1));
}

TEST_CASE("binary kernel epilogue: the output word of each thread-tile element, worked by hand",
          "[gpu]") {
  // binary_output_word is the epilogue the CUDA kernel and the host emulation
  // both call (kernel_math.h). A non-square tiling that tells rows from columns:
  // blocks of 4 x 6 outputs, 2 x 2 warps, each warp a 2-row x 3-column tile;
  // output 6 x 15, 3 output word groups.
  ConvGeometry g;
  g.ho = 6, g.wo = 15, g.out_groups = 3;
  g.block_rows = 4, g.block_cols = 6;
  g.warp_rows = 2, g.warp_cols = 2;
  g.thread_rows = 2, g.thread_cols = 3;
  // Block (by 1, bx 1), warp 1 (warp row 0, warp column 1), element (1, 2):
  // oy = 1*4 + 0*2 + 1 = 5, ox = 1*6 + 1*3 + 2 = 11;
  // image 1, group 2: ((1*3 + 2)*6 + 5)*15 + 11 = 536.
  CHECK(thread_tile_pixel(g, 1, 1, 1, 1, 2).oy == 5);
  CHECK(thread_tile_pixel(g, 1, 1, 1, 1, 2).ox == 11);
  CHECK(binary_output_word(g, 1, 2, 1, 1, 1, 1, 2) == 536);
  // Block (0, 2), warp 2 (warp row 1, warp column 0), element (0, 1):
  // oy = 0 + 1*2 + 0 = 2, ox = 2*6 + 0*3 + 1 = 13: ((5)*6 + 2)*15 + 13 = 493.
  CHECK(binary_output_word(g, 1, 2, 0, 2, 2, 0, 1) == 493);
  // Image 0, group 0, block (0, 0), warp 0, element (0, 0): word 0;
  // element (1, 2): oy 1, ox 2 -> 1*15 + 2 = 17.
  CHECK(binary_output_word(g, 0, 0, 0, 0, 0, 0, 0) == 0);
  CHECK(binary_output_word(g, 0, 0, 0, 0, 0, 1, 2) == 17);
  // Edge blocks: ox = 12 + 3 + 0 = 15 and oy = 4 + 2 = 6 lie past the output.
  CHECK(binary_output_word(g, 0, 0, 0, 2, 1, 0, 0) == kNoOutputWord);
  CHECK(binary_output_word(g, 0, 0, 1, 0, 2, 0, 0) == kNoOutputWord);
  // ... while ox = 12 + 0 + 2 = 14 and oy = 4 + 0 + 1 = 5 are the last ones in.
  CHECK(binary_output_word(g, 0, 0, 1, 2, 0, 1, 2) == 5 * 15 + 14);
}
