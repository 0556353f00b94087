// Timing-only runs that take their kernel summaries from a sweep's cache
// (sim/runner/kernel_summary_cache.h, NPUSIM_KERNEL_CACHE) report what uncached runs report,
// also when one cache serves both compute modes of a sparse layer, whose kernel streams differ
// in format between the modes.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "tests/support/test_support.h"

using npusim::test::run_report;
using npusim::test::temp_dir;

namespace {

// The report without the fields that name the run rather than its results.
nlohmann::json results(nlohmann::json j) {
  for (const char* key : {"wall_seconds", "command_line"}) j.erase(key);
  return j;
}

}  // namespace

TEST_CASE(
    "timing-only runs through the kernel summary cache report exactly the uncached cycles and "
    "counters in both compute modes of a sparse network",
    "[kernel_summary_cache]") {
  const std::string workload =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/golden/workloads/sparse_chain.json";
  const std::string modes[] = {"zero_skip", "dense"};
  nlohmann::json uncached[2];
  ::unsetenv("NPUSIM_KERNEL_CACHE");
  for (int m = 0; m < 2; ++m)
    uncached[m] =
        results(run_report("run --timing-only " + workload + " --set compute.mode=" + modes[m]));
  REQUIRE(uncached[0]["totals"]["cycles"] != uncached[1]["totals"]["cycles"]);  // modes differ

  const std::string cache = temp_dir() + "/kernel-cache";
  std::filesystem::remove_all(cache);
  std::filesystem::create_directories(cache);
  ::setenv("NPUSIM_KERNEL_CACHE", cache.c_str(), 1);
  for (int round = 0; round < 2; ++round)  // the first fills the cache, the second reads it
    for (int m = 0; m < 2; ++m) {
      INFO("round " << round << ", " << modes[m]);
      CHECK(results(run_report("run --timing-only " + workload +
                               " --set compute.mode=" + modes[m])) == uncached[m]);
    }
  CHECK_FALSE(std::filesystem::is_empty(cache));
  ::unsetenv("NPUSIM_KERNEL_CACHE");
}
