#include "sim/compiler/memory_plan.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/program/residency.h"

namespace npusim {

MemoryPlan plan_residency(Program& p, const NetworkConfig& net, const HardwareConfig& hw) {
  MemoryPlan plan;
  if (p.layers.empty()) return plan;
  const std::vector<TensorLifetime> life = tensor_lifetimes(p, net);
  const std::vector<uint64_t> used = operator_working_sets(p, hw);
  const uint64_t cache = hw.tile_cache_bytes();
  std::vector<uint64_t> live(p.layers.size(), 0);  // resident bytes live per operator
  std::vector<size_t> placed;
  for (size_t l = 0; l < p.layers.size(); ++l) {
    LayerDescriptor& d = p.layers[l];
    const TensorLifetime& t = life[l];
    const uint64_t bytes = d.output_bytes();
    if (t.readers == 0 || t.graph_output || t.needs_dram || d.output_on_chip || bytes == 0)
      continue;
    const OperatorSpan span = guarded_span(t, p.layers.size());
    uint64_t busiest = 0;
    for (uint32_t i = span.first; i <= span.last; ++i) busiest = std::max(busiest, used[i]);
    if (busiest + bytes > cache) continue;
    const uint64_t limit = cache - busiest;  // offset + bytes may reach this
    // The byte ranges of outputs placed earlier that are live with this one.
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (const size_t o : placed)
      if (span.overlaps(guarded_span(life[o], p.layers.size())))
        taken.emplace_back(p.layers[o].resident_offset,
                           p.layers[o].resident_offset + p.layers[o].output_bytes());
    std::sort(taken.begin(), taken.end());
    uint64_t offset = 0;  // first fit: the lowest gap that holds it
    for (const auto& [begin, end] : taken) {
      if (offset + bytes <= begin) break;
      offset = std::max(offset, end);
    }
    if (offset + bytes > limit) continue;
    d.output_resident = true;
    d.resident_offset = offset;
    placed.push_back(l);
    ++plan.resident;
    plan.resident_bytes += bytes;
    for (uint32_t i = t.producer; i <= t.last_reader; ++i) live[i] += bytes;
  }
  for (const uint64_t b : live) plan.peak_bytes = std::max(plan.peak_bytes, b);
  return plan;
}

}  // namespace npusim
