// The compute engine's dot-product kernels (models/int8_kernels.h) on every
// ISA level this CPU runs, against a plain int64 sum taken modulo 2^32: odd
// lengths that exercise every SIMD tail, kernel counts around the block of
// four, unaligned pointers, accumulation into non-zero sums, and extreme
// operands whose sums reach and wrap past the int32 limits. Also the
// NPUSIM_ISA override, in-process and through the CLI.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "models/int8_kernels.h"
#include "tests/support/test_support.h"

using namespace npusim;
using namespace npusim::int8_kernels;

namespace {

// out[j] += x . w_j, in int64 then reduced modulo 2^32: what int32 wrap-around gives.
template <typename T>
std::vector<int32_t> expected(const std::vector<T>& x, const std::vector<T>& w, uint64_t offset,
                              uint64_t stride, uint64_t n, uint32_t count,
                              const std::vector<int32_t>& start) {
  std::vector<int32_t> out(start);
  for (uint32_t j = 0; j < count; ++j) {
    int64_t sum = out[j];
    for (uint64_t i = 0; i < n; ++i)
      sum += int64_t(x[offset + i]) * int64_t(w[offset + j * stride + i]);
    out[j] = int32_t(uint32_t(uint64_t(sum)));
  }
  return out;
}

template <typename T>
void check_every_isa(const std::vector<T>& x, const std::vector<T>& w, uint64_t offset,
                     uint64_t stride, uint64_t n, uint32_t count,
                     const std::vector<int32_t>& start) {
  const std::vector<int32_t> want = expected(x, w, offset, stride, n, count, start);
  for (Isa isa : supported_isas()) {
    INFO("isa " << isa_name(isa) << ", n " << n << ", count " << count << ", offset " << offset);
    std::vector<int32_t> got(start);
    if constexpr (sizeof(T) == 1)
      kernels_for(isa).dots_s8(x.data() + offset, w.data() + offset, stride, n, count, got.data());
    else
      kernels_for(isa).dots_s16(x.data() + offset, w.data() + offset, stride, n, count, got.data());
    CHECK(got == want);
  }
}

const uint64_t kLengths[] = {1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000};

}  // namespace

TEST_CASE("the scalar level is always supported, listed first, and the levels are ordered",
          "[int8_kernels]") {
  const std::vector<Isa> isas = supported_isas();
  REQUIRE(!isas.empty());
  CHECK(isas.front() == Isa::Scalar);
  for (size_t i = 1; i < isas.size(); ++i) CHECK(int(isas[i - 1]) < int(isas[i]));
  for (Isa isa : isas) CHECK(kernels_for(isa).isa == isa);
}

TEST_CASE(
    "int8 dots on every ISA level equal the int64 sum mod 2^32 for odd lengths, counts "
    "around blocks of four and eight, unaligned pointers and non-zero starting sums",
    "[int8_kernels]") {
  std::mt19937 rng(19);
  for (uint64_t n : kLengths)
    for (uint32_t count : {1u, 3u, 4u, 5u, 8u, 9u, 12u, 13u, 17u})
      for (uint64_t offset : {0u, 1u, 7u}) {
        const uint64_t stride = n + (rng() % 3);  // kernels packed or spaced apart
        std::vector<int8_t> x(offset + n), w(offset + stride * count);
        for (auto& v : x) v = int8_t(rng());
        for (auto& v : w) v = int8_t(rng());
        std::vector<int32_t> start(count);
        for (auto& v : start) v = int32_t(rng());
        check_every_isa(x, w, offset, stride, n, count, start);
      }
}

TEST_CASE(
    "int16 dots on every ISA level equal the int64 sum mod 2^32 for odd lengths, counts "
    "around a block of four, unaligned pointers and non-zero starting sums",
    "[int8_kernels]") {
  std::mt19937 rng(20);
  for (uint64_t n : kLengths)
    for (uint32_t count : {1u, 3u, 4u, 5u, 8u, 9u})
      for (uint64_t offset : {0u, 1u, 7u}) {
        const uint64_t stride = n + (rng() % 3);
        std::vector<int16_t> x(offset + n), w(offset + stride * count);
        // Full int16 range half the time, the engine's 9-bit operands otherwise.
        const bool nine_bit = rng() % 2;
        for (auto& v : x) v = nine_bit ? int16_t(int32_t(rng() % 511) - 255) : int16_t(rng());
        for (auto& v : w) v = nine_bit ? int16_t(int32_t(rng() % 511) - 255) : int16_t(rng());
        std::vector<int32_t> start(count);
        for (auto& v : start) v = int32_t(rng());
        check_every_isa(x, w, offset, stride, n, count, start);
      }
}

TEST_CASE(
    "int8 dots of -128 x -128 and -128 x 127 agree on every ISA level up to and past the "
    "int32 limits, where they wrap as int32 does",
    "[int8_kernels]") {
  // 16384 * 131071 = 2^31 - 16384 is the last sum below INT32_MAX; 131072
  // terms make 2^31, which wraps to INT32_MIN.
  for (uint64_t n : {131071u, 131072u, 131073u, 131072u * 2 + 65u, 400001u}) {
    const std::vector<int8_t> x(n, -128), w_min(2 * n, -128);
    std::vector<int8_t> w_mixed(2 * n, 127);
    check_every_isa(x, w_min, 0, n, n, 2, {0, 0});
    check_every_isa(x, w_mixed, 0, n, n, 2, {0, 0});
    // Starting at the limits, one term already wraps.
    check_every_isa(x, w_min, 0, n, 1, 2, {INT32_MAX, INT32_MIN});
  }
  int8_kernels::Isa last = supported_isas().back();
  std::vector<int32_t> sum{0};
  const std::vector<int8_t> x(131072, -128);
  kernels_for(last).dots_s8(x.data(), x.data(), 0, x.size(), 1, sum.data());
  CHECK(sum[0] == INT32_MIN);
}

TEST_CASE(
    "int16 dots of -32768 x -32768 (the one vpmaddwd pair that wraps) and -32768 x 32767 "
    "agree on every ISA level",
    "[int8_kernels]") {
  for (uint64_t n : {1u, 2u, 3u, 16u, 17u, 32u, 33u, 1000u}) {
    const std::vector<int16_t> x(n, -32768), w_min(4 * n, -32768);
    const std::vector<int16_t> w_mixed(4 * n, 32767);
    check_every_isa(x, w_min, 0, n, n, 4, {0, 1, -1, INT32_MAX});
    check_every_isa(x, w_mixed, 0, n, n, 4, {0, 1, -1, INT32_MIN});
  }
  std::mt19937 rng(21);
  const int16_t extremes[] = {-32768, 32767, -1, 0, 1};
  std::vector<int16_t> x(1000), w(5000);
  for (auto& v : x) v = extremes[rng() % 5];
  for (auto& v : w) v = extremes[rng() % 5];
  check_every_isa(x, w, 0, 1000, 1000, 5, {0, 0, 0, 0, 0});
}

TEST_CASE(
    "NPUSIM_ISA names: every supported level parses, an unknown or unsupported name is an "
    "error naming it and the supported levels",
    "[int8_kernels]") {
  for (Isa isa : supported_isas()) CHECK(parse_isa(isa_name(isa)) == isa);
  CHECK_THROWS_WITH(parse_isa("sse9"),
                    Catch::Contains("NPUSIM_ISA='sse9'") && Catch::Contains("supported: scalar"));
  for (Isa isa : {Isa::Avx2, Isa::Avx512Vnni}) {
    bool supported = false;
    for (Isa s : supported_isas()) supported |= s == isa;
    if (!supported) CHECK_THROWS_WITH(parse_isa(isa_name(isa)), Catch::Contains(isa_name(isa)));
  }
}

// Graph convolutions on the int16 path: contiguous, two groups of 16
// channels, dilated (one call per tap) and depthwise (the inline short loop).
const char* kGroupedGraph = R"({
  "name": "isa_levels",
  "inputs": [{"name": "x", "shape": [1, 32, 9, 11], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "plain", "op": "conv", "inputs": ["x"], "output": "a", "K": 33, "kernel": 3, "pads": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 120}},
    {"name": "groups2", "op": "conv", "inputs": ["x"], "output": "b", "K": 24, "kernel": 3, "group": 2,
     "pads": 1, "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.06, "zero_point": 90}},
    {"name": "dilated", "op": "conv", "inputs": ["x"], "output": "c", "K": 17, "kernel": 3,
     "dilation": 2, "pads": 2, "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 120}},
    {"name": "depthwise", "op": "conv", "inputs": ["x"], "output": "d", "K": 32, "kernel": 3, "group": 32,
     "pads": 1, "weights": {"dtype": "int8", "scale": 0.02, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.03, "zero_point": 100}}
  ]
})";

// Legacy int8 layers whose kernel rows (S*C) span whole 64-byte vectors and tails.
const char* kInt8Layers = R"({
  "name": "isa_levels_int8",
  "seed": 3,
  "layers": [
    {"name": "c64", "N": 1, "C": 64, "H": 8, "W": 8, "K": 40, "R": 3, "S": 3, "stride": 1, "padding": 1},
    {"name": "c65", "N": 1, "C": 65, "H": 7, "W": 7, "K": 33, "R": 1, "S": 1, "stride": 1, "padding": 0}
  ]
})";

TEST_CASE(
    "npusim run under each supported NPUSIM_ISA matches the reference on every layer with "
    "the same cycles and output digests, and an unsupported NPUSIM_ISA stops the run naming it",
    "[int8_kernels]") {
  const std::string graph = test::write_temp_file("isa_levels.json", kGroupedGraph);
  const std::string layers = test::write_temp_file("isa_levels_int8.json", kInt8Layers);
  // The int8 path (legacy layers) and the int16 path (graph operators).
  for (const std::string& workload : {layers, graph}) {
    nlohmann::json first;
    for (Isa isa : supported_isas()) {
      INFO("NPUSIM_ISA=" << isa_name(isa) << " run " << workload);
      setenv("NPUSIM_ISA", isa_name(isa), 1);
      const nlohmann::json r = test::run_report("run " + workload);
      for (const auto& layer : r["layers"]) CHECK(layer["check"]["match"].get<bool>());
      if (first.is_null()) first = r;
      CHECK(r["totals"]["cycles"] == first["totals"]["cycles"]);
      for (size_t l = 0; l < r["layers"].size(); ++l)
        CHECK(r["layers"][l]["check"]["digest"] == first["layers"][l]["check"]["digest"]);
    }
  }
  setenv("NPUSIM_ISA", "sse9", 1);
  const test::CliResult bad = test::run_cli("run -q configs/networks/tiny3.json");
  unsetenv("NPUSIM_ISA");
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.err, Catch::Contains("NPUSIM_ISA='sse9'") && Catch::Contains("scalar"));
}

// Hidden ([.]): not a check, a throughput figure for docs/performance.md.
// Run: build/tests/npusim_unit_tests "[.int8_kernels_bench]"
TEST_CASE("int8 and int16 dot throughput per ISA level (benchmark, prints G MAC/s)",
          "[.int8_kernels_bench]") {
  // A 3x3 kernel row over 64 channels (S*C = 192) against 64 kernels, as in ResNet.
  const uint64_t n = 192, count = 64, repeats = 20000;
  std::mt19937 rng(22);
  std::vector<int8_t> x8(n), w8(n * count);
  std::vector<int16_t> x16(n), w16(n * count);
  for (auto& v : x8) v = int8_t(rng());
  for (auto& v : w8) v = int8_t(rng());
  for (auto& v : x16) v = int16_t(int32_t(rng() % 511) - 255);
  for (auto& v : w16) v = int16_t(int32_t(rng() % 511) - 255);
  for (Isa isa : supported_isas()) {
    std::vector<int32_t> out(count, 0);
    const auto time = [&](auto&& body) {
      const auto t0 = std::chrono::steady_clock::now();
      for (uint64_t r = 0; r < repeats; ++r) body();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return double(n * count * repeats) / s / 1e9;
    };
    const double g8 = time(
        [&] { kernels_for(isa).dots_s8(x8.data(), w8.data(), n, n, uint32_t(count), out.data()); });
    const double g16 = time([&] {
      kernels_for(isa).dots_s16(x16.data(), w16.data(), n, n, uint32_t(count), out.data());
    });
    WARN(isa_name(isa) << ": int8 " << g8 << " G MAC/s, int16 " << g16 << " G MAC/s (checksum "
                       << out[0] << ")");
  }
}
