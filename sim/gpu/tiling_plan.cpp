#include "sim/gpu/tiling_plan.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

namespace npusim::gpu {
namespace {

// Registers a thread needs besides its accumulators: loop counters, indices,
// pointers, the mask and a loaded word or two. A round, conservative guess;
// ptxas decides the real count (docs/gpu.md).
constexpr uint32_t kRegisterOverhead = 40;
// Warps per block side at most: 4 x 4 warps of 4x4 thread tiles = 16x16 outputs.
constexpr uint32_t kMaxWarpsPerSide = 4;

uint32_t ceil_div(uint64_t a, uint64_t b) { return uint32_t((a + b - 1) / b); }

[[noreturn]] void fail(const std::string& what) { throw TilingError("GPU tiling: " + what); }

struct StageSize {
  uint32_t groups_per_stage = 0;  // 0: not even one group fits
  uint64_t bytes = 0;
};

// Most channel groups one stage may hold (rule 4).
StageSize fit_stage(const ConvGeometry& g, uint32_t out_channels, uint32_t elem,
                    uint32_t total_groups, uint64_t shared_limit) {
  const uint64_t per_group =
      uint64_t(elem) * (uint64_t(g.in_rows) * g.in_cols + uint64_t(g.r) * g.s * out_channels);
  if (per_group > shared_limit) return {};
  const uint64_t half = shared_limit / 2;
  const uint32_t fit_half = uint32_t(std::min<uint64_t>(total_groups, half / per_group));
  const uint32_t gs = std::max<uint32_t>(1, fit_half);
  return {gs, per_group * gs};
}

}  // namespace

const char* to_string(KernelKind k) {
  switch (k) {
    case KernelKind::Binary:
      return "binary";
    case KernelKind::Int8:
      return "int8";
    case KernelKind::Float:
      return "float";
  }
  return "?";
}

uint32_t element_bytes(KernelKind kind, uint32_t bits) {
  return kind == KernelKind::Binary ? bits / 8 : kind == KernelKind::Int8 ? 1 : 4;
}

uint32_t register_estimate(KernelKind kind, uint32_t bits, uint32_t thread_rows,
                           uint32_t thread_cols) {
  const uint32_t pixels = thread_rows * thread_cols;
  // Binary: one int32 sum per pixel and channel slot (b/32 slots per lane),
  // and 64-bit words and masks take register pairs. Direct: one sum per
  // pixel, plus the staged value it multiplies. (ptxas, CUDA 13.0, sm_90, 4x4
  // tiles: 54 registers binary b=32, 76 b=64, 50 int8, 44 float; estimates
  // 56, 80, 72, 72.)
  if (kind == KernelKind::Binary)
    return kRegisterOverhead + pixels * (bits / kWarp) + (bits == 64 ? 8 : 0);
  return kRegisterOverhead + 2 * pixels;
}

std::string TilingPlan::describe() const {
  const ConvGeometry& g = geometry;
  const uint32_t channels = kind == KernelKind::Binary ? g.bits : kWarp;
  char text[200];
  std::snprintf(text, sizeof text,
                "block %uch x %ux%u (%ux%u warps of %ux%u), %u %s/stage, %.1f KiB smem", channels,
                g.block_rows, g.block_cols, g.warp_rows, g.warp_cols, g.thread_rows, g.thread_cols,
                g.groups_per_stage, kind == KernelKind::Binary ? "groups" : "channels",
                double(shared_bytes) / 1024);
  return text;
}

TilingPlan plan_tiling(KernelKind kind, const ConvShape& shape, uint32_t bits,
                       const DeviceLimits& device) {
  if (kind == KernelKind::Binary && bits != 32 && bits != 64)
    fail("bits must be 32 or 64, got " + std::to_string(bits));
  if (kind != KernelKind::Binary) bits = kWarp;
  if (device.warp_size != kWarp)
    fail("the kernels pack 32 lanes per ballot; warp size " + std::to_string(device.warp_size) +
         " is not supported");
  if (shape.n == 0 || shape.c == 0 || shape.h == 0 || shape.w == 0 || shape.k == 0 ||
      shape.r == 0 || shape.s == 0 || shape.stride == 0)
    fail("every dimension and the stride must be >= 1");
  if (shape.h + 2 * shape.padding < shape.r || shape.w + 2 * shape.padding < shape.s)
    fail("kernel is larger than the padded input");

  const uint32_t ho = shape.out_h(), wo = shape.out_w();
  const uint32_t out_channels = kind == KernelKind::Binary ? bits : kWarp;
  const uint32_t elem = element_bytes(kind, bits);
  const uint32_t total_groups = kind == KernelKind::Binary ? ceil_div(shape.c, bits) : shape.c;

  ConvGeometry g;
  g.n = shape.n, g.c = shape.c, g.h = shape.h, g.w = shape.w;
  g.k = shape.k, g.r = shape.r, g.s = shape.s;
  g.stride = shape.stride, g.padding = shape.padding;
  g.ho = ho, g.wo = wo, g.bits = bits;
  g.in_groups = total_groups;
  g.out_groups = ceil_div(shape.k, out_channels);

  // Rule 2: thread tiles, largest first, clamped to the output.
  const std::pair<uint32_t, uint32_t> candidates[] = {{4, 4}, {4, 2}, {2, 4}, {2, 2},
                                                      {2, 1}, {1, 2}, {1, 1}};
  std::vector<std::pair<uint32_t, uint32_t>> tiles;
  for (auto [tr, tc] : candidates) {
    const std::pair<uint32_t, uint32_t> t{std::min(tr, ho), std::min(tc, wo)};
    if (std::find(tiles.begin(), tiles.end(), t) == tiles.end()) tiles.push_back(t);
  }
  // Rules 2-4 take the first candidate that fits, in the order thread tile
  // (largest first), then warps (shrinking the larger side first). Rule 5
  // goes on along the same order while that plan launches too few warps.
  std::optional<TilingPlan> most_warps;
  for (auto [tr, tc] : tiles) {
    const uint32_t regs = register_estimate(kind, bits, tr, tc);
    if (regs > device.registers_per_thread) continue;
    // Rule 3: as many warps as the output, the thread and register limits allow.
    uint32_t wr = std::min(kMaxWarpsPerSide, ceil_div(ho, tr));
    uint32_t wc = std::min(kMaxWarpsPerSide, ceil_div(wo, tc));
    auto threads_fit = [&] {
      const uint64_t threads = uint64_t(wr) * wc * kWarp;
      return threads <= device.max_threads_per_block &&
             threads * regs <= device.registers_per_block;
    };
    while (true) {
      if (threads_fit()) {
        g.thread_rows = tr, g.thread_cols = tc;
        g.warp_rows = wr, g.warp_cols = wc;
        g.block_rows = tr * wr, g.block_cols = tc * wc;
        g.in_rows = footprint(g.block_rows, g.stride, g.r);
        g.in_cols = footprint(g.block_cols, g.stride, g.s);
        // Rule 4: the stage must fit shared memory.
        const StageSize st =
            fit_stage(g, out_channels, elem, total_groups, device.shared_bytes_per_block);
        if (st.groups_per_stage > 0) {
          g.groups_per_stage = st.groups_per_stage;
          TilingPlan plan;
          plan.kind = kind;
          plan.geometry = g;
          plan.threads_per_block = wr * wc * kWarp;
          plan.shared_bytes = st.bytes;
          plan.registers_estimate = regs;
          plan.grid_x = ceil_div(wo, g.block_cols);
          plan.grid_y = ceil_div(ho, g.block_rows);
          plan.grid_z = shape.n * g.out_groups;
          if (plan.grid_y > device.max_grid_y || plan.grid_z > device.max_grid_z)
            fail("grid " + std::to_string(plan.grid_y) + " x " + std::to_string(plan.grid_z) +
                 " exceeds the device's grid limits");
          if (2 * plan.warps() >= device.resident_warps) return plan;  // rule 5 met, or off
          if (!most_warps || plan.warps() > most_warps->warps()) most_warps = plan;
        }
      }
      if (wr == 1 && wc == 1) break;  // shrink the block, larger side first
      if (wr >= wc)
        --wr;
      else
        --wc;
    }
  }
  if (most_warps) return *most_warps;  // nothing fills the device: the most warps
  fail("no block tile fits the device: one channel group of a " + std::to_string(shape.r) + "x" +
       std::to_string(shape.s) + " kernel needs more than " +
       std::to_string(device.shared_bytes_per_block) + " bytes of shared memory or registers");
}

}  // namespace npusim::gpu
