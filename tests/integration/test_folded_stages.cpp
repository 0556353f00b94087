// Folded stages (compute.fold "auto", the default, or "stages";
// docs/timing.md#folded-stages): ResNet-50's 1x1 layers with K >= 1024 keep
// the array over 90 % busy (87 % and 76 % with the matmul-only fold), the run
// stays bit-exact and takes fewer cycles, and "stages" is refused beside seed
// 001's data register sets. The coefficient split (#coefficient-split) of a
// batch-1 FC, against its hand-worked cycles.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_support.h"

using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

// The array's dense use: useful MACs over dense array cycles x 1024 MACs per cycle.
double array_use(const json& layer) {
  const json& c = layer.at("counters");
  return c.at("compute.macs_useful").get<double>() /
         (c.at("compute.dense_work_cycles").get<double>() * 1024.0);
}

}  // namespace

TEST_CASE(
    "by default folded stages keep ResNet-50's 1x1 layers with K >= 1024 over 90 % of the array, "
    "bit-exact and in fewer cycles than the matmul-only fold",
    "[heavy][fold][mapping]") {
  const std::string net = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/resnet50.json";
  const json folded = npusim::test::run_report("run " + net);
  const json plain =
      npusim::test::run_report("run " + net + " --timing-only --set compute.fold=\"matmul\"");
  REQUIRE(folded.at("layers").size() == 53);
  int wide = 0;
  for (size_t l = 0; l < folded.at("layers").size(); ++l) {
    const json& f = folded.at("layers")[l];
    INFO(f.at("name").get<std::string>());
    CHECK(f.at("check").at("match").get<bool>());
    const json& shape = f.at("shape");
    if (shape.at("K").get<int>() < 1024 || shape.at("R").get<int>() != 1) continue;
    ++wide;
    CHECK(array_use(f) >= 0.90);
    CHECK(array_use(plain.at("layers")[l]) < 0.90);
  }
  CHECK(wide == 11);  // layer3's six conv3 and downsample, layer4's three conv3 and downsample
  CHECK(folded.at("totals").at("cycles").get<uint64_t>() <
        plain.at("totals").at("cycles").get<uint64_t>());
}

TEST_CASE("compute.fold stages beside data register sets is refused naming the key",
          "[fold][config]") {
  const npusim::test::CliResult r = npusim::test::run_cli(
      "run -q --timing-only configs/layers/conv3x3.json --set compute.fold=\"stages\" "
      "--set compute.data_registers=\"double\"");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("/compute/fold") && Contains("data_registers"));
}

TEST_CASE(
    "spare fold groups split a batch-1 FC's coefficients: graph_traps' fc takes 15 dense array "
    "cycles instead of 44 and stays bit-exact, and resnet50_full's fc keeps over 90 % of the "
    "columns busy",
    "[fold][mapping]") {
  const std::string traps =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/golden/workloads/graph_traps.json";
  const auto fc_of = [](const json& report) {
    for (const json& layer : report.at("layers"))
      if (layer.at("name") == "fc") return layer;
    FAIL("no layer fc");
    return json();
  };
  // fc: 37 features of 36 coefficients, M = 1, one k-tile of 37, on 32x32 (8 fill cycles).
  // Fold 32; the 37 kernels need 2 groups of 32 rows, so each kernel's coefficients split
  // 16 ways: ceil(36 / 16) = 3 passes + a tree of 4 + 8 = 15. Idle groups: 36 + 8 = 44.
  const json split = npusim::test::run_report("run " + traps);
  const json idle =
      npusim::test::run_report("run " + traps + " --set compute.spare_fold_groups=\"idle\"");
  for (const json* report : {&split, &idle})
    for (const json& layer : report->at("layers")) {
      INFO(layer.at("name").get<std::string>());
      CHECK(layer.at("check").at("match").get<bool>());
    }
  REQUIRE(fc_of(split).at("tiling").at("k_tile") == 37);
  CHECK(fc_of(split).at("counters").at("compute.dense_work_cycles") == 15);
  CHECK(fc_of(idle).at("counters").at("compute.dense_work_cycles") == 44);

  // resnet50_full's fc (2048 -> 1000): whatever k-tile t the mapper picks, each tile of
  // k kernels (the last one the rest) needs b = ceil(k / 32) groups of rows and splits
  // s = floor(32 / b) ways: ceil(2048 / s) passes + ceil(log2 s) + 8 fill, with b * s of the
  // 32 columns busy in its passes.
  const json full = npusim::test::run_report("run --timing-only " + std::string(NPUSIM_SOURCE_DIR) +
                                             "/configs/networks/resnet50_full.json");
  const json& fc = fc_of(full);
  const uint64_t t = fc.at("tiling").at("k_tile").get<uint64_t>();
  uint64_t cycles = 0, passes = 0, busy_column_passes = 0;
  for (uint64_t k0 = 0; k0 < 1000; k0 += t) {
    const uint64_t k = std::min<uint64_t>(t, 1000 - k0), b = (k + 31) / 32, s = 32 / b;
    uint64_t tree = 0;
    while ((uint64_t(1) << tree) < s) ++tree;
    const uint64_t p = (2048 + s - 1) / s;
    cycles += p + tree + 8;
    passes += p;
    busy_column_passes += b * s * p;
  }
  INFO("k-tile " << t);
  CHECK(fc.at("counters").at("compute.dense_work_cycles").get<uint64_t>() == cycles);
  CHECK(double(busy_column_passes) / double(32 * passes) >= 0.90);
}

TEST_CASE(
    "compute.fold auto folds a 7x7 layer's stages with the tile read in place and only matmuls "
    "beside data register sets, bit-exact either way",
    "[fold][config]") {
  const std::string layer = npusim::test::write_temp_file(
      "late7x7.json",
      R"({"type": "conv2d", "name": "late", "N": 1, "C": 64, "H": 7, "W": 7, "K": 256,
          "R": 1, "S": 1, "relu": false, "requant": {"scale": 3, "shift": 10}, "seed": 5})");
  const auto dense_work = [&](const std::string& sets) {
    const json r = npusim::test::run_report("run " + layer + sets);
    const json& l = r.at("layers")[0];
    CHECK(l.at("check").at("match").get<bool>());
    return l.at("counters").at("compute.dense_work_cycles").get<uint64_t>();
  };
  // 49 pixels against 256 kernels: unfolded, 2 passes of 32 columns with 15 of them idle.
  const uint64_t in_place = dense_work("");
  CHECK(in_place < dense_work(" --set compute.fold=\"matmul\""));
  CHECK(in_place == dense_work(" --set compute.fold=\"stages\""));
  const std::string registers = " --set compute.data_registers=\"double\"";
  CHECK(dense_work(registers) == dense_work(registers + " --set compute.fold=\"matmul\""));
}
