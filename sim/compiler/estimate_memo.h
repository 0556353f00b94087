// Remembered mapping estimates. While the cost mapper weighs a network's
// partitions (choose_partition: every weight share, unit count, parameter
// placement and vector region), one layer's candidate mappings come up again
// and again: a mapping whose pieces fit one weight share and half size fits
// the next share too, and its estimate is the same. An estimate
// (estimate_mapping, estimate_kernel_parts) depends on the layer's mapping
// signature (mapper.h), the machine, the units in use and the plan alone, so
// one PlanEstimates per layer signature and machine works each out once; a
// MachineEstimates holds them for the several machines the compile trials
// estimate a network on (docs/compile-trials.md#remembered-estimates).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "sim/compiler/mapper.h"
#include "sim/config/hardware_config.h"

namespace npusim {

class PlanEstimates {
 public:
  // The estimate of `plan` on `units` units, or nullptr when not yet known.
  const MappingEstimate* find(const LayerTilingPlan& plan, uint32_t units) const;
  void store(const LayerTilingPlan& plan, uint32_t units, const MappingEstimate& estimate);
  size_t size() const { return known_.size(); }

 private:
  // Every field of a plan an estimate reads, and the units in use.
  struct Key {
    uint32_t k_tile, k_tiles, rows_per_piece, pieces, cols_per_piece, rows_per_compute_stage,
        rows_per_store_batch, weight_buffers, channels_per_part, units;
    bool params_per_tile, input_channel_tiles;
    LoopOrder loop_order;
    bool operator==(const Key& o) const;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  static Key key_of(const LayerTilingPlan& plan, uint32_t units);
  std::unordered_map<Key, MappingEstimate, KeyHash> known_;
};

// Each layer signature's estimates, per machine.
class MachineEstimates {
 public:
  using BySignature = std::unordered_map<std::string, PlanEstimates>;
  // The estimates kept for `hw`. Machines that differ only in
  // compiler.cache_kib and compiler.units share them: those choose the
  // partitions weighed, and no estimate reads them (a plan carries what it
  // takes from its partition, and the units in use are in every key).
  BySignature& on(const HardwareConfig& hw);
  size_t machines() const { return machines_.size(); }

 private:
  std::unordered_map<std::string, BySignature> machines_;  // by the machine's JSON
};

// `plan`'s estimate from `memo` (nullptr: none), else `estimate()`'s, kept there.
template <typename Estimate>
MappingEstimate remembered_estimate(PlanEstimates* memo, const LayerTilingPlan& plan,
                                    uint32_t units, const Estimate& estimate) {
  if (memo == nullptr) return estimate();
  if (const MappingEstimate* known = memo->find(plan, units)) return *known;
  const MappingEstimate fresh = estimate();
  memo->store(plan, units, fresh);
  return fresh;
}

}  // namespace npusim
