#include "models/resident_regions.h"

#include <algorithm>
#include <iterator>

#include "sim/program/residency.h"

namespace npusim {

ResidentRegions::ResidentRegions(const Program& program)
    : program_(program), block_of_(program.layers.size(), 0) {
  for (const LayerDescriptor& d : program.layers)
    regions_.push_back({"layer " + d.name + "'s output", d.resident_offset,
                        d.output_resident ? d.output_bytes() : 0});
  for (const WeightBlock& b : kept_weight_blocks(program)) {
    const LayerDescriptor& first = program.layers[b.users.front()];
    for (const uint32_t u : b.users) block_of_[u] = uint32_t(regions_.size());
    regions_.push_back({"layer " + first.name + "'s weights", first.weights_offset, b.bytes});
  }
}

void ResidentRegions::take(uint32_t r) {
  Region& x = regions_[r];
  x.written = true;
  std::vector<uint32_t> still;
  for (const uint32_t o : holding_) {
    Region& e = regions_[o];
    if (e.offset < x.offset + x.bytes && x.offset < e.offset + e.bytes) {
      e.overwritten_by = int32_t(r);
      loaded_.erase(o);
    } else {
      still.push_back(o);
    }
  }
  still.push_back(r);
  holding_.swap(still);
}

std::string ResidentRegions::taker(uint32_t r) const {
  const size_t layers = program_.layers.size();
  return r < layers ? "layer " + program_.layers[r].name + "'s store"
                    : regions_[r].name + "' first load";
}

void ResidentRegions::written(uint32_t layer) {
  if (!regions_.at(layer).written) take(layer);
}

std::string ResidentRegions::problem(uint32_t producer) const {
  const Region& x = regions_.at(producer);
  const std::string bytes = "bytes [" + std::to_string(x.offset) + ", " +
                            std::to_string(x.offset + x.bytes) + ") below the top of the cache";
  if (!x.written)
    return "reads " + x.name + " in the cache (" + bytes + ") before its store wrote it";
  if (x.overwritten_by >= 0)
    return "reads " + x.name + " in the cache (" + bytes + "), but " +
           taker(uint32_t(x.overwritten_by)) + " has overwritten them";
  return "";
}

std::string ResidentRegions::weights_problem(uint32_t layer) const {
  const Region& x = regions_[block_of_.at(layer)];
  if (x.overwritten_by < 0) return "";
  return "loads " + x.name + " kept in the cache (bytes [" + std::to_string(x.offset) + ", " +
         std::to_string(x.offset + x.bytes) + ") below the top of the cache), but " +
         taker(uint32_t(x.overwritten_by)) + " has overwritten them";
}

bool ResidentRegions::weights_on_chip(uint32_t layer, uint64_t begin, uint64_t end) {
  const uint32_t r = block_of_.at(layer);
  if (!regions_[r].written) take(r);
  std::map<uint64_t, uint64_t>& on_chip = loaded_[r];
  // The range that starts at or before `begin`.
  auto it = on_chip.upper_bound(begin);
  if (it != on_chip.begin() && std::prev(it)->second >= end) return true;
  // Not all of it: it comes over the bus; merge it into the held ranges.
  uint64_t b = begin, e = end;
  if (it != on_chip.begin() && std::prev(it)->second >= b) {
    --it;
    b = it->first;
  }
  while (it != on_chip.end() && it->first <= e) {
    e = std::max(e, it->second);
    it = on_chip.erase(it);
  }
  on_chip.emplace(b, e);
  return false;
}

}  // namespace npusim
