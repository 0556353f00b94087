// Timing-only runs that take their kernel summaries from a sweep's cache
// (sim/runner/kernel_summary_cache.h, NPUSIM_KERNEL_CACHE) report what uncached runs report,
// also when one cache serves both compute modes of a sparse layer, whose kernel streams differ
// in format between the modes.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using npusim::test::run_report;
using npusim::test::temp_dir;

namespace {

// The report without the fields that name the run rather than its results.
nlohmann::json results(nlohmann::json j) {
  for (const char* key : {"wall_seconds", "command_line"}) j.erase(key);
  return j;
}

// While alive: XDG_CACHE_HOME is `xdg` and NPUSIM_KERNEL_CACHE unset (the default cache there);
// then NPUSIM_KERNEL_CACHE is empty again (the tests' setting) and XDG_CACHE_HOME as before.
class DefaultCacheUnder {
 public:
  explicit DefaultCacheUnder(const std::string& xdg) {
    const char* old = std::getenv("XDG_CACHE_HOME");
    had_xdg_ = old != nullptr;
    if (had_xdg_) saved_xdg_ = old;
    ::setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
    ::unsetenv("NPUSIM_KERNEL_CACHE");
  }
  DefaultCacheUnder(const DefaultCacheUnder&) = delete;
  DefaultCacheUnder& operator=(const DefaultCacheUnder&) = delete;
  // The cache off (NPUSIM_KERNEL_CACHE empty), XDG_CACHE_HOME still `xdg`.
  void off() { ::setenv("NPUSIM_KERNEL_CACHE", "", 1); }
  ~DefaultCacheUnder() {
    off();
    if (had_xdg_)
      ::setenv("XDG_CACHE_HOME", saved_xdg_.c_str(), 1);
    else
      ::unsetenv("XDG_CACHE_HOME");
  }

 private:
  bool had_xdg_ = false;
  std::string saved_xdg_;
};

}  // namespace

TEST_CASE(
    "timing-only runs through the kernel summary cache report exactly the uncached cycles and "
    "counters in both compute modes of a sparse network",
    "[kernel_summary_cache]") {
  const std::string workload =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/golden/workloads/sparse_chain.json";
  const std::string modes[] = {"zero_skip", "dense"};
  nlohmann::json uncached[2];
  ::setenv("NPUSIM_KERNEL_CACHE", "", 1);  // no cache
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
  ::setenv("NPUSIM_KERNEL_CACHE", "", 1);  // no cache
}

TEST_CASE(
    "with NPUSIM_KERNEL_CACHE unset a timing-only run keeps its kernel counts in one folder per "
    "build under XDG_CACHE_HOME and a second run reads them with the same report, and set empty "
    "it writes nothing",
    "[kernel_summary_cache]") {
  namespace fs = std::filesystem;
  const std::string workload =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/golden/workloads/sparse_chain.json";
  ::setenv("NPUSIM_KERNEL_CACHE", "", 1);
  const nlohmann::json uncached = results(run_report("run --timing-only " + workload));

  const std::string xdg = temp_dir() + "/xdg-cache";
  fs::remove_all(xdg);
  fs::create_directories(xdg);
  DefaultCacheUnder cache(xdg);
  CHECK(results(run_report("run --timing-only " + workload)) == uncached);  // fills it
  const fs::path builds = fs::path(xdg) / "npusim" / "kernel-counts";
  std::vector<fs::path> folders;
  if (fs::is_directory(builds))
    for (const auto& entry : fs::directory_iterator(builds)) folders.push_back(entry.path());
  REQUIRE(folders.size() == 1);
  // The build ID: a SHA-1 as hex unless the linker was told otherwise.
  const std::string build = folders[0].filename().string();
  CHECK(build.size() >= 16);
  CHECK(build.find_first_not_of("0123456789abcdef") == std::string::npos);
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(folders[0])) entries.push_back(entry.path());
  CHECK_FALSE(entries.empty());
  // The second run reads what the first wrote: an entry made unreadable would be rewritten, so
  // their times are unchanged only if they were read.
  std::vector<fs::file_time_type> written;
  for (const fs::path& p : entries) written.push_back(fs::last_write_time(p));
  CHECK(results(run_report("run --timing-only " + workload)) == uncached);
  for (size_t i = 0; i < entries.size(); ++i) CHECK(fs::last_write_time(entries[i]) == written[i]);

  fs::remove_all(xdg);
  fs::create_directories(xdg);
  cache.off();
  CHECK(results(run_report("run --timing-only " + workload)) == uncached);
  CHECK(fs::is_empty(xdg));
}

TEST_CASE(
    "a build's first run keeps the folders of the three builds last written to beside its own and "
    "removes older build folders, leaving anything not named like a build ID",
    "[kernel_summary_cache]") {
  namespace fs = std::filesystem;
  const std::string workload =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/golden/workloads/sparse_chain.json";
  const std::string xdg = temp_dir() + "/xdg-prune";
  fs::remove_all(xdg);
  const fs::path builds = fs::path(xdg) / "npusim" / "kernel-counts";
  fs::create_directories(builds);
  // Five earlier builds' folders, written 1 to 5 days ago, an entry in each, and a folder and a
  // file of the user's own.
  const auto now = fs::file_time_type::clock::now();
  std::vector<fs::path> old;
  for (int day = 1; day <= 5; ++day) {
    const fs::path folder = builds / std::string(40, "0123456789"[day]);
    fs::create_directories(folder);
    std::ofstream(folder / "entry.txt") << "x\n";
    fs::last_write_time(folder, now - std::chrono::hours(24 * day));
    old.push_back(folder);
  }
  fs::create_directories(builds / "notes");
  std::ofstream(builds / "README") << "mine\n";

  {
    DefaultCacheUnder cache(xdg);
    run_report("run --timing-only " + workload);
  }

  for (int day = 1; day <= 5; ++day) {
    INFO("the build folder written " << day << " days ago");
    CHECK(fs::exists(old[day - 1]) == (day <= 3));
  }
  CHECK(fs::is_directory(builds / "notes"));
  CHECK(fs::exists(builds / "README"));
  size_t folders = 0;
  for (const auto& entry : fs::directory_iterator(builds)) folders += entry.is_directory();
  CHECK(folders == 3 + 1 + 1);  // three kept, this build's, the user's own
}
