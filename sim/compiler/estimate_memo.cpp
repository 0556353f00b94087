#include "sim/compiler/estimate_memo.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace npusim {

// A field added to LayerTilingPlan must join Key (or be shown not to change
// an estimate) before this size is raised.
static_assert(sizeof(LayerTilingPlan) == 8 + sizeof(std::string) + 12 * 4,
              "LayerTilingPlan changed: update PlanEstimates::Key");

PlanEstimates::Key PlanEstimates::key_of(const LayerTilingPlan& p, uint32_t units) {
  return Key{p.k_tile,
             p.k_tiles,
             p.rows_per_piece,
             p.pieces,
             p.cols_per_piece,
             p.rows_per_compute_stage,
             p.rows_per_store_batch,
             p.weight_buffers,
             p.channels_per_part,
             units,
             p.params_per_tile,
             p.input_channel_tiles,
             p.loop_order};
}

bool PlanEstimates::Key::operator==(const Key& o) const {
  return k_tile == o.k_tile && k_tiles == o.k_tiles && rows_per_piece == o.rows_per_piece &&
         pieces == o.pieces && cols_per_piece == o.cols_per_piece &&
         rows_per_compute_stage == o.rows_per_compute_stage &&
         rows_per_store_batch == o.rows_per_store_batch && weight_buffers == o.weight_buffers &&
         channels_per_part == o.channels_per_part && units == o.units &&
         params_per_tile == o.params_per_tile && input_channel_tiles == o.input_channel_tiles &&
         loop_order == o.loop_order;
}

size_t PlanEstimates::KeyHash::operator()(const Key& k) const {
  size_t h = 0;
  const auto mix = [&h](uint64_t v) {
    h ^= std::hash<uint64_t>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  for (const uint32_t v :
       {k.k_tile, k.k_tiles, k.rows_per_piece, k.pieces, k.cols_per_piece, k.rows_per_compute_stage,
        k.rows_per_store_batch, k.weight_buffers, k.channels_per_part, k.units})
    mix(v);
  mix((uint64_t(k.params_per_tile) << 1 | uint64_t(k.input_channel_tiles)) << 8 |
      uint64_t(k.loop_order));
  return h;
}

MachineEstimates::BySignature& MachineEstimates::on(const HardwareConfig& hw) {
  HardwareConfig key = hw;
  key.compiler.cache_kib = 0;
  key.compiler.units = 0;
  return machines_[to_json(key).dump()];
}

const MappingEstimate* PlanEstimates::find(const LayerTilingPlan& plan, uint32_t units) const {
  const auto it = known_.find(key_of(plan, units));
  return it == known_.end() ? nullptr : &it->second;
}

void PlanEstimates::store(const LayerTilingPlan& plan, uint32_t units,
                          const MappingEstimate& estimate) {
  known_.emplace(key_of(plan, units), estimate);
}

}  // namespace npusim
