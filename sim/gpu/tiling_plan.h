// The two-level tiling of the GPU convolution kernels (seed 000), as plain
// host C++: given a device's limits and a layer's shape, choose the block
// tile (output channels x rows x columns, its input footprint staged in shared
// memory) and the per-thread tile (outputs held in registers).
//
// The rule (docs/gpu.md, "Tiling rule"):
//  1. A block owns one output word group: b output channels for the binary
//     kernel (32 lanes, b/32 channels per lane), 32 for the direct kernels.
//  2. Per-thread tile: the largest of 4x4, 4x2, 2x4, 2x2, 2x1, 1x2, 1x1 output
//     pixels (clamped to the output size) whose register estimate fits the
//     per-thread register limit.
//  3. Warps per block: up to 4x4 thread tiles (a 16x16 output block with 4x4
//     thread tiles, the seed's example), fewer when the output is smaller,
//     and within max threads and registers per block.
//  4. Shared memory per stage = (footprint with halo + the block's weights)
//     x channel groups staged at once. Stage as many groups as fit in half
//     the per-block shared memory (so two blocks can share an SM); if even
//     one group needs more, one group may use all of it. If one group does
//     not fit at all, shrink the block (warps), then the thread tile.
//  5. Fill the device: when that plan launches fewer warps than half the
//     warps the device can hold at once (DeviceLimits::resident_warps), walk
//     on in the same order (thread tile, then warps) to the first candidate
//     that launches that many, or the one with the most warps when none does.
//     Smaller thread tiles mean more threads. Off when resident_warps is 0
//     (`npusim gpu --tiling largest`).
// Nothing is specific to one GPU: every limit comes from DeviceLimits, which
// the runner fills from cudaDeviceGetAttribute.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/gpu/kernel_math.h"

namespace npusim::gpu {

struct DeviceLimits {
  uint64_t shared_bytes_per_block = 48 * 1024;  // opt-in maximum where the device has one
  uint32_t registers_per_thread = 255;
  uint32_t registers_per_block = 65536;
  uint32_t max_threads_per_block = 1024;
  uint32_t warp_size = 32;
  uint32_t max_grid_y = 65535, max_grid_z = 65535;
  // Multiprocessors x the most warps one multiprocessor holds: rule 5 aims at
  // half of it. 0 turns rule 5 off.
  uint64_t resident_warps = 0;
};

struct ConvShape {
  uint32_t n = 1, c = 0, h = 0, w = 0;
  uint32_t k = 0, r = 1, s = 1;
  uint32_t stride = 1, padding = 0;
  uint32_t out_h() const { return (h + 2 * padding - r) / stride + 1; }
  uint32_t out_w() const { return (w + 2 * padding - s) / stride + 1; }
};

enum class KernelKind { Binary, Int8, Float };
const char* to_string(KernelKind k);

struct TilingPlan {
  KernelKind kind = KernelKind::Binary;
  ConvGeometry geometry;            // everything the kernel reads
  uint32_t threads_per_block = 0;   // 32 x warps
  uint64_t shared_bytes = 0;        // one stage, dynamic shared memory
  uint32_t registers_estimate = 0;  // per thread, the rule's estimate (not ptxas's count)
  uint32_t grid_x = 0, grid_y = 0, grid_z = 0;  // col tiles, row tiles, N x out groups
  uint64_t blocks() const { return uint64_t(grid_x) * grid_y * grid_z; }
  uint64_t warps() const { return blocks() * (threads_per_block / kWarp); }
  // "block 32ch x 16x16 (4x4 warps of 4x4), 3 groups/stage, 9.5 KiB smem"
  std::string describe() const;
};

class TilingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bytes of one staged element: a b-bit word (binary), 1 (int8), 4 (float).
uint32_t element_bytes(KernelKind kind, uint32_t bits);
// The rule's per-thread register estimate for a thread tile.
uint32_t register_estimate(KernelKind kind, uint32_t bits, uint32_t thread_rows,
                           uint32_t thread_cols);

// Throws TilingError when the shape is invalid (empty, kernel larger than the
// padded input, bits not 32/64) or nothing fits the device (e.g. warp size
// other than 32, or a kernel whose one-group footprint exceeds shared memory).
TilingPlan plan_tiling(KernelKind kind, const ConvShape& shape, uint32_t bits,
                       const DeviceLimits& device);

}  // namespace npusim::gpu
