// Remembered estimates (sim/compiler/estimate_memo.h): the cost mapper keeps
// one memo per layer signature while it weighs a network's partitions. Taking
// an estimate from it must give exactly what estimating afresh gives, for
// whole kernels and for kernel parts, and a plan on one unit count must never
// take the estimate of the same plan on another.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/compiler/estimate_memo.h"
#include "sim/compiler/mapper.h"
#include "sim/compiler/network_estimate.h"
#include "sim/compiler/tiler.h"

using namespace npusim;

namespace {

LayerConfig memo_conv(const std::string& name, uint32_t C, uint32_t H, uint32_t W, uint32_t K,
                      uint32_t R, uint32_t S, uint32_t stride) {
  LayerConfig L;
  L.name = name;
  L.C = C, L.H = H, L.W = W, L.K = K, L.R = R, L.S = S;
  L.stride = stride, L.padding = R / 2;
  L.requant.scale.assign(K, 1);
  L.requant.shift = 8;
  return L;
}

// Every field of the candidates, plans and estimates alike.
void check_same_candidates(const std::vector<MappingCandidate>& fresh,
                           const std::vector<MappingCandidate>& remembered) {
  REQUIRE(fresh.size() == remembered.size());
  for (size_t i = 0; i < fresh.size(); ++i) {
    INFO("candidate " << i);
    const LayerTilingPlan &a = fresh[i].plan, &b = remembered[i].plan;
    CHECK(a.k_tile == b.k_tile);
    CHECK(a.rows_per_piece == b.rows_per_piece);
    CHECK(a.pieces == b.pieces);
    CHECK(a.weight_buffers == b.weight_buffers);
    CHECK(a.channels_per_part == b.channels_per_part);
    CHECK(fresh[i].estimate.total == remembered[i].estimate.total);
    CHECK(fresh[i].estimate.weights == remembered[i].estimate.weights);
    CHECK(fresh[i].estimate.compute == remembered[i].estimate.compute);
    CHECK(fresh[i].estimate.bus == remembered[i].estimate.bus);
  }
}

}  // namespace

TEST_CASE(
    "remembered estimates: candidates weighed over every weight share and unit count with one "
    "memo per layer equal fresh ones, kernel parts included, and no unit count takes another's",
    "[mapper]") {
  HardwareConfig hw;
  hw.compute.units = 3;
  hw.compute.array_rows = 16;
  hw.compute.array_cols = 24;  // non-square: rows and columns told apart
  hw.cache.size_kib = 96;      // small: the narrow weight shares need kernel parts
  // A tall map with a 3x5 kernel, a wide one with a 5x3 kernel and stride 2,
  // and a deep 1x1 layer of several k-tiles.
  const std::vector<LayerConfig> layers = {memo_conv("tall", 24, 40, 9, 48, 3, 5, 1),
                                           memo_conv("wide", 40, 7, 52, 40, 5, 3, 2),
                                           memo_conv("deep", 512, 10, 10, 96, 1, 1, 1)};
  NetworkConfig net;
  net.name = "memo";
  net.layers = layers;
  net.chained.assign(layers.size(), false);
  size_t kernel_part_candidates = 0, remembered = 0, weighed = 0;
  for (const LayerConfig& L : layers) {
    INFO(L.name);
    PlanEstimates memo;
    for (uint32_t share = 2; share <= 64; share *= 2)
      for (uint32_t units = 1; units <= hw.compute.units; ++units) {
        INFO("weight share 1/" << share << ", " << units << " unit(s)");
        const CachePartition part = partition_cache(net, hw, share, units);
        const std::vector<MappingCandidate> fresh = mapping_candidates(L, hw, part);
        const size_t known = memo.size();
        const std::vector<MappingCandidate> again = mapping_candidates(L, hw, part, 0, &memo);
        check_same_candidates(fresh, again);
        weighed += fresh.size();
        remembered += fresh.size() - (memo.size() - known);
        for (const MappingCandidate& c : fresh)
          kernel_part_candidates += c.plan.channels_per_part != 0;
      }
  }
  // The case covers what it claims: kernel parts were weighed, and the memo
  // answered for a good share of the candidates.
  CHECK(kernel_part_candidates > 0);
  CHECK(remembered * 4 > weighed);
}

TEST_CASE(
    "remembered estimates: the trials' machines share estimates only where they differ in "
    "compiler.cache_kib or compiler.units, and network estimates through one memo equal fresh "
    "ones",
    "[mapper]") {
  HardwareConfig hw;
  hw.compute.units = 2;
  hw.compute.array_rows = 16;
  hw.compute.array_cols = 24;
  hw.cache.size_kib = 128;
  MachineEstimates memo;
  HardwareConfig budget = hw;
  budget.compiler.cache_kib = 64;
  budget.compiler.units = 1;
  CHECK(&memo.on(hw) == &memo.on(budget));
  HardwareConfig part = hw;
  part.compute.array_cols = 16;  // a part of the array: other estimates
  CHECK(&memo.on(hw) != &memo.on(part));
  HardwareConfig bus = hw;
  bus.dram.bytes_per_cycle = 8;
  CHECK(&memo.on(hw) != &memo.on(bus));
  CHECK(memo.machines() == 3);

  // A small network estimated as the trials estimate it: each unit count and
  // cache budget on the whole array and on a part, one memo for all.
  NetworkConfig net;
  net.name = "memo";
  net.layers = {memo_conv("a", 24, 40, 9, 48, 3, 5, 1), memo_conv("b", 48, 40, 9, 40, 5, 3, 2),
                memo_conv("c", 40, 20, 5, 96, 1, 1, 1)};
  net.chained.assign(net.layers.size(), false);
  MachineEstimates trials;
  size_t compared = 0;
  for (const uint32_t cols : {24u, 16u})
    for (const uint32_t units : {1u, 2u})
      for (const uint32_t kib : {0u, 64u, 32u}) {
        HardwareConfig h = hw;
        h.compiler.array_cols = cols;
        h.compiler.units = units;
        h.compiler.cache_kib = kib;
        INFO(cols << " columns, " << units << " unit(s), budget " << kib << " KiB");
        const NetworkEstimate fresh = estimate_network(net, h);
        const NetworkEstimate shared = estimate_network(net, h, &trials);
        CHECK(fresh.cycles == shared.cycles);
        CHECK(fresh.partition.weight_region_bytes == shared.partition.weight_region_bytes);
        REQUIRE(fresh.operators.size() == shared.operators.size());
        for (size_t o = 0; o < fresh.operators.size(); ++o) {
          CHECK(fresh.operators[o].cycles == shared.operators[o].cycles);
          CHECK(fresh.operators[o].k_tile == shared.operators[o].k_tile);
          CHECK(fresh.operators[o].pieces == shared.operators[o].pieces);
        }
        ++compared;
      }
  CHECK(compared == 12);
  CHECK(trials.machines() == 2);  // the whole array and its part
  CHECK(trials.estimates() > 0);
}

TEST_CASE(
    "cost mapper: the partition chosen is the option whose layers' best estimates, summed over "
    "every layer, are fewest, as a plain sum over every weight share and unit count finds",
    "[mapper]") {
  // Four layers of one signature (a repeated block) beside two of their own: the
  // mapper weighs a signature once and counts it once per layer.
  NetworkConfig net;
  net.name = "repeats";
  net.layers = {memo_conv("tall", 24, 40, 9, 48, 3, 5, 1),
                memo_conv("wide", 48, 20, 52, 40, 5, 3, 2)};
  for (int i = 0; i < 4; ++i)
    net.layers.push_back(memo_conv("deep" + std::to_string(i), 512, 10, 10, 96, 1, 1, 1));
  net.chained.assign(net.layers.size(), false);
  size_t checked = 0;
  // At 48 KiB on 2 or 3 units, a sum that took the repeated signature once would
  // choose weight share 1/4 where counting all four layers chooses 1/8.
  for (const uint32_t kib : {48u, 96u, 256u})
    for (const uint32_t units : {1u, 2u, 3u}) {
      HardwareConfig hw;
      hw.compute.units = units;
      hw.compute.array_rows = 16;
      hw.compute.array_cols = 24;
      hw.cache.size_kib = kib;
      INFO(kib << " KiB, " << units << " unit(s)");
      // The rule restated: every unit count (most first) and weight share 1/2 .. 1/64,
      // each layer's cheapest candidate, the first option with the fewest cycles.
      uint64_t best = UINT64_MAX;
      CachePartition chosen;
      for (const uint32_t u : unit_counts(hw))
        for (uint32_t share = 2; share <= 64; share *= 2) {
          const CachePartition part = partition_cache(net, hw, share, u);
          uint64_t sum = 0;
          for (const LayerConfig& L : net.layers) {
            const std::vector<MappingCandidate> candidates = mapping_candidates(L, hw, part);
            const MappingCandidate* pick = chosen_candidate(candidates, hw);
            if (pick == nullptr) {
              sum = UINT64_MAX;
              break;
            }
            sum += pick->estimate.total;
          }
          if (sum < best) best = sum, chosen = part;
        }
      REQUIRE(best != UINT64_MAX);
      const CachePartition part = choose_partition(net, hw);
      CHECK(part.units == chosen.units);
      CHECK(part.weight_region_bytes == chosen.weight_region_bytes);
      CHECK(part.half_bytes == chosen.half_bytes);
      CHECK(estimate_network(net, hw).cycles == best);
      ++checked;
    }
  CHECK(checked == 9);
}
