#include "sim/compiler/estimate_memo.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace npusim {

// A field added to LayerTilingPlan must join Key (or be shown not to change
// an estimate) before this size is raised.
static_assert(sizeof(LayerTilingPlan) == 8 + sizeof(std::string) + 12 * 4,
              "LayerTilingPlan changed: update PlanEstimates::Key");

bool PlanEstimates::pack(const LayerTilingPlan& p, uint32_t units, Key& key) {
  if (units >= (1u << 16) || p.weight_buffers >= (1u << 8)) return false;
  const uint32_t loop_order = static_cast<uint32_t>(p.loop_order);
  key = {p.k_tile,
         p.k_tiles,
         p.rows_per_piece,
         p.pieces,
         p.cols_per_piece,
         p.rows_per_compute_stage,
         p.rows_per_store_batch,
         p.channels_per_part,
         units | p.weight_buffers << 16 | uint32_t(p.params_per_tile) << 24 |
             uint32_t(p.input_channel_tiles) << 25 | loop_order << 26};
  return true;
}

uint64_t PlanEstimates::hash(const Key& key) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (const uint32_t v : key) {
    h = (h ^ v) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h;
}

size_t PlanEstimates::slot_of(const Key& key, uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  const uint64_t tag = h >> 32;
  for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
    const uint64_t s = slots_[i];
    if (s == 0 || ((s >> 32) == tag && entries_[(s & 0xffffffffu) - 1].key == key)) return i;
  }
}

void PlanEstimates::grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, 0);
  const size_t mask = slots_.size() - 1;
  for (const uint64_t s : old) {
    if (s == 0) continue;
    size_t i = size_t(hash(entries_[(s & 0xffffffffu) - 1].key)) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

const MappingEstimate* PlanEstimates::find(const LayerTilingPlan& plan, uint32_t units) const {
  Key key;
  if (slots_.empty() || !pack(plan, units, key)) return nullptr;
  const uint64_t s = slots_[slot_of(key, hash(key))];
  return s == 0 ? nullptr : &entries_[(s & 0xffffffffu) - 1].estimate;
}

void PlanEstimates::store(const LayerTilingPlan& plan, uint32_t units,
                          const MappingEstimate& estimate) {
  Key key;
  if (!pack(plan, units, key) || entries_.size() >= 0xfffffffeu) return;
  if ((entries_.size() + 1) * 10 > slots_.size() * 7) grow();  // at most 70 % full
  const uint64_t h = hash(key);
  const size_t i = slot_of(key, h);
  if (slots_[i] != 0) return;  // known already
  entries_.push_back({key, estimate});
  slots_[i] = (h >> 32) << 32 | uint64_t(entries_.size());
}

MachineEstimates::BySignature& MachineEstimates::on(const HardwareConfig& hw) {
  HardwareConfig key = hw;
  key.compiler.cache_kib = 0;
  key.compiler.units = 0;
  return machines_[to_json(key).dump()];
}

size_t MachineEstimates::estimates() const {
  size_t n = 0;
  for (const auto& [machine, by_signature] : machines_)
    for (const auto& [signature, plans] : by_signature) n += plans.size();
  return n;
}

}  // namespace npusim
