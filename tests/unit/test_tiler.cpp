// Compiler floor: the seed 003 cache partition and tile sizing, worked by hand
// on small layers and caches, and the structure of the emitted program
// (opcodes, stages, dependencies, unit and half assignment), plus the
// structural checks of validate_program.
//
// Seed 003 rule as implemented (sim/compiler/tiler.cpp):
//   weight region = min(cache / 2, largest layer's K*R*S*C)
//   params region = 2 banks * max K * 8 B
//   free          = cache - weight region - params region
//   half          = (free / units) / 2
//   piece_bytes(rows, k_tile) = ((rows-1)*stride + R) * (W + 2*pad) * C   input rows
//                             + rows * out_w * k_tile * 4                   int32 results
//   k_limit = min(K, weight region / (R*S*C), accumulator / (out_w*4));
//   k_tiles = ceil(K / k_limit), k_tile = ceil(K / k_tiles)   (equal k-tiles)
//   max_rows = largest rows with piece_bytes <= half;
//   pieces = ceil(out_h / max_rows), rows_per_piece = ceil(out_h / pieces)
//   rows_per_compute_stage = clamp(accumulator / (out_w*k_tile*4), 1, rows_per_piece)
//   rows_per_store_batch   = clamp(ceil(store.batch_bytes / (out_w*k_tile)), 1, rows_per_piece)
//     (seed 003: a batch leaves once at least batch_bytes have accumulated)
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/compiler/program_emitter.h"
#include "sim/compiler/tiler.h"
#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/load_workload.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

LayerConfig tiler_layer(const std::string& name, uint32_t C, uint32_t H, uint32_t W, uint32_t K,
                        uint32_t R, uint32_t S, uint32_t stride, uint32_t padding, uint32_t N = 1) {
  LayerConfig L;
  L.name = name;
  L.N = N, L.C = C, L.H = H, L.W = W, L.K = K, L.R = R, L.S = S;
  L.stride = stride, L.padding = padding;
  L.requant.scale.assign(K, 1);
  L.requant.shift = 8;
  return L;
}

NetworkConfig tiler_network(std::vector<LayerConfig> layers, std::vector<bool> chained = {}) {
  NetworkConfig net;
  net.name = "test";
  net.layers = std::move(layers);
  net.chained = chained.empty() ? std::vector<bool>(net.layers.size(), false) : chained;
  return net;
}

// These tests work the greedy mapper and the greedy piece split by hand
// (batches of 4096 B unless a test sets its own); the equal pieces of seed
// 003 and its derived batch threshold have their own tests below, the cost
// mapper its own (test_mapper.cpp).
HardwareConfig hardware(uint32_t cache_kib, uint32_t units = 1) {
  HardwareConfig hw;
  hw.mapper = Mapper::Greedy;
  hw.pieces = PieceSplit::Greedy;
  hw.store.batch_bytes = 4096;
  hw.cache.size_kib = cache_kib;
  hw.compute.units = units;
  return hw;
}

// 8x16x16 input, 16 3x3 kernels, padding 1: a 16x16x16 output.
// weights 16*3*3*8 = 1152 B; kernel 72 B; padded width 18;
// piece_bytes(r, 16) = (r+2)*18*8 + r*16*16*4 = 1168 r + 288.
LayerConfig conv16(uint32_t N = 1) { return tiler_layer("conv16", 8, 16, 16, 16, 3, 3, 1, 1, N); }

std::vector<const Instruction*> of(const Program& p, Opcode op, uint32_t layer_index) {
  std::vector<const Instruction*> out;
  for (const Instruction& in : p.instructions)
    if (in.op == op && in.layer == layer_index) out.push_back(&in);
  return out;
}

std::set<uint32_t> deps_of(const Instruction& in, DependencyKind kind) {
  std::set<uint32_t> out;
  for (const Dependency& d : in.deps)
    if (d.kind == kind) out.insert(d.producer);
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> rows_of(const std::vector<const Instruction*>& v) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const Instruction* in : v) out.emplace_back(in->out_row_begin, in->out_row_end);
  return out;
}

std::vector<uint32_t> stages_of(const std::vector<const Instruction*>& v) {
  std::vector<uint32_t> out;
  for (const Instruction* in : v) out.push_back(in->stages);
  return out;
}

using Rows = std::vector<std::pair<uint32_t, uint32_t>>;

// Two chained layers:
//   a: C4 8x8 -> K8, 3x3 pad 1: out 8x8x8, weights 8*9*4 = 288 B, kernel 36 B
//   b: C8 8x8 -> K4, 3x3 pad 1: out 8x8x4, weights 4*9*8 = 288 B, kernel 72 B
NetworkConfig tiler_chain(bool chained = true) {
  return tiler_network(
      {tiler_layer("a", 4, 8, 8, 8, 3, 3, 1, 1), tiler_layer("b", 8, 8, 8, 4, 3, 3, 1, 1)},
      {false, chained});
}

// Partition of tiler_chain() on a cache of `kib`: weight region min(kib*512, 288) = 288,
// params 2 * 8 * 8 = 128, used 416.
//   2 KiB, 1 unit:  free 2048 - 416 = 1632, half 816
//   4 KiB, 2 units: free 4096 - 416 = 3680, per unit 1840, half 920
// Layer a: k_tile 8 (288/36 = 8 = K); piece_bytes(r, 8) = (r+2)*10*4 + r*8*8*4 = 296 r + 80:
//   r = 2 -> 672 fits both halves, r = 3 -> 968 fits neither -> 4 pieces of 2 rows.
// Layer b: k_tile 4 (288/72 = 4 = K); piece_bytes(r, 4) = (r+2)*10*8 + r*8*4*4 = 208 r + 160:
//   r = 3 -> 784 fits both, r = 4 -> 992 fits neither -> 3 pieces of 3 rows: [0,3) [3,6) [6,8).
// store.batch_bytes 100: a's output row is 8*8 = 64 B -> ceil(100/64) = 2 rows per batch
// (stores of 2 rows have 1 stage); b's row is 8*4 = 32 B -> 4 rows per batch (1 stage each).
// array_rows 4: a's weights load in ceil(8/4) = 2 stages, b's in ceil(4/4) = 1.
HardwareConfig chain_hw(uint32_t units = 1, Buffering buffering = Buffering::PingPong) {
  HardwareConfig hw = hardware(units == 1 ? 2 : 4, units);
  hw.store.batch_bytes = 100;
  hw.compute.array_rows = 4;
  hw.buffering = buffering;
  return hw;
}

}  // namespace

TEST_CASE("piece_bytes counts input rows at padded width plus int32 results", "[tiler]") {
  // conv16: (r+2)*18*8 + r*16*16*4 = 1168 r + 288.
  CHECK(piece_bytes(conv16(), 1, 16) == 1456);  // 3*144 + 1024
  CHECK(piece_bytes(conv16(), 6, 16) == 7296);  // 8*144 + 6144
  CHECK(piece_bytes(conv16(), 6, 8) == 4224);   // 8*144 + 6*16*8*4 = 1152 + 3072
  // Stride 2, 3x3, pad 1 on 4x16x16: out 8x8; 3 output rows need (3-1)*2+3 = 7 input rows:
  // 7*18*4 + 3*8*8*4 = 504 + 768 = 1272.
  const LayerConfig s2 = tiler_layer("s2", 4, 16, 16, 8, 3, 3, 2, 1);
  REQUIRE(s2.out_h() == 8);
  CHECK(piece_bytes(s2, 3, 8) == 1272);
  CHECK(piece_bytes(s2, 1, 8) == 472);  // 3*72 + 256
  // 1x1 stride 2, no padding, 16x8x8: out 4x4; 2 rows need 1*2+1 = 3 input rows:
  // 3*8*16 + 2*4*4*4 = 384 + 128 = 512.
  const LayerConfig p = tiler_layer("p", 16, 8, 8, 4, 1, 1, 2, 0);
  REQUIRE(p.out_h() == 4);
  CHECK(piece_bytes(p, 2, 4) == 512);
}

TEST_CASE("partition_cache: weight and params regions, then halves per unit", "[tiler]") {
  const NetworkConfig net = tiler_network({conv16()});
  // 16 KiB = 16384 B; weights 1152 (< 8192); params 2*16*8 = 256; free 16384 - 1408 = 14976.
  CachePartition p = partition_cache(net, hardware(16, 1));
  CHECK(p.weight_region_bytes == 1152);
  CHECK(p.params_region_bytes == 256);
  CHECK(p.half_bytes == 7488);                                      // 14976 / 1 / 2
  CHECK(partition_cache(net, hardware(16, 2)).half_bytes == 3744);  // 14976/2 = 7488, /2
  CHECK(partition_cache(net, hardware(16, 3)).half_bytes == 2496);  // 14976/3 = 4992, /2
  // Buffering does not change the partition (single keeps the same half size).
  HardwareConfig single = hardware(16, 1);
  single.buffering = Buffering::Single;
  CHECK(partition_cache(net, single).half_bytes == 7488);

  // Weights bigger than half the cache get half the cache: 1 KiB -> min(512, 1152) = 512;
  // free 1024 - 512 - 256 = 256, half 128.
  p = partition_cache(net, hardware(1, 1));
  CHECK(p.weight_region_bytes == 512);
  CHECK(p.half_bytes == 128);

  // The largest weights and the largest K may come from different layers:
  // conv16 weights 1152 (K 16); 1x1 layer 4 -> 64: weights 256, K 64.
  // weights 1152, params 2*64*8 = 1024, free 16384 - 2176 = 14208, half 7104.
  const NetworkConfig two =
      tiler_network({conv16(), tiler_layer("wide_k", 4, 16, 16, 64, 1, 1, 1, 0)});
  p = partition_cache(two, hardware(16, 1));
  CHECK(p.weight_region_bytes == 1152);
  CHECK(p.params_region_bytes == 1024);
  CHECK(p.half_bytes == 7104);

  // Nothing left: 1 KiB, weights 512 + params 1024 > 1024 -> free 0, half 0.
  CHECK(partition_cache(two, hardware(1, 1)).half_bytes == 0);
}

TEST_CASE(
    "partition_cache with parameters per weight tile: two banks for the largest tile any "
    "layer's weight region holds, the rest to the halves",
    "[tiler]") {
  // conv16: 3x3x8 kernels of 72 B, K 16, weights 1152; big: 3x3x16 kernels of 144 B, K 64,
  // weights 9216. 4 KiB: weight region min(2048, 9216) = 2048.
  const NetworkConfig net = tiler_network({conv16(), tiler_layer("big", 16, 8, 8, 64, 3, 3, 1, 1)});
  const CachePartition whole = partition_cache(net, hardware(4, 1));
  CHECK_FALSE(whole.params_per_tile);
  CHECK(whole.weight_region_bytes == 2048);
  CHECK(whole.params_region_bytes == 1024);  // 2 banks x K 64 x 8
  CHECK(whole.half_bytes == 512);            // (4096 - 2048 - 1024) / 2
  // Per tile: conv16 min(16, 2048/72 = 28) = 16 kernels, big min(64, 2048/144 = 14) = 14:
  // banks of 16 x 8 = 128 B, free 4096 - 2048 - 256 = 1792, half 896.
  const CachePartition tiles = partition_cache(net, hardware(4, 1), 2, 0, true);
  CHECK(tiles.params_per_tile);
  CHECK(tiles.weight_region_bytes == 2048);
  CHECK(tiles.params_region_bytes == 256);
  CHECK(tiles.half_bytes == 896);
  // The greedy plan's k-tile stays within a bank: big takes 14 (not 64, not the bank's 16).
  const LayerTilingPlan plan = plan_layer(net.layers[1], hardware(4, 1), tiles);
  REQUIRE(plan.fits);
  CHECK(plan.params_per_tile);
  CHECK(plan.k_tile == 13);  // ceil(64 / ceil(64 / 14)) = ceil(64 / 5): equal k-tiles
  // A hand-made partition whose banks are smaller than the region allows bounds the tile.
  CachePartition narrow = tiles;
  narrow.params_region_bytes = 2 * 4 * 8;  // banks of 4 channels
  const LayerTilingPlan bounded = plan_layer(net.layers[1], hardware(4, 1), narrow);
  REQUIRE(bounded.fits);
  CHECK(bounded.k_tile == 4);
}

TEST_CASE("plan_layer: greedy pieces that fit a half, stage sizes", "[tiler]") {
  const LayerConfig L = conv16();
  HardwareConfig hw = hardware(16, 1);
  hw.compute.accumulator_kib = 2;  // 2048 B
  hw.store.batch_bytes = 1000;
  const CachePartition part = partition_cache(tiler_network({L}), hw);
  REQUIRE(part.half_bytes == 7488);
  const LayerTilingPlan plan = plan_layer(L, hw, part);
  REQUIRE(plan.fits);
  CHECK(plan.why.empty());
  // k_limit = min(K 16, 1152/72 = 16, 2048/(16*4) = 32) = 16 -> one k-tile of 16.
  CHECK(plan.k_tiles == 1);
  CHECK(plan.k_tile == 16);
  // 1168 r + 288 <= 7488: r = 6 -> 7296 fits, r = 7 -> 8464 does not.
  // pieces = ceil(16/6) = 3, rows_per_piece = ceil(16/3) = 6 (greedy: pieces of 6, 6, 4).
  CHECK(plan.pieces == 3);
  CHECK(plan.rows_per_piece == 6);
  CHECK(piece_rows(16, 6, PieceSplit::Greedy, 0).end == 6);
  CHECK(piece_rows(16, 6, PieceSplit::Greedy, 1).end == 12);
  CHECK(piece_rows(16, 6, PieceSplit::Greedy, 2).end == 16);
  // accumulator 2048 / (16*16*4 = 1024) = 2 rows per compute stage.
  CHECK(plan.rows_per_compute_stage == 2);
  // batch ceil(1000 / (16*16 = 256 B per output row)) = 4 rows per store batch.
  CHECK(plan.rows_per_store_batch == 4);

  // Two units: half 3744; 1168 r + 288: r = 2 -> 2624 fits, r = 3 -> 3792 does not.
  // pieces 16/2 = 8 of 2 rows; stage sizes clamp to the piece: min(2, 2), min(3, 2).
  hw.compute.units = 2;
  const LayerTilingPlan two = plan_layer(L, hw, partition_cache(tiler_network({L}), hw));
  REQUIRE(two.fits);
  CHECK(two.pieces == 8);
  CHECK(two.rows_per_piece == 2);
  CHECK(two.rows_per_compute_stage == 2);
  CHECK(two.rows_per_store_batch == 2);

  // Three units: half 2496; r = 1 -> 1456 fits, r = 2 -> 2624 does not: 16 pieces of 1 row.
  hw.compute.units = 3;
  const LayerTilingPlan three = plan_layer(L, hw, partition_cache(tiler_network({L}), hw));
  REQUIRE(three.fits);
  CHECK(three.pieces == 16);
  CHECK(three.rows_per_piece == 1);
  CHECK(three.rows_per_compute_stage == 1);
  CHECK(three.rows_per_store_batch == 1);

  // Default accumulator (64 KiB) and batch (4096): 65536/1024 = 64 and ceil(4096/256) = 16 rows,
  // both clamped to the 6-row piece.
  const HardwareConfig big = hardware(16, 1);
  const LayerTilingPlan clamped = plan_layer(L, big, partition_cache(tiler_network({L}), big));
  CHECK(clamped.rows_per_piece == 6);
  CHECK(clamped.rows_per_compute_stage == 6);
  CHECK(clamped.rows_per_store_batch == 6);
}

TEST_CASE("seed 003: N equal pieces, sizes differing by at most one row, and N > 1",
          "[tiler][seed003]") {
  const auto sizes = [](uint32_t out_h, uint32_t rows_per_piece) {
    std::vector<uint32_t> out;
    uint32_t next = 0;
    for (uint32_t i = 0; i < piece_count(out_h, rows_per_piece); ++i) {
      const PieceRows r = piece_rows(out_h, rows_per_piece, PieceSplit::Equal, i);
      CHECK(r.begin == next);  // contiguous
      next = r.end;
      out.push_back(r.end - r.begin);
    }
    CHECK(next == out_h);  // the whole image
    return out;
  };
  // ResNet-18 layer1: 56 rows, at most 12 a piece -> N = ceil(56/12) = 5;
  // 56 = 5*11 + 1: one piece of 12, four of 11 (greedy: 12, 12, 12, 12, 8).
  CHECK(sizes(56, 12) == std::vector<uint32_t>{12, 11, 11, 11, 11});
  // conv16: 16 rows, 6 a piece -> N = 3: 16 = 3*5 + 1 -> 6, 5, 5 (greedy: 6, 6, 4).
  CHECK(sizes(16, 6) == std::vector<uint32_t>{6, 5, 5});
  // Divisible: 16 rows in 4 -> 4, 4, 4, 4.
  CHECK(sizes(16, 4) == std::vector<uint32_t>{4, 4, 4, 4});
  // 10 rows, 4 a piece -> N = 3: 10 = 3*3 + 1 -> 4, 3, 3.
  CHECK(sizes(10, 4) == std::vector<uint32_t>{4, 3, 3});

  // plan_layer: conv16 on 16 KiB (half 7488: at most 6 rows) -> N = 3, 6, 5, 5.
  HardwareConfig hw = hardware(16, 1);
  hw.pieces = PieceSplit::Equal;
  const LayerConfig L = conv16();
  const LayerTilingPlan plan = plan_layer(L, hw, partition_cache(tiler_network({L}), hw));
  REQUIRE(plan.fits);
  CHECK(plan.pieces == 3);
  CHECK(plan.rows_per_piece == 6);
  // The emitted pieces: [0,6) [6,11) [11,16).
  const Program p = compile_network(tiler_network({L}), hw);
  CHECK(rows_of(of(p, Opcode::LoadInput, 0)) == Rows{{0, 6}, {6, 11}, {11, 16}});
  CHECK(rows_of(of(p, Opcode::Store, 0)) == Rows{{0, 6}, {6, 11}, {11, 16}});

  // N > 1: on 1 MiB the whole image fits one half, yet the image is split in
  // two pieces of 8 rows (greedy keeps one piece of 16).
  const HardwareConfig big = [&] {
    HardwareConfig h = hardware(1024, 1);
    h.pieces = PieceSplit::Equal;
    return h;
  }();
  const LayerTilingPlan two = plan_layer(L, big, partition_cache(tiler_network({L}), big));
  CHECK(two.pieces == 2);
  CHECK(two.rows_per_piece == 8);
  const LayerTilingPlan one =
      plan_layer(L, hardware(1024, 1), partition_cache(tiler_network({L}), big));
  CHECK(one.pieces == 1);
  CHECK(one.rows_per_piece == 16);
}

TEST_CASE(
    "seed 003: the batch-upload threshold follows from the ratio of bus and array rates, and a "
    "derived batch holds at least a compute stage",
    "[tiler][seed003]") {
  // Compute stages of one row, so the threshold alone sets the batch.
  // conv16, one k-tile of 16 on a 32x32 array: one output row (16 pixels)
  // costs ceil(16/32) * 72 * ceil(16/32) = 72 array cycles and holds
  // 16 * 16 = 256 B of results: the array writes 256/72 B a cycle.
  // Bus 32 B/cycle: threshold 32 * 72 = 2304 B = 9 rows (ratio 32 / (256/72) = 9).
  HardwareConfig hw = hardware(1024, 1);
  hw.fold = ArrayFold::Matmul;  // the unfolded formulas worked below
  hw.store.batch_bytes = 0;
  const LayerConfig L = conv16();
  const LayerTilingPlan plan = make_plan(L, hw, 16, 16, 1);
  CHECK(plan.rows_per_store_batch == 9);
  // Bus 8 B/cycle: 8 * 72 = 576 B -> ceil(576 / 256) = 3 rows.
  hw.dram.bytes_per_cycle = 8;
  CHECK(make_plan(L, hw, 16, 16, 1).rows_per_store_batch == 3);
  // An 8x8 array (columns 8): a row is ceil(16/8) = 2 kernel groups x 72 x
  // ceil(16/8) = 2 pixel groups = 288 cycles; bus 8 B/cycle: 2304 B = 9 rows.
  hw.compute.array_rows = 8, hw.compute.array_cols = 8;
  CHECK(make_plan(L, hw, 16, 16, 1).rows_per_store_batch == 9);
  // Rows and columns tell apart: 16 rows x 4 cols: 1 x 72 x 4 = 288 -> 9 rows;
  // 4 rows x 16 cols: 4 x 72 x 1 = 288 -> 9 too, so use k_tile 4 (64 B a row):
  // 16x4: 1 x 72 x 4 = 288 cycles -> 2304 / 64 = 36 rows, clamped to 16;
  // 4x16 with k_tile 4: 1 x 72 x 1 = 72 -> 576 / 64 = 9 rows.
  hw.compute.array_rows = 16, hw.compute.array_cols = 4;
  CHECK(make_plan(L, hw, 4, 16, 1).rows_per_store_batch == 16);
  hw.compute.array_rows = 4, hw.compute.array_cols = 16;
  CHECK(make_plan(L, hw, 4, 16, 1).rows_per_store_batch == 9);
  // store.batch_bytes overrides: 1000 B -> ceil(1000 / 64) = 16 rows.
  hw.store.batch_bytes = 1000;
  CHECK(make_plan(L, hw, 4, 16, 1).rows_per_store_batch == 16);
  hw.store.batch_bytes = 100;
  CHECK(make_plan(L, hw, 4, 16, 1).rows_per_store_batch == 2);
  // A batch set by store.batch_bytes is taken as given beside stages of 12 rows; a derived
  // one (9 rows, above) grows to the stage's 12, whose rows are valid only when it ends.
  CHECK(make_plan(L, hw, 4, 16, 12).rows_per_store_batch == 2);
  hw.store.batch_bytes = 0;
  CHECK(make_plan(L, hw, 4, 16, 1).rows_per_store_batch == 9);
  CHECK(make_plan(L, hw, 4, 16, 12).rows_per_store_batch == 12);
  CHECK(make_plan(L, hw, 4, 16, 6).rows_per_store_batch == 9);
  // store.batch_floor "row": seed 003's threshold alone, 9 rows beside stages of 12.
  hw.store_batch_floor = StoreBatchFloor::Row;
  CHECK(make_plan(L, hw, 4, 16, 12).rows_per_store_batch == 9);
}

TEST_CASE(
    "seed 003: the batch-upload threshold costs one output row as out_w pixels, on a tall and a "
    "wide map",
    "[tiler][seed003]") {
  // C8, 3x3 pad 1, K16, one k-tile of 16 on a 32x32 array, bus 16 B/cycle,
  // unfolded stages of one row. A row of w pixels costs
  // ceil(16/32) * 72 * ceil(w/32) array cycles and holds w * 16 B of results.
  HardwareConfig hw = hardware(1024, 1);
  hw.fold = ArrayFold::Matmul;
  hw.store.batch_bytes = 0;
  hw.dram.bytes_per_cycle = 16;
  // Tall, out 40x8: a row is 8 pixels, 72 cycles: 16 * 72 = 1152 B over
  // 8 * 16 = 128 B a row -> 9 rows (a row of 40 pixels would give 18).
  const LayerConfig tall = tiler_layer("tall", 8, 40, 8, 16, 3, 3, 1, 1);
  CHECK(make_plan(tall, hw, 16, 40, 1).rows_per_store_batch == 9);
  // Wide, out 8x40: a row is 40 pixels, 72 * 2 = 144 cycles: 2304 B over
  // 640 B a row -> ceil(3.6) = 4 rows (a row of 8 pixels would give 2).
  const LayerConfig wide = tiler_layer("wide", 8, 8, 40, 16, 3, 3, 1, 1);
  CHECK(make_plan(wide, hw, 16, 8, 1).rows_per_store_batch == 4);
}

TEST_CASE("plan_layer: k-tiles limited by the weight region are equal", "[tiler]") {
  // C8 4x4 -> K40, 3x3 pad 1: out 4x4; weights 40*72 = 2880 B, padded width 6.
  // 4 KiB: weight region min(2048, 2880) = 2048, params 2*40*8 = 640,
  // free 4096 - 2688 = 1408, half 704.
  const LayerConfig L = tiler_layer("wide", 8, 4, 4, 40, 3, 3, 1, 1);
  const HardwareConfig hw = hardware(4, 1);
  const CachePartition part = partition_cache(tiler_network({L}), hw);
  REQUIRE(part.weight_region_bytes == 2048);
  REQUIRE(part.half_bytes == 704);
  const LayerTilingPlan plan = plan_layer(L, hw, part);
  REQUIRE(plan.fits);
  // k_limit = min(40, 2048/72 = 28, 65536/16 = 4096) = 28 -> ceil(40/28) = 2 tiles,
  // equal tiles of ceil(40/2) = 20 (not 28 + 12).
  CHECK(plan.k_tiles == 2);
  CHECK(plan.k_tile == 20);
  // piece_bytes(r, 20) = (r+2)*6*8 + r*4*20*4 = 368 r + 96: r = 1 -> 464 fits, r = 2 -> 832
  // does not: 4 pieces of 1 row.
  CHECK(plan.pieces == 4);
  CHECK(plan.rows_per_piece == 1);
  CHECK(plan.rows_per_compute_stage == 1);
  CHECK(plan.rows_per_store_batch == 1);
}

TEST_CASE("plan_layer: k-tiles limited by the accumulator", "[tiler]") {
  // C8 8x8 -> K40, 3x3 pad 1: out 8x8. 8 KiB: weight region 2880 (< 4096), params 640,
  // free 8192 - 3520 = 4672, half 2336. Accumulator 1 KiB = 1024 B.
  const LayerConfig L = tiler_layer("acc", 8, 8, 8, 40, 3, 3, 1, 1);
  HardwareConfig hw = hardware(8, 1);
  hw.compute.accumulator_kib = 1;
  const CachePartition part = partition_cache(tiler_network({L}), hw);
  REQUIRE(part.half_bytes == 2336);
  const LayerTilingPlan plan = plan_layer(L, hw, part);
  REQUIRE(plan.fits);
  // k_limit = min(40, 2880/72 = 40, 1024/(8*4) = 32) = 32 -> 2 tiles of 20.
  CHECK(plan.k_tiles == 2);
  CHECK(plan.k_tile == 20);
  // piece_bytes(r, 20) = (r+2)*10*8 + r*8*20*4 = 720 r + 160: r = 3 -> 2320 <= 2336,
  // r = 4 -> 3040: pieces ceil(8/3) = 3 of ceil(8/3) = 3 rows.
  CHECK(plan.pieces == 3);
  CHECK(plan.rows_per_piece == 3);
  // 1024 / (8*20*4 = 640) = 1 row per compute stage; ceil(4096 / (8*20 = 160)) = 26 -> 3.
  CHECK(plan.rows_per_compute_stage == 1);
  CHECK(plan.rows_per_store_batch == 3);
}

TEST_CASE("plan_layer: a layer that does not fit says what is too big", "[tiler]") {
  SECTION("one output row does not fit a half") {
    // C8 8x8 -> K40, 3x3 pad 1 on 4 KiB: region 2048, params 640, half (4096-2688)/2 = 704.
    // k_tile 20 (as above); piece_bytes(1, 20) = 3*10*8 + 8*20*4 = 240 + 640 = 880 > 704.
    const LayerConfig L = tiler_layer("big_rows", 8, 8, 8, 40, 3, 3, 1, 1);
    const HardwareConfig hw = hardware(4, 1);
    const LayerTilingPlan plan = plan_layer(L, hw, partition_cache(tiler_network({L}), hw));
    CHECK_FALSE(plan.fits);
    CHECK_THAT(plan.why, Contains("one output row needs 880 B"));
    CHECK_THAT(plan.why, Contains("ping-pong half holds 704 B"));
    CHECK_THAT(plan.why, Contains("cache.size_kib"));
  }
  SECTION("one kernel does not fit the weight region") {
    // C64, 3x3: kernel 576 B; 1 KiB cache -> weight region min(512, 4*576) = 512.
    const LayerConfig L = tiler_layer("big_kernel", 64, 4, 4, 4, 3, 3, 1, 1);
    const HardwareConfig hw = hardware(1, 1);
    const LayerTilingPlan plan = plan_layer(L, hw, partition_cache(tiler_network({L}), hw));
    CHECK_FALSE(plan.fits);
    CHECK_THAT(plan.why, Contains("one kernel (576 B) exceeds the weight region (512 B)"));
  }
  SECTION("one output row of sums does not fit the accumulator") {
    // 1x1 on a 300-wide row: 300*4 = 1200 B of int32 sums > 1 KiB accumulator.
    const LayerConfig L = tiler_layer("wide_row", 1, 3, 300, 1, 1, 1, 1, 0);
    HardwareConfig hw = hardware(64, 1);
    hw.compute.accumulator_kib = 1;
    const LayerTilingPlan plan = plan_layer(L, hw, partition_cache(tiler_network({L}), hw));
    CHECK_FALSE(plan.fits);
    CHECK_THAT(plan.why, Contains("(1200 B) exceeds the accumulator"));
    CHECK_THAT(plan.why, Contains("compute.accumulator_kib"));
  }
  SECTION("compile_network names the layer") {
    const NetworkConfig net = tiler_network({tiler_layer("big_kernel", 64, 4, 4, 4, 3, 3, 1, 1)});
    CHECK_THROWS_AS(compile_network(net, hardware(1, 1)), CompileError);
    CHECK_THROWS_WITH(compile_network(net, hardware(1, 1)),
                      Contains("layer big_kernel does not fit: one kernel (576 B)"));
  }
  SECTION("an empty network is an error") {
    CHECK_THROWS_WITH(compile_network(tiler_network({}), hardware(16, 1)),
                      Contains("network has no layers"));
  }
}

TEST_CASE("compile_network: a single layer's pieces and stage counts", "[tiler]") {
  // conv16 with 2 images on 16 KiB, accumulator 2 KiB, batch 1000, array_rows 8:
  // pieces of 6 rows: [0,6) [6,12) [12,16) per image (see the plan_layer test).
  HardwareConfig hw = hardware(16, 1);
  hw.compute.accumulator_kib = 2;
  hw.store.batch_bytes = 1000;
  hw.compute.array_rows = 8;
  const Program p = compile_network(tiler_network({conv16(2)}), hw);
  // 1 AGU_INIT + 1 params + 1 weights + 2 images * 3 pieces * (load, compute, store) = 21.
  REQUIRE(p.instructions.size() == 21);
  REQUIRE(p.layers.size() == 1);
  CHECK(p.layers[0].k_tile == 16);
  CHECK(p.layers[0].rows_per_piece == 6);
  CHECK(p.layers[0].rows_per_compute_stage == 2);
  // Seed 003: a half is allocated to the size of a piece, 8 input rows x 18 x 8
  // + 6 x 16 x 16 x 4 = 7296 B; the partition's 7488 B only bound it.
  CHECK(p.layers[0].half_bytes == 7296);
  CHECK(partition_cache(tiler_network({conv16(2)}), hw).half_bytes == 7488);

  const auto params = of(p, Opcode::LoadParams, 0);
  REQUIRE(params.size() == 1);
  CHECK(params[0]->k_begin == 0);
  CHECK(params[0]->k_end == 16);
  CHECK(params[0]->half == 0);  // parameter bank 0 for layer 0

  const auto weights = of(p, Opcode::LoadWeights, 0);
  REQUIRE(weights.size() == 1);
  CHECK(weights[0]->stages == 2);  // ceil(16 channels / 8 array rows)

  const auto loads = of(p, Opcode::LoadInput, 0);
  const auto computes = of(p, Opcode::Compute, 0);
  const auto stores = of(p, Opcode::Store, 0);
  const Rows pieces = {{0, 6}, {6, 12}, {12, 16}, {0, 6}, {6, 12}, {12, 16}};
  CHECK(rows_of(loads) == pieces);
  CHECK(rows_of(computes) == pieces);
  CHECK(rows_of(stores) == pieces);
  for (size_t i = 0; i < loads.size(); ++i) CHECK(loads[i]->batch == (i < 3 ? 0u : 1u));
  // Compute: 2 rows per stage -> 6/2 = 3, 3, 4/2 = 2; the load has the compute's stages.
  const std::vector<uint32_t> compute_stages = {3, 3, 2, 3, 3, 2};
  CHECK(stages_of(computes) == compute_stages);
  CHECK(stages_of(loads) == compute_stages);
  // Store: 4 rows per batch -> ceil(6/4) = 2, 2, ceil(4/4) = 1.
  CHECK(stages_of(stores) == std::vector<uint32_t>{2, 2, 1, 2, 2, 1});
}

TEST_CASE(
    "seed 004: with compiler.input_loads after_weights every input load depends on its "
    "k-tile's weight load",
    "[tiler][seed004]") {
  // conv16 on 16 KiB: one k-tile of 16, three pieces (see the plan_layer test).
  HardwareConfig hw = hardware(16, 1);
  hw.input_loads = InputLoads::AfterWeights;
  const Program p = compile_network(tiler_network({conv16()}), hw);
  const auto weights = of(p, Opcode::LoadWeights, 0);
  const auto loads = of(p, Opcode::LoadInput, 0);
  REQUIRE(!weights.empty());
  REQUIRE(loads.size() == 3);
  for (const Instruction* load : loads) {
    // The weight load of the load's k-tile.
    uint32_t tile = 0;
    for (const Instruction* w : weights)
      if (w->k_begin == load->k_begin) tile = w->id;
    CHECK(deps_of(*load, DependencyKind::Data).count(tile) == 1);
  }
  // By default (any_time) no input load depends on a weight load.
  hw.input_loads = InputLoads::AnyTime;
  const Program q = compile_network(tiler_network({conv16()}), hw);
  for (const Instruction* load : of(q, Opcode::LoadInput, 0))
    for (const Instruction* w : of(q, Opcode::LoadWeights, 0))
      CHECK(deps_of(*load, DependencyKind::Data).count(w->id) == 0);
}

TEST_CASE("compile_network: k-tiles reload weights after the last compute", "[tiler]") {
  // The "wide" layer on 4 KiB: 2 k-tiles of 20 channels, 4 one-row pieces each.
  const Program p = compile_network(tiler_network({tiler_layer("wide", 8, 4, 4, 40, 3, 3, 1, 1)}),
                                    hardware(4, 1));
  const auto weights = of(p, Opcode::LoadWeights, 0);
  const auto computes = of(p, Opcode::Compute, 0);
  REQUIRE(weights.size() == 2);
  REQUIRE(computes.size() == 8);
  CHECK(weights[0]->k_begin == 0);
  CHECK(weights[0]->k_end == 20);
  CHECK(weights[1]->k_begin == 20);
  CHECK(weights[1]->k_end == 40);
  for (size_t i = 0; i < computes.size(); ++i) {
    const Instruction* w = weights[i / 4];
    CHECK(computes[i]->k_begin == w->k_begin);
    CHECK(computes[i]->k_end == w->k_end);
    CHECK(deps_of(*computes[i], DependencyKind::Data).count(w->id) == 1);
  }
  // The second weight tile overwrites the region: it waits for the first tile's last compute.
  CHECK(deps_of(*weights[1], DependencyKind::BufferSpace) == std::set<uint32_t>{computes[3]->id});
  CHECK(weights[0]->deps.empty());
}

TEST_CASE("compile_network: two chained layers", "[tiler]") {
  const Program p = compile_network(tiler_chain(), chain_hw());
  REQUIRE(p.layers.size() == 2);
  // Each layer's halves hold its own largest piece (the partition's half is 816):
  // a's pieces of 2 rows 672 B, b's of 3 rows 784 B.
  CHECK(p.layers[0].half_bytes == 672);
  CHECK(p.layers[1].half_bytes == 784);
  CHECK(p.layers[1].input_from_layer == 0);
  CHECK(p.layers[1].input_address == p.layers[0].output_address);

  // Counts: a has 4 pieces, b 3; each layer one AGU_INIT, one params and one
  // weights load. 2 + 2 + 2 + 3 * (4 + 3) = 27 instructions.
  std::map<Opcode, size_t> count;
  for (const Instruction& in : p.instructions) ++count[in.op];
  CHECK(p.instructions.size() == 27);
  CHECK(count[Opcode::AguInit] == 2);
  CHECK(count[Opcode::LoadParams] == 2);
  CHECK(count[Opcode::LoadWeights] == 2);
  CHECK(count[Opcode::LoadInput] == 7);
  CHECK(count[Opcode::Compute] == 7);
  CHECK(count[Opcode::Store] == 7);
  CHECK(rows_of(of(p, Opcode::Compute, 0)) == Rows{{0, 2}, {2, 4}, {4, 6}, {6, 8}});
  CHECK(rows_of(of(p, Opcode::Compute, 1)) == Rows{{0, 3}, {3, 6}, {6, 8}});

  // Stages (see chain_hw): a's weights 2, b's 1; a's stores 1 (2 rows per batch), b's 1.
  CHECK(of(p, Opcode::LoadWeights, 0)[0]->stages == 2);
  CHECK(of(p, Opcode::LoadWeights, 1)[0]->stages == 1);
  CHECK(stages_of(of(p, Opcode::Store, 0)) == std::vector<uint32_t>{1, 1, 1, 1});
  CHECK(stages_of(of(p, Opcode::Store, 1)) == std::vector<uint32_t>{1, 1, 1});
  CHECK(stages_of(of(p, Opcode::Compute, 0)) == std::vector<uint32_t>{1, 1, 1, 1});

  // Every dependency points backwards; ids are positions.
  for (size_t i = 0; i < p.instructions.size(); ++i) {
    const Instruction& in = p.instructions[i];
    CHECK(in.id == i);
    for (const Dependency& d : in.deps) CHECK(d.producer < in.id);
  }
  CHECK_NOTHROW(validate_program(p));

  // Compute waits (Data) for its own load and its layer's weights; the store for its
  // compute and its layer's parameters.
  for (uint32_t l = 0; l < 2; ++l) {
    const auto loads = of(p, Opcode::LoadInput, l);
    const auto computes = of(p, Opcode::Compute, l);
    const auto stores = of(p, Opcode::Store, l);
    const uint32_t weights_id = of(p, Opcode::LoadWeights, l)[0]->id;
    const uint32_t params_id = of(p, Opcode::LoadParams, l)[0]->id;
    for (size_t i = 0; i < computes.size(); ++i) {
      CHECK(deps_of(*computes[i], DependencyKind::Data) ==
            std::set<uint32_t>{loads[i]->id, weights_id});
      CHECK(deps_of(*stores[i], DependencyKind::Data) ==
            std::set<uint32_t>{computes[i]->id, params_id});
      CHECK(loads[i]->out_row_begin == computes[i]->out_row_begin);
      CHECK(loads[i]->half == computes[i]->half);
      CHECK(stores[i]->half == computes[i]->half);
    }
  }

  // b's loads read input rows [r0-1, r1+1) (3x3, pad 1) and wait (Memory) for exactly the
  // a-stores covering them: [0,3) reads [-1,4) -> a rows [0,2) [2,4);
  // [3,6) reads [2,7) -> [2,4) [4,6) [6,8); [6,8) reads [5,9) -> [4,6) [6,8).
  const auto a_stores = of(p, Opcode::Store, 0);
  const auto b_loads = of(p, Opcode::LoadInput, 1);
  REQUIRE(b_loads.size() == 3);
  REQUIRE(a_stores.size() == 4);
  CHECK(deps_of(*b_loads[0], DependencyKind::Memory) ==
        std::set<uint32_t>{a_stores[0]->id, a_stores[1]->id});
  CHECK(deps_of(*b_loads[1], DependencyKind::Memory) ==
        std::set<uint32_t>{a_stores[1]->id, a_stores[2]->id, a_stores[3]->id});
  CHECK(deps_of(*b_loads[2], DependencyKind::Memory) ==
        std::set<uint32_t>{a_stores[2]->id, a_stores[3]->id});
  for (const Instruction* in : of(p, Opcode::LoadInput, 0))
    CHECK(deps_of(*in, DependencyKind::Memory).empty());

  // b's weights overwrite a's: they wait for a's last compute. b's parameters use bank 1,
  // which nobody used before: no wait.
  CHECK(deps_of(*of(p, Opcode::LoadWeights, 1)[0], DependencyKind::BufferSpace) ==
        std::set<uint32_t>{of(p, Opcode::Compute, 0)[3]->id});
  CHECK(of(p, Opcode::LoadParams, 1)[0]->half == 1);
  CHECK(of(p, Opcode::LoadParams, 1)[0]->deps.empty());
}

TEST_CASE("compile_network: an unchained second layer has no memory dependencies", "[tiler]") {
  const Program p = compile_network(tiler_chain(false), chain_hw());
  CHECK(p.layers[1].input_from_layer == -1);
  CHECK(p.layers[1].input_address != p.layers[0].output_address);
  for (const Instruction& in : p.instructions) CHECK(deps_of(in, DependencyKind::Memory).empty());
}

TEST_CASE("compile_network: halves and units", "[tiler]") {
  SECTION("ping-pong alternates halves on one unit, across layers") {
    const Program p = compile_network(tiler_chain(), chain_hw(1, Buffering::PingPong));
    // a's 4 pieces: 0 1 0 1; b's 3 continue the unit's alternation: 0 1 0.
    std::vector<uint32_t> halves;
    for (const Instruction& in : p.instructions)
      if (in.op == Opcode::Compute) {
        CHECK(in.unit == 0);
        halves.push_back(in.half);
      }
    CHECK(halves == std::vector<uint32_t>{0, 1, 0, 1, 0, 1, 0});
    // Reusing half 0 (a's piece 2) waits for the half's previous user (a's piece 0):
    // the load for its compute (inputs read), the compute for its store (sums read).
    const auto loads = of(p, Opcode::LoadInput, 0);
    const auto computes = of(p, Opcode::Compute, 0);
    const auto stores = of(p, Opcode::Store, 0);
    CHECK(deps_of(*loads[0], DependencyKind::BufferSpace).empty());
    CHECK(deps_of(*loads[1], DependencyKind::BufferSpace).empty());
    CHECK(deps_of(*loads[2], DependencyKind::BufferSpace) == std::set<uint32_t>{computes[0]->id});
    CHECK(deps_of(*computes[2], DependencyKind::BufferSpace) == std::set<uint32_t>{stores[0]->id});
    CHECK(deps_of(*loads[3], DependencyKind::BufferSpace) == std::set<uint32_t>{computes[1]->id});
  }
  SECTION("single buffering uses half 0 only and serialises on it") {
    const Program p = compile_network(tiler_chain(), chain_hw(1, Buffering::Single));
    CHECK(p.instructions.size() == 27);  // same tiling as ping-pong
    for (const Instruction& in : p.instructions)
      if (in.op == Opcode::LoadInput || in.op == Opcode::Compute || in.op == Opcode::Store)
        CHECK(in.half == 0);
    const auto loads = of(p, Opcode::LoadInput, 0);
    const auto computes = of(p, Opcode::Compute, 0);
    const auto stores = of(p, Opcode::Store, 0);
    for (size_t i = 1; i < loads.size(); ++i) {
      CHECK(deps_of(*loads[i], DependencyKind::BufferSpace) ==
            std::set<uint32_t>{computes[i - 1]->id});
      CHECK(deps_of(*computes[i], DependencyKind::BufferSpace) ==
            std::set<uint32_t>{stores[i - 1]->id});
    }
  }
  SECTION("two units take pieces round-robin, each alternating its own halves") {
    // 4 KiB, 2 units: half 920, same pieces as 1 unit on 2 KiB (see chain_hw),
    // so the same 672 B halves.
    const Program p = compile_network(tiler_chain(), chain_hw(2, Buffering::PingPong));
    REQUIRE(p.instructions.size() == 27);
    CHECK(p.layers[0].half_bytes == 672);
    std::vector<uint32_t> units, halves;
    for (const Instruction& in : p.instructions)
      if (in.op == Opcode::Compute) units.push_back(in.unit), halves.push_back(in.half);
    // a: pieces 0..3 -> units 0 1 0 1; b restarts: 0 1 0.
    CHECK(units == std::vector<uint32_t>{0, 1, 0, 1, 0, 1, 0});
    // unit 0 runs a0 a2 b0 b2 -> halves 0 1 0 1; unit 1 runs a1 a3 b1 -> 0 1 0.
    CHECK(halves == std::vector<uint32_t>{0, 0, 1, 1, 0, 0, 1});
    // b's weights wait for the last compute of each unit in a: a2 (unit 0), a3 (unit 1).
    const auto a_computes = of(p, Opcode::Compute, 0);
    CHECK(deps_of(*of(p, Opcode::LoadWeights, 1)[0], DependencyKind::BufferSpace) ==
          std::set<uint32_t>{a_computes[2]->id, a_computes[3]->id});
    // Units do not share halves: a's piece 2 (unit 0, half 1) has no earlier user.
    CHECK(deps_of(*of(p, Opcode::LoadInput, 0)[2], DependencyKind::BufferSpace).empty());
    CHECK_NOTHROW(validate_program(p));
  }
}

TEST_CASE("validate_program rejects malformed programs", "[tiler]") {
  const Program good = compile_network(tiler_chain(), chain_hw());
  REQUIRE_NOTHROW(validate_program(good));
  // Instruction #5 is a's first compute (0, 1 the two AGU_INITs, 2 params, 3 weights,
  // 4 load, 5 compute, 6 store).
  REQUIRE(good.instructions[5].op == Opcode::Compute);

  SECTION("a forward dependency") {
    Program p = good;
    p.instructions[5].deps.push_back({7, DependencyKind::Data});
    CHECK_THROWS_AS(validate_program(p), std::runtime_error);
    CHECK_THROWS_WITH(validate_program(p), Contains("bad program: instruction #5 compute") &&
                                               Contains("depends on #7") &&
                                               Contains("dependencies must point backwards"));
  }
  SECTION("a dependency on itself") {
    Program p = good;
    p.instructions[5].deps.push_back({5, DependencyKind::Data});
    CHECK_THROWS_WITH(validate_program(p), Contains("depends on #5, which is not an earlier"));
  }
  SECTION("a channel range past K") {
    Program p = good;
    p.instructions[5].k_end = 9;  // layer a has K = 8
    CHECK_THROWS_WITH(validate_program(p),
                      Contains("#5") && Contains("channel range outside [0, K)"));
  }
  SECTION("an empty channel range") {
    Program p = good;
    p.instructions[5].k_begin = p.instructions[5].k_end;
    CHECK_THROWS_WITH(validate_program(p), Contains("channel range outside [0, K)"));
  }
  SECTION("zero stages") {
    Program p = good;
    p.instructions[6].stages = 0;
    CHECK_THROWS_WITH(validate_program(p),
                      Contains("instruction #6 store") && Contains("stages must be >= 1"));
  }
  SECTION("more stages than rows") {
    Program p = good;
    p.instructions[5].stages = 3;  // rows [0,2)
    CHECK_THROWS_WITH(validate_program(p), Contains("more stages than output rows"));
  }
  SECTION("a register set other than 0 or 1") {
    Program p = good;
    REQUIRE(p.instructions[0].op == Opcode::AguInit);
    p.instructions[0].half = 2;
    CHECK_THROWS_WITH(validate_program(p),
                      Contains("#0 agu_init") && Contains("register set must be 0 or 1"));
  }
  SECTION("an id that is not its position") {
    Program p = good;
    p.instructions[5].id = 9;
    CHECK_THROWS_WITH(validate_program(p), Contains("id 9 at position 5"));
  }
}

TEST_CASE("compile_network: AGU_INITs configure each layer's fetches (seed 001)", "[tiler][agu]") {
  SECTION("ping-pong: two register sets, the next layer's written while this one streams") {
    const Program p = compile_network(tiler_chain(), chain_hw());
    const auto inits_a = of(p, Opcode::AguInit, 0), inits_b = of(p, Opcode::AguInit, 1);
    REQUIRE(inits_a.size() == 1);
    REQUIRE(inits_b.size() == 1);
    // Both sets are free at the start: both AGU_INITs lead the program.
    CHECK(inits_a[0]->id == 0);
    CHECK(inits_b[0]->id == 1);
    CHECK(inits_a[0]->half == 0);
    CHECK(inits_b[0]->half == 1);
    CHECK(inits_a[0]->deps.empty());
    CHECK(inits_b[0]->deps.empty());
    for (uint32_t l = 0; l < 2; ++l)
      for (const Instruction* load : of(p, Opcode::LoadInput, l))
        CHECK(deps_of(*load, DependencyKind::Data) ==
              std::set<uint32_t>{of(p, Opcode::AguInit, l)[0]->id});
  }
  SECTION("a third layer reuses set 0 once the first layer's stream has ended") {
    NetworkConfig net = tiler_chain();
    LayerConfig third = net.layers[1];
    third.name = "c";
    third.C = third.K;
    net.layers.push_back(third);
    net.chained.push_back(true);
    const Program p = compile_network(net, chain_hw());
    const auto init_c = of(p, Opcode::AguInit, 2);
    REQUIRE(init_c.size() == 1);
    CHECK(init_c[0]->half == 0);
    // Right after b's first fetch, waiting for a's last fetch (set 0's last user).
    const auto loads_a = of(p, Opcode::LoadInput, 0), loads_b = of(p, Opcode::LoadInput, 1);
    CHECK(init_c[0]->id == loads_b[0]->id + 1);
    CHECK(deps_of(*init_c[0], DependencyKind::BufferSpace) ==
          std::set<uint32_t>{loads_a.back()->id});
  }
  SECTION("single buffering: one set, written just before the layer's first fetch") {
    const Program p = compile_network(tiler_chain(), chain_hw(1, Buffering::Single));
    const auto init_b = of(p, Opcode::AguInit, 1);
    REQUIRE(init_b.size() == 1);
    CHECK(init_b[0]->half == 0);
    const auto loads_a = of(p, Opcode::LoadInput, 0), loads_b = of(p, Opcode::LoadInput, 1);
    CHECK(init_b[0]->id + 1 == loads_b[0]->id);
    CHECK(deps_of(*init_b[0], DependencyKind::BufferSpace) ==
          std::set<uint32_t>{loads_a.back()->id});
  }
}

TEST_CASE(
    "compile_network: parameter banks alternate between consecutive array operators, so an "
    "operator's parameters never wait for the array operator just before it",
    "[tiler]") {
  // In a decoder pass the scores and context batch_matmuls (graph operators 6
  // and 8) have only the softmax between them; banks by graph index would put
  // both in bank 0 and make the context's LoadParams wait for the scores' stores.
  const NetworkConfig net =
      load_workload(NPUSIM_SOURCE_DIR "/tests/data/transformer/decode_p32_d4.json");
  const Program p = compile_network(net, parse_hardware_config(nlohmann::json::object(), "<t>"));
  std::vector<const Instruction*> params;  // one per array operator, in program order
  for (const Instruction& in : p.instructions)
    if (in.op == Opcode::LoadParams) params.push_back(&in);
  REQUIRE(params.size() == 5 * 9);  // 9 array operators per pass, 5 passes
  std::map<uint32_t, uint32_t> bank_of_layer;
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("array operator " << i << ": " << p.layers[params[i]->layer].name);
    CHECK(params[i]->half == i % 2);
    bank_of_layer[params[i]->layer] = params[i]->half;
    // Its bank's previous user is the array operator two before it.
    for (uint32_t id : deps_of(*params[i], DependencyKind::BufferSpace)) {
      REQUIRE(i >= 2);
      CHECK(p.instructions[id].op == Opcode::Store);
      CHECK(p.instructions[id].layer == params[i - 2]->layer);
    }
  }
  REQUIRE(p.layers[8].name == "prefill.l0.context");
  CHECK(bank_of_layer.at(6) != bank_of_layer.at(8));
}

TEST_CASE(
    "compile_network: operators with the same seeded weights share one weight region, and "
    "different seeds or weight zero points keep their own",
    "[tiler]") {
  // decode_p32_d4: each of the 4 steps repeats the prefill's 7 projections with the same
  // seeds (hidden 64, kv 32, FFN 96): q 64x64, k and v 32x64, attn_out 64x64, gate and up
  // 96x64, down 64x96 int8 weights, 30,720 bytes a pass, every region a multiple of 64.
  nlohmann::json j = load_json_file(NPUSIM_SOURCE_DIR "/tests/data/transformer/decode_p32_d4.json");
  const HardwareConfig hw = parse_hardware_config(nlohmann::json::object(), "<t>");
  const Program shared = compile_network(parse_workload(j, "d.json"), hw);
  const auto address_of = [&](const Program& p, const std::string& name) {
    for (const LayerDescriptor& d : p.layers)
      if (d.name == name) return d.weights_address;
    FAIL("no operator " << name);
    return uint64_t(0);
  };
  for (const char* op : {"q", "k", "v", "attn_out", "gate", "up", "down"})
    for (int s = 1; s <= 4; ++s) {
      INFO("step " << s << " " << op);
      CHECK(address_of(shared, "step" + std::to_string(s) + ".l0." + op) ==
            address_of(shared, std::string("prefill.l0.") + op));
    }
  CHECK(address_of(shared, "prefill.l0.q") != address_of(shared, "prefill.l0.attn_out"));

  // Give every step's projections seeds of their own: each gets its own region again.
  nlohmann::json distinct = j;
  for (auto& op : distinct["operators"])
    if (op.contains("seed") && op["pass"].get<int>() > 0)
      op["seed"] = op["seed"].get<int>() + 100 * op["pass"].get<int>();
  const Program own = compile_network(parse_workload(distinct, "d.json"), hw);
  CHECK(own.dram_bytes - shared.dram_bytes == 4 * 30720);
  CHECK(address_of(own, "step1.l0.q") != address_of(own, "prefill.l0.q"));

  // The same seed with another weight zero point encodes other zero-skip streams.
  nlohmann::json zp = j;
  for (auto& op : zp["operators"])
    if (op["name"] == "step2.l0.gate") op["weights"]["zero_point"] = 3;
  const Program z = compile_network(parse_workload(zp, "d.json"), hw);
  CHECK(address_of(z, "step2.l0.gate") != address_of(z, "prefill.l0.gate"));
  CHECK(address_of(z, "step3.l0.gate") == address_of(z, "prefill.l0.gate"));
}

TEST_CASE(
    "seed 004 feature-stationary loop order: each piece's rows load once, then the weight tiles "
    "one by one",
    "[tiler][seed004]") {
  // The "wide" layer on 4 KiB: 2 k-tiles of 20 channels, 4 one-row pieces.
  HardwareConfig hw = hardware(4, 1);
  hw.loop_order = LoopOrder::FeatureStationary;
  const Program p =
      compile_network(tiler_network({tiler_layer("wide", 8, 4, 4, 40, 3, 3, 1, 1)}), hw);
  const auto loads = of(p, Opcode::LoadInput, 0);
  const auto weights = of(p, Opcode::LoadWeights, 0);
  const auto computes = of(p, Opcode::Compute, 0);
  REQUIRE(loads.size() == 4);    // one per piece (weight-stationary: 8, one per tile and piece)
  REQUIRE(weights.size() == 8);  // both tiles again for every piece
  REQUIRE(computes.size() == 8);
  for (size_t i = 0; i < computes.size(); ++i) {
    const Instruction* load = loads[i / 2];
    const Instruction* w = weights[i];
    CHECK(computes[i]->k_begin == (i % 2 == 0 ? 0u : 20u));
    CHECK(w->k_begin == computes[i]->k_begin);
    // Program order: the piece's rows, then its tiles' weights, each before its compute.
    CHECK(load->id < w->id);
    CHECK(w->id < computes[i]->id);
    CHECK(deps_of(*computes[i], DependencyKind::Data).count(load->id) == 1);
    CHECK(deps_of(*computes[i], DependencyKind::Data).count(w->id) == 1);
    CHECK(computes[i]->half == load->half);
  }
  // One weight tile (conv16, three pieces): the weights load once, after the first piece's rows.
  const Program one = compile_network(tiler_network({conv16()}), [] {
    HardwareConfig h = hardware(16, 1);
    h.loop_order = LoopOrder::FeatureStationary;
    return h;
  }());
  const auto one_weights = of(one, Opcode::LoadWeights, 0);
  const auto one_loads = of(one, Opcode::LoadInput, 0);
  REQUIRE(one_weights.size() == 1);
  REQUIRE(one_loads.size() == 3);
  CHECK(one_loads[0]->id < one_weights[0]->id);
  CHECK(one_weights[0]->id < one_loads[1]->id);
}
