#include "sim/compiler/tiler.h"

#include <algorithm>

#include "models/cost/cost_model.h"

namespace npusim {
namespace {

using cost::ceil_div;

uint64_t input_rows_needed(const LayerConfig& L, uint32_t out_rows) {
  return uint64_t(out_rows - 1) * L.stride + window_h(L);
}

// The largest n in [1, most] with fits(n) (0: none), for a `fits` that holds
// up to some n and not above it (a piece's bytes grow with its size).
template <class Fits>
uint32_t largest_fitting(uint32_t most, Fits fits) {
  uint32_t largest = 0;
  for (uint32_t lo = 1, hi = most; lo <= hi;) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) {
      largest = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return largest;
}

}  // namespace

uint32_t piece_count(uint32_t out_h, uint32_t rows_per_piece) {
  return static_cast<uint32_t>(ceil_div(out_h, rows_per_piece));
}

PieceRows piece_rows(uint32_t out_h, uint32_t rows_per_piece, PieceSplit split, uint32_t i) {
  if (split == PieceSplit::Greedy)
    return {i * rows_per_piece, std::min(out_h, (i + 1) * rows_per_piece)};
  const uint32_t n = piece_count(out_h, rows_per_piece);
  const uint32_t base = out_h / n, extra = out_h % n;  // the first `extra` get one more row
  const uint32_t begin = i * base + std::min(i, extra);
  return {begin, begin + base + (i < extra ? 1 : 0)};
}

uint64_t dense_array_cycles(const LayerConfig& L, const HardwareConfig& hw, uint64_t pixels,
                            uint32_t k_begin, uint32_t k_count) {
  if (L.is_binary())
    return cost::binary_stage_cycles(hw.compute, pixels, k_count, uint64_t(L.R) * L.S,
                                     ceil_div(L.C, L.binary.bits));
  const uint64_t coefficients = uint64_t(L.R) * L.S * L.group_channels();
  // Folded stages (as ComputeEngine::array_cycles): lockstep stages of one
  // group fold their columns.
  if (folds_stages(hw) && hw.dataflow != Dataflow::Broadcast && (!L.quantized || L.groups == 1)) {
    const cost::StageFold f = cost::stage_fold(hw, pixels, k_count, coefficients);
    return cost::uniform_folded_stage_cycles(hw.compute, pixels, coefficients, k_count, f.fold,
                                             f.split);
  }
  // Plain layers first: they need no per-kernel counts (the mapper calls
  // this for every stage of every candidate).
  if (hw.dataflow != Dataflow::Broadcast && !L.quantized)
    return cost::compute_stage_cycles(hw.compute, pixels, k_count, coefficients);
  // Graph operators: every kernel applies all `coefficients`, so the closed
  // forms of the lockstep formulas answer without per-kernel counts (the
  // mapper asks for every stage of every candidate).
  if (hw.dataflow == Dataflow::Broadcast)
    return cost::uniform_broadcast_stage_cycles(hw.compute, pixels, coefficients, k_count);
  if (L.op == OpKind::MatMul)
    return cost::uniform_matmul_stage_cycles(
        hw.compute, pixels, coefficients, k_count,
        cost::coefficient_split(hw, cost::matmul_fold(hw.compute, pixels), k_count));
  return cost::uniform_grouped_stage_cycles(hw.compute, pixels, coefficients, k_begin, k_count,
                                            L.K / L.groups);
}

bool can_tile_input_channels(const LayerConfig& L, const HardwareConfig& hw) {
  return L.quantized && L.groups > 1 && !L.is_binary() && L.input_layout == TensorLayout::Nhwc &&
         L.access_on(hw) == LoadAccess::Im2col && hw.loop_order != LoopOrder::FeatureStationary &&
         hw.dataflow != Dataflow::Broadcast;
}

uint64_t piece_channels(const LayerConfig& L, uint32_t k_tile, bool input_channel_tiles) {
  // Whole groups: the mapper gives channel-tiled layers k-tiles of whole groups.
  if (!input_channel_tiles) return L.pixel_bytes();
  return uint64_t(k_tile) / (L.K / L.groups) * L.group_channels();
}

uint64_t piece_input_bytes(const LayerConfig& L, uint32_t rows, uint32_t k_tile, LoadAccess access,
                           bool input_channel_tiles) {
  // Follows LayerDescriptor::tile_row_bytes and tile_rows_for.
  const uint64_t SC = uint64_t(L.S) * L.C;
  switch (L.is_binary() ? LoadAccess::Im2col : access) {
    case LoadAccess::Im2col:
      break;
    case LoadAccess::Mec:
      return input_rows_needed(L, rows) * L.out_w() * SC;
    case LoadAccess::HostIm2col:
      return uint64_t(rows) * L.out_w() * L.R * SC;
  }
  return input_rows_needed(L, rows) * (uint64_t(L.W) + pad_l(L) + pad_r(L)) *
         piece_channels(L, k_tile, input_channel_tiles);
}

uint64_t piece_bytes(const LayerConfig& L, uint32_t rows, uint32_t k_tile, LoadAccess access,
                     bool input_channel_tiles) {
  return piece_input_bytes(L, rows, k_tile, access, input_channel_tiles) +
         uint64_t(rows) * L.out_w() * k_tile * 4;
}

uint64_t tiling_kernel_bytes(const LayerConfig& L) {
  return uint64_t(L.R) * L.S * (L.groups > 1 ? L.group_channels() : L.pixel_bytes());
}

CachePartition partition_cache(const NetworkConfig& net, const HardwareConfig& hw,
                               uint32_t weight_share, uint32_t units, bool params_per_tile,
                               uint32_t vector_share) {
  uint64_t max_weights = 0, max_k = 0;
  for (const LayerConfig& L : net.layers) {
    max_weights = std::max(max_weights, L.weight_bytes());
    max_k = std::max<uint64_t>(max_k, L.K);
  }
  CachePartition p;
  // A graph with vector operators reserves the vector unit's working region.
  uint64_t cache = hw.compiler_tile_cache_bytes();
  for (const LayerConfig& L : net.layers)
    if (!runs_on_array(L.op)) {
      p.vector_region_bytes = vector_region_bytes(hw, vector_share);
      cache = cache > p.vector_region_bytes ? cache - p.vector_region_bytes : 0;
      break;
    }
  // Weights get at most a share of the cache (half by default); what they do
  // not need goes to the halves.
  p.weight_region_bytes = std::min(cache / weight_share, max_weights);
  p.params_region_bytes = 2 * max_k * 8;
  if (params_per_tile) {
    // A bank for the largest weight tile the region holds of any array layer.
    uint64_t tile_k = 0;
    for (const LayerConfig& L : net.layers)
      if (runs_on_array(L.op))
        tile_k = std::max(tile_k,
                          std::min<uint64_t>(L.K, p.weight_region_bytes / tiling_kernel_bytes(L)));
    p.params_per_tile = true;
    p.params_region_bytes = 2 * tile_k * 8;
  }
  const uint64_t used = p.weight_region_bytes + p.params_region_bytes;
  const uint64_t free_bytes = cache > used ? cache - used : 0;
  p.units = units == 0 ? hw.compute.units : units;
  const uint64_t per_unit = free_bytes / p.units;  // seed 003: budget per unit
  // Single buffering keeps the same half size (and leaves the other half
  // idle), so the two modes tile alike and differ only in overlap.
  p.half_bytes = per_unit / 2;
  return p;
}

LayerTilingPlan plan_layer(const LayerConfig& L, const HardwareConfig& hw,
                           const CachePartition& part, uint32_t output_bits) {
  LayerTilingPlan plan;
  const uint64_t acc_bytes = uint64_t(hw.compute.accumulator_kib) * 1024;
  const uint64_t kernel_bytes = tiling_kernel_bytes(L);
  const uint64_t by_weights =
      std::min<uint64_t>(part.weight_region_bytes / kernel_bytes,
                         part.params_per_tile ? part.params_region_bytes / 16 : UINT64_MAX);
  const uint64_t by_accumulator = acc_bytes / (uint64_t(L.out_w()) * 4);
  uint64_t k_limit = std::min<uint64_t>({L.K, by_weights, by_accumulator});
  // A packed output word holds output_bits channels; two k-tiles must never
  // share a word (the store writes whole words), so k-tiles are whole words.
  const bool word_tiles = output_bits != 0 && k_limit < L.K;
  if (word_tiles) k_limit = k_limit / output_bits * output_bits;
  if (k_limit == 0 && word_tiles) {
    plan.why = "a k-tile must hold whole packed output words of " + std::to_string(output_bits) +
               " channels, but at most " +
               std::to_string(std::min<uint64_t>(by_weights, by_accumulator)) + " kernels fit";
    return plan;
  }
  if (k_limit == 0) {
    plan.why = by_weights == 0
                   ? "one kernel (" + std::to_string(kernel_bytes) +
                         " B) exceeds the weight region (" +
                         std::to_string(part.weight_region_bytes) + " B)"
                   : "one output row of int32 sums (" + std::to_string(uint64_t(L.out_w()) * 4) +
                         " B) exceeds the accumulator (compute.accumulator_kib)";
    return plan;
  }
  plan.k_tiles = static_cast<uint32_t>(ceil_div(L.K, k_limit));
  plan.k_tile = static_cast<uint32_t>(ceil_div(L.K, plan.k_tiles));  // equal k-tiles
  if (word_tiles)
    plan.k_tile = static_cast<uint32_t>(ceil_div(plan.k_tile, output_bits)) * output_bits;
  const LoadAccess access = L.access_on(hw);

  const uint32_t max_rows = max_piece_rows(L, plan.k_tile, access, part.half_bytes);
  if (max_rows == 0) {
    plan.why = "one output row needs " + std::to_string(piece_bytes(L, 1, plan.k_tile, access)) +
               " B but a ping-pong half holds " + std::to_string(part.half_bytes) +
               " B (raise cache.size_kib or lower compute.units)";
    return plan;
  }
  // Seed 003: N > 1 (when the image has two rows), the fewest that fit.
  const uint32_t min_pieces = hw.pieces == PieceSplit::Equal ? std::min(2u, L.out_h()) : 1u;
  const uint32_t pieces =
      std::max(min_pieces, static_cast<uint32_t>(ceil_div(L.out_h(), max_rows)));
  const uint32_t rows_per_piece = static_cast<uint32_t>(ceil_div(L.out_h(), pieces));
  const uint64_t row_sum_bytes = uint64_t(L.out_w()) * plan.k_tile * 4;
  const uint32_t rows_per_stage =
      static_cast<uint32_t>(std::clamp<uint64_t>(acc_bytes / row_sum_bytes, 1, rows_per_piece));
  LayerTilingPlan chosen =
      make_plan(L, hw, plan.k_tile, rows_per_piece, rows_per_stage, output_bits);
  chosen.params_per_tile = part.params_per_tile;
  return chosen;
}

uint32_t max_piece_rows(const LayerConfig& L, uint32_t k_tile, LoadAccess access,
                        uint64_t half_bytes, bool input_channel_tiles) {
  return largest_fitting(L.out_h(), [&](uint32_t rows) {
    return piece_bytes(L, rows, k_tile, access, input_channel_tiles) <= half_bytes;
  });
}

LayerTilingPlan make_plan(const LayerConfig& L, const HardwareConfig& hw, uint32_t k_tile,
                          uint32_t rows_per_piece, uint32_t rows_per_compute_stage,
                          uint32_t output_bits) {
  LayerTilingPlan plan;
  plan.k_tile = k_tile;
  plan.k_tiles = static_cast<uint32_t>(ceil_div(L.K, k_tile));
  plan.rows_per_piece = rows_per_piece;
  plan.pieces = piece_count(L.out_h(), rows_per_piece);
  plan.rows_per_compute_stage = rows_per_compute_stage;
  // Under `auto` the cost mapper adds a feature-stationary twin of each candidate.
  plan.loop_order = default_loop_order(hw, L.op);
  const uint64_t tile_out_bytes =
      output_bits == 0 ? k_tile : ceil_div(k_tile, output_bits) * (output_bits / 8);
  const uint64_t row_out_bytes = uint64_t(L.out_w()) * tile_out_bytes;
  // Seed 003: results leave once a preset amount has accumulated, so a batch
  // is the fewest whole rows holding at least the threshold (or the whole
  // piece): store.batch_bytes, or (0) what the bus uploads while the array
  // computes one output row of the tile.
  const uint64_t threshold =
      hw.store.batch_bytes != 0
          ? hw.store.batch_bytes
          : cost::upload_threshold_bytes(hw.dram, dense_array_cycles(L, hw, L.out_w(), 0, k_tile));
  // A derived batch holds at least a compute stage (store.batch_floor): a
  // stage's rows become valid together when it ends, so smaller batches start
  // no earlier and each pays its own DRAM latency (they do leave the bus to
  // loads between them). store.batch_bytes, when set, is taken as given.
  const uint64_t fewest_rows =
      hw.store.batch_bytes == 0 && hw.store_batch_floor == StoreBatchFloor::ComputeStage
          ? rows_per_compute_stage
          : 1;
  plan.rows_per_store_batch = static_cast<uint32_t>(std::clamp<uint64_t>(
      std::max(ceil_div(threshold, row_out_bytes), fewest_rows), 1, plan.rows_per_piece));
  plan.fits = true;
  return plan;
}

std::string column_pieces_refusal(const LayerConfig& L, const HardwareConfig& hw,
                                  uint32_t output_bits) {
  if (hw.column_pieces == ColumnPieces::Off) return "compiler.column_pieces is off";
  // As column_pieces_unsupported (program.h) sees the layer's descriptor.
  if (L.op != OpKind::Conv) return "column pieces are for convolutions";
  if (L.is_binary()) return "column pieces are not built for binary layers";
  if (L.access_on(hw) != LoadAccess::Im2col) return "column pieces need im2col access";
  if (L.input_layout != TensorLayout::Nhwc) return "column pieces need an NHWC input";
  if (output_bits != 0 || L.output_layout != TensorLayout::Nhwc)
    return "column pieces need an int8 NHWC output";
  if (window_w(L) < uint64_t(pad_l(L)) + pad_r(L))
    return "the left and right padding exceed one output column's input window";
  return "";
}

uint64_t column_piece_bytes(const LayerConfig& L, uint32_t cols, uint32_t k_tile) {
  // Follows padded_cols_for: (cols - 1) * stride + window padded columns.
  const uint64_t window = uint64_t(cols - 1) * col_stride(L) + window_w(L);
  return input_rows_needed(L, 1) * window * L.pixel_bytes() + uint64_t(cols) * k_tile * 4;
}

uint32_t max_piece_cols(const LayerConfig& L, uint32_t k_tile, uint64_t half_bytes,
                        uint64_t acc_bytes) {
  const uint32_t by_acc =
      static_cast<uint32_t>(std::min<uint64_t>(L.out_w(), acc_bytes / (uint64_t(k_tile) * 4)));
  return largest_fitting(
      by_acc, [&](uint32_t cols) { return column_piece_bytes(L, cols, k_tile) <= half_bytes; });
}

LayerTilingPlan make_column_plan(const LayerConfig& L, const HardwareConfig& hw, uint32_t k_tile,
                                 uint32_t cols_per_piece, uint32_t output_bits) {
  LayerTilingPlan plan = make_plan(L, hw, k_tile, 1, 1, output_bits);
  plan.cols_per_piece = cols_per_piece;
  plan.pieces = L.out_h() * piece_count(L.out_w(), cols_per_piece);
  return plan;
}

}  // namespace npusim
