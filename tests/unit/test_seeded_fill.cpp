// The vectorised bulk draws (sim/workload/seeded_fill.h) against SeededRandom::uniform one draw
// at a time, at every level the CPU runs: the seeded tensors, and so every golden, must not
// change with the CPU.
#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/workload/layer_data.h"
#include "sim/workload/seeded_fill.h"
#include "tests/support/test_support.h"

using namespace npusim;

TEST_CASE(
    "fill_uniform_bytes gives SeededRandom's uniform draws over int8 and uint8 at every level, "
    "for lengths that are not a multiple of any vector width",
    "[workload][seeded_fill]") {
  const std::vector<const char*> levels = seeded_fill_levels();
  REQUIRE_FALSE(levels.empty());
  for (const uint64_t seed : {uint64_t(0), uint64_t(5), uint64_t(4 * 12345 + 1), ~uint64_t(0)})
    for (const int64_t lo : {int64_t(-128), int64_t(0)})
      for (const size_t n : {size_t(1), size_t(7), size_t(63), size_t(1000), size_t(4099)}) {
        SeededRandom rng(seed);
        std::vector<int8_t> want(n);
        for (int8_t& v : want) v = int8_t(rng.uniform(lo, lo + 255));
        for (const char* level : levels) {
          INFO("level " << level << ", seed " << seed << ", lo " << lo << ", n " << n);
          std::vector<int8_t> got(n + 1, 42);  // one guard byte past the end
          fill_uniform_bytes_at(level, got.data(), n, seed, lo);
          CHECK(std::vector<int8_t>(got.begin(), got.begin() + long(n)) == want);
          CHECK(got[n] == 42);
        }
        std::vector<int8_t> automatic(n);
        fill_uniform_bytes(automatic.data(), n, seed, lo);
        CHECK(automatic == want);
      }
  CHECK_THROWS_AS(fill_uniform_bytes_at("sse9", nullptr, 0, 0, 0), std::invalid_argument);
}

TEST_CASE(
    "count_uniform_bytes_other_than counts the filled bytes that differ from a value, from any "
    "first draw, at every level",
    "[workload][seeded_fill]") {
  std::vector<int8_t> bytes(5000);
  for (const int64_t lo : {int64_t(-128), int64_t(0)}) {
    fill_uniform_bytes(bytes.data(), bytes.size(), 77, lo);
    for (const int8_t value : {int8_t(0), int8_t(-128), int8_t(5)})
      for (const uint64_t first : {uint64_t(0), uint64_t(1), uint64_t(999)})
        for (const uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(333), uint64_t(4001)}) {
          uint64_t want = 0;
          for (uint64_t i = first; i < first + n; ++i) want += bytes[i] != value;
          for (const char* level : seeded_fill_levels()) {
            INFO("level " << level << ", lo " << lo << ", value " << int(value) << ", first "
                          << first << ", n " << n);
            CHECK(count_uniform_bytes_other_than_at(level, 77, first, n, lo, value) == want);
          }
          CHECK(count_uniform_bytes_other_than(77, first, n, lo, value) == want);
        }
  }
}

TEST_CASE(
    "over 255 values (uniform from -127 to 127) the bulk draws equal SeededRandom's at every "
    "level, also for a seed whose third raw draw is 0, which uniform rejects",
    "[workload][seeded_fill]") {
  const uint64_t gamma = 0x9e3779b97f4a7c15ULL;
  const uint64_t rejecting = 0 - 3 * gamma;  // state 0 at the third draw: splitmix64(0) = 0
  for (const uint64_t seed : {uint64_t(9), uint64_t(4 * 77 + 1), rejecting})
    for (const size_t n : {size_t(2), size_t(3), size_t(7), size_t(1000)}) {
      SeededRandom rng(seed);
      std::vector<int8_t> want(n);
      for (int8_t& v : want) v = int8_t(rng.uniform(-127, 127));
      for (const char* level : seeded_fill_levels()) {
        INFO("level " << level << ", seed " << seed << ", n " << n);
        std::vector<int8_t> got(n);
        fill_uniform_bytes_at(level, got.data(), n, seed, -127, 255);
        CHECK(got == want);
        // Counting follows the draw index, so it gives up when a draw is rejected.
        const std::optional<uint64_t> count =
            count_uniform_bytes_other_than_at(level, seed, 0, n, -127, 0, 255);
        if (seed == rejecting && n >= 3) {
          CHECK_FALSE(count.has_value());
        } else {
          uint64_t nonzero = 0;
          for (int8_t v : want) nonzero += v != 0;
          REQUIRE(count.has_value());
          CHECK(*count == nonzero);
        }
      }
    }
  CHECK_THROWS_AS(fill_uniform_bytes(nullptr, 0, 1, 0, 254), std::invalid_argument);
}

TEST_CASE(
    "NPUSIM_ISA caps the seeded fill at the level it names (shown by --version) with the same "
    "cycles at each level, and a timing-only run stops on a name that is no ISA level",
    "[workload][seeded_fill]") {
  const std::vector<const char*> levels = seeded_fill_levels();
  // NPUSIM_ISA's names for the model's levels, and the fill level each allows at most.
  const std::vector<std::pair<const char*, const char*>> caps = {
      {"scalar", "baseline"}, {"avx2", "avx2"}, {"avx512vnni", "avx512dq"}};
  uint64_t first = 0;
  for (size_t i = 0; i < caps.size() && i < levels.size(); ++i) {
    INFO("NPUSIM_ISA=" << caps[i].first);
    setenv("NPUSIM_ISA", caps[i].first, 1);
    const test::CliResult version = test::run_cli("--version");
    if (version.exit_code != 0 && version.err.find("supports") != std::string::npos)
      continue;  // the model's kernels lack this level (AVX-512 without VNNI)
    REQUIRE(version.exit_code == 0);
    CHECK_THAT(version.out, Catch::Contains(std::string("seeded data ") + levels[i]));
    CHECK(std::string(levels[i]) == caps[i].second);
    const uint64_t cycles =
        test::run_report("run --timing-only configs/networks/tiny3.json")["totals"]["cycles"]
            .get<uint64_t>();
    if (first == 0) first = cycles;
    CHECK(cycles == first);
  }
  unsetenv("NPUSIM_ISA");
  CHECK_THAT(test::run_cli("--version").out,
             Catch::Contains(std::string("seeded data ") + levels.back()));
  setenv("NPUSIM_ISA", "sse9", 1);
  const test::CliResult bad = test::run_cli("run -q --timing-only configs/networks/tiny3.json");
  unsetenv("NPUSIM_ISA");
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.err, Catch::Contains("NPUSIM_ISA='sse9'"));
}
