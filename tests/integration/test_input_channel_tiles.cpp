// Input channel tiles (docs/tiling.md#input-channel-tiles): a grouped
// convolution's pieces may hold only the input channels of their k-tile's
// groups, each pixel's run its own bus segment. A depthwise layer whose
// whole-channel rows overflow a half runs this way with the bytes worked by
// hand and the outputs of whole-channel loads; such programs replay exactly,
// the runner refuses channel tiles where they do not apply; MobileNetV2
// compiles from 64 KiB and runs bit-exact there.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

// These cases are about input channel tiles: whole rows only (column pieces
// would fit all 64 channels of a few columns instead, docs/tiling.md#column-pieces).
const std::string kWholeRows = " --set compiler.column_pieces=off";

// A depthwise 3x3 convolution (pads 1) over 64 channels of 6 x 40 pixels,
// uint8 input with zero point 128 (so the padding is not 0).
const char* kDepthwise = R"({"name": "dw64",
  "inputs": [{"name": "x", "shape": [1, 64, 6, 40], "dtype": "uint8", "scale": 0.05,
              "zero_point": 128}],
  "operators": [{"name": "dw", "op": "conv", "inputs": ["x"], "output": "y", "K": 64,
                 "kernel": [3, 3], "stride": 1, "pads": 1, "group": 64,
                 "weights": {"dtype": "int8", "scale": 0.01},
                 "out": {"dtype": "uint8", "scale": 0.1, "zero_point": 3}}]})";

uint64_t input_channel_tiles_counter(const json& report, const char* name) {
  return report.at("layers")[0].at("counters").at(name).get<uint64_t>();
}

}  // namespace

TEST_CASE(
    "a depthwise layer whose whole-channel rows overflow a half loads only its k-tile's "
    "channels, a burst per pixel, with the bytes worked by hand, and gives the outputs of "
    "whole-channel loads",
    "[channel_tiles][graph]") {
  const std::string net = npusim::test::write_temp_file("dw64.json", kDepthwise);
  // 8 KiB: a half of 3296 B. One output row of all 64 channels needs 3 padded rows of 42 x 64 B
  // (8064 B): it cannot fit. With channel tiles the mapper takes k-tiles of 8 kernels (8
  // channels) and pieces of one output row.
  const json tiled =
      npusim::test::run_report("run " + net + " --set cache.size_kib=8" + kWholeRows);
  const json& tiling = tiled.at("layers")[0].at("tiling");
  CHECK(tiling.value("input_channel_tiles", false));
  REQUIRE(tiling.at("k_tile") == 8);
  REQUIRE(tiling.at("pieces") == 6);
  // Per k-tile the six one-row pieces load rows {0,1}, {0..2} .. {3..5}, {4,5}: 16 real rows
  // (padding rows are not loaded) of 40 pixels x 8 channels; 8 k-tiles.
  CHECK(input_channel_tiles_counter(tiled, "load.input_dram_bytes") == 8 * 16 * 40 * 8);
  // On the bus each pixel's 8 B is one 64 B burst; the weights are 8 tiles of 8 x 9 B (a 128 B
  // segment each) and the parameters 64 x 8 B.
  CHECK(input_channel_tiles_counter(tiled, "dram.read_bytes") ==
        8 * 16 * 40 * 64 + 8 * 128 + 64 * 8);
  // The largest input tile: 3 padded rows of 42 pixels x 8 channels.
  CHECK(input_channel_tiles_counter(tiled, "load.footprint_im2col_bytes") == 3 * 42 * 8);
  // 64 KiB: whole-channel rows fit, and the mapper loads them.
  const json whole = npusim::test::run_report("run " + net + " --set cache.size_kib=64");
  CHECK_FALSE(whole.at("layers")[0].at("tiling").value("input_channel_tiles", false));
  for (const json* r : {&tiled, &whole})
    CHECK(r->at("layers")[0].at("check").at("match").get<bool>());
  CHECK(tiled.at("layers")[0].at("check").at("digest") ==
        whole.at("layers")[0].at("check").at("digest"));
}

TEST_CASE(
    "a channel-tiled program replays with the same cycles, and the runner refuses channel tiles "
    "on a dense layer, with feature-stationary loops, or a compute reading another k-tile's "
    "channels",
    "[channel_tiles][graph][trace]") {
  const std::string net = npusim::test::write_temp_file("dw64_replay.json", kDepthwise);
  const std::string program = npusim::test::temp_dir() + "/dw64_tiles.jsonl";
  REQUIRE(npusim::test::run_cli("compile " + net + " --set cache.size_kib=8" + kWholeRows + " -o " +
                                program)
              .exit_code == 0);
  const std::vector<json> lines = npusim::test::read_json_lines(program);
  const json direct =
      npusim::test::run_report("run " + net + " --set cache.size_kib=8" + kWholeRows);
  const json replay = npusim::test::run_report("run --program " + program);
  CHECK(replay.at("totals").at("cycles") == direct.at("totals").at("cycles"));
  CHECK(replay.at("layers")[0].at("check").at("match").get<bool>());

  // A feature-stationary piece serves every k-tile, so it must hold every channel.
  std::vector<json> fs = lines;
  for (json& j : fs)
    if (j.value("name", "") == "dw") j["loop_order"] = "feature_stationary";
  const npusim::test::CliResult fs_refused =
      npusim::test::run_cli("run --program " + npusim::test::write_json_lines("dw64_fs.jsonl", fs));
  CHECK(fs_refused.exit_code == 2);
  CHECK_THAT(fs_refused.err, Contains("dw64_fs.jsonl:2"));
  CHECK_THAT(fs_refused.err, Contains("/loop_order"));
  CHECK_THAT(fs_refused.err, Contains("input_channel_tiles"));

  // The second compute reads the first k-tile's input load instead of its own.
  std::vector<json> crossed = lines;
  std::vector<json*> loads, computes;
  for (json& j : crossed) {
    if (j.value("op", "") == "load_input") loads.push_back(&j);
    if (j.value("op", "") == "compute") computes.push_back(&j);
  }
  REQUIRE(loads.size() >= 7);
  REQUIRE(computes.size() >= 7);
  json* late = computes.at(6);  // k-tile [8, 16), after six pieces of the first tile
  REQUIRE(late->at("k") == json::array({8, 16}));
  for (json& dep : late->at("deps"))
    if (dep.at("on") == loads.at(6)->at("id")) dep["on"] = loads.at(0)->at("id");
  const npusim::test::CliResult cross = npusim::test::run_cli(
      "run --program " + npusim::test::write_json_lines("dw64_crossed.jsonl", crossed));
  CHECK(cross.exit_code != 0);
  CHECK_THAT(cross.err, Contains("reads the input channel tile of kernels [0, 8)"));

  // A dense convolution cannot hold a channel tile: its kernels read every channel.
  const std::string dense = npusim::test::write_temp_file("dense16.json", R"({"name": "d",
    "inputs": [{"name": "x", "shape": [1, 16, 4, 4], "dtype": "int8", "scale": 0.05}],
    "operators": [{"name": "c", "op": "conv", "inputs": ["x"], "output": "y", "K": 16,
                   "kernel": [3, 3], "stride": 1, "pads": 1,
                   "weights": {"dtype": "int8", "scale": 0.01},
                   "out": {"dtype": "int8", "scale": 0.1}}]})");
  const std::string dense_program = npusim::test::temp_dir() + "/dense16.jsonl";
  REQUIRE(npusim::test::run_cli("compile " + dense + " -o " + dense_program).exit_code == 0);
  std::vector<json> dense_lines = npusim::test::read_json_lines(dense_program);
  for (json& j : dense_lines)
    if (j.value("name", "") == "c") j["input_channel_tiles"] = true;
  const npusim::test::CliResult refused = npusim::test::run_cli(
      "run --program " + npusim::test::write_json_lines("dense16_tiles.jsonl", dense_lines));
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.err, Contains("layer c: input_channel_tiles needs a quantised grouped "
                                   "convolution"));
}

TEST_CASE(
    "MobileNetV2 compiles from 64 KiB on the default array, its depthwise pieces holding their "
    "k-tile's channels, and runs bit-exact there",
    "[channel_tiles][mapper][small_cache]") {
  const std::string net = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/mobilenet_v2.json";
  const json run = npusim::test::run_report("run " + net + " --set cache.size_kib=64");
  REQUIRE(run.at("layers").size() == 64);
  size_t channel_tiled = 0;
  for (const json& layer : run.at("layers")) {
    INFO(layer.at("name").get<std::string>());
    CHECK(layer.at("check").at("match").get<bool>());
    if (layer.contains("tiling") && layer.at("tiling").value("input_channel_tiles", false))
      ++channel_tiled;
  }
  CHECK(channel_tiled > 0);
}
