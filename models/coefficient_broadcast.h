// Seed 002's zero-skip engine as the seed describes it (compute.dataflow
// "broadcast", docs/zero-skip.md#dataflows): for each input channel kz of a
// kernel's group, the stage's input tile is loaded once; each non-zero
// coefficient w(Z, kz, ky, kx) in turn is applied to the whole tile -- the ky
// shift a start row, the kx shift a column offset -- and w times the shifted
// tile is added into the accumulation region of kernel Z. Zero coefficients
// are never applied. After the last kz, region Z holds output channel Z's
// sums. Timing lives in cost::broadcast_stage_cycles; the default lockstep
// arrangement is ComputeEngine's dot products over the same tile.
#pragma once

#include <cstdint>
#include <vector>

#include "models/tile_buffer.h"
#include "sim/program/program.h"

namespace npusim::coefficient_broadcast {

// The int32 sums of output rows [row_begin, row_end) of `in`'s piece for its
// k-tile, into `results` (pixel-major, k_count sums per pixel). `input`
// holds padded input rows of all C channels from tile row `tile_first_row`
// (padding holds the input zero point); `weights` the tile's kernels
// (K x R x S x C/groups) minus their zero points; `regions` is scratch for
// the per-kernel accumulation regions.
void compute_rows(const LayerDescriptor& L, const Instruction& in, const ByteTile& input,
                  int64_t tile_first_row, const std::vector<int16_t>& weights, SumTile& results,
                  uint32_t row_begin, uint32_t row_end, std::vector<uint32_t>& regions);

}  // namespace npusim::coefficient_broadcast
