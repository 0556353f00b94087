#include "sim/compiler/vector_estimate.h"

#include <algorithm>
#include <optional>

#include "models/cost/cost_model.h"
#include "models/cost/vector_cost.h"
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
    uint64_t bus = 0;
    const auto read = [&](size_t input, uint32_t channels) {
      const BusSegments s =
          vector_bus_segments(d, vector_input_pixels(d, input, rows), channels, k);
      if (s.count * s.bytes > 0) bus += cost::dram_data_cycles(hw.dram, s.count, s.bytes);
    };
    read(0, d.C);
    for (size_t i = 0; i < d.more_inputs.size(); ++i) read(i + 1, d.more_inputs[i].C);
    if (has_norm_params(d.op)) bus += cost::dram_data_cycles(hw.dram, 1, d.params_bytes());
    const uint32_t out_rows = r1 - r0;
    const uint64_t lanes =
        cost::vector_stage_cycles(hw.vector, cost::vector_row_element_ops(d, k) * out_rows) +
        cost::vector_special_cycles(hw.vector, cost::vector_row_special_ops(d) * out_rows) +
        hw.vector.latency_cycles;
    const BusSegments out = vector_bus_segments(d, uint64_t(out_rows) * d.out_w, d.K, k);
    const uint64_t write = cost::dram_data_cycles(hw.dram, out.count, out.bytes);
    return bus + latency + lanes + write;
  };
  // The instructions the emitter writes, one after another.
  uint64_t cycles = latency;
  for_each_vector_instruction(d, *tile,
                              [&](uint32_t, uint32_t r0, uint32_t r1, uint32_t k0, uint32_t k1) {
                                cycles += instruction(r0, r1, k1 - k0);
                              });
  return cycles;
}

}  // namespace npusim
