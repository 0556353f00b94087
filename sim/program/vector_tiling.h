// How much of the vector unit's cache region (vector_region_bytes) one
// vector instruction needs, and the largest instruction that fits: output
// rows [r0, r1) with output channels [k0, k1). The compiler cuts an operator
// into such instructions and the runner checks a program's against its
// region. Operators whose output channel reads only that input channel (max
// and average pooling, global pooling, add) may take part of the channels
// when one whole output row does not fit; the others (concat, the transformer
// operators) take whole rows. docs/stage-timing.md, "Vector stages", states the bytes.
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

// The instructions of `d` cut by `tile`, in program order: each image's
// output rows in equal pieces of at most tile.rows rows, each piece in
// channel tiles of tile.k_tile. Calls f(image, r0, r1, k0, k1) for each (the
// emitter writes them, the compiler's estimate costs them).
template <class F>
void for_each_vector_instruction(const LayerDescriptor& d, const VectorTile& tile, F f) {
  const uint32_t pieces = (d.out_h + tile.rows - 1) / tile.rows;
  const uint32_t per = (d.out_h + pieces - 1) / pieces;  // equal pieces
  for (uint32_t n = 0; n < d.N; ++n)
    for (uint32_t r0 = 0; r0 < d.out_h; r0 += per)
      for (uint32_t k0 = 0; k0 < d.K; k0 += tile.k_tile)
        f(n, r0, r0 + per < d.out_h ? r0 + per : d.out_h, k0,
          k0 + tile.k_tile < d.K ? k0 + tile.k_tile : d.K);
}

// The pixels a vector instruction reads of input `input` (0: the first, then
// more_inputs) when it reads `rows` rows of the first input: rows x W, or the
// one pixel of a per-channel operand (LayerDescriptor::per_channel_input).
uint64_t vector_input_pixels(const LayerDescriptor& d, size_t input, uint64_t rows);

// How a vector instruction of `k_count` channels moves one tensor of
// `channels` channels over `pixels` pixels on the bus: every channel as one
// segment, or a channel tile (k_count < K) as one segment of k_count bytes
// per pixel (the vector unit, and the compiler's estimate of it).
struct BusSegments {
  uint64_t count = 0;
  uint64_t bytes = 0;  // each
};
BusSegments vector_bus_segments(const LayerDescriptor& d, uint64_t pixels, uint32_t channels,
                                uint32_t k_count);

}  // namespace npusim
