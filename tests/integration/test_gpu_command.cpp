// `npusim gpu` as a user drives it. Without a CUDA device (or in a build
// without CUDA) the command must say why and exit 3; the tests that need a
// device print "SKIPPED: no CUDA device" so ctest lists them as skipped
// (ctest then ignores their result, so no test that checks something without
// a device may print it).
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/gpu/gpu_runner.h"
#include "tests/integration/test_gpu_shapes.h"
#include "tests/support/test_support.h"

using npusim::test::run_cli;
using npusim::test::temp_dir;
using npusim::test::write_temp_file;

namespace {

const std::string kGpuCommandSource = NPUSIM_SOURCE_DIR;

// True (after printing the skip line) when no device can run the kernels.
bool skipped_without_device() {
  std::string why;
  if (npusim::gpu::cuda_device_count(why) > 0) return false;
  std::printf("SKIPPED: no CUDA device (%s)\n", why.c_str());
  WARN("SKIPPED: no CUDA device (" << why << ")");
  return true;
}

}  // namespace

TEST_CASE("npusim gpu lists its options", "[gpu][cli]") {
  const auto help = run_cli("gpu --help");
  CHECK(help.exit_code == 0);
  for (const char* option : {"--hw", "--repeats", "--json", "--device", "--set", "--tiling"})
    CHECK_THAT(help.out, Catch::Contains(option));
}

TEST_CASE("npusim gpu without a CUDA device exits 3 and says why", "[gpu][cli]") {
  const auto r =
      run_cli("gpu " + kGpuCommandSource + "/configs/layers/conv1x1.json -q --repeats 3");
  std::string why;
  if (npusim::gpu::cuda_device_count(why) > 0) {
    // A device is present: the same command must run and match instead.
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("yes"));
    return;
  }
  INFO(r.err);
  CHECK(r.exit_code == 3);
  if (npusim::gpu::cuda_built())
    CHECK_THAT(r.err, Catch::Contains("npusim gpu: no CUDA device: " + why));
  else
    CHECK_THAT(r.err, Catch::Contains("npusim gpu: built without CUDA support"));
  CHECK(r.out.empty());  // no table without a device
  // Checked, not skipped: this is the no-device behaviour itself.
}

TEST_CASE("npusim gpu rejects bad input with exit 2 like npusim run", "[gpu][cli]") {
  const std::string bad =
      write_temp_file("gpu_bad.json", R"({"type":"conv2d","C":8,"H":8,"W":8,"K":8,"R":3,
        "S":3,"colour":"red"})");
  const auto r = run_cli("gpu " + bad);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("colour"));
  const auto missing =
      run_cli("gpu " + kGpuCommandSource + "/configs/layers/conv1x1.json --repeats 0");
  CHECK(missing.exit_code == 2);
  const auto hw = run_cli("gpu " + kGpuCommandSource + "/configs/layers/conv1x1.json --set nope=1");
  CHECK(hw.exit_code == 2);
  const auto tiling =
      run_cli("gpu " + kGpuCommandSource + "/configs/layers/conv1x1.json --tiling widest");
  CHECK(tiling.exit_code == 2);
  CHECK_THAT(tiling.err, Catch::Contains("--tiling"));
}

TEST_CASE("npusim gpu: GPU outputs equal the simulator's on int8 and binary layers",
          "[gpu][cli][device]") {
  if (skipped_without_device()) return;
  const std::string net = write_temp_file("gpu_shapes.json", npusim::test::kGpuNetwork);
  const std::string json = temp_dir() + "/gpu_shapes.result.json";
  const auto r = run_cli("gpu " + net + " -q --repeats 3 --json " + json);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  REQUIRE(j.at("layers").size() == 9);
  for (const auto& layer : j.at("layers")) {
    INFO(layer.dump());
    CHECK(layer.at("match").get<bool>());
    const bool binary = layer.at("dtype") == "binary";
    CHECK(layer.at("kernels").size() == (binary ? 3u : 2u));
    for (const auto& k : layer.at("kernels")) {
      CHECK(k.at("median_us").get<double>() > 0);
      CHECK(k.at("max_block_cycles").get<uint64_t>() > 0);
      CHECK(k.at("match") == "yes");  // float too: these sums stay below 2^24
    }
  }
}
