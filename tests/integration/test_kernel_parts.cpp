// Kernel parts (docs/tiling.md#kernel-parts): where one kernel overflows the
// weight region, the compiler cuts the input channels into parts and a
// piece's sums build up over one compute per part. A 512-channel layer runs
// so in 8 KiB with its DRAM bytes worked by hand and the outputs of whole
// kernels; a quantised operator with zero points likewise; such programs
// replay exactly, and the runner refuses part fields that do not fit the
// layer's parts.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using Catch::Matchers::Contains;
using nlohmann::json;
using npusim::test::run_cli;
using npusim::test::run_report;
using npusim::test::write_temp_file;

namespace {

// 512 -> 64 channels, 3x3 over 7x7 (pads 1): one kernel is 4608 B.
const char* kWidePartsLayer =
    R"({"type": "conv2d", "name": "wide", "N": 1, "C": 512, "H": 7, "W": 7,
  "K": 64, "R": 3, "S": 3, "stride": 1, "padding": 1, "seed": 11})";

// A quantised 3x3 convolution over 256 channels, uint8 input with zero point
// 128 (the padding is not 0) and weights with zero point 0.
const char* kQuantised = R"({"name": "q256",
  "inputs": [{"name": "x", "shape": [1, 256, 6, 6], "dtype": "uint8", "scale": 0.05,
              "zero_point": 128}],
  "operators": [{"name": "conv", "op": "conv", "inputs": ["x"], "output": "y", "K": 40,
                 "kernel": [3, 3], "stride": 1, "pads": 1,
                 "weights": {"dtype": "int8", "scale": 0.01},
                 "out": {"dtype": "uint8", "scale": 0.2, "zero_point": 3}}]})";

// Kernel parts are the cost mapper's choice only with compiler.kernel_parts auto.
const std::string kParts = " --set compiler.kernel_parts=auto";

const json& parts_layer(const json& report) { return report.at("layers").at(0); }

uint64_t parts_counter(const json& report, const char* name) {
  return parts_layer(report).at("counters").at(name).get<uint64_t>();
}

}  // namespace

TEST_CASE(
    "a layer whose one kernel overflows an 8 KiB cache runs in kernel parts with the DRAM bytes "
    "worked by hand and the outputs of whole kernels",
    "[kernel_parts]") {
  const std::string layer = write_temp_file("kernel_parts_wide.json", kWidePartsLayer);
  const json parts = run_report("run " + layer + " --set cache.size_kib=8" + kParts);
  const json& tiling = parts_layer(parts).at("tiling");
  REQUIRE(tiling.value("channels_per_part", 0) == 26);  // 20 parts: 19 of 26, one of 18
  REQUIRE(tiling.at("k_tile") == 8);
  REQUIRE(tiling.at("pieces") == 4);  // output rows {0,1} {2,3} {4,5} {6}
  REQUIRE(tiling.at("weight_buffers") == 2);
  // Per k-tile the pieces load input rows 0-2, 1-4, 3-6 and 5-6: 13 rows of 7 pixels, every
  // channel once over the parts; 8 k-tiles.
  CHECK(parts_counter(parts, "load.input_dram_bytes") == 8 * 13 * 7 * 512);
  // On the bus a pixel's part (26 or 18 B) is one 64 B burst: 91 pixels x 20 parts per k-tile.
  // The weights load per part for each group of two pieces (one unit, two halves): 8 kernels x
  // 9 taps, a 64 B burst each. The parameters: 64 x 8 B.
  const uint64_t inputs = 8ull * 91 * 20 * 64;
  const uint64_t weights = 8ull * 2 * 20 * (8 * 9 * 64);
  CHECK(parts_counter(parts, "dram.read_bytes") == inputs + weights + 64 * 8);
  CHECK(parts_layer(parts).at("check").at("match").get<bool>());
  // Whole kernels (1 MiB, kernel parts off), the same outputs.
  const json whole = run_report("run " + layer + " --set compiler.kernel_parts=off");
  CHECK_FALSE(parts_layer(whole).at("tiling").contains("channels_per_part"));
  CHECK(parts_layer(whole).at("check").at("match").get<bool>());
  CHECK(parts_layer(parts).at("check").at("digest") == parts_layer(whole).at("check").at("digest"));
}

TEST_CASE(
    "a quantised convolution with an input zero point runs in kernel parts bit-exact, with the "
    "outputs of whole kernels",
    "[kernel_parts][graph]") {
  const std::string net = write_temp_file("kernel_parts_q256.json", kQuantised);
  const json parts = run_report("run " + net + " --set cache.size_kib=4" + kParts);
  REQUIRE(parts_layer(parts).at("tiling").value("channels_per_part", 0) > 0);
  CHECK(parts_layer(parts).at("check").at("match").get<bool>());
  const json whole = run_report("run " + net + " --set compiler.kernel_parts=off");
  CHECK_FALSE(parts_layer(whole).at("tiling").contains("channels_per_part"));
  CHECK(parts_layer(parts).at("check").at("digest") == parts_layer(whole).at("check").at("digest"));
}

TEST_CASE(
    "a program of kernel parts replays with the same cycles, also under a feature-stationary "
    "header, and the runner refuses a part instruction without its channels or with channels "
    "that are not one of the parts",
    "[kernel_parts][trace]") {
  const std::string layer = write_temp_file("kernel_parts_replay.json", kWidePartsLayer);
  const std::string program = npusim::test::temp_dir() + "/kernel_parts.jsonl";
  const auto compiled =
      run_cli("compile " + layer + " --set cache.size_kib=8 --set compiler.trials=off" + kParts +
              " -o " + program);
  REQUIRE(compiled.exit_code == 0);
  const json direct =
      run_report("run " + layer + " --set cache.size_kib=8 --set compiler.trials=off" + kParts);
  const json replayed = run_report("run --program " + program);
  CHECK(replayed.at("totals").at("cycles") == direct.at("totals").at("cycles"));
  CHECK(parts_layer(replayed).at("check").at("match").get<bool>());

  // Under a feature-stationary header the layer line says its own order.
  const std::string fs_program = npusim::test::temp_dir() + "/kernel_parts_fs.jsonl";
  REQUIRE(run_cli("compile " + layer +
                  " --set cache.size_kib=8 --set compiler.loop_order=feature_stationary" + kParts +
                  " -o " + fs_program)
              .exit_code == 0);
  CHECK(npusim::test::read_json_lines(fs_program)[1].value("loop_order", "") ==
        "weight_stationary");
  const json fs_replayed = run_report("run --timing-only --program " + fs_program);
  CHECK(fs_replayed.at("layers").at(0).at("tiling").value("channels_per_part", 0) > 0);

  std::vector<json> lines = npusim::test::read_json_lines(program);
  size_t compute = 0;
  while (compute < lines.size() && lines[compute].value("op", "") != "compute") ++compute;
  REQUIRE(compute < lines.size());
  SECTION("a compute without its channels") {
    lines[compute].erase("channels");
    const auto r = run_cli("run --program " +
                           npusim::test::write_json_lines("kernel_parts_no_channels.jsonl", lines));
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Contains("no input channels, but its layer has kernel parts of 26"));
  }
  SECTION("a compute whose channels are not one of the parts") {
    lines[compute]["channels"] = {1, 27};
    const auto r = run_cli("run --program " + npusim::test::write_json_lines(
                                                  "kernel_parts_bad_channels.jsonl", lines));
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Contains("are not one of the layer's parts of 26 channels"));
  }
}
