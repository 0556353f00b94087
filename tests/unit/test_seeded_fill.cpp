// The vectorised bulk draws (sim/workload/seeded_fill.h) against SeededRandom::uniform one draw
// at a time, at every level the CPU runs: the seeded tensors, and so every golden, must not
// change with the CPU.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "sim/workload/layer_data.h"
#include "sim/workload/seeded_fill.h"

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
