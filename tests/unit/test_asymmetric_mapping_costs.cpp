// Formulas that read a layer's height and width, checked on shapes where the two differ: the
// cost mapper's compute stage height and k-tile admission (an output row of out_w int32 sums in
// the accumulator, sim/compiler/mapper.cpp, docs/mapping.md#candidates), and piece_cost's and
// layer_pieces' use of H, W, out_h, out_w, the kernel's window_h and window_w and the row and
// column strides (sim/compiler/piece_cost.cpp, docs/mapping.md#the-estimate). Each layer comes
// as a tall and a wide (transposed) pair, and every figure is worked by hand below with what
// the swapped formula would give beside it, so swapping H and W anywhere fails a check.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/compiler/mapper.h"
#include "sim/compiler/piece_cost.h"
#include "sim/compiler/tiler.h"

using namespace npusim;

namespace {

// A plain convolution of stride 1 (an R x S kernel, `padding` on every side).
LayerConfig asym_map_conv(const std::string& name, uint32_t C, uint32_t H, uint32_t W, uint32_t K,
                          uint32_t R, uint32_t S, uint32_t padding) {
  LayerConfig L;
  L.name = name;
  L.C = C, L.H = H, L.W = W, L.K = K, L.R = R, L.S = S;
  L.stride = 1, L.padding = padding;
  L.requant.scale.assign(K, 1);
  L.requant.shift = 8;
  return L;
}

// A mapping candidate in a line: k-tile, rows (or columns) per piece, rows per compute stage
// and weight slots.
std::string asym_map_describe(const LayerTilingPlan& p) {
  return "k" + std::to_string(p.k_tile) +
         (p.cols_per_piece != 0 ? " cols" + std::to_string(p.cols_per_piece)
                                : " rows" + std::to_string(p.rows_per_piece)) +
         " stage" + std::to_string(p.rows_per_compute_stage) + " slots" +
         std::to_string(p.weight_buffers);
}

CachePartition asym_map_partition(const LayerConfig& L, const HardwareConfig& hw) {
  NetworkConfig net;
  net.name = "asym";
  net.layers = {L};
  net.chained = {false};
  return partition_cache(net, hw);
}

// The cost mapper's candidates for L, in enumeration order: those of whole rows (`columns`
// false) or those of column pieces (`columns` true).
std::vector<std::string> asym_map_candidates(const LayerConfig& L, const HardwareConfig& hw,
                                             bool columns) {
  std::vector<std::string> out;
  for (const MappingCandidate& c : mapping_candidates(L, hw, asym_map_partition(L, hw)))
    if ((c.plan.cols_per_piece != 0) == columns) out.push_back(asym_map_describe(c.plan));
  return out;
}

// The piece tests' machine: an 8-row, 24-column array (rows and columns told apart) with the
// unfolded formulas (compute_stage_cycles), and 16 B DRAM bursts so that one input row's run
// of a few pixels is not rounded up to the same 64 B burst whatever its width. The rest is the
// default: 32 B/cycle bus, latency 100, 64 B/cycle cache ports, pipeline fill 8.
HardwareConfig asym_map_piece_hw() {
  HardwareConfig hw;
  hw.fold = ArrayFold::Matmul;
  hw.compute.array_rows = 8;
  hw.compute.array_cols = 24;
  hw.dram.burst_bytes = 16;
  return hw;
}

// The plan fields piece_cost reads (others stay at their defaults).
LayerTilingPlan asym_map_plan(uint32_t k_tile, uint32_t rows_per_piece, uint32_t stage_rows,
                              uint32_t batch_rows) {
  LayerTilingPlan plan;
  plan.fits = true;
  plan.k_tile = k_tile;
  plan.rows_per_piece = rows_per_piece;
  plan.rows_per_compute_stage = stage_rows;
  plan.rows_per_store_batch = batch_rows;
  return plan;
}

struct AsymMapCost {
  uint64_t load_bus, fill_bus, compute, store_bus, drain, ports, load_ports;
};

void asym_map_check_cost(const PieceCost& c, const AsymMapCost& e) {
  CHECK(c.load_bus == e.load_bus);
  CHECK(c.fill_bus == e.fill_bus);
  CHECK(c.compute == e.compute);
  CHECK(c.store_bus == e.store_bus);
  CHECK(c.drain == e.drain);
  CHECK(c.ports == e.ports);
  CHECK(c.load_ports == e.load_ports);
}

}  // namespace

TEST_CASE(
    "the cost mapper's compute stages hold as many output rows as fit the accumulator at out_w "
    "int32 sums a row, on a 6x20 and on a 20x6 output",
    "[mapper][asymmetric]") {
  // C 8, K 16, 1x1 kernels, no padding, a 1 KiB accumulator (1024 B); the default 1 MiB cache
  // holds any piece. docs/mapping.md#candidates: a stage holds
  // by_acc = max(1, floor(1024 / (out_w * k * 4))) rows, at most the piece's; pieces of
  // ceil(out_h / N) rows for N = 2 .. out_h (equal pieces), each distinct height once; two
  // weight slots as well where k < K and 2 * k * 8 B <= the 128 B weight region (k 8). The
  // greedy plan (plan_layer) comes first. k-tiles: K = 16 and 8.
  HardwareConfig hw;
  hw.compute.accumulator_kib = 1;

  // Wide: 6 rows x 20 columns. k 16: a row of sums is 20 * 16 * 4 = 1280 B > 1024, no whole
  // rows (column pieces instead, the next test). k 8: 20 * 8 * 4 = 640 B, by_acc =
  // floor(1024 / 640) = 1 row a stage; heights ceil(6 / N) = 3, 2, 1.
  // Greedy: k_limit = min(16, floor(1024 / (20 * 4)) = 12) -> 2 k-tiles of 8, 2 pieces of 3
  // rows, stages clamp(1024 / 640, 1, 3) = 1.
  // With out_h (6) for out_w: by_acc = floor(1024 / (6 * 8 * 4 = 192)) = 5, stages of 3, 2, 1.
  const LayerConfig wide = asym_map_conv("wide", 8, 6, 20, 16, 1, 1, 0);
  REQUIRE(wide.out_h() == 6);
  REQUIRE(wide.out_w() == 20);
  CHECK(asym_map_candidates(wide, hw, false) ==
        std::vector<std::string>{"k8 rows3 stage1 slots1",  // greedy
                                 "k8 rows3 stage1 slots1", "k8 rows3 stage1 slots2",
                                 "k8 rows2 stage1 slots1", "k8 rows2 stage1 slots2",
                                 "k8 rows1 stage1 slots1", "k8 rows1 stage1 slots2"});

  // Tall: 20 rows x 6 columns. Heights ceil(20 / N) = 10, 7, 5, 4, 3, 2, 1.
  // k 16: 6 * 16 * 4 = 384 B a row, by_acc = floor(1024 / 384) = 2: stages 2 (1 for 1 row).
  // k 8: 6 * 8 * 4 = 192 B a row, by_acc = floor(1024 / 192) = 5: stages 5, 5, 5, 4, 3, 2, 1.
  // Greedy: k_limit = min(16, floor(1024 / 24) = 42) = 16, 2 pieces of 10 rows, stages 2.
  // With out_h (20) for out_w: k 16 by_acc = max(1, floor(1024 / 1280) = 0) = 1 and k 8
  // floor(1024 / 640) = 1, every stage 1 row.
  const LayerConfig tall = asym_map_conv("tall", 8, 20, 6, 16, 1, 1, 0);
  REQUIRE(tall.out_h() == 20);
  REQUIRE(tall.out_w() == 6);
  CHECK(asym_map_candidates(tall, hw, false) ==
        std::vector<std::string>{
            "k16 rows10 stage2 slots1",  // greedy
            "k16 rows10 stage2 slots1", "k16 rows7 stage2 slots1", "k16 rows5 stage2 slots1",
            "k16 rows4 stage2 slots1",  "k16 rows3 stage2 slots1", "k16 rows2 stage2 slots1",
            "k16 rows1 stage1 slots1",  "k8 rows10 stage5 slots1", "k8 rows10 stage5 slots2",
            "k8 rows7 stage5 slots1",   "k8 rows7 stage5 slots2",  "k8 rows5 stage5 slots1",
            "k8 rows5 stage5 slots2",   "k8 rows4 stage4 slots1",  "k8 rows4 stage4 slots2",
            "k8 rows3 stage3 slots1",   "k8 rows3 stage3 slots2",  "k8 rows2 stage2 slots1",
            "k8 rows2 stage2 slots2",   "k8 rows1 stage1 slots1",  "k8 rows1 stage1 slots2"});
}

TEST_CASE(
    "a k-tile gets pieces of whole rows only when one output row of out_w int32 sums fits the "
    "accumulator and else column pieces, on a 6x20 and on a 20x6 output",
    "[mapper][asymmetric]") {
  // The layers and 1 KiB accumulator above. One row of k 16's sums: wide 20 * 16 * 4 = 1280 B
  // (over 1024), tall 6 * 16 * 4 = 384 B (fits); of k 8's: 640 B and 192 B (both fit).
  // Swapped (out_h for out_w): wide 6 * 16 * 4 = 384 B fits, tall 20 * 16 * 4 = 1280 B not.
  HardwareConfig hw;
  hw.compute.accumulator_kib = 1;
  const LayerConfig wide = asym_map_conv("wide", 8, 6, 20, 16, 1, 1, 0);
  const LayerConfig tall = asym_map_conv("tall", 8, 20, 6, 16, 1, 1, 0);

  // Without column pieces a k-tile needs its row of sums in the accumulator (k_tile_candidates:
  // K, then multiples of 32 or 8 below it): wide {8}, tall {16, 8}. Swapped: wide {16, 8},
  // tall {8}.
  HardwareConfig rows_only = hw;
  rows_only.column_pieces = ColumnPieces::Off;
  CHECK(k_tile_candidates(wide, rows_only, asym_map_partition(wide, rows_only)) ==
        std::vector<uint32_t>{8});
  CHECK(k_tile_candidates(tall, rows_only, asym_map_partition(tall, rows_only)) ==
        std::vector<uint32_t>{16, 8});
  // With them (the default) the wide layer's k 16 is kept for columns: a column piece of c
  // columns holds c * 16 * 4 B of sums, so up to min(20, floor(1024 / 64) = 16) columns.
  CHECK(k_tile_candidates(wide, hw, asym_map_partition(wide, hw)) == std::vector<uint32_t>{16, 8});

  // The column pieces: wide k 16 only, runs of ceil(20 / n) columns for n = ceil(20 / 16) = 2
  // .. 20, each width once: 10, 7, 5, 4, 3, 2, 1; one row, one stage, one slot (k = K).
  // The tall layer's k 16 has whole rows, so none. Swapped: wide k 16 would get whole rows
  // (no columns), tall k 16 columns of ceil(6 / n) = 6, 3, 2, 1.
  CHECK(asym_map_candidates(wide, hw, true) ==
        std::vector<std::string>{"k16 cols10 stage1 slots1", "k16 cols7 stage1 slots1",
                                 "k16 cols5 stage1 slots1", "k16 cols4 stage1 slots1",
                                 "k16 cols3 stage1 slots1", "k16 cols2 stage1 slots1",
                                 "k16 cols1 stage1 slots1"});
  CHECK(asym_map_candidates(tall, hw, true).empty());
}

TEST_CASE(
    "piece_cost of a whole padded 20x6 and 6x20 image loads at most H real input rows of W "
    "columns and computes and stores rows of out_w pixels",
    "[mapper][asymmetric]") {
  // C 8, K 16, 3x3, padding 1: the output is the input's shape. One piece of the whole image,
  // the tile of all 16 kernels (72 B each, so a 16 x 72 = 1152 B stream a stage). Formulas
  // (docs/mapping.md#the-estimate, docs/stage-timing.md#compute-stages-modelscompute_enginecpp):
  //   input rows(r)   = min(H, r - 1 + 3)
  //   load_bus        = dram_data_cycles(1 segment, input rows * W * 8 B)
  //   load_ports      = (r + 2) padded rows * (W + 2) * 8 B / 64
  //   a stage of r    = max(2 x 72 x ceil(r * out_w / 24) (+ 8 on the first),
  //                         (input rows(r) * (W + 2) * 8 + 1152) / 64, r * out_w * 16 * 4 / 64)
  //   a batch of r    = bus r * out_w * 16 B / 32 (one segment: all of K), cache read
  //                     r * out_w * 64 / 64; drain = sum of max(bus, read) + latency 100
  const HardwareConfig hw = asym_map_piece_hw();

  // Tall: H 20, W 6, out 20 x 6; stages of 8 rows (8, 8, 4), batches of 6 (6, 6, 6, 2).
  // Load: min(20, 22) = 20 rows x 6 x 8 = 960 B = 60 bursts, 960 / 32 = 30.
  // Load ports: 22 x 8 x 8 = 1408 B / 64 = 22.
  // Stage 8 rows, 48 pixels: 2 x 72 x 2 + 8 = 296 (read (10 x 64 + 1152) / 64 = 28, write
  // 3072 / 64 = 48); again 288; 4 rows, 24 pixels: 144 (read (6 x 64 + 1152) / 64 = 24, write
  // 24). Compute 296 + 288 + 144 = 728, ports 76 + 76 + 48 = 200.
  // Batch 6 rows, 36 pixels: 576 B = 18 bus, read 36; 2 rows: 192 B = 6 bus, read 12.
  // Store bus 3 x 18 + 6 = 60, ports 3 x 36 + 12 = 120, drain 3 x 36 + 12 + 100 = 220.
  // Ports 22 + 200 + 120 = 342.
  // Swapped: out_h (20) for out_w: stages 2 x 72 x ceil(160 / 24) + 8 = 1016, 1008 and
  // 2 x 72 x ceil(80 / 24) = 576, compute 2600; batches of 120 pixels 1920 B = 60 bus and
  // 40 pixels 20, store bus 200. min(W, 22) = 6 input rows: 288 B, load 9 (ports 334).
  // H (20) real columns: 20 x 20 x 8 = 3200 B, load 100.
  const LayerConfig tall = asym_map_conv("tall", 8, 20, 6, 16, 3, 3, 1);
  REQUIRE(tall.out_h() == 20);
  REQUIRE(tall.out_w() == 6);
  asym_map_check_cost(piece_cost(tall, hw, asym_map_plan(16, 20, 8, 6), {20, 0}, 0, 16, 0),
                      {30, 30, 728, 60, 220, 342, 22});

  // Wide: H 6, W 20, out 6 x 20; stages of 4 rows (4, 2), batches of 2 (2, 2, 2).
  // Load: min(6, 8) = 6 rows x 20 x 8 = 960 B, 30. Load ports: 8 x 22 x 8 = 1408 B, 22.
  // Stage 4 rows, 80 pixels: 2 x 72 x 4 + 8 = 584 (read (6 x 176 + 1152) / 64 = 34.5 -> 35,
  // write 5120 / 64 = 80); 2 rows, 40 pixels: 2 x 72 x 2 = 288 (read (4 x 176 + 1152) / 64 =
  // 29, write 40). Compute 584 + 288 = 872, ports 115 + 69 = 184.
  // Batch 2 rows, 40 pixels: 640 B = 20 bus, read 40. Store bus 60, ports 120, drain
  // 3 x 40 + 100 = 220. Ports 22 + 184 + 120 = 326.
  // Swapped: out_h (6) for out_w: stages 2 x 72 x 1 + 8 = 152 and 144, compute 296; batches
  // of 12 pixels 192 B = 6, store bus 18. min(W, 8) = 8 input rows: 1280 B, load 40.
  // H (6) real columns: 6 x 6 x 8 = 288 B, load 9.
  const LayerConfig wide = asym_map_conv("wide", 8, 6, 20, 16, 3, 3, 1);
  REQUIRE(wide.out_h() == 6);
  REQUIRE(wide.out_w() == 20);
  asym_map_check_cost(piece_cost(wide, hw, asym_map_plan(16, 6, 4, 2), {6, 0}, 0, 16, 0),
                      {30, 30, 872, 60, 220, 326, 22});
}

TEST_CASE(
    "piece_cost of host_im2col stages reads each output row's out_w im2col rows of R*S*C bytes, "
    "as the compute engine does, on the 20x6 image",
    "[mapper][asymmetric]") {
  // The tall layer above lowered by the host: one output row's im2col rows are out_w 6 x R*S*C
  // 72 = 432 B, and a stage of r rows reads r x 432 B of them (the engine's tile_rows_for gives
  // output rows, each tile_row_bytes 432) plus the 1152 B kernel stream. Reading padded input
  // rows instead, ((r - 1) + 3) x 432 / 3 B, would be 2.4x too few at r = 8.
  //   load: 20 rows x 432 = 8640 B, one segment: 540 bursts of 16, 8640 / 32 = 270 bus;
  //         ports 8640 / 64 = 135.
  //   stage 8 rows (48 pixels): array 2 x 72 x 2 + 8 = 296, read (3456 + 1152) / 64 = 72,
  //         write 48; again 288 (72, 48); 4 rows (24 pixels): 144, read (1728 + 1152) / 64 =
  //         45, write 24. Compute 296 + 288 + 144 = 728, ports 120 + 120 + 69 = 309.
  //   store as above: bus 60, ports 120, drain 220. Ports 135 + 309 + 120 = 564.
  //   (Padded input rows: reads (10 x 144 + 1152) / 64 = 41 and (6 x 144 + 1152) / 64 = 32,
  //   ports 489.)
  HardwareConfig hw = asym_map_piece_hw();
  hw.load_access = LoadAccess::HostIm2col;
  const LayerConfig tall = asym_map_conv("tall", 8, 20, 6, 16, 3, 3, 1);
  asym_map_check_cost(piece_cost(tall, hw, asym_map_plan(16, 20, 8, 6), {20, 0}, 0, 16, 0),
                      {270, 270, 728, 60, 220, 564, 135});
}

TEST_CASE(
    "piece_cost of a column piece loads min(W, window) real columns of each of its input rows, "
    "on a 20x6 and on a 6x20 image",
    "[mapper][asymmetric]") {
  // The layers above; a column piece is one output row of `cols` columns
  // (docs/tiling.md#column-pieces): a window of (cols - 1) + 3 padded columns, 3 input rows
  // (min(H, 3)), a bus run per input row of min(W, window) x 8 B, the tile's rows holding the
  // whole window: load ports 3 x window x 8 / 64; one stage (2 x 72 x ceil(cols / 24) + 8,
  // read (3 x window x 8 + 1152) / 64, write cols x 64 / 64), one batch (cols x 16 B / 32,
  // read cols x 64 / 64, drain max + 100).
  const HardwareConfig hw = asym_map_piece_hw();
  LayerTilingPlan plan = asym_map_plan(16, 1, 1, 1);

  // Tall (W 6), one run of all 6 columns: window 8 (both pads), min(6, 8) = 6 real columns:
  // 3 runs of 48 B = 3 bursts of 16 each, 144 B / 32 = 4.5 -> 5. Load ports 3 x 8 x 8 =
  // 192 B, 3. Stage 152 (read (192 + 1152) / 64 = 21, write 6 x 64 / 64 = 6). Batch 96 B =
  // 3 bus, read 6, drain 106. Ports 3 + 21 + 6 + 6 = 36.
  // Swapped: min(H, 8) = 8 real columns: runs of 64 B = 4 bursts, 192 B / 32 = 6.
  plan.cols_per_piece = 6;
  const LayerConfig tall = asym_map_conv("tall", 8, 20, 6, 16, 3, 3, 1);
  asym_map_check_cost(piece_cost(tall, hw, plan, {1, 6}, 0, 16, 0), {5, 5, 152, 3, 106, 36, 3});

  // Wide (W 20), 10 columns: window 12, min(20, 12) = 12 real columns: 3 runs of 96 B = 6
  // bursts each, 288 B / 32 = 9. Load ports 288 / 64 = 4.5 -> 5. Stage 152 (read
  // (288 + 1152) / 64 = 22.5 -> 23, write 10). Batch 160 B = 5 bus, read 10, drain 110.
  // Ports 5 + 23 + 10 + 10 = 48.
  // Swapped: min(H, 12) = 6 real columns: runs of 48 B = 3 bursts, 144 B / 32 = 4.5 -> 5.
  plan.cols_per_piece = 10;
  const LayerConfig wide = asym_map_conv("wide", 8, 6, 20, 16, 3, 3, 1);
  asym_map_check_cost(piece_cost(wide, hw, plan, {1, 10}, 0, 16, 0), {9, 9, 152, 5, 110, 48, 5});
}

TEST_CASE(
    "piece_cost with input channel tiles puts one bus run per input pixel, input rows times W, "
    "on a 20x6 and on a 6x20 image",
    "[mapper][asymmetric]") {
  // A quantised 3x3 convolution, padding 1, C 8 in 2 groups, K 16 (8 kernels of 4 channels a
  // group), a tile of the first group's 8 kernels holding only its 4 channels (36 B a kernel,
  // a 288 B stream); one stage and one batch a piece. Its array term is the grouped formula:
  // 1 block x 36 x ceil(pixels / 24). Load bytes input rows x W x 4, in input rows x W runs of
  // 4 B (a 16 B burst each); load ports input rows x (W + 2) x 4 / 64; a k-tile below K
  // stores a run of 8 B (a burst) per pixel.
  const HardwareConfig hw = asym_map_piece_hw();
  const auto grouped = [](const std::string& name, uint32_t H, uint32_t W) {
    LayerConfig L = asym_map_conv(name, 8, H, W, 16, 3, 3, 1);
    L.quantized = true;
    L.groups = 2;
    return L;
  };

  // Tall (W 6), 4 rows: input rows min(20, 6) = 6, 36 runs of 4 B, 36 x 16 = 576 B / 32 = 18.
  // Load ports 6 x 8 x 4 = 192 B, 3. Stage of 24 pixels: 36 + 8 = 44 (read (6 x 32 + 288) /
  // 64 = 7.5 -> 8, write 24 x 32 / 64 = 12). Batch: 24 runs of 8 B, 24 x 16 / 32 = 12 bus,
  // read 12, drain 112. Ports 3 + 8 + 12 + 12 = 35.
  // Swapped (input rows x H): 120 runs of ceil(144 / 120) = 2 B, 1920 B / 32 = 60.
  LayerTilingPlan plan = asym_map_plan(8, 4, 4, 4);
  plan.input_channel_tiles = true;
  asym_map_check_cost(piece_cost(grouped("tall", 20, 6), hw, plan, {4, 0}, 0, 8, 0),
                      {18, 18, 44, 12, 112, 35, 3});

  // Wide (W 20), 3 rows: input rows min(6, 5) = 5, 100 runs of 4 B, 1600 B / 32 = 50. Load
  // ports 5 x 22 x 4 = 440 B, 6.9 -> 7. Stage of 60 pixels: 36 x 3 + 8 = 116 (read
  // (5 x 88 + 288) / 64 = 11.4 -> 12, write 60 x 32 / 64 = 30). Batch: 60 runs, 960 B / 32 =
  // 30 bus, read 30, drain 130. Ports 7 + 12 + 30 + 30 = 79.
  // Swapped (input rows x H): 30 runs of ceil(400 / 30) = 14 B, 480 B / 32 = 15.
  plan = asym_map_plan(8, 3, 3, 3);
  plan.input_channel_tiles = true;
  asym_map_check_cost(piece_cost(grouped("wide", 6, 20), hw, plan, {3, 0}, 0, 8, 0),
                      {50, 50, 116, 30, 130, 79, 7});
}

TEST_CASE(
    "piece_cost of a 3x1 kernel with a column stride of 2 spans window_h input rows at the row "
    "stride and window_w columns at the column stride",
    "[mapper][asymmetric]") {
  // C 8, H 8, W 10, K 16, R 3, S 1, no padding, row stride 1, column stride 2: out_h =
  // 8 - 3 + 1 = 6, out_w = (10 - 1) / 2 + 1 = 5. A kernel is 3 x 1 x 8 = 24 B, a 384 B
  // stream; the array term 2 x 24 x ceil(pixels / 24).
  //   input rows(r) = min(H, (r - 1) x 1 + window_h 3)
  //   tile row      = the piece's input bytes of one output row / window_h
  //   column window = (cols - 1) x stride_w 2 + window_w 1
  const HardwareConfig hw = asym_map_piece_hw();
  LayerConfig L = asym_map_conv("rect", 8, 8, 10, 16, 3, 1, 0);
  L.general = LayerConfig::Geometry{};
  L.general->stride_w = 2;
  REQUIRE(L.out_h() == 6);
  REQUIRE(L.out_w() == 5);

  // A piece of 3 rows, stages of 2 (2, 1), batches of 2 (2, 1). Input rows min(8, 5) = 5:
  // 5 x 10 x 8 = 400 B = 25 bursts, 12.5 -> 13; load ports 400 / 64 = 6.25 -> 7. Tile row
  // 3 x 10 x 8 / 3 = 80 B. Stage 2 rows, 10 pixels: 48 + 8 = 56 (read (4 x 80 + 384) / 64 =
  // 11, write 640 / 64 = 10); 1 row, 5 pixels: 48 (read (3 x 80 + 384) / 64 = 9.75 -> 10,
  // write 5). Compute 104, ports 21 + 15 = 36. Batch 2 rows: 160 B = 5 bus, read 10; 1 row:
  // 80 B, 2.5 -> 3 bus, read 5. Store bus 8, drain 15 + 100 = 115. Ports 7 + 36 + 15 = 58.
  // Swapped: window_w (1) for window_h in input rows: 3 rows, 240 B, load 8. stride_w (2) for
  // the row stride: min(8, 2 x 2 + 3) = 7 rows, 560 B, load 18. Tile row / window_w: 240 B,
  // reads (4 x 240 + 384) / 64 = 21 and (3 x 240 + 384) / 64 = 17.25 -> 18, ports 76.
  asym_map_check_cost(piece_cost(L, hw, asym_map_plan(16, 3, 2, 2), {3, 0}, 0, 16, 0),
                      {13, 13, 104, 8, 115, 58, 7});

  // A column piece of 3 columns: window (3 - 1) x 2 + 1 = 5, min(W 10, 5) = 5 real columns.
  // Load: 3 runs of 40 B = 3 bursts each, 144 B / 32 = 4.5 -> 5; load ports 3 x 5 x 8 = 120
  // B, 2. Tile row 40 B. Stage 3 pixels: 56 (read (3 x 40 + 384) / 64 = 7.9 -> 8, write 3).
  // Batch 48 B, 1.5 -> 2 bus, read 3, drain 103. Ports 2 + 8 + 3 + 3 = 16.
  // Swapped: window_h (3) for window_w in the window: 7 columns, runs of 56 B = 4 bursts,
  // load 6, load ports 168 B -> 3. The row stride (1) for stride_w: window 3, runs of 24 B =
  // 2 bursts, load 3. window_w for window_h in the piece's input rows: 1 x 5 x 8 = 40 B,
  // load ports 1.
  LayerTilingPlan columns = asym_map_plan(16, 1, 1, 1);
  columns.cols_per_piece = 3;
  asym_map_check_cost(piece_cost(L, hw, columns, {1, 3}, 0, 16, 0), {5, 5, 56, 2, 103, 16, 2});
}

TEST_CASE(
    "layer_pieces cuts row pieces along out_h and column pieces along out_w, on a 20x6 and on a "
    "6x20 output",
    "[mapper][asymmetric]") {
  // Equal pieces (the default): n = ceil(out_h / rows) pieces, the first out_h mod n (all when
  // 0) of rows rows, the rest of floor(out_h / n). Column pieces: each of the out_h rows in
  // n = ceil(out_w / cols) runs, the first out_w mod n (all when 0) of ceil(out_w / n)
  // columns, the rest of floor(out_w / n).
  const HardwareConfig hw{};
  const LayerConfig tall = asym_map_conv("tall", 8, 20, 6, 16, 3, 3, 1);
  const LayerConfig wide = asym_map_conv("wide", 8, 6, 20, 16, 3, 3, 1);

  // Tall, 7 rows: n = ceil(20 / 7) = 3, 20 mod 3 = 2 of 7 rows, 1 of floor(20 / 3) = 6.
  // Swapped (out_w 6 for out_h): n = 1, one piece of 6 rows.
  LayerPieces p = layer_pieces(tall, hw, asym_map_plan(16, 7, 7, 7));
  CHECK(p.n_pieces == 3);
  CHECK(p.full_pieces == 2);
  CHECK(p.full_shape.rows == 7);
  CHECK(p.last_shape.rows == 6);

  // Wide, 3 rows: n = ceil(6 / 3) = 2, 6 mod 2 = 0 so both of 3 rows.
  // Swapped (out_w 20 for out_h): n = 7, 6 of 3 rows and one of 2.
  p = layer_pieces(wide, hw, asym_map_plan(16, 3, 3, 3));
  CHECK(p.n_pieces == 2);
  CHECK(p.full_pieces == 2);
  CHECK(p.full_shape.rows == 3);
  CHECK(p.last_count() == 0);

  // Tall, runs of 3 columns: n = ceil(6 / 3) = 2 a row, 6 mod 2 = 0: 20 x 2 = 40 pieces, all
  // of ceil(6 / 2) = 3 columns. Swapped (out_h 20 for out_w): n = 7, 140 pieces, 120 of 3
  // columns and 20 of 2; (out_w 6 for out_h): 6 x 2 = 12 pieces.
  LayerTilingPlan columns = asym_map_plan(16, 1, 1, 1);
  columns.cols_per_piece = 3;
  p = layer_pieces(tall, hw, columns);
  CHECK(p.n_pieces == 40);
  CHECK(p.full_pieces == 40);
  CHECK(p.full_shape.rows == 1);
  CHECK(p.full_shape.cols == 3);
  CHECK(p.last_shape.cols == 3);

  // Wide, runs of 7 columns: n = ceil(20 / 7) = 3 a row, 20 mod 3 = 2 of ceil(20 / 3) = 7 and
  // 1 of floor(20 / 3) = 6: 6 x 3 = 18 pieces, 6 x 2 = 12 of 7 columns. Swapped (out_h 6 for
  // out_w): n = 1, 6 pieces of 6 columns; (out_w 20 for out_h): 60 pieces.
  columns.cols_per_piece = 7;
  p = layer_pieces(wide, hw, columns);
  CHECK(p.n_pieces == 18);
  CHECK(p.full_pieces == 12);
  CHECK(p.full_shape.rows == 1);
  CHECK(p.full_shape.cols == 7);
  CHECK(p.last_shape.cols == 6);
}
