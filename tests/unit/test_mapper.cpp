// The mapper (sim/compiler/mapper.h, docs/mapping.md): its estimate worked by
// hand on a small layer (square and non-square arrays), the cost choice never
// estimated slower than the greedy one, the k-tile shrinking that lets a layer
// fit a small cache, and the error of a layer that cannot fit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/cost/cost_model.h"
#include "sim/compiler/mapper.h"
#include "sim/compiler/program_emitter.h"
#include "sim/compiler/tiler.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

LayerConfig mapper_conv(const std::string& name, uint32_t C, uint32_t H, uint32_t W, uint32_t K,
                        uint32_t R, uint32_t stride, uint32_t padding) {
  LayerConfig L;
  L.name = name;
  L.C = C, L.H = H, L.W = W, L.K = K, L.R = R, L.S = R;
  L.stride = stride, L.padding = padding;
  L.requant.scale.assign(K, 1);
  L.requant.shift = 8;
  return L;
}

NetworkConfig network(std::vector<LayerConfig> layers) {
  NetworkConfig net;
  net.name = "test";
  net.layers = std::move(layers);
  net.chained.assign(net.layers.size(), false);
  return net;
}

}  // namespace

TEST_CASE(
    "prefetched_tile_cycles with nothing hidden is the weights plus the compute-, bus- or "
    "port-bound stream",
    "[mapper]") {
  // Compute-bound: 72 + max(128 + 100 + 1160, 100 + 256, 100 + ceil(701/2)) = 72 + 1388.
  CHECK(cost::prefetched_tile_cycles(72, 0, 128, 1160, 256, 701, 2, 100) == 1460);
  // Bus-bound: 10 + max(5 + 7 + 3, 7 + 40, 7 + ceil(20/2)) = 10 + 47.
  CHECK(cost::prefetched_tile_cycles(10, 0, 5, 3, 40, 20, 2, 7) == 57);
  // Port-bound on one port: 10 + max(15, 47, 7 + 101) = 118; three ports: ceil(101/3) = 34.
  CHECK(cost::prefetched_tile_cycles(10, 0, 5, 3, 40, 101, 1, 7) == 118);
  CHECK(cost::prefetched_tile_cycles(10, 0, 5, 3, 40, 101, 3, 7) == 57);
}

TEST_CASE(
    "prefetched_tile_cycles pays only the weights not hidden behind the previous tile, and "
    "the hidden ones on the bus",
    "[mapper]") {
  // Nothing hidden: the single-buffered formula, 72 + 1388.
  CHECK(cost::prefetched_tile_cycles(72, 0, 128, 1160, 256, 701, 2, 100) == 1460);
  // All hidden: max(128 + 100 + 1160, 100 + 256 + 72, 100 + 351) = 1388.
  CHECK(cost::prefetched_tile_cycles(72, 5000, 128, 1160, 256, 701, 2, 100) == 1388);
  // 300 of 500 hidden: 200 + max(1388, 100 + 256 + 300, 451) = 1588.
  CHECK(cost::prefetched_tile_cycles(500, 300, 128, 1160, 256, 701, 2, 100) == 1588);
  // Bus-bound: the hidden weights still hold the bus: max(5 + 7 + 3, 7 + 40 + 10, 7 + 10) = 57,
  // the same as loading them first (10 + 47).
  CHECK(cost::prefetched_tile_cycles(10, 10, 5, 3, 40, 20, 2, 7) == 57);
  // Port-bound on one port, 4 of 10 hidden: 6 + max(15, 7 + 40 + 4, 7 + 101) = 114.
  CHECK(cost::prefetched_tile_cycles(10, 4, 5, 3, 40, 101, 1, 7) == 114);
}

TEST_CASE(
    "the estimate of two 8-kernel tiles on an 8x24 array hides the second tile's weights "
    "behind the first tile's compute when double-buffered",
    "[mapper]") {
  // C 16, 16x16, K 16, 3x3, pad 1; k-tile 8 (2 tiles), one piece of 16 rows,
  // one stage, one store batch (threshold 32 x 144 = 4608 B > 16 rows of 128 B).
  // Per tile: weights 8 x 144 = 1152 B = 36; input 16 rows x 256 B = 128 bus;
  // array ceil(8/8) x 144 x ceil(256/24) + 8 = 1592 (read 16 x 288 + 1152 =
  // 5760 B = 90, write 256 x 8 x 4 = 8192 B = 128); store 256 pixels of 8 B,
  // one burst each: 256 x 64 / 32 = 512 bus, cache read 128, drain 512 + 100;
  // ports 81 + 90 + 128 + 128 = 427; params 128 B = 4.
  // Tile: 36 + max(128 + 100 + 1592, 100 + 128 + 512, 100 + ceil(427/2)) = 36 + 1820.
  // Single: 4 + 2 x 1856 + 612 = 4328. Double: tile 1 hides its 36 behind
  // min(1 piece, 2 halves) x 1592: max(1820, 740 + 36, 314) = 1820, so
  // 4 + 1856 + 1820 + 612 = 4292.
  const LayerConfig L = mapper_conv("c", 16, 16, 16, 16, 3, 1, 1);
  HardwareConfig hw;
  hw.fold = ArrayFold::Matmul;  // the unfolded formulas worked below
  hw.compute.array_rows = 8;
  hw.compute.array_cols = 24;
  LayerTilingPlan plan = make_plan(L, hw, 8, 16, 16);
  REQUIRE(plan.k_tiles == 2);
  REQUIRE(plan.rows_per_store_batch == 16);
  const MappingEstimate single = estimate_mapping(L, hw, plan);
  CHECK(single.weights == 4 + 2 * 36);
  CHECK(single.compute == 2 * 1592);
  CHECK(single.bus == 2 * 640);
  CHECK(single.total == 4328);
  plan.weight_buffers = 2;
  CHECK(estimate_mapping(L, hw, plan).total == 4292);
}

TEST_CASE(
    "a double-buffered candidate exists exactly when two weight tiles fit the region, the "
    "cost mapper is asked for it and there are several tiles",
    "[mapper]") {
  // 512 kernels of 3x3x512 = 4608 B; a 512 KiB region holds 113 of them, so
  // single tiles up to 96 and double-buffered ones up to 56 (multiples of 32: 32).
  const LayerConfig L = mapper_conv("l4", 512, 7, 7, 512, 3, 1, 1);
  HardwareConfig hw;
  const NetworkConfig net = network({L});
  const CachePartition part = partition_cache(net, hw);
  REQUIRE(part.weight_region_bytes == 512 * 1024);
  const auto doubled = [&](const HardwareConfig& h) {
    std::vector<uint32_t> ks;
    for (const MappingCandidate& c : mapping_candidates(L, h, part))
      if (c.plan.weight_buffers == 2) ks.push_back(c.plan.k_tile);
    return ks;
  };
  const std::vector<uint32_t> ks = doubled(hw);
  REQUIRE_FALSE(ks.empty());
  for (uint32_t k : ks) CHECK(2 * uint64_t(k) * 4608 <= part.weight_region_bytes);
  CHECK(std::find(ks.begin(), ks.end(), 32u) != ks.end());
  // The choice on the default hardware: weights of a 32-kernel tile (147,456
  // B = 4608 bus cycles) hide behind the previous tile's 9216 array cycles.
  const LayerTilingPlan chosen = choose_mapping(L, hw, part);
  CHECK(chosen.weight_buffers == 2);
  HardwareConfig single = hw;
  single.weight_buffers = WeightBuffers::Single;
  CHECK(doubled(single).empty());
  CHECK(choose_mapping(L, single, part).weight_buffers == 1);
  HardwareConfig greedy = hw;
  greedy.mapper = Mapper::Greedy;
  CHECK(choose_mapping(L, greedy, part).weight_buffers == 1);
}

TEST_CASE(
    "the estimate of conv3x3 in one piece is the hand-derived 1820 cycles (docs/timing.md), and "
    "5308 on 8 B/cycle cache ports, the weight tile's write among them",
    "[mapper]") {
  // C 16, 16x16, K 16, 3x3, pad 1; one piece of 16 rows, one stage, one batch.
  // params 128 B = 4; weights 2304 B = 72; input 16 rows x 256 B = 128 bus;
  // compute 1x144x8 + 8 = 1160 (read 18 padded rows x 288 B + 2304 B of
  // kernels = 7488 B, 117; write 256); store 4096 B = 128 bus, cache read 256;
  // drain 256 + 100; ports 81 (18 padded rows x 288 B written) + 117 + 256 +
  // 256 = 710 over 2 ports.
  // 4 + 72 + max(128 + 100 + 1160, 100 + 256, 100 + 355) + 356 = 1820.
  const LayerConfig L = mapper_conv("c", 16, 16, 16, 16, 3, 1, 1);
  HardwareConfig hw;
  const LayerTilingPlan plan = make_plan(L, hw, 16, 16, 16);
  const MappingEstimate e = estimate_mapping(L, hw, plan);
  CHECK(e.weights == 76);
  CHECK(e.compute == 1160);
  CHECK(e.bus == 256);
  CHECK(e.total == 1820);
  // Ports of 8 B/cycle (two at once): load write 5184 / 8 = 648, compute read 7488 / 8 = 936
  // and write 16384 / 8 = 2048 (so compute 2048), store read 2048 (drain 2048 + 100); the
  // weight tile's own write 2304 / 8 = 288. Ports 648 + 936 + 2048 + 2048 + 288 = 5968:
  // 4 + 72 + max(128 + 100 + 2048, 100 + 256, 100 + 2984) + 2148 = 5308. (Reading only the
  // 16 real input rows, 6912 B, gave 5272.)
  hw.cache.port_bytes_per_cycle = 8;
  const MappingEstimate ports = estimate_mapping(L, hw, plan);
  CHECK(ports.compute == 2048);
  CHECK(ports.total == 5308);
}

TEST_CASE("the estimate on a non-square 8x24 array charges ceil(16/8) x 144 x ceil(256/24)",
          "[mapper]") {
  // Array 2 x 144 x 11 + 8 = 3176; 4 + 72 + max(128 + 100 + 3176, 356) + 356 = 3836.
  const LayerConfig L = mapper_conv("c", 16, 16, 16, 16, 3, 1, 1);
  HardwareConfig hw;
  hw.fold = ArrayFold::Matmul;  // the unfolded formulas worked below
  hw.compute.array_rows = 8;
  hw.compute.array_cols = 24;
  const MappingEstimate e = estimate_mapping(L, hw, make_plan(L, hw, 16, 16, 16));
  CHECK(e.compute == 3176);
  CHECK(e.total == 3836);
}

TEST_CASE(
    "with two units the second unit's first piece waits for both pieces' input loads on the "
    "shared bus",
    "[mapper]") {
  // conv3x3 in 2 pieces of 8 rows on 2 units, one piece each. Per piece:
  // input 10 rows x 256 B = 2560 B = 80 bus; array 1 x 144 x ceil(128/32) + 8
  // = 584 (read 10 x 288 + 2304 = 5184 B = 81, write 8192 B = 128); store
  // 2048 B = 64 bus, cache read 128, drain 128 + 100; ports 45 + 81 + 128 +
  // 128 = 382. Tile: 72 + max(2 x 80 + 100 + 584, 100 + 2 x 144, 100 + 382)
  // = 916; total 4 + 916 + 228 = 1148 (one load as the fill: 1068).
  const LayerConfig L = mapper_conv("c", 16, 16, 16, 16, 3, 1, 1);
  HardwareConfig hw;
  hw.compute.units = 2;
  const LayerTilingPlan plan = make_plan(L, hw, 16, 8, 8);
  REQUIRE(plan.pieces == 2);
  REQUIRE(plan.rows_per_store_batch == 8);
  const MappingEstimate two = estimate_mapping(L, hw, plan);
  CHECK(two.compute == 584);
  CHECK(two.bus == 288);
  CHECK(two.total == 1148);
  // One unit: both pieces on it, 72 + max(80 + 100 + 2 x 584, 388, 482) = 1420; 1652 in all.
  hw.compute.units = 1;
  CHECK(estimate_mapping(L, hw, plan).total == 1652);
}

TEST_CASE(
    "with two weight slots on three units a tile's unit time is the layer's pieces spread over "
    "its tiles, bounded by a slot's reuse, worked by hand",
    "[mapper]") {
  // conv3x3 as above with K = 64: 4 weight tiles of 16 kernels, each in 2 pieces of 8 rows (a
  // piece: fill 80, compute 584, store 128 pixels of 16 B, each a 64 B burst, 256 bus cycles;
  // ping-pong time max(584, (80 + 256 + 100 + 584) / 2) = 584).
  const LayerConfig L = mapper_conv("c", 16, 16, 16, 64, 3, 1, 1);
  HardwareConfig hw;
  hw.compute.units = 3;
  LayerTilingPlan plan = make_plan(L, hw, 16, 8, 8);
  REQUIRE(plan.pieces == 2);
  // One slot: every tile waits for its slowest unit, ceil(2 / 3) = 1 piece: 4 x 584.
  CHECK(estimate_mapping(L, hw, plan).compute == 4 * 584);
  // Two slots: the busiest unit takes ceil(2 x 4 / 3) = 3 of the layer's 8 pieces, spread over
  // 4 tiles, ceil(3 x 584 / 4) = 438 a tile; the slot bound (584 + 72 weights) / 2 = 328 is
  // lower.
  plan.weight_buffers = 2;
  CHECK(estimate_mapping(L, hw, plan).compute == 4 * 438);
  // At 4 B/cycle: fill 2560 / 4 = 640, store 128 x 64 / 4 = 2048, a piece max(584, (640 + 2048
  // + 100 + 584) / 2) = 1686, weights 2304 / 4 = 576. The units take 3, 3 and 2 of the 8 pieces:
  // spread ceil(3 x 1686 / 4) = 1265, over the slot bound ceil((1686 + 576) / 2) = 1131.
  hw.dram.bytes_per_cycle = 4;
  CHECK(estimate_mapping(L, hw, plan).compute == 4 * 1265);
  // One unit: both pieces of each tile on it, 2 x 1686.
  hw.compute.units = 1;
  CHECK(estimate_mapping(L, hw, plan).compute == 4 * 2 * 1686);
  // With 64 channels the slot bound wins: weights 16 x 576 / 4 = 2304, fill 10240 / 4 = 2560,
  // array 576 x 4 passes + 8 = 2312, store 2048, a piece max(2312, (2560 + 2048 + 100 + 2312) /
  // 2) = 3510; spread ceil(3 x 3510 / 4) = 2633, slot bound ceil((3510 + 2304) / 2) = 2907.
  const LayerConfig wide = mapper_conv("w", 64, 16, 16, 64, 3, 1, 1);
  hw.compute.units = 3;
  plan = make_plan(wide, hw, 16, 8, 8);
  plan.weight_buffers = 2;
  CHECK(estimate_mapping(wide, hw, plan).compute == 4 * 2907);
}

TEST_CASE(
    "the estimate charges a shorter piece its own array time and finds the unit the "
    "round-robin deals the longer pieces, worked by hand on a 32x16 array",
    "[mapper]") {
  // conv3x3, C 16, 16x16, pad 1, on 32 rows x 16 columns; 16 output rows in 3 equal pieces:
  // 6, 5, 5 rows. Full piece: 96 pixels, 6 passes, array 144 x 6 + 8 = 872; fill 8 input rows
  // x 256 B / 32 = 64; store 1536 / 32 = 48; ping-pong time max(872, (64 + 48 + 100 + 872) / 2)
  // = 872. Shorter piece: 80 pixels, 5 passes, 728; fill 56, store 40; time 728.
  HardwareConfig hw;
  hw.compute.array_cols = 16;
  const LayerConfig L = mapper_conv("c", 16, 16, 16, 16, 3, 1, 1);
  LayerTilingPlan plan = make_plan(L, hw, 16, 6, 6);
  REQUIRE(plan.pieces == 3);
  // One unit: 872 + 2 x 728 = 2328 (every piece as long as the first would be 2616).
  CHECK(estimate_mapping(L, hw, plan).compute == 2328);
  // Three units, one piece each: the slowest unit has the 6-row piece.
  hw.compute.units = 3;
  CHECK(estimate_mapping(L, hw, plan).compute == 872);
  // K = 48 in 3 tiles of 16 with two weight slots (72 cycles of weights a tile). Three units:
  // the deal gives unit 0 piece 0 of every tile, 3 x 872, a tile's share 872 (the mean piece
  // would say 776).
  const LayerConfig K48 = mapper_conv("k", 16, 16, 16, 48, 3, 1, 1);
  plan = make_plan(K48, hw, 16, 6, 6);
  plan.weight_buffers = 2;
  CHECK(estimate_mapping(K48, hw, plan).compute == 3 * 872);
  // Two units: unit 0 takes deals 0, 2, 4, 6, 8 = pieces 0, 2, 1, 0, 2 (2 x 872 + 3 x 728 =
  // 3928), unit 1 pieces 1, 0, 2, 1 (3056); ceil(3928 / 3) = 1310 a tile, under the slowest
  // unit's 872 + 728 = 1600 and over the slot bound ceil((1600 + 72) / 2) = 836.
  hw.compute.units = 2;
  CHECK(estimate_mapping(K48, hw, plan).compute == 3 * 1310);
}

TEST_CASE("the cost mapper's choice is never estimated slower than the greedy tiling", "[mapper]") {
  for (uint32_t kib : {128u, 1024u, 4096u}) {
    HardwareConfig hw;
    hw.cache.size_kib = kib;
    hw.compute.array_rows = 64;
    hw.compute.array_cols = 64;
    const std::vector<LayerConfig> layers = {mapper_conv("conv1", 3, 224, 224, 64, 7, 2, 3),
                                             mapper_conv("l2", 64, 56, 56, 128, 3, 2, 1),
                                             mapper_conv("l4", 256, 14, 14, 512, 3, 2, 1)};
    const NetworkConfig net = network(layers);
    const CachePartition part = partition_cache(net, hw);
    for (const LayerConfig& L : layers) {
      const LayerTilingPlan chosen = choose_mapping(L, hw, part);
      REQUIRE(chosen.fits);
      const LayerTilingPlan greedy = plan_layer(L, hw, part);
      if (!greedy.fits) continue;
      INFO(L.name << " at " << kib << " KiB");
      CHECK(estimate_mapping(L, hw, chosen).total <= estimate_mapping(L, hw, greedy).total);
    }
  }
}

TEST_CASE("a layer whose largest k-tile overflows a half fits by a smaller k-tile", "[mapper]") {
  // ResNet's conv1 at 128 KiB: one output row of 64 int32 sums is 28672 B, a
  // half 28672 B, so the greedy tiling fails; 32 channels (14336 B) fit.
  const LayerConfig L = mapper_conv("conv1", 3, 224, 224, 64, 7, 2, 3);
  HardwareConfig hw;
  hw.cache.size_kib = 128;
  hw.column_pieces = ColumnPieces::Off;  // whole rows only (with them, 64 kernels fit too)
  const NetworkConfig net = network({L, mapper_conv("big", 512, 7, 7, 512, 3, 1, 1)});
  const CachePartition part = partition_cache(net, hw);
  CHECK_FALSE(plan_layer(L, hw, part).fits);
  const LayerTilingPlan plan = choose_mapping(L, hw, part);
  REQUIRE(plan.fits);
  CHECK(plan.k_tile == 32);
  CHECK(piece_bytes(L, plan.rows_per_piece, plan.k_tile) <= part.half_bytes);
  hw.mapper = Mapper::Greedy;
  CHECK_FALSE(choose_mapping(L, hw, part).fits);
}

TEST_CASE(
    "a layer that cannot fit names itself, the smallest cache that fits and the key, with kernel "
    "parts and without",
    "[mapper]") {
  const NetworkConfig net = network({mapper_conv("wide", 256, 32, 32, 64, 3, 1, 1)});
  for (const auto& [parts, small_kib] :
       {std::pair{KernelParts::Off, 8u}, {KernelParts::Auto, 1u}}) {
    INFO("kernel parts " << to_string(parts) << " at " << small_kib << " KiB");
    HardwareConfig hw;
    hw.kernel_parts = parts;
    hw.cache.size_kib = small_kib;
    std::string message;
    try {
      compile_network(net, hw);
    } catch (const CompileError& e) {
      message = e.what();
    }
    CHECK_THAT(message, Contains("layer wide does not fit"));
    CHECK_THAT(message, Contains("raise cache.size_kib"));
    // Under auto the reason covers the smallest part too.
    CHECK((message.find("in kernel parts of one channel") != std::string::npos) ==
          (parts == KernelParts::Auto));
    const std::string marker = "cache.size_kib = ";
    const auto at = message.find(marker);
    REQUIRE(at != std::string::npos);
    const uint32_t kib = uint32_t(std::stoul(message.substr(at + marker.size())));
    hw.cache.size_kib = kib;
    CHECK_NOTHROW(compile_network(net, hw));
    hw.cache.size_kib = kib - 1;
    CHECK_THROWS_AS(compile_network(net, hw), CompileError);
  }
}

TEST_CASE(
    "dense_array_cycles of graph operators, asked again and again, answers by the layer's groups "
    "and kind, worked by hand",
    "[mapper]") {
  HardwareConfig hw;
  hw.fold = ArrayFold::Matmul;  // the unfolded formulas worked below
  hw.compute.array_rows = 4;
  hw.compute.array_cols = 3;
  LayerConfig g;  // grouped: K = 8 in 4 groups of 2 kernels, 2 channels each, 3x3
  g.quantized = true;
  g.C = 8, g.K = 8, g.groups = 4, g.R = 3, g.S = 3, g.H = 6, g.W = 6;
  // 18 coefficients per kernel; 7 pixels = ceil(7 / 3) = 3 passes.
  // Kernels [0, 2): one group, one lockstep run: 18 * 3 = 54.
  // Kernels [1, 3): two groups, two runs of one kernel each: 2 * 54 = 108.
  for (int again = 0; again < 2; ++again) {
    CHECK(dense_array_cycles(g, hw, 7, 0, 2) == 54);
    CHECK(dense_array_cycles(g, hw, 7, 1, 2) == 108);
    CHECK(dense_array_cycles(g, hw, 7, 3, 2) == 108);  // k_begin 3 = 1 modulo the group
  }
  // The same numbers as a matrix multiply (one group): M = 7 >= 3 columns, no
  // folding: ceil(2 / 4) groups of kernels * 18 * 3 passes = 54, from any k_begin.
  LayerConfig m = g;
  m.op = OpKind::MatMul;
  m.groups = 1, m.C = 2;
  CHECK(dense_array_cycles(m, hw, 7, 1, 2) == 54);
  // Rows and columns differ: on a 3x4 array, 7 pixels are 2 passes.
  hw.compute.array_rows = 3;
  hw.compute.array_cols = 4;
  CHECK(dense_array_cycles(g, hw, 7, 1, 2) == 72);
}

TEST_CASE(
    "mapping_signature: layers that differ only in name, seed or pass share one, any shape or "
    "format difference gives another",
    "[mapper]") {
  LayerConfig a;
  a.C = 16, a.H = 8, a.W = 8, a.K = 32, a.R = 3, a.S = 3, a.padding = 1;
  LayerConfig b = a;
  b.name = "other", b.seed = 99, b.pass = 3;
  CHECK(mapping_signature(a, 0) == mapping_signature(b, 0));
  CHECK(mapping_signature(a, 0) != mapping_signature(a, 32));  // a packed output
  const auto differs = [&](auto change) {
    LayerConfig c = a;
    change(c);
    return mapping_signature(c, 0) != mapping_signature(a, 0);
  };
  CHECK(differs([](LayerConfig& c) { c.K = 33; }));
  CHECK(differs([](LayerConfig& c) { c.W = 9; }));
  CHECK(differs([](LayerConfig& c) { c.H = 9; }));
  CHECK(differs([](LayerConfig& c) { c.N = 2; }));
  CHECK(differs([](LayerConfig& c) { c.padding = 0; }));
  CHECK(differs([](LayerConfig& c) { c.dtype = DataType::Binary; }));
  CHECK(differs([](LayerConfig& c) { c.stride = 2; }));
  CHECK(differs([](LayerConfig& c) { c.groups = 2; }));
  CHECK(differs([](LayerConfig& c) { c.op = OpKind::MatMul; }));
  CHECK(differs([](LayerConfig& c) { c.access = LoadAccess::Mec; }));
  CHECK(differs([](LayerConfig& c) { c.input_layout = TensorLayout::Nchw; }));
  CHECK(differs([](LayerConfig& c) { c.quant.output.type = QuantType::Int32; }));
  CHECK(differs([](LayerConfig& c) {
    c.general = LayerConfig::Geometry{};
    c.general->dilation_w = 2;
  }));
}

TEST_CASE(
    "chosen_candidate takes the fewest estimated cycles, and with compiler.traffic_margin the "
    "least bus time within the margin, the fewer cycles on a tie",
    "[mapper]") {
  // Hand-made estimates {total, weights, compute, bus}: bus time is weights + bus.
  const auto candidate = [](uint64_t total, uint64_t weights, uint64_t bus) {
    MappingCandidate c;
    c.estimate = {total, weights, total, bus};
    return c;
  };
  const std::vector<MappingCandidate> candidates = {
      candidate(1010, 50, 450),   // 0: 500 bus cycles, +1.0 %
      candidate(1000, 100, 900),  // 1: the fewest cycles, 1000 bus cycles
      candidate(1004, 40, 360),   // 2: 400, +0.4 %
      candidate(1003, 100, 300),  // 3: 400, +0.3 %: ties with 2 on bus time, fewer cycles
      candidate(1030, 10, 10)};   // 4: 20, but +3 %
  HardwareConfig hw;
  CHECK(chosen_candidate(candidates, hw) == &candidates[1]);
  hw.compiler.traffic_margin = 0.002;  // 1002 cycles: only the fewest
  CHECK(chosen_candidate(candidates, hw) == &candidates[1]);
  hw.compiler.traffic_margin = 0.005;  // 1005: 2 and 3 tie on bus time, 3 has fewer cycles
  CHECK(chosen_candidate(candidates, hw) == &candidates[3]);
  hw.compiler.traffic_margin = 0.01;  // 1010: 0 joins with more bus time
  CHECK(chosen_candidate(candidates, hw) == &candidates[3]);
  hw.compiler.traffic_margin = 0.03;  // 1030: 4
  CHECK(chosen_candidate(candidates, hw) == &candidates[4]);
  CHECK(chosen_candidate({}, hw) == nullptr);
}

TEST_CASE(
    "k-tile candidates are K, then every multiple of the array rows or of 8 below it that fits, "
    "largest first, on arrays of 5 to 48 rows with layers of 1 to 130 kernels",
    "[mapper]") {
  for (const uint32_t rows : {5u, 8u, 12u, 16u, 24u, 32u, 48u})
    for (uint32_t K = 1; K <= 130; ++K) {
      const LayerConfig L = mapper_conv("c", 16, 8, 8, K, 3, 1, 1);
      HardwareConfig hw;
      hw.compute.array_rows = rows;
      hw.cache.size_kib = 4096;
      CachePartition part = partition_cache(network({L}), hw);
      const uint64_t kernel = tiling_kernel_bytes(L);
      // Weight regions for every kernel count up to K + 1, and for none.
      for (uint32_t fit = 0; fit <= K + 1; fit += K > 40 ? 7 : 1) {
        part.weight_region_bytes = fit * kernel;
        std::vector<uint32_t> expected;  // every k the rule names, by a scan from K down
        for (uint32_t k = K; k >= 1; --k)
          if ((k == K || k % rows == 0 || k % 8 == 0) && k <= fit) expected.push_back(k);
        if (expected.empty() && fit > 0) expected.push_back(std::min({K - 1, rows - 1, fit}));
        INFO("rows " << rows << ", K " << K << ", " << fit << " kernels fit");
        REQUIRE(k_tile_candidates(L, hw, part) == expected);
        CHECK(has_k_tile(L, hw, part) == !expected.empty());
      }
    }
}
