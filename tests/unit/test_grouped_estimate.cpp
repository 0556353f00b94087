// The mapper's estimate of a grouped layer (sim/compiler/mapper.cpp): a
// k-tile's cost depends on where it starts in its group, and the estimate
// costs each place once and counts how often it comes. Checked against a
// plain sum over every k-tile of the piece costs (sim/compiler/piece_cost.h).
#include <algorithm>
#include <catch2/catch.hpp>

#include "sim/compiler/mapper.h"
#include "sim/compiler/piece_cost.h"
#include "sim/compiler/tiler.h"
#include "tests/support/hand_mapping.h"

using namespace npusim;

TEST_CASE(
    "a grouped layer's estimate counts every k-tile at its place in the group: 19 tiles of 5 "
    "and one of 1 over groups of 8 kernels sum as tile by tile",
    "[mapper][grouped]") {
  // C 12 in 12 groups, K 96: 8 kernels a group. Tiles of 5 kernels start at
  // 0, 5, 10, ... : their places in a group (k0 mod 8) repeat every 8 tiles,
  // so tiles 1-18 come 2 or 3 times at each place, and the last tile holds 1
  // kernel. One unit, single-buffered, one weight slot: the busiest unit runs
  // every piece, each its input fill, the DRAM latency and its compute.
  LayerConfig L = npusim::test::hand_conv_16();
  L.C = 12, L.K = 96, L.groups = 12, L.quantized = true;
  L.requant.scale.assign(L.K, 1);
  HardwareConfig hw = npusim::test::hand_array_8x24();
  hw.buffering = Buffering::Single;
  const LayerTilingPlan plan = make_plan(L, hw, 5, 4, 4);
  REQUIRE(plan.fits);
  REQUIRE(plan.k_tiles == 20);
  REQUIRE(plan.pieces == 4);  // 16 output rows, 4 a piece: every piece alike
  REQUIRE(piece_cost_depends_on_k_begin(L, hw));
  uint64_t compute = 0, bus = 0;
  for (uint32_t k0 = 0; k0 < L.K; k0 += 5) {
    const uint32_t k_count = std::min(5u, L.K - k0);
    const PieceCost p = piece_cost(L, hw, plan, {4, 0}, k0, k_count, 0);
    compute += 4 * (p.fill_bus + hw.dram.latency_cycles + p.compute);
    bus += 4 * (p.load_bus + p.store_bus);
  }
  // The places differ: a tile across two groups costs more than one within a group.
  CHECK(piece_cost(L, hw, plan, {4, 0}, 5, 5, 0).compute >
        piece_cost(L, hw, plan, {4, 0}, 0, 5, 0).compute);
  const MappingEstimate e = estimate_mapping(L, hw, plan, 0);
  CHECK(e.compute == compute);
  CHECK(e.bus == bus);
}
