// The cost of one piece of a layer under a mapping (sim/compiler/mapper.h):
// its input load, its compute stages and its store batches, in cycles of the
// formulas of models/cost_model.h, and the shapes of a layer's pieces (seed
// 003's equal or greedy rows, or column pieces). Both loop orders' estimates
// (mapper.cpp, feature_stationary_estimate.cpp) build on these.
#pragma once

#include <cstdint>

#include "sim/compiler/tiler.h"

namespace npusim {

struct PieceCost {
  uint64_t load_bus = 0;    // the piece's input on the bus
  uint64_t fill_bus = 0;    // what compute waits for (its first stage's rows, or all)
  uint64_t compute = 0;     // its compute instruction, stage by stage
  uint64_t store_bus = 0;   // its results on the bus
  uint64_t drain = 0;       // what follows its last compute stage (a batch, or all)
  uint64_t ports = 0;       // cache port cycles of its load, compute and store
  uint64_t load_ports = 0;  // of which its load's write of the input rows
};

// A piece's shape: `rows` output rows, of `cols` columns each (0: whole
// rows; a column piece has one row, docs/tiling.md#column-pieces).
struct PieceShape {
  uint32_t rows = 0, cols = 0;
};

// The cost of a piece of `shape` computing kernels [k_begin, k_begin + k_count).
PieceCost piece_cost(const LayerConfig& L, const HardwareConfig& hw, const LayerTilingPlan& plan,
                     PieceShape shape, uint32_t k_begin, uint32_t k_count, uint32_t output_bits);

// Whether a piece's cost depends on where its k-tile starts: only for a
// grouped convolution's groups (dense_array_cycles), and then only through
// where the k-tile starts within its group (uniform_grouped_stage_cycles reads
// k_begin mod K / groups): two k-tiles of one size that start at the same
// place in a group cost alike (estimate_mapping counts on it).
bool piece_cost_depends_on_k_begin(const LayerConfig& L, const HardwareConfig& hw);

// The pieces of one image: `full_pieces` of `full_shape` first and then
// `n_pieces - full_pieces` of `last_shape` (greedy: one remainder piece;
// equal: every piece after the first out_h mod N has one row less). Column
// pieces: every row's runs of columns, the first out_w mod n_cols of them
// one column wider (an equal split).
struct LayerPieces {
  uint32_t n_pieces = 0, full_pieces = 0;
  PieceShape full_shape, last_shape;
  uint32_t last_count() const { return n_pieces - full_pieces; }
};
LayerPieces layer_pieces(const LayerConfig& L, const HardwareConfig& hw,
                         const LayerTilingPlan& plan);

}  // namespace npusim
