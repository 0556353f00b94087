// The compiler/tiler: turns a network and a hardware config into a program.
// Tiles are sized by the seed 003 rule: the cache left after the weight and
// parameter regions is split evenly between the compute units, each unit's
// share is split into two ping-pong halves, and each image is cut into N
// equal, contiguous pieces (N > 1) of output rows whose input rows and int32
// results fit one half; results leave in batches of seed 003's threshold. Dependencies between
// instructions are emitted explicitly.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"

namespace npusim {

// The fixed cache partition for a whole network (so no two layers' buffers
// ever overlap physically, whatever their tile sizes).
struct CachePartition {
  uint64_t weight_region_bytes = 0;
  // Two banks, each max K * 8 (alternating between array layers), or, with
  // params_per_tile, each 8 B for the most kernels any layer's weight tile can
  // hold (alternating between weight tiles).
  uint64_t params_region_bytes = 0;
  bool params_per_tile = false;      // each weight tile loads its own channels' parameters
  uint64_t half_bytes = 0;           // one ping-pong half of one unit
  uint64_t vector_region_bytes = 0;  // the vector unit's working region (0: no vector ops)
  uint32_t units = 0;                // compute units sharing the halves (<= compute.units)
};

// A mapping that does not fit is a value, not an abort: `fits` is false and
// `why` says what is too big, so callers (and sweeps) can report it.
struct LayerTilingPlan {
  bool fits = false;
  std::string why;
  uint32_t k_tile = 0;
  uint32_t k_tiles = 0;
  uint32_t rows_per_piece = 0;
  uint32_t pieces = 0;  // N of seed 003, per image per k-tile
  // Column pieces (docs/tiling.md#column-pieces): 0, pieces of whole rows;
  // else pieces of one output row cut into ceil(out_w / cols_per_piece)
  // near-equal runs of columns (rows_per_piece is then 1).
  uint32_t cols_per_piece = 0;
  uint32_t rows_per_compute_stage = 0;
  uint32_t rows_per_store_batch = 0;
  // 1: one weight tile in the whole weight region; 2: two slots of half the
  // region, so tile t + 1 loads while tile t computes (docs/mapping.md).
  uint32_t weight_buffers = 1;
  // Each weight tile brings its channels' parameters (the partition's choice).
  bool params_per_tile = false;
  // A grouped convolution's pieces hold only their k-tile's input channels
  // (LayerDescriptor::input_channel_tiles).
  bool input_channel_tiles = false;
  // Seed 004 rule 1's order of the layer's loops (never `auto`): hw's, or
  // the cost mapper's per-layer choice under compiler.loop_order auto.
  LoopOrder loop_order = LoopOrder::WeightStationary;
  // Kernel parts (LayerDescriptor::channels_per_part, sim/compiler/kernel_parts.h):
  // 0, whole kernels; else the other fields are those of a layer of this
  // many input channels.
  uint32_t channels_per_part = 0;
};
// Whether a piece of `layer` may hold only its k-tile's input channels: a
// quantised grouped convolution (graph operator) reading an NHWC int8 input
// through im2col, whose loops may be weight-stationary (a feature-stationary
// piece serves every k-tile, so it holds every channel; such plans never
// tile input channels).
bool can_tile_input_channels(const LayerConfig& layer, const HardwareConfig& hw);

// The bytes one kernel takes in the weight region (a group's channels for a
// grouped convolution, packed words for a binary layer).
uint64_t tiling_kernel_bytes(const LayerConfig& layer);

// The vector unit's region with `vector_share`: vector.buffer_kib / share.
inline uint64_t vector_region_bytes(const HardwareConfig& hw, uint32_t vector_share) {
  return uint64_t(hw.vector.buffer_kib) * 1024 / vector_share;
}

// Weights get at most cache / weight_share (2: half the cache, seed 003's
// default; the compiler tries larger shares only when a layer does not fit).
// `units`: the compute units the pieces use (0: all of hw's).
// `params_per_tile`: the parameters load with each weight tile rather than a
// layer at a time (the compiler's choice only where a layer's parameters
// crowd the cache or nothing else fits).
// `vector_share`: a graph with vector operators reserves
// vector_region_bytes(hw, vector_share) of the cache for the vector unit (the
// compiler tries shares above 1 only where all of it crowds the cache or
// nothing else fits, choose_partition).
CachePartition partition_cache(const NetworkConfig& net, const HardwareConfig& hw,
                               uint32_t weight_share = 2, uint32_t units = 0,
                               bool params_per_tile = false, uint32_t vector_share = 1);
// `output_bits`: the packed format the layer's store writes (0: int8), see
// LayerDescriptor::output_bits and output_bits_of.
LayerTilingPlan plan_layer(const LayerConfig& layer, const HardwareConfig& hw,
                           const CachePartition& partition, uint32_t output_bits = 0);

// The plan of the given k-tile, piece height and compute stage height, with
// the seed 003 store batch; fits is true (the caller checked the sizes).
LayerTilingPlan make_plan(const LayerConfig& layer, const HardwareConfig& hw, uint32_t k_tile,
                          uint32_t rows_per_piece, uint32_t rows_per_compute_stage,
                          uint32_t output_bits = 0);

// The most output rows a piece with `k_tile` channels may have in a half of
// `half_bytes` (0: not even one row fits).
uint32_t max_piece_rows(const LayerConfig& layer, uint32_t k_tile, LoadAccess access,
                        uint64_t half_bytes, bool input_channel_tiles = false);

// Seed 003's pieces of one image: N = ceil(out_h / rows_per_piece) pieces of
// contiguous output rows. `equal` (the seed): as equal as whole rows allow,
// out_h mod N pieces of ceil(out_h / N) rows first, then floor(out_h / N);
// `greedy`: rows_per_piece each, the remainder last.
struct PieceRows {
  uint32_t begin = 0, end = 0;
};
uint32_t piece_count(uint32_t out_h, uint32_t rows_per_piece);
PieceRows piece_rows(uint32_t out_h, uint32_t rows_per_piece, PieceSplit split, uint32_t piece);

// Dense array cycles of a stage of `pixels` output pixels and kernels
// [k_begin, k_begin + k_count): the formula the compute engine charges.
uint64_t dense_array_cycles(const LayerConfig& layer, const HardwareConfig& hw, uint64_t pixels,
                            uint32_t k_begin, uint32_t k_count);

// Bytes of one half needed by a piece of `rows` output rows with `k_tile`
// output channels: its input rows (piece_input_bytes) plus its int32 results.
uint64_t piece_bytes(const LayerConfig& layer, uint32_t rows, uint32_t k_tile,
                     LoadAccess access = LoadAccess::Im2col, bool input_channel_tiles = false);
// The input part: its input rows (padded width; with input_channel_tiles only
// the k-tile's groups' channels), or the lowered rows of host_im2col and mec.
uint64_t piece_input_bytes(const LayerConfig& layer, uint32_t rows, uint32_t k_tile,
                           LoadAccess access, bool input_channel_tiles);
// The input channels a piece of a k-tile of `k_tile` kernels holds per pixel.
uint64_t piece_channels(const LayerConfig& layer, uint32_t k_tile, bool input_channel_tiles);

// Column pieces (docs/tiling.md#column-pieces), for a row too wide for a
// half: why the cost mapper may not cut `layer`'s rows along their width
// ("" when it may; the program-level rule is column_pieces_unsupported).
std::string column_pieces_refusal(const LayerConfig& layer, const HardwareConfig& hw,
                                  uint32_t output_bits);
// Bytes of one half needed by a column piece of `cols` output columns of one
// output row with `k_tile` channels: its input rows' window of padded
// columns and its int32 results.
uint64_t column_piece_bytes(const LayerConfig& layer, uint32_t cols, uint32_t k_tile);
// The most output columns such a piece may have in `half_bytes` with at most
// `acc_bytes` of int32 sums per compute stage (0: not even one column fits).
uint32_t max_piece_cols(const LayerConfig& layer, uint32_t k_tile, uint64_t half_bytes,
                        uint64_t acc_bytes);
// The plan of column pieces of `cols_per_piece` columns and the given
// k-tile: one output row per piece, compute stage and store batch.
LayerTilingPlan make_column_plan(const LayerConfig& layer, const HardwareConfig& hw,
                                 uint32_t k_tile, uint32_t cols_per_piece, uint32_t output_bits);

class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace npusim
