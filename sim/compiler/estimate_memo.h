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

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/compiler/mapper.h"
#include "sim/config/hardware_config.h"

namespace npusim {

class PlanEstimates {
 public:
  // The estimate of `plan` on `units` units, or nullptr when not yet known.
  const MappingEstimate* find(const LayerTilingPlan& plan, uint32_t units) const;
  // Keeps the estimate (a plan of 65,536 units or more, or of 256 weight
  // slots or more, is not kept: find then never knows it).
  void store(const LayerTilingPlan& plan, uint32_t units, const MappingEstimate& estimate);
  size_t size() const { return entries_.size(); }

 private:
  // Every field of a plan an estimate reads, and the units in use, packed:
  // eight 32-bit fields, then units (16 bits), weight slots (8) and the
  // parameter placement, channel tiles and loop order (8).
  using Key = std::array<uint32_t, 9>;
  struct Entry {
    Key key;
    MappingEstimate estimate;
  };
  static bool pack(const LayerTilingPlan& plan, uint32_t units, Key& key);
  static uint64_t hash(const Key& key);
  // Where `key` is or would go in slots_.
  size_t slot_of(const Key& key, uint64_t h) const;
  void grow();
  std::vector<Entry> entries_;
  // Open addressing over entries_: the key's hash in the upper 32 bits, the
  // entry's index + 1 in the lower (0: free). A power of two long.
  std::vector<uint64_t> slots_;
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
  size_t estimates() const;  // kept, over every machine and signature

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
