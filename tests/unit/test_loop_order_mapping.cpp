// Seed 004 rule 1's loop orders in the cost mapper (docs/loop-order.md#loop-order-per-layer):
// the feature-stationary estimate worked by hand on a small layer (one slot
// and two, ping-pong and single halves, on a non-square array), one tile
// estimated as the weight-stationary program, and which candidates
// compiler.loop_order enumerates.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/compiler/mapper.h"
#include "sim/compiler/tiler.h"
#include "tests/support/hand_mapping.h"

using namespace npusim;

TEST_CASE(
    "the feature-stationary estimate of two 8-kernel tiles in two 8-row pieces on an 8x24 "
    "array is 4912 cycles with one weight slot and 4776 with two (hand-derived)",
    "[mapper][loop_order]") {
  // k-tile 8 (2 tiles), 2 pieces of 8 rows, one stage and one store batch
  // each (threshold 32 x 144 = 4608 B > 8 rows of 128 B). Per piece and tile:
  //   weights 8 x 144 = 1152 B = 36 bus; input rows min(16, 7 + 3) = 10 of
  //   256 B = 2560 B = 80 bus, written as 10 padded rows of 288 B = 2880 B =
  //   45 port cycles; array 1 x 144 x ceil(128/24) + 8 = 872 (read 10 x 288 +
  //   1152 = 4032 B = 63, write 128 x 8 x 4 = 4096 B = 64); store 128 pixels
  //   of 8 B, a burst each = 256 bus, cache read 64, drain 256 + 100 = 356.
  // One slot, a piece: (36 + 100 + 872) + (max(36 + 100, 356) + 872) = 2236
  //   (tile 2's compute waits for tile 1's store to drain the sums).
  //   The second piece's input (80) hides under the first's last compute.
  //   4 (params) + 80 (first input) + 2 x 2236 + 356 (last drain) = 4912.
  // Two slots, a piece: max(872 + 356, 36) + 872 = 2100; the first piece
  //   starts after its input and first weights: 80 + 36 + 100.
  //   4 + 216 + 2 x 2100 + 356 = 4776.
  // Bounds not reached: bus 100 + 2 x 72 + 2 x (80 + 512) = 1428; ports
  //   2 x (45 + 2 x (63 + 64 + 64 + 18)) = 926 over 2 ports.
  const LayerConfig L = npusim::test::hand_conv_16();
  HardwareConfig hw = npusim::test::hand_array_8x24();
  LayerTilingPlan plan = make_plan(L, hw, 8, 8, 8);
  REQUIRE(plan.k_tiles == 2);
  REQUIRE(plan.rows_per_store_batch == 8);
  plan.loop_order = LoopOrder::FeatureStationary;
  const MappingEstimate one_slot = estimate_mapping(L, hw, plan);
  CHECK(one_slot.weights == 4 + 2 * 2 * 36);  // every piece loads both tiles
  CHECK(one_slot.compute == 4 * 872);
  CHECK(one_slot.bus == 2 * (80 + 2 * 256));  // each piece's input once
  CHECK(one_slot.total == 4912);
  plan.weight_buffers = 2;
  CHECK(estimate_mapping(L, hw, plan).total == 4776);

  // Single halves on one unit: the second piece's input waits for the
  // first's last compute. One slot: + 80 = 4992; two slots: its input and
  // first weights then arrive, + 80 + 36 + 100 = 4992.
  hw.buffering = Buffering::Single;
  CHECK(estimate_mapping(L, hw, plan).total == 4992);
  plan.weight_buffers = 1;
  CHECK(estimate_mapping(L, hw, plan).total == 4992);
}

TEST_CASE("a feature-stationary layer of one weight tile is estimated as weight-stationary",
          "[mapper][loop_order]") {
  const LayerConfig L = npusim::test::hand_conv_16();
  const HardwareConfig hw = npusim::test::hand_array_8x24();
  LayerTilingPlan plan = make_plan(L, hw, 16, 8, 8);
  REQUIRE(plan.k_tiles == 1);
  const uint64_t weight_stationary = estimate_mapping(L, hw, plan).total;
  plan.loop_order = LoopOrder::FeatureStationary;
  CHECK(estimate_mapping(L, hw, plan).total == weight_stationary);
}

TEST_CASE(
    "loop_order auto gives each candidate of several weight tiles a feature-stationary twin, "
    "weight_stationary none, feature_stationary only those, after_weights loads none",
    "[mapper][loop_order]") {
  // 512 kernels of 3x3x128: tiles of k < 512 in a 64 KiB weight region.
  LayerConfig L = npusim::test::hand_conv_16();
  L.C = 128, L.H = 14, L.W = 14, L.K = 512;
  L.requant.scale.assign(L.K, 1);
  HardwareConfig hw;
  hw.cache.size_kib = 128;
  NetworkConfig net;
  net.name = "t";
  net.layers = {L};
  net.chained = {false};
  const CachePartition part = partition_cache(net, hw);
  const auto count = [&](const HardwareConfig& h, LoopOrder order, bool several_tiles) {
    size_t n = 0;
    for (const MappingCandidate& c : mapping_candidates(L, h, part))
      if (c.plan.loop_order == order && (c.plan.k_tile < L.K) == several_tiles) ++n;
    return n;
  };
  const size_t weight_stationary = count(hw, LoopOrder::WeightStationary, true);
  REQUIRE(weight_stationary > 0);
  CHECK(count(hw, LoopOrder::FeatureStationary, true) == 0);

  HardwareConfig any = hw;
  any.loop_order = LoopOrder::Auto;
  CHECK(count(any, LoopOrder::WeightStationary, true) == weight_stationary);
  // The greedy plan (listed first) is the only one without a twin.
  CHECK(count(any, LoopOrder::FeatureStationary, true) == weight_stationary - 1);
  CHECK(count(any, LoopOrder::FeatureStationary, false) == 0);

  HardwareConfig features = hw;
  features.loop_order = LoopOrder::FeatureStationary;
  CHECK(count(features, LoopOrder::WeightStationary, true) == 0);
  CHECK(count(features, LoopOrder::FeatureStationary, true) == weight_stationary);

  any.input_loads = InputLoads::AfterWeights;
  CHECK(count(any, LoopOrder::FeatureStationary, true) == 0);
}
