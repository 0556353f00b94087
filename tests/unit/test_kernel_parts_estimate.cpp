// Kernel parts in the cost mapper (docs/tiling.md#kernel-parts): the
// estimate worked by hand on a small layer cut into two parts (one weight
// slot and two, one unit and two, bound by the cache ports or the bus, on a
// non-square array), and which layers may be cut.
#include <catch2/catch.hpp>

#include "sim/compiler/kernel_parts.h"
#include "sim/compiler/mapper.h"
#include "sim/compiler/tiler.h"
#include "tests/support/hand_mapping.h"

using namespace npusim;

TEST_CASE(
    "the kernel-parts estimate of two 8-channel parts, two 8-kernel tiles and two 8-row pieces "
    "on an 8x24 array is 6004 cycles with two weight slots, 6492 with one and 5084 on two units "
    "(hand-derived)",
    "[mapper][kernel_parts]") {
  // One unit, ping-pong: the two pieces are one group. Per k-tile, part and piece:
  //   the part's weights: 8 kernels x 9 taps, a run of 8 B each = 72 bursts of 64 B = 144 bus;
  //   a piece's rows: min(16, 7 + 3) = 10 rows of 16 pixels, 8 B each = 160 bursts = 320 bus;
  //   its compute: 3 x 3 x 8 = 72 coefficients x ceil(128 / 24) passes + 8 = 440 (cache read
  //   10 x 18 x 8 + 8 x 72 = 2016 B = 32, write 128 x 8 x 4 = 4096 B = 64);
  //   its store (after the last part): 128 pixels of 8 B, a burst each = 256 bus; drain 256 + 100.
  // Two slots, a k-tile: 100 + (144 + 2 x 320) + max(144 + 640, 2 x 440) + 2 x 440 + 356 = 3000.
  // One slot, a k-tile: the second part's weights wait for the first part's computes:
  //   100 + (144 + 320 + 880) + (100 + 144 + 320 + 880) + 356 = 3244.
  // Parameters: 16 x 8 B = 4 bus.
  const LayerConfig L = npusim::test::hand_conv_16();
  const HardwareConfig hw = npusim::test::hand_array_8x24();
  LayerTilingPlan plan = make_plan(kernel_part_layer(L, 8), hw, 8, 8, 8);
  REQUIRE(plan.k_tiles == 2);
  REQUIRE(plan.rows_per_store_batch == 8);
  plan.channels_per_part = 8;
  plan.weight_buffers = 2;
  const MappingEstimate two_slots = estimate_mapping(L, hw, plan);
  CHECK(two_slots.weights == 4 + 2 * 2 * 144);
  CHECK(two_slots.compute == 2 * 2 * 2 * 440);
  CHECK(two_slots.bus == 2 * 2 * 2 * 320 + 2 * 2 * 256);
  CHECK(two_slots.total == 4 + 2 * 3000);
  plan.weight_buffers = 1;
  CHECK(estimate_mapping(L, hw, plan).total == 4 + 2 * 3244);
  // Two units: the two pieces compute at once, one on each, and each piece's
  // second part loads only once its first part's compute is done (they share
  // its half): 100 + (144 + 640) + max(144 + 640, 440 + 320 + 100) + 440 + 356
  // = 2540 a k-tile.
  HardwareConfig two_units = hw;
  two_units.compute.units = 2;
  plan.weight_buffers = 2;
  const MappingEstimate parallel = estimate_mapping(L, two_units, plan);
  CHECK(parallel.compute == 2 * 2 * 440);  // the busiest unit's
  CHECK(parallel.total == 4 + 2 * 2540);
}

TEST_CASE(
    "the kernel-parts estimate is bounded by the cache ports, 19880 cycles on one 4-byte port "
    "(hand-derived)",
    "[mapper][kernel_parts]") {
  // The layer, array and plan above (two slots), on one cache port of 4 B/cycle. Per piece and
  // part: its load writes 10 x 18 x 8 = 1440 B = 360; its compute reads 2016 B = 504 and writes
  // 4096 B = 1024 (so it takes 1024 cycles); after the last part its store reads 4096 B = 1024.
  // Per part the weights write 8 x 72 = 576 B = 144. Per k-tile: 2 x (144 + 2 x (360 + 504 +
  // 1024)) + 2 x 1024 = 9888; two k-tiles 19776, + latency 100. The chain is shorter:
  // 100 + 784 + (1024 + max(1024, 320 + 100)) + 2048 + (max(256, 1024) + 100) = 6104 a k-tile.
  const LayerConfig L = npusim::test::hand_conv_16();
  HardwareConfig hw = npusim::test::hand_array_8x24();
  hw.cache.ports = 1;
  hw.cache.port_bytes_per_cycle = 4;
  LayerTilingPlan plan = make_plan(kernel_part_layer(L, 8), hw, 8, 8, 8);
  plan.channels_per_part = 8;
  plan.weight_buffers = 2;
  CHECK(estimate_mapping(L, hw, plan).total == 4 + 100 + 19776);
}

TEST_CASE(
    "the kernel-parts estimate is bounded by the bus, 8428 cycles on two units with one weight "
    "slot at 16 B/cycle (hand-derived)",
    "[mapper][kernel_parts]") {
  // The layer, array and plan above, one weight slot, two units, a 16 B/cycle bus (a 64 B burst
  // takes 4 cycles). Bus: parameters 2 bursts = 8; per k-tile and part the weights 72 bursts =
  // 288; per k-tile, part and piece the rows 160 bursts = 640; per k-tile and piece the store
  // 128 bursts = 512. All of it: 100 + 8 + 2 x 2 x 288 + 2 x 2 x 2 x 640 + 2 x 2 x 512 = 8428.
  // The chain leaves unit 1's row loads under unit 0's (one slot: the first piece's rows
  // alone), so it is shorter: 100 + 288 + 640 + (440 + 100 + 288 + 640) + 440 + (512 + 100) =
  // 3548 a k-tile, 8 + 2 x 3548 = 7104. Without the bus bound the estimate was that.
  const LayerConfig L = npusim::test::hand_conv_16();
  HardwareConfig hw = npusim::test::hand_array_8x24();
  hw.compute.units = 2;
  hw.dram.bytes_per_cycle = 16;
  LayerTilingPlan plan = make_plan(kernel_part_layer(L, 8), hw, 8, 8, 8);
  plan.channels_per_part = 8;
  plan.weight_buffers = 1;
  const MappingEstimate e = estimate_mapping(L, hw, plan);
  CHECK(e.weights == 8 + 2 * 2 * 288);
  CHECK(e.bus == 2 * 2 * 2 * 640 + 2 * 2 * 512);
  CHECK(e.total == 8428);
}

TEST_CASE(
    "kernel parts are weighed for a plain or quantised convolution of one group on the lockstep "
    "array with the key auto, and not for a grouped layer, the broadcast array, the greedy mapper "
    "or with the key off",
    "[mapper][kernel_parts]") {
  LayerConfig L = npusim::test::hand_conv_16();
  HardwareConfig hw;
  CHECK(kernel_parts_refusal(L, hw).empty());  // auto, the default
  hw.kernel_parts = KernelParts::Off;
  CHECK(kernel_parts_refusal(L, hw) == "compiler.kernel_parts is off");
  hw.kernel_parts = KernelParts::Auto;
  hw.dataflow = Dataflow::Broadcast;
  CHECK(kernel_parts_refusal(L, hw) == "kernel parts need the lockstep array");
  hw.dataflow = Dataflow::Lockstep;
  hw.mapper = Mapper::Greedy;
  CHECK_FALSE(kernel_parts_refusal(L, hw).empty());
  hw.mapper = Mapper::Cost;
  L.groups = 2;
  CHECK(kernel_parts_refusal(L, hw) == "kernel parts need one group");
}
