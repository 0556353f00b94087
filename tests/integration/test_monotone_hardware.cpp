// More hardware never gives more cycles (issue 18): ResNet-18
// (configs/networks/resnet18.json), timing-only, with the cost mapper. Each
// test walks one axis over four values at several base points of the other
// axes and checks that the cycles never rise; a failure prints both points.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using npusim::test::run_report;

namespace {

const std::string kNetwork = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/resnet18.json";

uint64_t cycles(const std::string& sets) {
  const nlohmann::json r = run_report("run -q --timing-only " + kNetwork + sets);
  return r.at("totals").at("cycles").get<uint64_t>();
}

// The base points: the default hardware, a larger one, and a smaller one.
const std::vector<std::string> kBases = {
    "",
    " --set compute.array_rows=64 --set compute.array_cols=64 --set cache.size_kib=4096",
    " --set cache.size_kib=256 --set dram.bytes_per_cycle=16",
};

// `values` in increasing amount of hardware; `set(v)` the --set options of one value.
template <class Set>
void check_monotone(const std::vector<uint32_t>& values, Set set) {
  for (const std::string& base : kBases) {
    std::string previous_point;
    uint64_t previous = 0;
    for (uint32_t v : values) {
      const std::string point = base + set(v);
      const uint64_t now = cycles(point);
      if (!previous_point.empty()) {
        INFO("less hardware:" << previous_point << " -> " << previous << " cycles");
        INFO("more hardware:" << point << " -> " << now << " cycles");
        CHECK(now <= previous);
      }
      previous_point = point, previous = now;
    }
  }
}

}  // namespace

TEST_CASE("ResNet-18 never takes more cycles with a larger cache", "[monotone]") {
  check_monotone({128, 512, 1024, 4096},
                 [](uint32_t kib) { return " --set cache.size_kib=" + std::to_string(kib); });
}

TEST_CASE("ResNet-18 never takes more cycles with more DRAM bandwidth", "[monotone]") {
  check_monotone({8, 16, 32, 64}, [](uint32_t bytes) {
    return " --set dram.bytes_per_cycle=" + std::to_string(bytes);
  });
}

TEST_CASE("ResNet-18 never takes more cycles with more compute units", "[monotone]") {
  check_monotone({1, 2, 3, 4},
                 [](uint32_t units) { return " --set compute.units=" + std::to_string(units); });
}

TEST_CASE("ResNet-18 never takes more cycles with a larger array", "[monotone]") {
  check_monotone({16, 32, 48, 64}, [](uint32_t n) {
    return " --set compute.array_rows=" + std::to_string(n) +
           " --set compute.array_cols=" + std::to_string(n);
  });
}
