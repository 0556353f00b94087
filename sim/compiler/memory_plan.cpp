#include "sim/compiler/memory_plan.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/program/residency.h"

namespace npusim {

namespace {

// A candidate for the cache: an operator's output (weights < 0) or a weight
// block (its index in weight_blocks()).
struct Candidate {
  uint32_t first = 0, last = 0;  // the operators it is live at
  uint64_t bytes = 0;
  int32_t output = -1, block = -1;
};

}  // namespace

MemoryPlan plan_residency(Program& p, const NetworkConfig& net, const HardwareConfig& hw) {
  MemoryPlan plan;
  if (p.layers.empty()) return plan;
  const size_t ops = p.layers.size();
  const std::vector<TensorLifetime> life = tensor_lifetimes(p, net);
  const std::vector<WeightBlock> blocks = weight_blocks(p);
  const std::vector<uint64_t> used = operator_working_sets(p, hw);
  const uint64_t cache = hw.tile_cache_bytes();

  // In program order of the operator that first needs them; at one operator
  // its weights come before its output (they are needed first).
  std::vector<Candidate> candidates;
  for (size_t b = 0; b < blocks.size(); ++b)
    if (blocks[b].loaded_bytes > blocks[b].bytes)  // some byte crosses the bus twice
      candidates.push_back(
          {blocks[b].users.front(), blocks[b].users.back(), blocks[b].bytes, -1, int32_t(b)});
  for (size_t l = 0; l < ops; ++l) {
    const LayerDescriptor& d = p.layers[l];
    const TensorLifetime& t = life[l];
    if (t.readers == 0 || t.graph_output || t.needs_dram || d.output_on_chip ||
        d.output_bytes() == 0)
      continue;
    candidates.push_back({t.producer, t.last_reader, d.output_bytes(), int32_t(l), -1});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.first < b.first; });

  std::vector<uint64_t> live(ops, 0);  // kept bytes live per operator
  // Placed so far: byte range and guarded span.
  struct Placed {
    uint64_t begin, end;
    OperatorSpan span;
  };
  std::vector<Placed> placed;
  for (const Candidate& c : candidates) {
    const OperatorSpan span = guarded_span(c.first, c.last, ops);
    uint64_t busiest = 0;
    for (uint32_t i = span.first; i <= span.last; ++i) busiest = std::max(busiest, used[i]);
    if (busiest + c.bytes > cache) continue;
    const uint64_t limit = cache - busiest;  // offset + bytes may reach this
    // The byte ranges placed earlier that are live with this one.
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (const Placed& o : placed)
      if (span.overlaps(o.span)) taken.emplace_back(o.begin, o.end);
    std::sort(taken.begin(), taken.end());
    uint64_t offset = 0;  // first fit: the lowest gap that holds it
    for (const auto& [begin, end] : taken) {
      if (offset + c.bytes <= begin) break;
      offset = std::max(offset, end);
    }
    if (offset + c.bytes > limit) continue;
    placed.push_back({offset, offset + c.bytes, span});
    for (uint32_t i = c.first; i <= c.last; ++i) live[i] += c.bytes;
    if (c.output >= 0) {
      LayerDescriptor& d = p.layers[size_t(c.output)];
      d.output_resident = true;
      d.resident_offset = offset;
      ++plan.resident;
      plan.resident_bytes += c.bytes;
    } else {
      for (const uint32_t u : blocks[size_t(c.block)].users) {
        p.layers[u].weights_resident = true;
        p.layers[u].weights_offset = offset;
      }
      ++plan.weight_blocks;
      plan.weight_bytes += c.bytes;
    }
  }
  for (const uint64_t b : live) plan.peak_bytes = std::max(plan.peak_bytes, b);
  return plan;
}

}  // namespace npusim
