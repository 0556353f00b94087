// compute.fold "stages" (docs/timing.md#folded-stages): ResNet-50's 1x1
// layers with K >= 1024 keep the array over 90 % busy (87 % and 76 % with
// the matmul-only fold), the run stays bit-exact and takes fewer cycles, and
// the option is refused beside seed 001's data register sets.
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
    "folded stages keep ResNet-50's 1x1 layers with K >= 1024 over 90 % of the array, bit-exact "
    "and in fewer cycles than the matmul-only fold",
    "[fold][mapping]") {
  const std::string net = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/resnet50.json";
  const json folded = npusim::test::run_report("run " + net + " --set compute.fold=\"stages\"");
  const json plain = npusim::test::run_report("run " + net + " --timing-only");
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
