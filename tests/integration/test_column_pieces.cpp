// Column pieces (docs/tiling.md#column-pieces): where no piece of whole
// output rows fits a half, the cost mapper cuts each row along its width.
// A 1920-wide layer that whole rows fit only from 199 KiB runs at 64 KiB with
// the input bytes worked by hand and the outputs of whole-row pieces; its
// program replays with the same cycles; a strided quantised convolution with a
// non-zero input zero point, two images and a chained layer runs bit-exact;
// compiler.column_pieces off restores the refusal.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_support.h"

using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

// 16 channels of 4 x 1920 pixels, 3x3 pads 1: one output row with one kernel
// needs 3 padded rows of 1922 x 16 B (92,256 B) and more, a 64 KiB cache's half 30,848 B.
const char* kWide = R"({"type": "conv2d", "name": "wide", "N": 1, "C": 16, "H": 4, "W": 1920,
  "K": 24, "R": 3, "S": 3, "stride": 1, "padding": 1, "seed": 5})";

// Two images of 3 x 8 x 600 uint8 pixels (zero point 128, so padding is not
// 0) through a 7x7 stride-2 convolution (pads 3) and a 3x3 one.
const char* kStridedGraph = R"({"name": "wide_graph",
  "inputs": [{"name": "x", "shape": [2, 3, 8, 600], "dtype": "uint8", "scale": 0.05,
              "zero_point": 128}],
  "operators": [
    {"name": "stem", "op": "conv", "inputs": ["x"], "output": "y", "K": 32,
     "kernel": [7, 7], "stride": 2, "pads": 3,
     "weights": {"dtype": "int8", "scale": 0.01},
     "out": {"dtype": "uint8", "scale": 0.1, "zero_point": 3}},
    {"name": "next", "op": "conv", "inputs": ["y"], "output": "z", "K": 16,
     "kernel": [3, 3], "stride": 1, "pads": 1,
     "weights": {"dtype": "int8", "scale": 0.02},
     "out": {"dtype": "int8", "scale": 0.2, "zero_point": -5}}]})";

const json& first_layer(const json& report) { return report.at("layers")[0]; }

}  // namespace

TEST_CASE(
    "a row too wide for a half runs in column pieces bit-exact with the input bytes worked by "
    "hand and the outputs of whole-row pieces, and its program replays with the same cycles",
    "[column_pieces]") {
  const std::string net = npusim::test::write_temp_file("wide1920.json", kWide);
  const json cut = npusim::test::run_report("run " + net + " --set cache.size_kib=64");
  const json& tiling = first_layer(cut).at("tiling");
  REQUIRE(tiling.value("cols_per_piece", 0u) > 0);
  REQUIRE(tiling.at("rows_per_piece") == 1);
  CHECK(first_layer(cut).at("check").at("match").get<bool>());
  // n runs of columns per row (an equal split) and k-tiles of k_tile kernels.
  const uint64_t cols = tiling.at("cols_per_piece").get<uint64_t>();
  const uint64_t n = (1920 + cols - 1) / cols;
  const uint64_t k_tiles =
      (24 + tiling.at("k_tile").get<uint64_t>() - 1) / tiling.at("k_tile").get<uint64_t>();
  CHECK(tiling.at("pieces").get<uint64_t>() == 4 * n);
  // Each run of columns [c0, c1) reads input columns [c0 - 1, c1 + 1) within the row: the
  // runs of a row read 1920 + 2 (n - 1) columns. Output rows 0..3 read 2, 3, 3, 2 real input
  // rows (the others are padding). 16 B a pixel.
  CHECK(first_layer(cut).at("counters").at("load.input_dram_bytes").get<uint64_t>() ==
        k_tiles * 10 * (1920 + 2 * (n - 1)) * 16);

  // Whole rows fit from 199 KiB: the same outputs.
  const json whole = npusim::test::run_report(
      "run " + net + " --set cache.size_kib=256 --set compiler.column_pieces=off");
  CHECK_FALSE(first_layer(whole).at("tiling").contains("cols_per_piece"));
  CHECK(first_layer(whole).at("check").at("digest") == first_layer(cut).at("check").at("digest"));

  // The program carries the columns and replays them.
  const std::string program = npusim::test::temp_dir() + "/wide1920.jsonl";
  REQUIRE(npusim::test::run_cli("compile " + net + " --set cache.size_kib=64 -o " + program)
              .exit_code == 0);
  size_t with_cols = 0;
  for (const json& line : npusim::test::read_json_lines(program))
    with_cols += line.contains("cols");
  CHECK(with_cols == 3 * k_tiles * 4 * n);  // a load, a compute and a store per piece
  const json replay = npusim::test::run_report("run --program " + program);
  CHECK(replay.at("totals").at("cycles") == cut.at("totals").at("cycles"));
  CHECK(first_layer(replay).at("check").at("match").get<bool>());

  // Without column pieces (and kernel parts) the layer is refused, naming the cache whole rows
  // need.
  const npusim::test::CliResult off =
      npusim::test::run_cli("run -q " + net +
                            " --set cache.size_kib=64 --set compiler.column_pieces=off --set "
                            "compiler.kernel_parts=off");
  CHECK(off.exit_code == 2);
  CHECK_THAT(off.err, Contains("one output row") && Contains("fits from cache.size_kib = 199"));
}

TEST_CASE(
    "column pieces of a strided 7x7 quantised convolution over two images with a non-zero "
    "input zero point, chained into a 3x3 convolution, give the reference's outputs",
    "[column_pieces][graph]") {
  const std::string net = npusim::test::write_temp_file("wide_graph.json", kStridedGraph);
  const json run = npusim::test::run_report("run " + net + " --set cache.size_kib=24");
  REQUIRE(run.at("layers").size() == 2);
  for (const json& layer : run.at("layers")) {
    INFO(layer.at("name").get<std::string>());
    CHECK(layer.at("tiling").value("cols_per_piece", 0u) > 0);
    CHECK(layer.at("check").at("match").get<bool>());
  }
  const json whole = npusim::test::run_report("run " + net + " --set compiler.column_pieces=off");
  for (size_t l = 0; l < 2; ++l) {
    CHECK_FALSE(whole.at("layers")[l].at("tiling").contains("cols_per_piece"));
    CHECK(whole.at("layers")[l].at("check").at("digest") ==
          run.at("layers")[l].at("check").at("digest"));
  }
}
