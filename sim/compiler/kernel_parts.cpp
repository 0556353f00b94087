#include "sim/compiler/kernel_parts.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/cost/cost_model.h"
#include "sim/compiler/estimate_memo.h"
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

// The last part's channels: every part before it is `per_part` wide.
uint32_t last_part_channels(uint32_t channels, uint32_t per_part) {
  return channels - (uint32_t(ceil_div(channels, per_part)) - 1) * per_part;
}

// estimate_kernel_parts with the parts' views given: `full_view` is the layer
// with plan.channels_per_part channels, `last_view` with the last part's.
MappingEstimate estimate_with_part_views(const LayerConfig& L, const LayerConfig& full_view,
                                         const LayerConfig& last_view, const HardwareConfig& hw,
                                         const LayerTilingPlan& plan, uint32_t output_bits);

}  // namespace

bool kernel_parts_fit(const LayerConfig& L, const HardwareConfig& hw, const CachePartition& part,
                      uint32_t output_bits) {
  if (!kernel_parts_refusal(L, hw).empty()) return false;
  return has_k_tile(kernel_part_layer(L, 1), part_hardware(hw), part, output_bits);
}

std::vector<MappingCandidate> kernel_part_candidates(const LayerConfig& layer,
                                                     const HardwareConfig& hw,
                                                     const CachePartition& part,
                                                     uint32_t output_bits, PlanEstimates* memo) {
  std::vector<MappingCandidate> out;
  if (!kernel_parts_refusal(layer, hw).empty()) return out;
  // Every part's view below is a copy of the layer (a model's weight values
  // are shared by its copies, not copied).
  const LayerConfig& L = layer;
  if (!kernel_parts_fit(L, hw, part, output_bits)) return out;
  const HardwareConfig h = part_hardware(hw);
  HardwareConfig hu = hw;
  if (part.units != 0) hu.compute.units = part.units;
  // The fewest parts that fit (fitting only gets easier with narrower parts:
  // bisection), then twice and four times as many.
  LayerConfig view = L;  // one copy, its channels set per question
  const auto fits = [&](uint32_t parts) {
    view.C = uint32_t(ceil_div(L.C, parts));
    return has_k_tile(view, h, part, output_bits);
  };
  uint32_t lo = 1, hi = L.C;  // parts: lo does not fit (or is whole kernels), hi fits
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? hi : lo) = mid;
  }
  uint32_t previous = 0;
  LayerConfig last_view = L;  // the last part's channels, per question
  for (const uint64_t parts : {uint64_t(hi), 2 * uint64_t(hi), 4 * uint64_t(hi)}) {
    const uint32_t channels = uint32_t(ceil_div(L.C, std::min<uint64_t>(parts, L.C)));
    if (channels == previous) continue;
    previous = channels;
    view.C = channels;
    last_view.C = last_part_channels(L.C, channels);
    for (MappingCandidate c : whole_kernel_candidates(view, h, part, output_bits, false)) {
      if (c.plan.input_channel_tiles || c.plan.cols_per_piece != 0) continue;
      c.plan.channels_per_part = channels;
      c.estimate = remembered_estimate(memo, c.plan, hu.compute.units, [&] {
        return estimate_with_part_views(L, view, last_view, hu, c.plan, output_bits);
      });
      out.push_back(c);
    }
  }
  return out;
}

MappingEstimate estimate_kernel_parts(const LayerConfig& L, const HardwareConfig& hw,
                                      const LayerTilingPlan& plan, uint32_t output_bits) {
  const uint32_t per_part = plan.channels_per_part;
  return estimate_with_part_views(L, kernel_part_layer(L, per_part),
                                  kernel_part_layer(L, last_part_channels(L.C, per_part)), hw, plan,
                                  output_bits);
}

namespace {

// One part's figures for a group of pieces, in the estimate's terms.
struct PartFigures {
  uint64_t weights = 0, loads = 0, ports = 0, store_bus = 0, drain = 0, busiest = 0;
  std::vector<uint64_t> firsts, rests, loads_first;  // per unit
};

MappingEstimate estimate_with_part_views(const LayerConfig& L, const LayerConfig& full_view,
                                         const LayerConfig& last_view, const HardwareConfig& hw,
                                         const LayerTilingPlan& plan, uint32_t output_bits) {
  const uint64_t latency = hw.dram.latency_cycles;
  const uint32_t per_part = plan.channels_per_part, units = hw.compute.units;
  const uint32_t n_parts = uint32_t(ceil_div(L.C, per_part));
  const uint32_t last_width = last_part_channels(L.C, per_part);
  const uint32_t group = units * (hw.buffering == Buffering::PingPong ? 2 : 1);
  const LayerPieces shapes = layer_pieces(L, hw, plan);
  // Every piece of every image, in the emitter's order: whether piece `i` has
  // the shorter shape.
  const size_t n_pieces = size_t(L.N) * shapes.n_pieces;
  const auto is_short = [&](size_t i) { return i % shapes.n_pieces >= shapes.full_pieces; };
  const uint64_t taps = uint64_t(L.R) * L.S;
  // A piece's cost and row load depend on its shape (full or the shorter
  // one), the part's width (full or the last's) and the k-tile (full or the
  // shorter last) alone: each is worked out once.
  std::optional<std::pair<PieceCost, uint64_t>> known_costs[2][2][2];
  // Two parts' figures at a time (a group's first and last), their per-unit
  // vectors reused from group to group and from call to call (the mapper
  // estimates tens of thousands of kernel-part plans; part_figures sets every
  // field before it is read).
  static thread_local PartFigures head, tail;

  // A part's figures for a group into `f`: pieces [first, last), k_count
  // kernels, `width` channels, `last_part`: it adds the stores.
  const auto part_figures = [&](PartFigures& f, size_t first, size_t last, uint32_t k0,
                                uint32_t k_count, uint32_t width, bool last_part) {
    f.weights = f.loads = f.ports = f.store_bus = f.drain = f.busiest = 0;
    f.firsts.assign(units, 0), f.rests.assign(units, 0), f.loads_first.assign(units, 0);
    const LayerConfig& view = width == per_part ? full_view : last_view;
    // The part's weights: R*S runs of its channels per kernel.
    f.weights = cost::dram_data_cycles(hw.dram, k_count * taps, width);
    f.ports = cost::cache_access_cycles(hw.cache, uint64_t(k_count) * taps * width);
    auto& of_shape = known_costs[k_count != plan.k_tile ? 1 : 0][width != per_part ? 1 : 0];
    for (size_t i = first; i < last; ++i) {
      const PieceShape shape = is_short(i) ? shapes.last_shape : shapes.full_shape;
      auto& known = of_shape[is_short(i) ? 1 : 0];
      if (!known) {
        // Its rows of the part's channels: a run per pixel.
        const uint64_t rows =
            std::min<uint64_t>(L.H, uint64_t(shape.rows - 1) * L.stride + window_h(L));
        known.emplace(piece_cost(view, hw, plan, shape, k0, k_count, output_bits),
                      cost::dram_data_cycles(hw.dram, rows * L.W, width));
      }
      const PieceCost& c = known->first;
      const uint64_t load = known->second;
      f.loads += load;
      const size_t u = (i - first) % units;
      if (i - first < units) {
        f.firsts[u] = c.compute;
        f.loads_first[u] = load;
      } else {
        f.rests[u] += c.compute;
      }
      // Cache ports: its load, compute and (after the last part) store.
      const uint64_t store_read =
          cost::cache_access_cycles(hw.cache, uint64_t(shape.rows) * L.out_w() * k_count * 4);
      f.ports += c.ports - (last_part ? 0 : std::min(c.ports, store_read));
      if (last_part) f.store_bus += c.store_bus, f.drain = c.drain;
    }
    for (uint32_t u = 0; u < units; ++u) f.busiest = std::max(f.busiest, f.firsts[u] + f.rests[u]);
  };
  // From part `before`'s computes to part `next`'s (its loads already out).
  const auto step = [&](const PartFigures& before, const PartFigures& next) {
    if (plan.weight_buffers > 1) {
      // The part's weights load into the other slot while the part before
      // computes. A unit's first piece loads its rows of this part once its
      // compute of the part before ends (they share its half), while the
      // unit's other pieces compute.
      uint64_t t = next.weights + next.loads;
      for (uint32_t u = 0; u < units; ++u)
        t = std::max(t,
                     before.firsts[u] + std::max(before.rests[u], next.loads_first[u] + latency));
      return t;
    }
    // One slot: the part's weights wait for the computes before; the first
    // piece's rows follow them, the others' load under its compute.
    return before.busiest + latency + next.weights + next.loads_first[0];
  };

  // A group of pieces through every part of one k-tile: its chain (from its
  // first weight load to its last store's end) and its figures. Groups of the
  // same pieces and k-tile size cost alike.
  struct GroupFigures {
    uint64_t chain = 0, weights = 0, bus = 0, compute = 0, ports = 0;
  };
  const auto group_figures = [&](size_t first, size_t last, uint32_t k0, uint32_t k_count) {
    GroupFigures g;
    part_figures(head, first, last, k0, k_count, per_part, n_parts == 1);
    // Two slots: every piece's rows before the first computes; one slot: the
    // first piece's (the others load under its compute).
    g.chain = latency + head.weights + (plan.weight_buffers > 1 ? head.loads : head.loads_first[0]);
    g.weights = head.weights, g.bus = head.loads, g.compute = head.busiest, g.ports = head.ports;
    if (n_parts == 1) {
      g.chain += head.busiest + head.drain;
      g.bus += head.store_bus;
      return g;
    }
    // The parts between the first and the last are alike.
    const uint64_t middles = n_parts - 2;
    // (The head is not the last part here: the middle parts' figures are the head's.)
    const PartFigures& middle = head;
    part_figures(tail, first, last, k0, k_count, last_width, true);
    if (middles > 0) g.chain += step(head, middle) + (middles - 1) * step(middle, middle);
    g.chain += step(middle, tail) + tail.busiest + tail.drain;
    g.weights += middles * middle.weights + tail.weights;
    g.bus += middles * middle.loads + tail.loads + tail.store_bus;
    g.compute += middles * middle.busiest + tail.busiest;
    g.ports += middles * middle.ports + tail.ports;
    return g;
  };

  // One k-tile's pass over the pieces, a group at a time: each distinct group
  // (its pieces' shapes) with its first piece and how often it comes.
  struct GroupKind {
    size_t first = 0, last = 0;
    uint64_t count = 0;
  };
  // A group's pieces' shapes as '0' (full) and '1' (shorter): short keys
  // that need no allocation.
  std::map<std::string, GroupKind> kinds;
  std::string key;
  for (size_t first = 0; first < n_pieces; first += group) {
    const size_t last = std::min(n_pieces, first + group);
    key.clear();
    for (size_t i = first; i < last; ++i) key += is_short(i) ? '1' : '0';
    GroupKind& kind = kinds.try_emplace(key, GroupKind{first, last, 0}).first->second;
    ++kind.count;
  }
  // The k-tiles: the full ones alike, then a shorter last one (if any).
  const uint32_t full_tiles = L.K / plan.k_tile, short_tile = L.K % plan.k_tile;
  MappingEstimate e;
  uint64_t total = 0, ports = 0;
  for (const auto& [k_count, tiles, k0] :
       {std::tuple<uint32_t, uint64_t, uint32_t>{plan.k_tile, full_tiles, 0},
        {short_tile, short_tile != 0 ? 1 : 0, full_tiles * plan.k_tile}}) {
    if (tiles == 0) continue;
    for (const auto& [shapes_of_group, kind] : kinds) {
      const GroupFigures g = group_figures(kind.first, kind.last, k0, k_count);
      const uint64_t times = tiles * kind.count;
      total += times * g.chain;
      e.weights += times * g.weights, e.bus += times * g.bus, e.compute += times * g.compute;
      ports += times * g.ports;
    }
    if (plan.params_per_tile) {  // each tile's parameters, with its first weights
      const uint64_t params = tiles * cost::dram_data_cycles(hw.dram, 1, uint64_t(k_count) * 8);
      total += params, e.weights += params;
    }
  }
  const uint64_t params =
      plan.params_per_tile ? 0 : cost::dram_data_cycles(hw.dram, 1, uint64_t(L.K) * 8);
  e.weights += params;
  // The cache's ports bound it too: the units' computes each read their
  // part's kernels and rows through them.
  const uint64_t port_bound = latency + ceil_div(ports, cost::cache_parallel_accesses(hw.cache));
  // And the bus: every weight part, row load and store crosses it in turn.
  const uint64_t bus_bound = latency + e.weights + e.bus;
  e.total = std::max(params + std::max(total, port_bound), bus_bound);
  return e;
}

}  // namespace

}  // namespace npusim
