#include "models/resident_regions.h"

namespace npusim {

ResidentRegions::ResidentRegions(const Program& program)
    : program_(program),
      written_(program.layers.size(), false),
      overwritten_(program.layers.size(), -1) {}

void ResidentRegions::written(uint32_t layer) {
  if (written_.at(layer)) return;
  written_[layer] = true;
  const LayerDescriptor& d = program_.layers[layer];
  const uint64_t begin = d.resident_offset, end = begin + d.output_bytes();
  std::vector<uint32_t> still;
  for (const uint32_t o : holding_) {
    const LayerDescriptor& e = program_.layers[o];
    if (e.resident_offset < end && begin < e.resident_offset + e.output_bytes())
      overwritten_[o] = int32_t(layer);
    else
      still.push_back(o);
  }
  still.push_back(layer);
  holding_.swap(still);
}

std::string ResidentRegions::problem(uint32_t producer) const {
  const LayerDescriptor& d = program_.layers.at(producer);
  const std::string bytes = "bytes [" + std::to_string(d.resident_offset) + ", " +
                            std::to_string(d.resident_offset + d.output_bytes()) +
                            ") below the top of the cache";
  if (!written_[producer])
    return "reads layer " + d.name + "'s output in the cache (" + bytes +
           ") before its store wrote it";
  if (overwritten_[producer] >= 0)
    return "reads layer " + d.name + "'s output in the cache (" + bytes + "), but layer " +
           program_.layers[size_t(overwritten_[producer])].name + "'s store has overwritten them";
  return "";
}

}  // namespace npusim
