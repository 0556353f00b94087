// Seeded layer data: the PRNG itself, determinism, ranges, and .npy overrides.
// The pinned values below were computed with an independent Python transcription
// of splitmix64 and the rejection rule; they guard "same seed, same bytes on
// every compiler and platform".
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "sim/workload/layer_data.h"

using namespace npusim;

namespace {

std::string layer_tmp(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("npusim_test_layer_" + std::to_string(getpid()) + "_" + name))
      .string();
}

LayerConfig small_layer(uint64_t seed) {
  LayerConfig l;
  l.name = "conv_test";
  l.N = 1;
  l.C = 16;
  l.H = 12;
  l.W = 10;
  l.K = 32;
  l.R = 3;
  l.S = 3;
  l.padding = 1;
  l.requant.scale.assign(l.K, 1);
  l.seed = seed;
  return l;
}

std::string digest(const TensorI8& t) { return digest_hex(t.data.data(), t.data.size()); }
std::string digest(const std::vector<int32_t>& v) {
  return digest_hex(v.data(), v.size() * sizeof(int32_t));
}

}  // namespace

TEST_CASE("SeededRandom is splitmix64", "[workload]") {
  // The published splitmix64 sequence for seed 0.
  SeededRandom r(0);
  CHECK(r.next() == 0xe220a8397b1dcdafULL);
  CHECK(r.next() == 0x6e789e6aa1b965f4ULL);
  CHECK(r.next() == 0x06c45d188009454fULL);
}

TEST_CASE("SeededRandom::uniform stays in range and covers it", "[workload]") {
  SeededRandom r(42);
  int counts[10] = {};
  for (int i = 0; i < 10000; ++i) {
    const int64_t v = r.uniform(-3, 6);
    REQUIRE(v >= -3);
    REQUIRE(v <= 6);
    ++counts[v + 3];
  }
  for (int c : counts) {  // expected 1000 each; 5 sigma is about 150
    CHECK(c > 850);
    CHECK(c < 1150);
  }
  CHECK(r.uniform(5, 5) == 5);
  CHECK_NOTHROW(r.uniform(INT64_MIN, INT64_MAX));  // full 64-bit span
  CHECK_THROWS_AS(r.uniform(2, 1), std::invalid_argument);
}

TEST_CASE("make_layer_data draws pinned values from seed*4+1..3", "[workload]") {
  const LayerData d = make_layer_data(small_layer(7), true);
  // weights: SeededRandom(29).uniform(-128, 127); bias: SeededRandom(31).uniform(-2048, 2048).
  const std::vector<int8_t> first_weights(d.weights.data.begin(), d.weights.data.begin() + 8);
  CHECK(first_weights == std::vector<int8_t>{-16, -102, 7, 24, 9, 127, -122, -92});
  const std::vector<int32_t> first_bias(d.bias.begin(), d.bias.begin() + 4);
  CHECK(first_bias == std::vector<int32_t>{-424, 31, 1729, 1166});

  SeededRandom input_stream(7 * 4 + 2);
  CHECK(d.input.data[0] == int8_t(input_stream.uniform(-128, 127)));
}

TEST_CASE("make_layer_data shapes, ranges and determinism", "[workload]") {
  const LayerConfig layer = small_layer(3);
  const LayerData a = make_layer_data(layer, true);
  CHECK(a.weights.shape == std::vector<uint32_t>{32, 3, 3, 16});
  CHECK(a.weights.data.size() == 32u * 3 * 3 * 16);
  CHECK(a.input.shape == std::vector<uint32_t>{1, 12, 10, 16});
  CHECK(a.input.data.size() == 12u * 10 * 16);
  REQUIRE(a.bias.size() == 32);

  SECTION("same seed, same bytes") {
    const LayerData b = make_layer_data(layer, true);
    CHECK(digest(a.weights) == digest(b.weights));
    CHECK(digest(a.input) == digest(b.input));
    CHECK(digest(a.bias) == digest(b.bias));
  }
  SECTION("different seed, different bytes") {
    const LayerData b = make_layer_data(small_layer(4), true);
    CHECK(digest(a.weights) != digest(b.weights));
    CHECK(digest(a.input) != digest(b.input));
    CHECK(digest(a.bias) != digest(b.bias));
  }
  SECTION("without input: input empty, the rest unchanged") {
    const LayerData b = make_layer_data(layer, false);
    CHECK(b.input.data.empty());
    CHECK(b.weights.data == a.weights.data);
    CHECK(b.bias == a.bias);
  }
  SECTION("values cover the int8 range; bias stays within +-2048") {
    int8_t lo = 0, hi = 0;
    for (int8_t v : a.weights.data) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    CHECK(lo == -128);  // 4608 draws: missing an end point has odds ~1e-8
    CHECK(hi == 127);
    bool all_same = true;
    for (int32_t b : a.bias) {
      CHECK(b >= -2048);
      CHECK(b <= 2048);
      all_same = all_same && b == a.bias[0];
    }
    CHECK_FALSE(all_same);
  }
}

TEST_CASE("make_layer_data reads .npy overrides and checks their shapes", "[workload]") {
  LayerConfig layer = small_layer(9);
  layer.C = 2;
  layer.H = 3;
  layer.W = 3;
  layer.K = 4;
  layer.R = 1;
  layer.S = 1;
  const std::string wpath = layer_tmp("weights.npy");
  const std::string ipath = layer_tmp("input.npy");
  const std::string bpath = layer_tmp("bias.npy");

  SECTION("matching shapes are used as given") {
    TensorI8 w({4, 1, 1, 2});
    for (size_t i = 0; i < w.data.size(); ++i) w.data[i] = int8_t(i);
    TensorI8 in({1, 3, 3, 2});
    in.data.assign(in.data.size(), -7);
    TensorI32 b({4});
    b.data = {100000, -1, 0, 5};
    write_npy(wpath, w);
    write_npy(ipath, in);
    write_npy(bpath, b);
    layer.weights_npy = wpath;
    layer.input_npy = ipath;
    layer.bias_npy = bpath;
    const LayerData d = make_layer_data(layer, true);
    CHECK(d.weights.data == w.data);
    CHECK(d.input.data == in.data);
    CHECK(d.bias == b.data);
  }
  SECTION("weights of the wrong shape name the file, expected and found shapes") {
    write_npy(wpath, TensorI8({4, 3, 3, 2}));
    layer.weights_npy = wpath;
    CHECK_THROWS_WITH(make_layer_data(layer, true),
                      Catch::Contains(wpath) && Catch::Contains("conv_test") &&
                          Catch::Contains("(4, 1, 1, 2)") && Catch::Contains("found (4, 3, 3, 2)"));
  }
  SECTION("input of the wrong shape") {
    write_npy(ipath, TensorI8({1, 3, 3, 3}));
    layer.input_npy = ipath;
    CHECK_THROWS_WITH(make_layer_data(layer, true),
                      Catch::Contains(ipath) && Catch::Contains("found (1, 3, 3, 3)"));
    // A chained layer never reads its input file.
    CHECK_NOTHROW(make_layer_data(layer, false));
  }
  SECTION("bias of the wrong shape or dtype") {
    write_npy(bpath, TensorI32({4, 1}));
    layer.bias_npy = bpath;
    CHECK_THROWS_WITH(make_layer_data(layer, true), Catch::Contains(bpath) &&
                                                        Catch::Contains("(4,)") &&
                                                        Catch::Contains("found (4, 1)"));
    write_npy(bpath, TensorI8({4}));
    CHECK_THROWS_WITH(make_layer_data(layer, true),
                      Catch::Contains(bpath) && Catch::Contains("dtype '|i1'"));
  }
  for (const auto& p : {wpath, ipath, bpath}) std::filesystem::remove(p);
}
