#include "sim/compiler/piece_cost.h"

#include <algorithm>

#include "models/cost/cost_model.h"

namespace npusim {
namespace {

using cost::ceil_div;

// Rows `rows` cut into parts of `per_part` rows, the last one what is left.
// Calls f(part_rows, index, count) once for each distinct run of parts: the
// first part alone (index 0), the other full parts (count of them), the
// remainder; so a sum over the parts costs at most three calls.
template <class F>
void split_rows(uint32_t rows, uint32_t per_part, F f) {
  const uint32_t full = rows / per_part, rest = rows % per_part;
  if (full > 0) f(per_part, 0u, 1u);
  if (full > 1) f(per_part, 1u, full - 1);
  if (rest > 0) f(rest, full, 1u);
}

}  // namespace

PieceCost piece_cost(const LayerConfig& L, const HardwareConfig& hw, const LayerTilingPlan& plan,
                     PieceShape shape, uint32_t k_begin, uint32_t k_count, uint32_t output_bits) {
  const LoadAccess access = L.access_on(hw);
  const uint32_t rows = shape.rows;
  const uint64_t out_w = shape.cols != 0 ? shape.cols : L.out_w();
  // A column piece's tile rows hold its window of padded columns, of which
  // the real ones (at most W) come over the bus, a run per row.
  const uint64_t window =
      shape.cols == 0 ? 0 : uint64_t(shape.cols - 1) * col_stride(L) + window_w(L);
  // The piece's input bytes (no results): with input channel tiles, only the
  // k-tile's groups' channels of each pixel.
  const bool channel_tiles = plan.input_channel_tiles;
  const uint64_t channels = piece_channels(L, k_count, channel_tiles);
  const auto input_bytes = [&](uint32_t out_rows) {
    if (shape.cols != 0)
      return (uint64_t(out_rows - 1) * L.stride + window_h(L)) * window * channels;
    return piece_input_bytes(L, out_rows, k_count, access, channel_tiles);
  };
  const auto input_rows = [&](uint32_t out_rows) {
    return std::min<uint64_t>(L.H, uint64_t(out_rows - 1) * L.stride + window_h(L));
  };
  const auto load_cycles = [&](uint32_t out_rows) {
    const uint64_t real_cols = shape.cols != 0 ? std::min<uint64_t>(L.W, window) : L.W;
    const uint64_t bytes = access == LoadAccess::Im2col || L.is_binary()
                               ? input_rows(out_rows) * real_cols * channels
                               : input_bytes(out_rows);
    // NCHW: a run per channel plane; channel tiles: a run per pixel; column
    // pieces: a run per row.
    const uint64_t segments = channel_tiles     ? input_rows(out_rows) * L.W
                              : shape.cols != 0 ? input_rows(out_rows)
                              : L.input_layout == TensorLayout::Nchw && !L.is_binary() ? L.C
                                                                                       : 1;
    return cost::dram_data_cycles(hw.dram, segments, ceil_div(bytes, segments));
  };
  PieceCost c;
  c.load_bus = load_cycles(rows);
  c.fill_bus = c.load_bus;
  c.load_ports = cost::cache_access_cycles(hw.cache, input_bytes(rows));
  c.ports = c.load_ports;
  const uint64_t stream = uint64_t(k_count) * tiling_kernel_bytes(L);
  split_rows(rows, plan.rows_per_compute_stage, [&](uint32_t r, uint32_t index, uint32_t n) {
    const uint64_t pixels = uint64_t(r) * out_w;
    const uint64_t array = dense_array_cycles(L, hw, pixels, k_begin, k_count) +
                           (index == 0 ? hw.compute.pipeline_latency_cycles : 0);
    const uint64_t read = cost::cache_access_cycles(hw.cache, input_bytes(r) + stream);
    const uint64_t write = cost::cache_access_cycles(hw.cache, pixels * k_count * 4);
    c.compute += n * std::max({array, read, write});
    c.ports += n * (read + write);
  });
  const uint64_t element = L.output_element_bytes();
  const uint64_t tile_out_bytes =
      output_bits == 0 ? k_count * element : ceil_div(k_count, output_bits) * (output_bits / 8);
  split_rows(rows, plan.rows_per_store_batch, [&](uint32_t r, uint32_t, uint32_t n) {
    const uint64_t pixels = uint64_t(r) * out_w;
    const bool whole = k_count == L.K || output_bits != 0;
    const uint64_t bus = whole ? cost::dram_data_cycles(hw.dram, 1, pixels * tile_out_bytes)
                               : cost::dram_data_cycles(hw.dram, pixels, tile_out_bytes);
    const uint64_t read = cost::cache_access_cycles(hw.cache, pixels * k_count * 4);
    c.store_bus += n * bus;
    c.ports += n * read;
    c.drain += n * std::max(bus, read);
  });
  c.drain += hw.dram.latency_cycles;
  return c;
}

bool piece_cost_depends_on_k_begin(const LayerConfig& L, const HardwareConfig& hw) {
  return L.quantized && L.groups > 1 && !L.is_binary() && hw.dataflow != Dataflow::Broadcast &&
         L.op != OpKind::MatMul;
}

LayerPieces layer_pieces(const LayerConfig& L, const HardwareConfig& hw,
                         const LayerTilingPlan& plan) {
  LayerPieces p;
  const uint32_t out_h = L.out_h();
  if (plan.cols_per_piece != 0) {
    const uint32_t out_w = L.out_w(), n_cols = piece_count(out_w, plan.cols_per_piece);
    const uint32_t wide = out_w % n_cols == 0 ? n_cols : out_w % n_cols;
    p.n_pieces = out_h * n_cols;
    p.full_pieces = out_h * wide;
    p.full_shape = {1, uint32_t(ceil_div(out_w, n_cols))};
    p.last_shape = {1, out_w / n_cols};
    return p;
  }
  const bool equal = hw.pieces == PieceSplit::Equal;
  p.n_pieces = piece_count(out_h, plan.rows_per_piece);
  p.full_pieces = equal ? (out_h % p.n_pieces == 0 ? p.n_pieces : out_h % p.n_pieces)
                        : out_h / plan.rows_per_piece;
  p.full_shape = {plan.rows_per_piece, 0};
  p.last_shape = {equal ? out_h / p.n_pieces : out_h - p.full_pieces * plan.rows_per_piece, 0};
  return p;
}

}  // namespace npusim
