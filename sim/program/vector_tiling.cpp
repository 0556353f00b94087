#include "sim/program/vector_tiling.h"

namespace npusim {

bool vector_splits_channels(const LayerDescriptor& d) { return op_info(d.op).splits_channels; }

uint64_t vector_instruction_bytes(const LayerDescriptor& d, uint32_t rows, uint32_t k_count) {
  if (d.op == OpKind::GlobalAveragePool) return uint64_t(d.W) * k_count + uint64_t(k_count) * 4;
  // A channel-splitting operator reads the same channels of each input;
  // the others read every channel of every input.
  // A per-channel operand is C bytes whatever the rows.
  uint64_t input_channels = d.C, per_channel = 0;
  for (size_t i = 0; i < d.more_inputs.size(); ++i)
    (d.per_channel_input(i) ? per_channel : input_channels) += d.more_inputs[i].C;
  if (vector_splits_channels(d)) input_channels = uint64_t(k_count) * (1 + d.more_inputs.size());
  const RowRange in = input_rows_for(d, 0, rows);
  return uint64_t(in.count()) * d.W * input_channels + per_channel +
         uint64_t(rows) * d.out_w * k_count + (has_norm_params(d.op) ? d.params_bytes() : 0);
}

uint64_t vector_minimum_bytes(const LayerDescriptor& d) {
  return vector_instruction_bytes(d, 1, vector_splits_channels(d) ? 1 : d.K);
}

std::optional<VectorTile> fit_vector_instruction(const LayerDescriptor& d, uint64_t region) {
  if (vector_instruction_bytes(d, 1, d.K) <= region) {
    uint32_t rows = 1;
    while (rows < d.out_h && vector_instruction_bytes(d, rows + 1, d.K) <= region) ++rows;
    return VectorTile{rows, d.K};
  }
  if (!vector_splits_channels(d) || vector_instruction_bytes(d, 1, 1) > region) return {};
  // The bytes grow with the channels: the most that fit, then equal tiles.
  uint32_t most = 1;
  while (most < d.K && vector_instruction_bytes(d, 1, most + 1) <= region) ++most;
  const uint32_t tiles = (d.K + most - 1) / most;
  return VectorTile{1, (d.K + tiles - 1) / tiles};
}

uint64_t vector_input_pixels(const LayerDescriptor& d, size_t input, uint64_t rows) {
  if (input > 0 && d.per_channel_input(input - 1)) return rows > 0 ? 1 : 0;
  return rows * d.W;
}

BusSegments vector_bus_segments(const LayerDescriptor& d, uint64_t pixels, uint32_t channels,
                                uint32_t k_count) {
  if (k_count < d.K) return {pixels, k_count};
  return {1, pixels * channels};
}

}  // namespace npusim
