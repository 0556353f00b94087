// The GPU tiling plan (sim/gpu/tiling_plan.h) on several device limit sets and
// edge shapes. Host C++ only: no GPU is involved.
#include <catch2/catch.hpp>

#include "sim/gpu/tiling_plan.h"

using namespace npusim::gpu;

namespace {

// Limit sets shaped like real parts (opt-in shared memory per block,
// registers per block), and a small and a tiny one that force the rule to
// shrink. None is special to the code: each is only a DeviceLimits value.
DeviceLimits h100_like() { return {227 * 1024, 255, 65536, 1024, 32}; }
DeviceLimits a100_like() { return {163 * 1024, 255, 65536, 1024, 32}; }
DeviceLimits small_48k() { return {48 * 1024, 255, 32768, 512, 32}; }
DeviceLimits tiny_2k() { return {2 * 1024, 255, 65536, 1024, 32}; }
DeviceLimits tiny_6k() { return {6 * 1024, 255, 65536, 1024, 32}; }  // b = 64 3x3 weights: 4.5 KiB

ConvShape conv(uint32_t c, uint32_t hw, uint32_t k, uint32_t rs, uint32_t stride, uint32_t pad,
               uint32_t n = 1) {
  ConvShape s;
  s.n = n, s.c = c, s.h = hw, s.w = hw, s.k = k, s.r = rs, s.s = rs;
  s.stride = stride, s.padding = pad;
  return s;
}

// What every plan must satisfy, whatever the device and shape.
void check_plan(const TilingPlan& p, const ConvShape& s, const DeviceLimits& d) {
  const ConvGeometry& g = p.geometry;
  INFO(p.describe());
  CHECK(p.shared_bytes <= d.shared_bytes_per_block);
  CHECK(p.threads_per_block <= d.max_threads_per_block);
  CHECK(p.threads_per_block == g.warp_rows * g.warp_cols * 32);
  CHECK(p.registers_estimate <= d.registers_per_thread);
  CHECK(uint64_t(p.registers_estimate) * p.threads_per_block <= d.registers_per_block);
  CHECK(g.thread_rows >= 1);
  CHECK(g.thread_rows <= kMaxThreadTile);
  CHECK(g.thread_cols >= 1);
  CHECK(g.thread_cols <= kMaxThreadTile);
  CHECK(g.thread_rows <= s.out_h());
  CHECK(g.thread_cols <= s.out_w());
  CHECK(g.block_rows == g.thread_rows * g.warp_rows);
  CHECK(g.block_cols == g.thread_cols * g.warp_cols);
  CHECK(g.in_rows == (g.block_rows - 1) * s.stride + s.r);
  CHECK(g.in_cols == (g.block_cols - 1) * s.stride + s.s);
  // The grid covers the output exactly: no block starts past its end.
  CHECK(uint64_t(p.grid_y) * g.block_rows >= s.out_h());
  CHECK(uint64_t(p.grid_y - 1) * g.block_rows < s.out_h());
  CHECK(uint64_t(p.grid_x) * g.block_cols >= s.out_w());
  CHECK(uint64_t(p.grid_x - 1) * g.block_cols < s.out_w());
  CHECK(p.grid_z == s.n * g.out_groups);
  CHECK(g.groups_per_stage >= 1);
  CHECK(g.groups_per_stage <= g.in_groups);
  const uint32_t channels = p.kind == KernelKind::Binary ? g.bits : 32;
  const uint64_t stage = uint64_t(element_bytes(p.kind, g.bits)) * g.groups_per_stage *
                         (uint64_t(g.in_rows) * g.in_cols + uint64_t(g.r) * g.s * channels);
  CHECK(p.shared_bytes == stage);
}

}  // namespace

TEST_CASE("tiling plan: a 3x3 binary layer gets 4x4 thread tiles in a 16x16 block",
          "[gpu][tiling]") {
  const ConvShape s = conv(64, 56, 64, 3, 1, 1);
  for (const DeviceLimits& d : {h100_like(), a100_like(), small_48k()}) {
    const TilingPlan p = plan_tiling(KernelKind::Binary, s, 32, d);
    check_plan(p, s, d);
    CHECK(p.geometry.thread_rows == 4);
    CHECK(p.geometry.thread_cols == 4);
    CHECK(p.geometry.in_groups == 2);
    CHECK(p.geometry.out_groups == 2);
  }
  const TilingPlan h = plan_tiling(KernelKind::Binary, s, 32, h100_like());
  CHECK(h.geometry.block_rows == 16);
  CHECK(h.geometry.block_cols == 16);
  CHECK(h.geometry.in_rows == 18);
  CHECK(h.geometry.groups_per_stage == 2);  // both groups staged at once
  CHECK(h.grid_x == 4);                     // ceil(56 / 16)
  CHECK(h.grid_y == 4);
  CHECK(h.grid_z == 2);
}

TEST_CASE("tiling plan: edge shapes - tiny outputs 1x1 stride 2 batch", "[gpu][tiling]") {
  for (const DeviceLimits& d : {h100_like(), a100_like(), small_48k(), tiny_6k()}) {
    for (KernelKind kind : {KernelKind::Binary, KernelKind::Int8, KernelKind::Float}) {
      for (uint32_t bits : {32u, 64u}) {
        if (kind != KernelKind::Binary && bits == 64) continue;
        const ConvShape shapes[] = {
            conv(33, 3, 5, 3, 1, 0),      // 1x1 output
            conv(100, 1, 40, 1, 1, 0),    // 1x1 input, 1x1 kernel
            conv(64, 14, 70, 1, 1, 0),    // 1x1 kernel
            conv(31, 15, 32, 3, 2, 1),    // stride 2, odd size
            conv(64, 7, 64, 3, 2, 1, 3),  // stride 2, batch 3
            conv(32, 2, 8, 3, 1, 1),      // output 2x2 (< thread tile)
        };
        for (const ConvShape& s : shapes) {
          INFO("kind " << to_string(kind) << " bits " << bits << " C" << s.c << " H" << s.h << " K"
                       << s.k << " R" << s.r << " stride " << s.stride);
          const TilingPlan p = plan_tiling(kind, s, bits, d);
          check_plan(p, s, d);
        }
      }
    }
  }
  const TilingPlan one = plan_tiling(KernelKind::Binary, conv(33, 3, 5, 3, 1, 0), 32, h100_like());
  CHECK(one.geometry.thread_rows == 1);
  CHECK(one.geometry.thread_cols == 1);
  CHECK(one.threads_per_block == 32);
  CHECK(one.blocks() == 1);
  const TilingPlan s2 = plan_tiling(KernelKind::Binary, conv(64, 56, 64, 3, 2, 1), 32, h100_like());
  CHECK(s2.geometry.block_rows == 16);
  CHECK(s2.geometry.in_rows == 33);  // (16 - 1) * 2 + 3
}

TEST_CASE("tiling plan: limited shared memory stages fewer groups and then shrinks the block",
          "[gpu][tiling]") {
  // 48 KiB, b = 64, 512 channels = 8 groups; one group of a 16x16 block is
  // 8 * (18*18 + 9*64) = 7200 bytes, so half of 48 KiB holds 3 groups.
  const ConvShape s = conv(512, 28, 128, 3, 1, 1);
  const TilingPlan small = plan_tiling(KernelKind::Binary, s, 64, small_48k());
  check_plan(small, s, small_48k());
  CHECK(small.geometry.groups_per_stage == 3);
  const TilingPlan big = plan_tiling(KernelKind::Binary, s, 64, h100_like());
  CHECK(big.geometry.groups_per_stage == 8);

  // 2 KiB cannot hold one group of a 16x16 block (4 * (324 + 288) = 2448 bytes).
  const ConvShape t = conv(64, 56, 64, 3, 1, 1);
  const TilingPlan tiny = plan_tiling(KernelKind::Binary, t, 32, tiny_2k());
  check_plan(tiny, t, tiny_2k());
  CHECK(tiny.geometry.block_rows * tiny.geometry.block_cols < 16 * 16);
  CHECK(tiny.geometry.groups_per_stage == 1);
}

TEST_CASE("tiling plan: register limits shrink the thread tile and the block", "[gpu][tiling]") {
  const ConvShape s = conv(64, 56, 64, 3, 1, 1);
  DeviceLimits few_per_thread = h100_like();
  few_per_thread.registers_per_thread = 48;  // 40 + sums: 8 sums at most
  const TilingPlan b32 = plan_tiling(KernelKind::Binary, s, 32, few_per_thread);
  check_plan(b32, s, few_per_thread);
  CHECK(b32.geometry.thread_rows * b32.geometry.thread_cols == 8);
  few_per_thread.registers_per_thread = 56;  // b = 64: 40 + 8 + 2 sums per pixel
  const TilingPlan b64 = plan_tiling(KernelKind::Binary, s, 64, few_per_thread);
  CHECK(b64.geometry.thread_rows * b64.geometry.thread_cols == 4);  // two channels per lane

  DeviceLimits few_per_block = h100_like();
  few_per_block.registers_per_block = 16384;  // 56 registers x 512 threads do not fit
  const TilingPlan p = plan_tiling(KernelKind::Binary, s, 32, few_per_block);
  check_plan(p, s, few_per_block);
  CHECK(p.threads_per_block < 512);
  CHECK(p.geometry.thread_rows == 4);
}

TEST_CASE("tiling plan: impossible requests are refused with a reason", "[gpu][tiling]") {
  const ConvShape s = conv(64, 56, 64, 3, 1, 1);
  DeviceLimits wide_warp = h100_like();
  wide_warp.warp_size = 64;
  CHECK_THROWS_WITH(plan_tiling(KernelKind::Binary, s, 32, wide_warp),
                    Catch::Contains("warp size 64"));
  CHECK_THROWS_WITH(plan_tiling(KernelKind::Binary, s, 16, h100_like()),
                    Catch::Contains("bits must be 32 or 64"));
  DeviceLimits one_k = h100_like();
  one_k.shared_bytes_per_block = 1024;  // a 7x7 kernel's weights alone need 6272 bytes
  CHECK_THROWS_AS(plan_tiling(KernelKind::Binary, conv(64, 56, 64, 7, 1, 3), 32, one_k),
                  TilingError);
  CHECK_THROWS_AS(plan_tiling(KernelKind::Int8, conv(64, 2, 64, 5, 1, 0), 32, h100_like()),
                  TilingError);  // kernel larger than the input
  CHECK_THROWS_AS(plan_tiling(KernelKind::Int8, conv(0, 8, 8, 3, 1, 1), 32, h100_like()),
                  TilingError);
}

TEST_CASE(
    "tiling plan rule 5: small layers take smaller thread tiles until half the device's warps are "
    "launched",
    "[gpu][tiling]") {
  // A device of 132 SMs x 64 warps: rule 5 wants 4224 warps in the launch.
  DeviceLimits filled = h100_like();
  filled.resident_warps = 132 * 64;
  // 56x56, 64 channels (2 groups). 4x4 thread tiles: 16x16 blocks of 16
  // warps, 4 x 4 x 2 = 32 blocks = 512 warps. 2x1 tiles reach at most 3420
  // warps (6x3 blocks of 9 warps: 10 x 19 x 2 blocks). 1x1 tiles in 4x4
  // blocks of 16 warps: 14 x 14 x 2 = 392 blocks = 6272 warps, enough.
  const ConvShape s = conv(64, 56, 64, 3, 1, 1);
  for (KernelKind kind : {KernelKind::Binary, KernelKind::Int8, KernelKind::Float}) {
    INFO(to_string(kind));
    const TilingPlan largest = plan_tiling(kind, s, 32, h100_like());
    CHECK(largest.warps() == 512);
    const TilingPlan p = plan_tiling(kind, s, 32, filled);
    check_plan(p, s, filled);
    CHECK(p.geometry.thread_rows == 1);
    CHECK(p.geometry.thread_cols == 1);
    CHECK(p.geometry.block_rows == 4);
    CHECK(p.geometry.block_cols == 4);
    CHECK(p.blocks() == 392);
    CHECK(p.warps() == 6272);
  }
  // 14x14, 256 channels (8 groups): no plan reaches 4224 warps; the most is
  // 1x1 tiles in 4x4 blocks of 16 warps, 4 x 4 x 8 = 128 blocks = 2048 warps
  // (3x4 blocks give 5 x 4 x 8 x 12 = 1920).
  const TilingPlan small = plan_tiling(KernelKind::Int8, conv(256, 14, 256, 3, 1, 1), 32, filled);
  CHECK(small.geometry.thread_rows * small.geometry.thread_cols == 1);
  CHECK(small.warps() == 2048);
  // A plan that already launches enough warps keeps its 16x16 blocks:
  // 224x224, 64 channels = 14 x 14 x 2 blocks x 16 warps = 6272.
  const ConvShape big = conv(64, 224, 64, 3, 1, 1);
  CHECK(plan_tiling(KernelKind::Int8, big, 32, filled).geometry.block_rows == 16);
  // 1x1 output, 1000 channels: 32 groups of one warp each.
  const TilingPlan fc = plan_tiling(KernelKind::Binary, conv(512, 1, 1000, 1, 1, 0), 32, filled);
  check_plan(fc, conv(512, 1, 1000, 1, 1, 0), filled);
  CHECK(fc.warps() == 32);
}
