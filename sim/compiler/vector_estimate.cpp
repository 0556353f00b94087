#include "sim/compiler/vector_estimate.h"

#include <algorithm>
#include <optional>

#include "models/cost_model.h"
#include "models/vector_ops.h"
#include "sim/program/vector_tiling.h"

namespace npusim {

uint64_t estimate_vector_operator(const LayerDescriptor& d, const HardwareConfig& hw,
                                  uint64_t region) {
  const std::optional<VectorTile> tile = fit_vector_instruction(d, region);
  if (!tile) return 0;
  const uint64_t latency = hw.dram.latency_cycles;
  // One instruction of output rows [r0, r1) and k channels.
  const auto instruction = [&](uint32_t r0, uint32_t r1, uint32_t k) {
    const RowRange window =
        d.op == OpKind::GlobalAveragePool ? RowRange{0, d.H} : input_rows_for(d, r0, r1);
    const int64_t first = std::max<int64_t>(window.begin, 0);
    const int64_t end = std::min<int64_t>(window.end, d.H);
    const uint64_t rows = end > first ? uint64_t(end - first) : 0;
    const bool part = k < d.K;
    uint64_t bus = 0;
    const auto read = [&](uint32_t channels) {
      const uint64_t segments = part ? rows * d.W : 1;
      const uint64_t bytes = rows * d.W * (part ? k : channels);
      if (bytes > 0) bus += cost::dram_data_cycles(hw.dram, segments, bytes / segments);
    };
    read(d.C);
    for (const auto& m : d.more_inputs) read(m.C);
    if (has_norm_params(d.op)) bus += cost::dram_data_cycles(hw.dram, 1, d.params_bytes());
    const uint32_t out_rows = r1 - r0;
    const uint64_t lanes =
        cost::vector_stage_cycles(hw.vector, vector_ops::row_element_ops(d, k) * out_rows) +
        cost::vector_special_cycles(hw.vector, vector_ops::row_special_ops(d) * out_rows) +
        hw.vector.latency_cycles;
    const uint64_t out_pixels = uint64_t(out_rows) * d.out_w;
    const uint64_t out_segments = part ? out_pixels : 1;
    const uint64_t write =
        cost::dram_data_cycles(hw.dram, out_segments, out_pixels * k / out_segments);
    return bus + latency + lanes + write;
  };
  // The emitter's cut: equal pieces of rows, each in channel tiles.
  const uint32_t pieces = (d.out_h + tile->rows - 1) / tile->rows;
  const uint32_t per = (d.out_h + pieces - 1) / pieces;
  uint64_t image = 0;
  for (uint32_t r0 = 0; r0 < d.out_h; r0 += per)
    for (uint32_t k0 = 0; k0 < d.K; k0 += tile->k_tile)
      image += instruction(r0, std::min(d.out_h, r0 + per), std::min(tile->k_tile, d.K - k0));
  return uint64_t(d.N) * image + latency;
}

}  // namespace npusim
