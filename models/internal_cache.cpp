#include "models/internal_cache.h"

#include <algorithm>

#include "models/cost/cost_model.h"
#include "sim/program/residency.h"

namespace npusim {

InternalCache::InternalCache(sc_core::sc_module_name name, const HardwareConfig& hw,
                             const Program& program, StatsRegistry& stats, Timeline& timeline)
    : sc_module(name),
      config_(hw.cache),
      timeline_(timeline),
      ports_(cost::cache_parallel_accesses(hw.cache)),
      weights_{ByteTile("weights.slot0"), ByteTile("weights.slot1")},
      params_{SumTile("params.bank0"), SumTile("params.bank1")},
      read_bytes_(stats.declare("cache.read_bytes", "bytes", "bytes read from the internal cache")),
      write_bytes_(
          stats.declare("cache.write_bytes", "bytes", "bytes written into the internal cache")),
      port_stall_(stats.declare("stall.cache_port_cycles", "cycles",
                                "cycles cache accesses waited for a free port")),
      peak_occupancy_(stats.declare("cache.peak_occupancy_bytes", "bytes",
                                    "most bytes held in the cache's buffers and kept "
                                    "outputs at once",
                                    Counter::Reduce::Max)),
      allocated_(stats.declare("cache.allocated_bytes", "bytes",
                               "bytes the compiler's partition assigns to buffers",
                               Counter::Reduce::Max)),
      resident_(program) {
  for (uint32_t u = 0; u < hw.compute.units; ++u) units_.emplace_back("unit" + std::to_string(u));
  // A kept output (the memory plan) holds its bytes from its producer to its
  // last reader, a kept weight block from its first user to its last.
  kept_live_.assign(program.layers.size(), 0);
  const std::vector<TensorLifetime> life = tensor_lifetimes(program);
  for (uint32_t l = 0; l < program.layers.size(); ++l) {
    if (!program.layers[l].output_resident) continue;
    for (uint32_t m = l; m <= life[l].last_reader; ++m)
      kept_live_[m] += program.layers[l].output_bytes();
  }
  for (const WeightBlock& b : kept_weight_blocks(program))
    for (uint32_t m = b.users.front(); m <= b.users.back(); ++m) kept_live_[m] += b.bytes;
  const uint32_t halves = hw.buffering == Buffering::PingPong ? 2 : 1;
  for (uint32_t l = 0; l < program.layers.size(); ++l) {
    const LayerDescriptor& L = program.layers[l];
    allocated_.raise_to(l,
                        L.weight_region_bytes + L.params_region_bytes +
                            uint64_t(L.units ? L.units : hw.compute.units) * halves * L.half_bytes);
  }
}

Grant InternalCache::access(uint32_t layer, bool write, uint64_t bytes, uint64_t earliest) {
  const Grant g = ports_.reserve(earliest, cost::cache_access_cycles(config_, bytes), now_cycles());
  port_stall_.add(layer, g.start - earliest);
  (write ? write_bytes_ : read_bytes_).add(layer, bytes);
  return g;
}

ByteTile& InternalCache::take_weights(uint32_t slot, uint32_t slots) {
  ByteTile& other = weights_.at(1 - slot);
  if (slots == 1 || whole_region_) {
    other.begin_fill(TileTag{}, 0, 0, false);  // overwritten: no tile, every reader fails
    other.release();
  }
  whole_region_ = slots == 1;
  return weights_.at(slot);
}

void InternalCache::occupancy_changed(uint32_t layer) {
  uint64_t held = 0;
  for (const ByteTile& w : weights_) held += w.held() ? w.bytes() : 0;
  for (const SumTile& p : params_) held += p.held() ? p.bytes() : 0;
  for (const PingPongBuffer& u : units_) held += u.held_bytes();
  held += kept_live_.at(layer);
  peak_occupancy_.raise_to(layer, held);
  timeline_.counter("cache occupancy (bytes)", now_cycles(), double(held));
}

}  // namespace npusim
