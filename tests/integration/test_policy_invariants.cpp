// DESIGN.md invariants that need two runs (two processes each):
// early <= strict and ping-pong <= single, on the integration workloads and
// the default hardware, and bit-identical outputs between the policies.
#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using npusim::test::run_report;

namespace {

uint64_t cycles_of(const std::string& workload, const std::string& policy,
                   const std::string& buffering, const std::string& hw = "") {
  return run_report("run " + workload + " --timing-only --policy " + policy + " --buffering " +
                    buffering + " " + hw)
      .at("totals")
      .at("cycles")
      .get<uint64_t>();
}

const char* kWorkloads[] = {
    "configs/layers/conv1x1.json", "configs/layers/conv3x3.json", "configs/layers/conv7x7_s2.json",
    "configs/layers/conv3x3_per_channel.json", "configs/networks/tiny3.json"};

}  // namespace

TEST_CASE("early <= strict and pingpong <= single on the integration workloads", "[invariants]") {
  // Default hardware, and a small accumulator (several compute stages per piece).
  for (const char* hw : {"", "--set compute.accumulator_kib=4"})
    for (const char* w : kWorkloads) {
      const std::string path = std::string(NPUSIM_SOURCE_DIR) + "/" + w;
      const uint64_t strict_pp = cycles_of(path, "strict", "pingpong", hw);
      const uint64_t early_pp = cycles_of(path, "early", "pingpong", hw);
      const uint64_t strict_single = cycles_of(path, "strict", "single", hw);
      const uint64_t early_single = cycles_of(path, "early", "single", hw);
      INFO(w << " " << hw << ": strict/pingpong " << strict_pp << ", early/pingpong " << early_pp
             << ", strict/single " << strict_single << ", early/single " << early_single);
      CHECK(early_pp <= strict_pp);
      CHECK(early_single <= strict_single);
      CHECK(strict_pp <= strict_single);
      CHECK(early_pp <= early_single);
    }
}

TEST_CASE("early is strictly faster where loads and computes are comparable", "[invariants]") {
  // A 4 KiB accumulator splits each piece into several compute stages, so
  // stores can start on the first final rows and computes on the first loaded rows.
  const std::string hw = "--set compute.accumulator_kib=4";
  for (const char* w : {"configs/networks/tiny3.json", "configs/layers/conv1x1.json"}) {
    const std::string path = std::string(NPUSIM_SOURCE_DIR) + "/" + w;
    INFO(w);
    CHECK(cycles_of(path, "early", "single", hw) < cycles_of(path, "strict", "single", hw));
    CHECK(cycles_of(path, "early", "pingpong", hw) < cycles_of(path, "strict", "pingpong", hw));
  }
}

TEST_CASE("outputs are bit-identical between the policies", "[invariants]") {
  const std::string path = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/tiny3.json";
  const auto strict = run_report("run " + path + " --policy strict");
  const auto early = run_report("run " + path + " --policy early");
  REQUIRE(strict.at("layers").size() == early.at("layers").size());
  for (size_t l = 0; l < strict.at("layers").size(); ++l) {
    CHECK(strict["layers"][l]["check"]["match"].get<bool>());
    CHECK(strict["layers"][l]["check"]["digest"] == early["layers"][l]["check"]["digest"]);
  }
}
