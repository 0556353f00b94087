// Rows told from columns where a formula could swap them unseen on a square map. (1) The seed 001
// lowerings (docs/address-generator.md) of a tall 13x5 and a wide 5x13 map under a 3x2 kernel:
// the MEC matrix (OW strips of Hp x S x C) and the host_im2col matrix (OH*OW rows of R x S x C)
// as the descriptor, tiler and address generator size them, then as whole mec and host_im2col
// runs lower, read and count them. (2) The left pad of a column piece
// (docs/tiling.md#column-pieces) on a wide map padded 1 on top, 3 on the left, 0 below and 2 on
// the right: the column view of each piece, and the real input columns each piece's load brings.
// Every figure is worked by hand in a comment, with what the swapped formula would give.
#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "models/address_generator.h"
#include "sim/compiler/tiler.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"
#include "tests/support/test_support.h"

using namespace npusim;
using nlohmann::json;

namespace {

// A plain int8 layer of one image: 4 channels of H x W, 4 kernels of 3 rows by 2 columns
// (R 3, S 2), stride 1, padding 1 on every side.
LayerConfig asym_strip_layer(const std::string& name, uint32_t H, uint32_t W) {
  LayerConfig L;
  L.name = name;
  L.N = 1, L.C = 4, L.H = H, L.W = W, L.K = 4, L.R = 3, L.S = 2;
  L.stride = 1, L.padding = 1;
  return L;
}

// Its layer registers in `access` mode, out_h and out_w given (worked by hand by the caller).
LayerDescriptor asym_strip_descriptor(const LayerConfig& L, LoadAccess access, uint32_t out_h,
                                      uint32_t out_w) {
  LayerDescriptor d;
  d.name = L.name;
  d.N = L.N, d.C = L.C, d.H = L.H, d.W = L.W, d.K = L.K, d.R = L.R, d.S = L.S;
  d.stride = L.stride, d.padding = L.padding;
  d.out_h = out_h, d.out_w = out_w;
  d.access = access;
  return d;
}

// The address generator's init record of the same layer (NHWC, 8-bit elements).
AddressGeneratorInit asym_strip_init(const LayerConfig& L) {
  AddressGeneratorInit init;
  init.input_h = L.H, init.input_w = L.W, init.channels = L.C;
  init.filters = L.K, init.filter_h = L.R, init.filter_w = L.S;
  init.stride = L.stride, init.padding = L.padding;
  return init;
}

// The same two maps as layer files, for whole runs.
const char* kAsymStripTall =
    R"({"type":"conv2d","name":"tall","C":4,"H":13,"W":5,"K":4,"R":3,"S":2,"padding":1})";
const char* kAsymStripWide =
    R"({"type":"conv2d","name":"wide","C":4,"H":5,"W":13,"K":4,"R":3,"S":2,"padding":1})";

// The one layer of a run of `file` in load.access `access`, the greedy mapper and greedy
// pieces: one piece of every output row and one k-tile of all 4 kernels (required below).
json asym_strip_run(const std::string& file, const std::string& access) {
  const json report =
      npusim::test::run_report("run " + file + " --set load.access=" + access +
                               " --set compiler.mapper=greedy --set compiler.pieces=greedy");
  REQUIRE(report.at("layers").size() == 1);
  return report.at("layers")[0];
}

uint64_t asym_counter(const json& layer, const std::string& name) {
  return layer.at("counters").at(name).get<uint64_t>();
}

// A wide map, 32 uint8 channels of 5 x 13 (zero point 128, so the padding is not 0), through 3
// kernels of 3 rows by 5 columns, stride 1, pads [top 1, left 3, bottom 0, right 2]: every pad
// differs, so the left pad cannot be mistaken for another unseen.
const char* kAsymPieceGraph = R"({"name": "asym_pads",
  "inputs": [{"name": "x", "shape": [1, 32, 5, 13], "dtype": "uint8", "scale": 0.05,
              "zero_point": 128}],
  "operators": [
    {"name": "conv", "op": "conv", "inputs": ["x"], "output": "y", "K": 3,
     "kernel": [3, 5], "stride": 1, "pads": [1, 3, 0, 2],
     "weights": {"dtype": "int8", "scale": 0.01},
     "out": {"dtype": "uint8", "scale": 0.1, "zero_point": 3}}]})";

// A 3 KiB cache without kernel parts: no piece of a whole output row fits a half, and the cost
// mapper cuts each row into runs of 3 columns (required below).
const char* kAsymPieceCut = " --set cache.size_kib=3 --set compiler.kernel_parts=off";

}  // namespace

TEST_CASE(
    "MEC strips and host_im2col rows of a tall 13x5 and a wide 5x13 map with a 3x2 kernel are "
    "sized by out_w, the padded height and R, worked by hand",
    "[access][asymmetric]") {
  // Tall: H 13, W 5, padded Hp = 15, Wp = 7. OH = (13 + 2 - 3) / 1 + 1 = 13,
  // OW = (5 + 2 - 2) / 1 + 1 = 6. S*C = 2 x 4 = 8 B.
  const LayerConfig tall = asym_strip_layer("tall", 13, 5);
  REQUIRE(tall.out_h() == 13);
  REQUIRE(tall.out_w() == 6);
  // Wide: H 5, W 13, padded Hp = 7, Wp = 15. OH = (5 + 2 - 3) + 1 = 5, OW = (13 + 2 - 2) + 1 = 14.
  const LayerConfig wide = asym_strip_layer("wide", 5, 13);
  REQUIRE(wide.out_h() == 5);
  REQUIRE(wide.out_w() == 14);

  // MEC, per image: OW strips of Hp x S*C.
  const LayerDescriptor mec_tall = asym_strip_descriptor(tall, LoadAccess::Mec, 13, 6);
  // 6 x 15 x 8 = 720 (Wp for Hp: 6 x 7 x 8 = 336; OH for OW: 13 x 15 x 8 = 1560; R for S:
  // 6 x 15 x 3 x 4 = 1080).
  CHECK(mec_tall.lowered_bytes_per_image() == 720);
  // A tile row is one padded input row across the strips: OW x S*C = 6 x 8 = 48 (OH: 13 x 8 =
  // 104; R for S: 6 x 12 = 72).
  CHECK(mec_tall.tile_row_bytes() == 48);
  const LayerDescriptor mec_wide = asym_strip_descriptor(wide, LoadAccess::Mec, 5, 14);
  // 14 x 7 x 8 = 784 (Wp for Hp: 14 x 15 x 8 = 1680; OH for OW: 5 x 7 x 8 = 280; R for S:
  // 14 x 7 x 12 = 1176).
  CHECK(mec_wide.lowered_bytes_per_image() == 784);
  CHECK(mec_wide.tile_row_bytes() == 112);  // 14 x 8 (OH: 5 x 8 = 40; R for S: 14 x 12 = 168)

  // The MEC tile of output rows [r0, r1) holds padded input rows [r0 - 1, (r1 - 1) - 1 + R).
  // All 13 rows of the tall map: [-1, 14), the 15 rows of Hp.
  const RowRange all_tall = tile_rows_for(mec_tall, 0, 13);
  CHECK(all_tall.begin == -1);
  CHECK(all_tall.end == 14);
  // Rows [4, 8): [3, 7 - 1 + 3 = 9), 6 rows (S for R: [3, 8), 5 rows).
  const RowRange some_tall = tile_rows_for(mec_tall, 4, 8);
  CHECK(some_tall.begin == 3);
  CHECK(some_tall.end == 9);
  // The wide map's 5 rows: [-1, 4 - 1 + 3 = 6), the 7 rows of Hp. Rows [1, 3): [0, 4).
  const RowRange all_wide = tile_rows_for(mec_wide, 0, 5);
  CHECK(all_wide.begin == -1);
  CHECK(all_wide.end == 6);
  const RowRange some_wide = tile_rows_for(mec_wide, 1, 3);
  CHECK(some_wide.begin == 0);
  CHECK(some_wide.end == 4);

  // host_im2col, per image: OH*OW rows of R*S*C = 3 x 8 = 24 B. The product OH x OW hides an
  // OH/OW swap, which the tile row (one output row's OW im2col rows) shows.
  const LayerDescriptor host_tall = asym_strip_descriptor(tall, LoadAccess::HostIm2col, 13, 6);
  CHECK(host_tall.lowered_bytes_per_image() == 1872);  // 13 x 6 x 24 (S for R: 13 x 6 x 16 = 1248)
  CHECK(host_tall.tile_row_bytes() == 144);  // 6 x 24 (OH: 13 x 24 = 312; S for R: 6 x 16 = 96)
  const RowRange host_rows = tile_rows_for(host_tall, 4, 8);  // the output rows themselves
  CHECK(host_rows.begin == 4);
  CHECK(host_rows.end == 8);
  const LayerDescriptor host_wide = asym_strip_descriptor(wide, LoadAccess::HostIm2col, 5, 14);
  CHECK(host_wide.lowered_bytes_per_image() == 1680);  // 5 x 14 x 24 (S for R: 5 x 14 x 16 = 1120)
  CHECK(host_wide.tile_row_bytes() == 336);  // 14 x 24 (OH: 5 x 24 = 120; S for R: 14 x 16 = 224)

  // The tiler's input bytes of a piece (what the mapper fits in a half), in each mode.
  // Tall, 4 output rows: they read (4 - 1) x 1 + 3 = 6 padded input rows.
  // mec: 6 rows x OW 6 x 8 = 288 (OH: 6 x 13 x 8 = 624).
  CHECK(piece_input_bytes(tall, 4, 4, LoadAccess::Mec, false) == 288);
  // host_im2col: 4 rows x OW 6 x R 3 x 8 = 576 (OH: 4 x 13 x 24 = 1248; S for R: 4 x 6 x 16 = 384).
  CHECK(piece_input_bytes(tall, 4, 4, LoadAccess::HostIm2col, false) == 576);
  // im2col: 6 rows x Wp 7 x C 4 = 168 (Hp for Wp: 6 x 15 x 4 = 360).
  CHECK(piece_input_bytes(tall, 4, 4, LoadAccess::Im2col, false) == 168);
  // Wide, 2 output rows: (2 - 1) + 3 = 4 padded input rows.
  // mec: 4 x 14 x 8 = 448 (OH: 4 x 5 x 8 = 160).
  CHECK(piece_input_bytes(wide, 2, 4, LoadAccess::Mec, false) == 448);
  // host_im2col: 2 x 14 x 24 = 672 (OH: 2 x 5 x 24 = 240).
  CHECK(piece_input_bytes(wide, 2, 4, LoadAccess::HostIm2col, false) == 672);
  // im2col: 4 x Wp 15 x 4 = 240 (Hp for Wp: 4 x 7 x 4 = 112).
  CHECK(piece_input_bytes(wide, 2, 4, LoadAccess::Im2col, false) == 240);

  // The address generator's MEC matrix: one row per output column, Hp*S*C columns.
  InputAddressGenerator gen_tall(asym_strip_init(tall), LoweringKind::kMec);
  CHECK(gen_tall.rows() == 6);        // OW (OH: 13)
  CHECK(gen_tall.columns() == 120);   // 15 x 2 x 4 (Wp for Hp: 7 x 8 = 56; R for S: 15 x 12 = 180)
  CHECK(gen_tall.elements() == 720);  // 6 x 120
  // Padding: each of the 6 strips has the top and bottom padded rows, 2 x S*C = 16 entries (96);
  // strips 0 and 5 each have one tap column outside [0, 5) over the 13 real rows, 2 x 13 x 4 =
  // 104. 96 + 104 = 200.
  CHECK(gen_tall.padding_elements() == 200);
  InputAddressGenerator gen_wide(asym_strip_init(wide), LoweringKind::kMec);
  CHECK(gen_wide.rows() == 14);       // OW (OH: 5)
  CHECK(gen_wide.columns() == 56);    // 7 x 2 x 4 (Wp for Hp: 15 x 8 = 120)
  CHECK(gen_wide.elements() == 784);  // 14 x 56
  // 14 strips x 16 = 224, plus strips 0 and 13 over the 5 real rows: 2 x 5 x 4 = 40. 264.
  CHECK(gen_wide.padding_elements() == 264);
  // im2col: OH*OW rows of R*S*C.
  InputAddressGenerator im2col_tall(asym_strip_init(tall), LoweringKind::kIm2col);
  CHECK(im2col_tall.rows() == 78);     // 13 x 6
  CHECK(im2col_tall.columns() == 24);  // 3 x 2 x 4 (the MEC height 15 for R: 15 x 8 = 120)
  InputAddressGenerator im2col_wide(asym_strip_init(wide), LoweringKind::kIm2col);
  CHECK(im2col_wide.rows() == 70);  // 5 x 14
  CHECK(im2col_wide.columns() == 24);
  const LoweringFootprint f_tall = lowering_footprint(asym_strip_init(tall));
  CHECK(f_tall.input_elements == 260);  // 13 x 5 x 4
  CHECK(f_tall.im2col_elements == 1872);
  CHECK(f_tall.mec_elements == 720);
  const LoweringFootprint f_wide = lowering_footprint(asym_strip_init(wide));
  CHECK(f_wide.input_elements == 260);  // 5 x 13 x 4
  CHECK(f_wide.im2col_elements == 1680);
  CHECK(f_wide.mec_elements == 784);
}

TEST_CASE(
    "mec and host_im2col runs of a tall 13x5 and a wide 5x13 map lower, read and count strips "
    "of out_w columns by the padded height, worked by hand and bit-exact",
    "[access][asymmetric]") {
  // One piece of every output row, one k-tile: each mode's load brings its whole matrix once.
  //   tall (out 13 x 6): the piece's tile rows are padded input rows [-1, 14), 15 = Hp.
  //     MEC: 15 rows x (OW 6 x S*C 8 = 48 B) = 720 B (OH for OW: 15 x 13 x 8 = 1560; Wp for the
  //     strip height: 6 strips of 7 x 8 = 336).
  //     host_im2col: 13 output rows x (OW 6 x R*S*C 24 = 144 B) = 1872 B (OH for OW: 13 x 13 x
  //     24 = 4056).
  //   wide (out 5 x 14): tile rows [-1, 6), 7 = Hp.
  //     MEC: 7 x (14 x 8 = 112) = 784 B (OH for OW: 7 x 5 x 8 = 280; Wp: 14 x 15 x 8 = 1680).
  //     host_im2col: 5 x (14 x 24 = 336) = 1680 B (OH for OW: 5 x 5 x 24 = 600).
  struct AsymStripCase {
    const char* name;
    const char* layer;
    uint64_t out_h, out_w, mec_bytes, host_bytes;
  };
  const AsymStripCase cases[] = {{"tall", kAsymStripTall, 13, 6, 720, 1872},
                                 {"wide", kAsymStripWide, 5, 14, 784, 1680}};
  for (const AsymStripCase& c : cases) {
    INFO(c.name);
    const std::string file =
        npusim::test::write_temp_file(std::string("asym_strip_") + c.name + ".json", c.layer);
    const json mec = asym_strip_run(file, "mec");
    const json host = asym_strip_run(file, "host_im2col");
    for (const json* run : {&mec, &host}) {
      REQUIRE(run->at("tiling").at("pieces") == 1);
      REQUIRE(run->at("tiling").at("k_tile") == 4);
      // Every output equals the reference convolution: the host wrote each strip (or im2col
      // row) where the load reads it.
      CHECK(run->at("check").at("match") == true);
      CHECK(run->at("shape").at("out_h") == c.out_h);
      CHECK(run->at("shape").at("out_w") == c.out_w);
      // The report's figures of both lowerings, the same in either mode (the tiling is).
      CHECK(asym_counter(*run, "load.mec_matrix_bytes") == c.mec_bytes);
      CHECK(asym_counter(*run, "load.footprint_mec_bytes") == c.mec_bytes);
      CHECK(asym_counter(*run, "load.im2col_matrix_bytes") == c.host_bytes);
      CHECK(asym_counter(*run, "load.footprint_host_im2col_bytes") == c.host_bytes);
    }
    // The host lowers each matrix once and the load reads it once.
    CHECK(asym_counter(mec, "load.host_lowering_bytes") == c.mec_bytes);
    CHECK(asym_counter(mec, "load.input_dram_bytes") == c.mec_bytes);
    CHECK(asym_counter(host, "load.host_lowering_bytes") == c.host_bytes);
    CHECK(asym_counter(host, "load.input_dram_bytes") == c.host_bytes);
  }
}

TEST_CASE(
    "the column view of a wide map padded 1 on top, 3 on the left, 0 below and 2 on the right "
    "keeps each piece's window as its padded width through the left pad, worked by hand",
    "[column_pieces][asymmetric]") {
  const NetworkConfig net = npusim::test::workload(kAsymPieceGraph);
  REQUIRE(net.layers.size() == 1);
  const LayerConfig& L = net.layers[0];
  REQUIRE(L.padding == 1);  // the top pad
  REQUIRE(pad_l(L) == 3);
  REQUIRE(pad_b(L) == 0);
  REQUIRE(pad_r(L) == 2);
  // out_h = (5 + top 1 + bottom 0 - 3) / 1 + 1 = 4 (the left pad for the top: (5 + 3 - 3) + 1 = 6).
  CHECK(L.out_h() == 4);
  // out_w = (13 + left 3 + right 2 - 5) / 1 + 1 = 14 (the top pad for the left:
  // (13 + 1 + 2 - 5) + 1 = 12).
  CHECK(L.out_w() == 14);
  // A piece of one whole output row reads 3 input rows of 13 + 3 + 2 = 18 padded columns of
  // 32 B: 1728 B (the top pad for the left: 3 x 16 x 32 = 1536).
  CHECK(piece_input_bytes(L, 1, 3, LoadAccess::Im2col, false) == 1728);

  LayerDescriptor d;
  d.name = "conv";
  d.C = 32, d.H = 5, d.W = 13, d.K = 3, d.R = 3, d.S = 5;
  d.stride = 1, d.padding = 1;
  d.general = L.general;
  d.out_h = 4, d.out_w = 14;
  CHECK(d.padded_w() == 18);
  CHECK(column_pieces_unsupported(d).empty());  // one column's window 5 >= left 3 + right 2

  // 14 columns in runs of at most 3: n = ceil(14 / 3) = 5 runs, the first 14 mod 5 = 4 of
  // ceil(14 / 5) = 3 columns, the last of 2. Run [c0, c1) reads padded columns from c0 x 1,
  // (c1 - c0 - 1) x 1 + 5 of them; its view's W is that window less the left and right pads,
  // so that the view's padded width is the window again.
  struct AsymPiece {
    uint32_t c0, c1;
    uint64_t window;
    uint32_t view_w;
  };
  const AsymPiece pieces[] = {
      {0, 3, 7, 2},    // 7 - 3 - 2 = 2 (the top pad for the left: 7 - 1 - 2 = 4, padded 9)
      {3, 6, 7, 2},    // likewise
      {6, 9, 7, 2},    //
      {9, 12, 7, 2},   //
      {12, 14, 6, 1},  // 6 - 3 - 2 = 1 (the top pad for the left: 6 - 1 - 2 = 3, padded 8)
  };
  for (const AsymPiece& p : pieces) {
    INFO("columns [" << p.c0 << ", " << p.c1 << ")");
    const PaddedCols window = padded_cols_for(d, p.c0, p.c1);
    CHECK(window.begin == p.c0);
    CHECK(window.width == p.window);
    const LayerDescriptor view = column_view(d, p.c0, p.c1);
    CHECK(view.W == p.view_w);
    CHECK(pad_l(view) == 3);
    CHECK(view.padded_w() == p.window);
    CHECK(view.tile_row_bytes() == p.window * 32);  // 224 B (the last: 192 B)
    CHECK(view.out_w == p.c1 - p.c0);
    CHECK(view.out_h == 4);
  }
}

TEST_CASE(
    "column pieces of a wide map padded 3 on the left and 1 on top load the real input columns "
    "the left pad leaves to each piece, worked by hand and bit-exact",
    "[column_pieces][asymmetric]") {
  const std::string net = npusim::test::write_temp_file("asym_pieces.json", kAsymPieceGraph);

  // The program: every output row in runs [0, 3), [3, 6), [6, 9), [9, 12), [12, 14) (5 runs,
  // the first 14 mod 5 = 4 of 3 columns), a load each: 4 rows x 5 = 20 loads.
  const std::string program = npusim::test::temp_dir() + "/asym_pieces.jsonl";
  REQUIRE(npusim::test::run_cli("compile " + net + kAsymPieceCut + " -o " + program).exit_code ==
          0);
  std::vector<std::pair<uint32_t, uint32_t>> row0;
  size_t loads = 0;
  for (const json& line : npusim::test::read_json_lines(program)) {
    if (!line.is_object() || line.value("op", std::string()) != "load_input") continue;
    ++loads;
    REQUIRE(line.contains("cols"));
    if (line.at("rows") == json::array({0, 1}))
      row0.emplace_back(line.at("cols")[0].get<uint32_t>(), line.at("cols")[1].get<uint32_t>());
  }
  CHECK(loads == 20);
  const std::vector<std::pair<uint32_t, uint32_t>> runs = {
      {0, 3}, {3, 6}, {6, 9}, {9, 12}, {12, 14}};
  CHECK(row0 == runs);

  const json cut = npusim::test::run_report("run " + net + kAsymPieceCut);
  const json& layer = cut.at("layers")[0];
  REQUIRE(layer.at("tiling").value("cols_per_piece", 0u) == 3);
  REQUIRE(layer.at("tiling").at("k_tile") == 3);
  REQUIRE(layer.at("tiling").at("pieces") == 20);
  // The load places each real input column after the left pad inside the piece's window (the
  // input zero point fills the rest): a wrong left pad shifts the data and the outputs differ.
  CHECK(layer.at("check").at("match") == true);
  // Bytes read. Rows: output row r reads input rows [r - 1, r + 2) (top pad 1) within [0, 5):
  // 2, 3, 3, 3 = 11 real rows, for each of a row's runs. Columns: padded column j is input
  // column j - 3 (left pad 3); run [c0, c1) reads padded [c0, c1 + 4), so input
  // [c0 - 3, c1 + 1) within [0, 13):
  //   [0, 3): [-3, 4) -> 4    [3, 6): [0, 7) -> 7    [6, 9): [3, 10) -> 7
  //   [9, 12): [6, 13) -> 7   [12, 14): [9, 15) -> 4                       = 29 columns.
  // 11 x 29 x 32 B = 10,208 B. With the top pad 1 for the left: input [c0 - 1, c1 + 3): 6, 7,
  // 7, 5, 2 = 27 columns, 9,504 B. With no left pad past the first run: 4, 7, 7, 4, 1 = 23,
  // 8,096 B. With the bottom pad 0: 7, 7, 7, 4, 1 = 26, 9,152 B. With the right pad 2: 5, 7,
  // 7, 6, 3 = 28, 9,856 B.
  CHECK(asym_counter(layer, "load.input_dram_bytes") == 10208);
  // The input-reads figure of im2col on the fly counts the same real columns (not the column
  // view's width, the window less both pads: 2, 2, 2, 2, 1 = 9 columns, 3,168 B).
  CHECK(asym_counter(layer, "load.input_rows_bytes") == 10208);

  // Whole rows (column pieces off) give the same outputs: 2 pieces of 2 output rows, reading
  // input rows [0, 3) and [1, 5) of 13 x 32 B: 7 x 416 = 2,912 B.
  const json whole = npusim::test::run_report(
      "run " + net + " --set compiler.column_pieces=off --set compiler.mapper=greedy");
  const json& whole_layer = whole.at("layers")[0];
  REQUIRE_FALSE(whole_layer.at("tiling").contains("cols_per_piece"));
  REQUIRE(whole_layer.at("tiling").at("rows_per_piece") == 2);
  CHECK(whole_layer.at("check").at("match") == true);
  CHECK(asym_counter(whole_layer, "load.input_dram_bytes") == 2912);
  CHECK(whole_layer.at("check").at("digest") == layer.at("check").at("digest"));
}
