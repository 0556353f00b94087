// K-tile offsets in the grouped cost formulas (docs/timing.md#grouped-convolution-and-depthwise):
// a k-tile of a grouped convolution that starts inside a group splits into runs at that
// group's end, so its array cycles follow its own k_begin, not 0 and not another tile's. Here
// the formulas and the compiler's per-stage charge (dense_array_cycles), every figure worked by
// hand beside its check; the whole simulations are in tests/integration/test_k_tile_offsets.cpp.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "models/cost/cost_model.h"
#include "sim/compiler/tiler.h"
#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"

using namespace npusim;

namespace {

ComputeConfig ktile_array(uint32_t rows, uint32_t cols) {
  ComputeConfig c;
  c.array_rows = rows;
  c.array_cols = cols;
  return c;
}

// The grouped operator of the integration test: a quantised 3x3 conv, C = 3 in 3 groups of
// 1 channel, K = 9 in 3 groups of 3 kernels ({0 1 2} {3 4 5} {6 7 8}), 9 coefficients each.
LayerConfig ktile_grouped_layer() {
  LayerConfig L;
  L.op = OpKind::Conv;
  L.quantized = true;
  L.C = 3, L.H = 2, L.W = 128, L.K = 9, L.R = 3, L.S = 3, L.padding = 1, L.groups = 3;
  return L;
}

}  // namespace

TEST_CASE(
    "grouped_stage_cycles splits a k-tile that starts mid-group at its own group ends, not at "
    "those of k_begin 0 or of the next tile",
    "[cost][k-tile]") {
  // A 4-row, 8-column array: lockstep blocks of 4 kernels, ceil(20 / 8) = 3 passes of 20
  // pixels. Groups of 5 kernels. The tile's 8 kernels have these non-zero counts (tile index
  // 0..7):
  const uint32_t nz[8] = {4, 9, 1, 6, 2, 8, 3, 5};
  const ComputeConfig c = ktile_array(4, 8);
  // Tile [3, 11): groups [0, 5) [5, 10) [10, 15), so the runs are kernels
  //   {3 4}      tile 0-1  one block: max(4, 9) = 9
  //   {5 .. 9}   tile 2-6  blocks of 4: max(1, 6, 2, 8) = 8, then max(3) = 3
  //   {10}       tile 7    max(5) = 5
  // (9 + 8 + 3 + 5) * 3 = 25 * 3 = 75.
  CHECK(cost::grouped_stage_cycles(c, 20, nz, 3, 8, 5) == 75);
  // Tile [13, 21): 13 = 3 modulo 5, the same runs {13 14} {15 .. 19} {20}: 75 again.
  CHECK(cost::grouped_stage_cycles(c, 20, nz, 13, 8, 5) == 75);
  // What a caller passing 0 for k_begin gets: runs {0 .. 4} (tile 0-4), {5 6 7} (tile 5-7):
  //   max(4, 9, 1, 6) = 9, max(2) = 2, then max(8, 3, 5) = 8 -> (9 + 2 + 8) * 3 = 57.
  CHECK(cost::grouped_stage_cycles(c, 20, nz, 0, 8, 5) == 57);
  // ... and one passing the next tile's k_begin, 11 = 1 modulo 5: runs {11 .. 14} (tile 0-3),
  // {15 .. 18} (tile 4-7): max(4, 9, 1, 6) = 9, max(2, 8, 3, 5) = 8 -> 17 * 3 = 51.
  CHECK(cost::grouped_stage_cycles(c, 20, nz, 11, 8, 5) == 51);
}

TEST_CASE(
    "uniform_grouped_stage_cycles counts a mid-group k-tile's row blocks from its own k_begin",
    "[cost][k-tile]") {
  // 4 x 8 array, 20 pixels (3 passes), 7 coefficients per kernel, groups of 5:
  //   first = min(k_count, 5 - k_begin % 5), rest = k_count - first,
  //   blocks = ceil(first / 4) + floor(rest / 5) * ceil(5 / 4) + ceil((rest % 5) / 4).
  const ComputeConfig c = ktile_array(4, 8);
  // Tile [3, 11): first = min(8, 2) = 2 -> 1 block, rest 6 -> 1 * 2 + ceil(1 / 4) = 1 -> 3;
  // 4 blocks * 7 * 3 = 84.
  CHECK(cost::uniform_grouped_stage_cycles(c, 20, 7, 3, 8, 5) == 84);
  CHECK(cost::uniform_grouped_stage_cycles(c, 20, 7, 13, 8, 5) == 84);  // 13 = 3 modulo 5
  // k_begin 0: first = min(8, 5) = 5 -> 2 blocks, rest 3 -> 1 block: 3 * 7 * 3 = 63.
  CHECK(cost::uniform_grouped_stage_cycles(c, 20, 7, 0, 8, 5) == 63);
  // k_begin 11 (the next tile's): first = min(8, 4) = 4 -> 1 block, rest 4 -> 1: 2 * 21 = 42.
  CHECK(cost::uniform_grouped_stage_cycles(c, 20, 7, 11, 8, 5) == 42);
  // The general formula with every count 7 gives the same: runs {3 4} {5 .. 9} {10} take
  // 1 + 2 + 1 = 4 blocks of max 7 -> 4 * 7 * 3 = 84.
  const std::vector<uint32_t> sevens(8, 7);
  CHECK(cost::grouped_stage_cycles(c, 20, sevens.data(), 3, 8, 5) == 84);
}

TEST_CASE(
    "dense_array_cycles charges each k-tile of a grouped operator by the groups its own kernels "
    "span",
    "[mapper][k-tile]") {
  // The default 32 x 32 array: a grouped quantised conv does not fold, and every run of at
  // most 3 kernels is one lockstep block. A stage of one output row, 128 pixels, takes
  // ceil(128 / 32) = 4 passes, so each run costs 9 coefficients * 4 = 36 cycles.
  HardwareConfig hw;
  hw.compute.array_rows = 32;
  hw.compute.array_cols = 32;
  const LayerConfig L = ktile_grouped_layer();
  // The k-tiles of 2 the integration test runs, with the groups their kernels fall in:
  CHECK(dense_array_cycles(L, hw, 128, 0, 2) == 36);  // {0 1}: group 0, 1 run
  CHECK(dense_array_cycles(L, hw, 128, 2, 2) == 72);  // {2} group 0 | {3} group 1: 2 runs
  CHECK(dense_array_cycles(L, hw, 128, 4, 2) == 36);  // {4 5}: group 1
  CHECK(dense_array_cycles(L, hw, 128, 6, 2) == 36);  // {6 7}: group 2
  CHECK(dense_array_cycles(L, hw, 128, 8, 1) == 36);  // {8}: group 2
  // Passing 0 for k_begin would charge tile [2, 4) as kernels {0 1}, one run: 36 (the sum
  // over the tiles 180 instead of 36 + 72 + 36 + 36 + 36 = 216). Two pieces of one stage each
  // per tile and an 8-cycle fill per stage: 2 * 216 + 10 * 8 = 512, the work cycles the
  // simulated run counts.
  CHECK(dense_array_cycles(L, hw, 128, 0, 2) != dense_array_cycles(L, hw, 128, 2, 2));
}
