#include "sim/compiler/kernel_parts.h"

#include <algorithm>
#include <vector>

#include "models/cost_model.h"
#include "sim/compiler/piece_cost.h"

namespace npusim {

using cost::ceil_div;

std::string kernel_parts_refusal(const LayerConfig& L, const HardwareConfig& hw) {
  if (hw.kernel_parts == KernelParts::Off) return "compiler.kernel_parts is off";
  if (hw.mapper != Mapper::Cost) return "kernel parts are the cost mapper's";
  if (!runs_on_array(L.op) || L.op == OpKind::BatchMatMul)
    return "kernel parts are for convolutions and matmuls with weights";
  if (L.is_binary()) return "kernel parts are not built for binary layers";
  if (L.groups != 1) return "kernel parts need one group";
  if (L.C < 2) return "one input channel cannot be cut";
  if (L.access_on(hw) != LoadAccess::Im2col) return "kernel parts need im2col access";
  if (L.input_layout != TensorLayout::Nhwc) return "kernel parts need an NHWC input";
  if (hw.dataflow != Dataflow::Lockstep) return "kernel parts need the lockstep array";
  return "";
}

LayerConfig kernel_part_layer(const LayerConfig& L, uint32_t channels) {
  LayerConfig part = L;
  part.C = channels;
  return part;
}

namespace {

// The part's whole-kernel mappings: weight-stationary, whole rows.
HardwareConfig part_hardware(const HardwareConfig& hw) {
  HardwareConfig h = hw;
  h.loop_order = LoopOrder::WeightStationary;
  h.column_pieces = ColumnPieces::Off;
  return h;
}

}  // namespace

bool kernel_parts_fit(const LayerConfig& L, const HardwareConfig& hw, const CachePartition& part,
                      uint32_t output_bits) {
  if (!kernel_parts_refusal(L, hw).empty()) return false;
  return !k_tile_candidates(kernel_part_layer(L, 1), part_hardware(hw), part, output_bits).empty();
}

std::vector<MappingCandidate> kernel_part_candidates(const LayerConfig& L, const HardwareConfig& hw,
                                                     const CachePartition& part,
                                                     uint32_t output_bits) {
  std::vector<MappingCandidate> out;
  if (!kernel_parts_fit(L, hw, part, output_bits)) return out;
  const HardwareConfig h = part_hardware(hw);
  HardwareConfig hu = hw;
  if (part.units != 0) hu.compute.units = part.units;
  uint32_t previous = 0, first_parts = 0;
  for (uint32_t parts = 2; parts <= L.C; ++parts) {
    if (first_parts != 0 && parts > 4 * first_parts) break;
    const uint32_t channels = uint32_t(ceil_div(L.C, parts));
    if (channels == previous) continue;
    previous = channels;
    const LayerConfig view = kernel_part_layer(L, channels);
    for (MappingCandidate c : whole_kernel_candidates(view, h, part, output_bits)) {
      if (c.plan.input_channel_tiles || c.plan.cols_per_piece != 0) continue;
      c.plan.channels_per_part = channels;
      c.estimate = estimate_kernel_parts(L, hu, c.plan, output_bits);
      out.push_back(c);
      if (first_parts == 0) first_parts = parts;
    }
  }
  return out;
}

MappingEstimate estimate_kernel_parts(const LayerConfig& L, const HardwareConfig& hw,
                                      const LayerTilingPlan& plan, uint32_t output_bits) {
  const uint64_t latency = hw.dram.latency_cycles;
  const uint32_t per_part = plan.channels_per_part;
  const uint32_t group = hw.compute.units * (hw.buffering == Buffering::PingPong ? 2 : 1);
  const LayerPieces shapes = layer_pieces(L, hw, plan);
  // Every piece of every image, in the emitter's order.
  std::vector<PieceShape> pieces;
  for (uint32_t n = 0; n < L.N; ++n)
    for (uint32_t p = 0; p < shapes.n_pieces; ++p)
      pieces.push_back(p < shapes.full_pieces ? shapes.full_shape : shapes.last_shape);
  const uint64_t taps = uint64_t(L.R) * L.S;
  MappingEstimate e;
  uint64_t total = 0, ports = 0;
  for (uint32_t k0 = 0; k0 < L.K; k0 += plan.k_tile) {
    const uint32_t k_count = std::min(plan.k_tile, L.K - k0);
    for (size_t first = 0; first < pieces.size(); first += group) {
      const size_t last = std::min(pieces.size(), first + group);
      // From the group's first weight load to its last compute's end. Per
      // unit (the group's pieces are dealt to the units in turn), the part
      // before's compute of its first piece and of the rest.
      const uint32_t units = hw.compute.units;
      std::vector<uint64_t> first_compute(units), rest_compute(units);
      uint64_t chunk = latency, drain = 0, busiest = 0;
      for (uint32_t c0 = 0; c0 < L.C; c0 += per_part) {
        const uint32_t channels = std::min(per_part, L.C - c0);
        const LayerConfig view = kernel_part_layer(L, channels);
        // The part's weights: R*S runs of its channels per kernel.
        uint64_t weights = cost::dram_data_cycles(hw.dram, k_count * taps, channels);
        if (c0 == 0 && first == 0 && plan.params_per_tile)
          weights += cost::dram_data_cycles(hw.dram, 1, uint64_t(k_count) * 8);
        e.weights += weights;
        ports += cost::cache_access_cycles(hw.cache, uint64_t(k_count) * taps * channels);
        std::vector<uint64_t> firsts(units, 0), rests(units, 0), loads_first(units, 0);
        uint64_t loads = 0;
        for (size_t i = first; i < last; ++i) {
          const PieceCost c = piece_cost(view, hw, plan, pieces[i], k0, k_count, output_bits);
          // Its rows of the part's channels: a run per pixel.
          const uint64_t rows =
              std::min<uint64_t>(L.H, uint64_t(pieces[i].rows - 1) * L.stride + window_h(L));
          const uint64_t load = cost::dram_data_cycles(hw.dram, rows * L.W, channels);
          loads += load;
          const size_t u = (i - first) % units;
          if (i - first < units) {
            firsts[u] = c.compute;
            loads_first[u] = load;
          } else {
            rests[u] += c.compute;
          }
          // Cache ports: its load, compute and (after the last part) store.
          const bool last_part = c0 + per_part >= L.C;
          const uint64_t store_read = cost::cache_access_cycles(
              hw.cache, uint64_t(pieces[i].rows) * L.out_w() * k_count * 4);
          ports += c.ports - (last_part ? 0 : std::min(c.ports, store_read));
          if (last_part) {
            e.bus += c.store_bus;
            drain = c.drain;
          }
        }
        e.bus += loads;
        uint64_t part_busiest = 0;
        for (uint32_t u = 0; u < units; ++u)
          part_busiest = std::max(part_busiest, firsts[u] + rests[u]);
        e.compute += part_busiest;
        if (c0 == 0) {
          // Two slots: every piece's rows before the first computes; one
          // slot: the first piece's (the others load under its compute).
          chunk += weights + (plan.weight_buffers > 1 ? loads : loads_first[0]);
        } else if (plan.weight_buffers > 1) {
          // The part's weights load into the other slot while the part before
          // computes. A unit's first piece loads its rows of this part once
          // its compute of the part before ends (they share its half), while
          // the unit's other pieces compute.
          uint64_t step = weights + loads;
          for (uint32_t u = 0; u < units; ++u)
            step = std::max(step,
                            first_compute[u] + std::max(rest_compute[u], loads_first[u] + latency));
          chunk += step;
        } else {
          // One slot: the part's weights wait for the computes before; the
          // first piece's rows follow them, the others' load under its compute.
          chunk += busiest + latency + weights + loads_first[0];
        }
        first_compute = firsts, rest_compute = rests;
        busiest = part_busiest;
      }
      const uint64_t before = busiest;
      total += chunk + before + drain;
    }
  }
  const uint64_t params =
      plan.params_per_tile ? 0 : cost::dram_data_cycles(hw.dram, 1, uint64_t(L.K) * 8);
  e.weights += params;
  // The cache's ports bound it too: the units' computes each read their
  // part's kernels and rows through them.
  const uint64_t port_bound = latency + ceil_div(ports, cost::cache_parallel_accesses(hw.cache));
  e.total = params + std::max(total, port_bound);
  return e;
}

}  // namespace npusim
