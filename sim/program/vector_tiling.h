// How much of the vector unit's cache region (vector_region_bytes) one
// vector instruction needs, and the largest instruction that fits: output
// rows [r0, r1) with output channels [k0, k1). The compiler cuts an operator
// into such instructions and the runner checks a program's against its
// region. Operators whose output channel reads only that input channel (max
// and average pooling, global pooling, add) may take part of the channels
// when one whole output row does not fit; the others (concat, the transformer
// operators) take whole rows. docs/timing.md, "Vector stages", states the bytes.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/program/program.h"

namespace npusim {

// Whether a vector instruction of `d` may cover only some output channels.
bool vector_splits_channels(const LayerDescriptor& d);

// Bytes an instruction of `rows` output rows and `k_count` channels holds in
// the region: the input rows it reads of every input (those channels), its
// output rows, and a norm's parameters. Global pooling streams its input a
// row at a time beside k_count int32 sums: W * k_count + 4 * k_count.
uint64_t vector_instruction_bytes(const LayerDescriptor& d, uint32_t rows, uint32_t k_count);

// The largest instruction the compiler gives `d` in a region of `region`
// bytes: all K channels and as many rows as fit; or, when one whole row does
// not fit and the operator splits channels, one row and equal channel tiles
// (ceil(K / tiles) each, the fewest tiles that fit). Nothing when even one
// row of one channel (or, unsplittable, one whole row) does not fit.
struct VectorTile {
  uint32_t rows = 0;
  uint32_t k_tile = 0;
};
std::optional<VectorTile> fit_vector_instruction(const LayerDescriptor& d, uint64_t region);

// The fewest bytes any instruction of `d` needs: one row of one channel, or
// one whole row when the operator does not split channels.
uint64_t vector_minimum_bytes(const LayerDescriptor& d);

}  // namespace npusim
