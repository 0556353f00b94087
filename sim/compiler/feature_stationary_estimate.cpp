#include "sim/compiler/feature_stationary_estimate.h"

#include <algorithm>

#include "models/cost/cost_model.h"
#include "sim/compiler/piece_cost.h"

namespace npusim {
namespace {

// One piece through every weight tile of the layer.
struct PieceThroughTiles {
  uint64_t input = 0;          // its input load on the bus (once)
  uint64_t first_weights = 0;  // the first tile's weight load on the bus
  uint64_t last_compute = 0;   // the last tile's compute
  // From its first weight load (two slots: its first compute) to its last
  // compute's end. Every tile's compute writes its sums into the same part
  // of the piece's half, so it waits for the previous tile's store to drain
  // them; one slot, each tile's weight load also waits for the compute
  // before it; two slots, tile t's load overlaps tile t - 1's compute.
  uint64_t chain = 0;
  uint64_t weights = 0, compute = 0, stores = 0;  // sums over the tiles
  uint64_t ports = 0;                             // cache port cycles, weight writes included
  uint64_t drain = 0;                             // after the last compute: its store
};

PieceThroughTiles through_tiles(const LayerConfig& L, const HardwareConfig& hw,
                                const LayerTilingPlan& plan, PieceShape shape,
                                uint32_t output_bits) {
  PieceThroughTiles r;
  const uint64_t latency = hw.dram.latency_cycles;
  const bool two_slots = plan.weight_buffers > 1;
  const bool by_k_begin = piece_cost_depends_on_k_begin(L, hw);
  // Tiles of k_tile kernels cost alike unless by_k_begin: cost one of each size.
  PieceCost full_tile;
  bool have_full = false;
  for (uint32_t k0 = 0; k0 < L.K; k0 += plan.k_tile) {
    const uint32_t k_count = std::min(plan.k_tile, L.K - k0);
    const bool reuse = !by_k_begin && k_count == plan.k_tile && have_full;
    const PieceCost c =
        reuse ? full_tile : piece_cost(L, hw, plan, shape, k0, k_count, output_bits);
    if (!by_k_begin && k_count == plan.k_tile) full_tile = c, have_full = true;
    const uint64_t kernel_bytes = uint64_t(k_count) * tiling_kernel_bytes(L);
    const uint64_t param_bytes = plan.params_per_tile ? uint64_t(k_count) * 8 : 0;
    const uint64_t weights =
        cost::dram_data_cycles(hw.dram, 1, kernel_bytes) +
        (param_bytes > 0 ? cost::dram_data_cycles(hw.dram, 1, param_bytes) : 0);
    if (k0 == 0) {
      r.input = c.load_bus;
      r.first_weights = weights;
      r.ports += c.load_ports;  // the rows are written once
    }
    if (!two_slots)
      r.chain += (k0 == 0 ? weights + latency : std::max(weights + latency, r.drain)) + c.compute;
    else if (k0 > 0)
      r.chain += std::max(r.last_compute + r.drain, weights);
    r.last_compute = c.compute;
    r.weights += weights, r.compute += c.compute, r.stores += c.store_bus;
    r.ports +=
        c.ports - c.load_ports + cost::cache_access_cycles(hw.cache, kernel_bytes + param_bytes);
    r.drain = c.drain;
  }
  if (two_slots) r.chain += r.last_compute;
  return r;
}

}  // namespace

MappingEstimate estimate_feature_stationary(const LayerConfig& L, const HardwareConfig& hw,
                                            const LayerTilingPlan& plan, uint32_t output_bits) {
  const uint64_t latency = hw.dram.latency_cycles;
  const LayerPieces shapes = layer_pieces(L, hw, plan);
  const PieceThroughTiles full = through_tiles(L, hw, plan, shapes.full_shape, output_bits);
  const PieceThroughTiles last =
      shapes.last_count() > 0 ? through_tiles(L, hw, plan, shapes.last_shape, output_bits) : full;
  const bool two_slots = plan.weight_buffers > 1;
  // The next piece's input load follows the last weight load on the
  // in-order load engine and runs under the last compute when its half is
  // free (another half or unit); the next piece then waits for what of it
  // (and, with two slots, of its first weight load) that compute did not hide.
  const bool half_free = hw.buffering == Buffering::PingPong || hw.compute.units > 1;
  // One slot: the chain starts with the first weight load, which waits for
  // the last compute and the input load (issued `latency` before that compute
  // began). Two slots: the chain starts with the first compute, which waits
  // for the input and first weight loads and the last compute.
  const auto gap = [&](const PieceThroughTiles& before, const PieceThroughTiles& next) {
    if (!two_slots) {
      if (!half_free) return next.input;
      return next.input > before.last_compute + latency ? next.input - before.last_compute - latency
                                                        : 0;
    }
    const uint64_t ahead = next.input + next.first_weights;
    if (!half_free) return ahead + latency;
    return ahead > before.last_compute ? ahead - before.last_compute : 0;
  };
  // The pieces in the emitter's order: each image's full pieces, then its
  // shorter ones.
  const uint64_t n_full = shapes.full_pieces, n_last = shapes.last_count();
  const uint64_t images = L.N;
  uint64_t gaps = 0;
  if (n_full > 1) gaps += images * (n_full - 1) * gap(full, full);
  if (n_last > 0) {
    gaps += images * gap(full, last);
    if (n_last > 1) gaps += images * (n_last - 1) * gap(last, last);
  }
  if (images > 1) gaps += (images - 1) * (n_last > 0 ? gap(last, full) : gap(full, full));
  // The first piece: its input load, then (two slots) its first weight load.
  const uint64_t head = full.input + (two_slots ? full.first_weights + latency : 0);
  const uint64_t chains = images * (n_full * full.chain + n_last * last.chain);

  MappingEstimate e;
  const uint64_t params =
      plan.params_per_tile ? 0 : cost::dram_data_cycles(hw.dram, 1, uint64_t(L.K) * 8);
  e.weights = params + images * (n_full * full.weights + n_last * last.weights);
  e.compute = images * (n_full * full.compute + n_last * last.compute);
  e.bus = images * (n_full * (full.input + full.stores) + n_last * (last.input + last.stores));
  const uint64_t ports = images * (n_full * full.ports + n_last * last.ports);
  const uint64_t port_bound =
      latency + cost::ceil_div(ports, cost::cache_parallel_accesses(hw.cache));
  const uint64_t bus_bound = latency + e.weights - params + e.bus;
  e.total = params + std::max({head + chains + gaps, bus_bound, port_bound}) +
            (n_last > 0 ? last.drain : full.drain);
  return e;
}

}  // namespace npusim
