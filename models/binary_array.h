// The arithmetic of the binary array (seed 000): +-1 values packed b channels
// per word, multiplied by XOR and summed by popcount. For one tap and word
// group with `valid` real channel bits (mask):
//   sum of a*w = valid - 2 * popcount((a XOR w) & mask)
// A tap outside the input adds nothing (skip), or reads the pad word all-ones
// (+1) or all-zeros (-1). Timing lives in cost::binary_stage_cycles.
#pragma once

#include <cstdint>
#include <vector>

#include "models/tile_buffer.h"
#include "sim/program/program.h"

namespace npusim::binary_array {

// The k_count kernels of the weight tile as words: kernel k, tap (r, s),
// group g at [(k * R*S + r*S + s) * groups + g].
std::vector<uint64_t> decode_kernels(const ByteTile& weights, const LayerDescriptor& L,
                                     uint32_t k_count);

// The int32 dot products of output rows [row_begin, row_end) of `in`'s piece
// for its k-tile, from the input tile (pixel-major packed words of padded
// rows, first row `tile_first_row`) into `results`.
void compute_rows(const LayerDescriptor& L, const Instruction& in, const ByteTile& input,
                  int64_t tile_first_row, const std::vector<uint64_t>& kernels, SumTile& results,
                  uint32_t row_begin, uint32_t row_end);

}  // namespace npusim::binary_array
