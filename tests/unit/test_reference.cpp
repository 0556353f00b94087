// The golden convolution and the requantisation rule, against numbers worked
// out by hand, plus a cross-check with a deliberately naive convolution that
// builds an explicitly padded input (the opposite of the reference's strategy).
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/reference/reference_conv.h"

using namespace npusim;
using reference::conv2d_int8;
using reference::ConvParams;
using reference::requantize;

namespace {

// Pass-through requantisation: bias 0, scale 1, shift 0, no ReLU.
ConvParams identity_params(uint32_t K, uint32_t stride = 1, uint32_t padding = 0) {
  ConvParams p;
  p.stride = stride;
  p.padding = padding;
  p.relu = false;
  p.bias.assign(K, 0);
  p.scale.assign(K, 1);
  p.shift = 0;
  return p;
}

TensorI8 make(std::vector<uint32_t> shape, std::vector<int8_t> values) {
  TensorI8 t(std::move(shape));
  REQUIRE(values.size() == t.data.size());
  t.data = std::move(values);
  return t;
}

// Straightforward conv on an explicitly zero-padded copy, int64 accumulation.
TensorI8 naive_conv(const TensorI8& in, const TensorI8& w, const ConvParams& p) {
  const uint32_t N = in.shape[0], H = in.shape[1], W = in.shape[2], C = in.shape[3];
  const uint32_t K = w.shape[0], R = w.shape[1], S = w.shape[2];
  const uint32_t Hp = H + 2 * p.padding, Wp = W + 2 * p.padding;
  std::vector<int8_t> padded(size_t(N) * Hp * Wp * C, 0);
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t y = 0; y < H; ++y)
      for (uint32_t x = 0; x < W; ++x)
        for (uint32_t c = 0; c < C; ++c)
          padded[((size_t(n) * Hp + y + p.padding) * Wp + x + p.padding) * C + c] =
              in.data[((size_t(n) * H + y) * W + x) * C + c];
  const uint32_t Ho = (Hp - R) / p.stride + 1, Wo = (Wp - S) / p.stride + 1;
  TensorI8 out({N, Ho, Wo, K});
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t oy = 0; oy < Ho; ++oy)
      for (uint32_t ox = 0; ox < Wo; ++ox)
        for (uint32_t k = 0; k < K; ++k) {
          int64_t acc = 0;
          for (uint32_t r = 0; r < R; ++r)
            for (uint32_t s = 0; s < S; ++s)
              for (uint32_t c = 0; c < C; ++c)
                acc +=
                    int64_t(
                        padded[((size_t(n) * Hp + oy * p.stride + r) * Wp + ox * p.stride + s) * C +
                               c]) *
                    w.data[((size_t(k) * R + r) * S + s) * C + c];
          out.data[((size_t(n) * Ho + oy) * Wo + ox) * K + k] =
              requantize(int32_t(acc), p.bias[k], p.scale[k], p.shift, p.relu);
        }
  return out;
}

// A small linear congruential generator: the test must not depend on the
// workload's PRNG, which is tested elsewhere.
int8_t lcg_byte(uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return int8_t(state >> 24);
}

}  // namespace

TEST_CASE("requantize rounds half up and clamps", "[reference]") {
  // shift 1: x / 2 rounded half toward +inf.
  CHECK(requantize(5, 0, 1, 1, false) == 3);    // 2.5 -> 3
  CHECK(requantize(-5, 0, 1, 1, false) == -2);  // -2.5 -> -2
  CHECK(requantize(4, 0, 1, 1, false) == 2);
  CHECK(requantize(-7, 0, 1, 1, false) == -3);  // -3.5 -> -3
  // shift 2: quarters.
  CHECK(requantize(5, 0, 1, 2, false) == 1);    // 1.25 -> 1
  CHECK(requantize(6, 0, 1, 2, false) == 2);    // 1.5 -> 2
  CHECK(requantize(-6, 0, 1, 2, false) == -1);  // -1.5 -> -1
  CHECK(requantize(-7, 0, 1, 2, false) == -2);  // -1.75 -> -2
  // Bias is added before scaling: (10 - 3) * 3 / 4 = 5.25 -> 5.
  CHECK(requantize(10, -3, 3, 2, false) == 5);
  // shift 0 is the identity before clamping.
  CHECK(requantize(-128, 0, 1, 0, false) == -128);
  CHECK(requantize(127, 0, 1, 0, false) == 127);
}

TEST_CASE("requantize saturates and applies ReLU after clamping", "[reference]") {
  CHECK(requantize(128, 0, 1, 0, false) == 127);
  CHECK(requantize(1000, 0, 1, 0, false) == 127);
  CHECK(requantize(-129, 0, 1, 0, false) == -128);
  CHECK(requantize(-1000000, 0, 7, 3, false) == -128);
  CHECK(requantize(1000, 0, 1, 0, true) == 127);
  CHECK(requantize(-5, 0, 1, 0, true) == 0);
  CHECK(requantize(-1, 0, 1, 1, true) == 0);  // -0.5 -> 0
  CHECK(requantize(3, 0, 1, 1, true) == 2);   // 1.5 -> 2
}

TEST_CASE("requantize has no overflow at the int64 extremes", "[reference]") {
  // (2^32 - 2) * (2^31 - 1) = 2^63 - 2^33 + 2; / 2^62 = 1.99.. -> 2. Adding the
  // rounding half (2^61) first would overflow int64.
  CHECK(requantize(INT32_MAX, INT32_MAX, INT32_MAX, 62, false) == 2);
  // -2^32 * (2^31 - 1) = -2^63 + 2^32; / 2^62 = -1.99.. -> -2.
  CHECK(requantize(INT32_MIN, INT32_MIN, INT32_MAX, 62, false) == -2);
  CHECK_THROWS_AS(requantize(1, 0, 0, 0, false), std::invalid_argument);
  CHECK_THROWS_AS(requantize(1, 0, 1, 63, false), std::invalid_argument);
}

TEST_CASE("requantize equals the textbook formula on small values", "[reference]") {
  for (int32_t acc = -600; acc <= 600; ++acc)
    for (uint32_t shift = 0; shift <= 4; ++shift) {
      int64_t v = (int64_t(acc) + 7) * 3;
      if (shift > 0) v = (v + (int64_t(1) << (shift - 1))) >> shift;
      v = v < -128 ? -128 : v > 127 ? 127 : v;
      INFO("acc " << acc << " shift " << shift);
      REQUIRE(int(requantize(acc, 7, 3, shift, false)) == int(v));
    }
}

TEST_CASE("1x1 identity convolution returns the input", "[reference]") {
  const TensorI8 in = make({1, 2, 2, 3}, {1, -2, 3, 127, -128, 0, 5, 6, -7, 8, 9, 10});
  TensorI8 w({3, 1, 1, 3});
  for (uint32_t k = 0; k < 3; ++k) w.data[k * 3 + k] = 1;
  const TensorI8 out = conv2d_int8(in, w, identity_params(3));
  CHECK(out.shape == std::vector<uint32_t>{1, 2, 2, 3});
  CHECK(out.data == in.data);
}

TEST_CASE("3x3 all-ones kernel with padding 1 sums the valid neighbours", "[reference]") {
  // Input   1 2 3      Output: each value is the sum of its 3x3 neighbourhood
  //         4 5 6      inside the image (padding taps contribute nothing):
  //         7 8 9      corners 4 taps, edges 6 taps, centre 9 taps.
  const TensorI8 in = make({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  TensorI8 w({1, 3, 3, 1});
  w.data.assign(9, 1);
  SECTION("stride 1") {
    const TensorI8 out = conv2d_int8(in, w, identity_params(1, 1, 1));
    CHECK(out.shape == std::vector<uint32_t>{1, 3, 3, 1});
    CHECK(out.data == std::vector<int8_t>{12, 21, 16, 27, 45, 33, 24, 39, 28});
  }
  SECTION("stride 2 keeps the four corners") {
    const TensorI8 out = conv2d_int8(in, w, identity_params(1, 2, 1));
    CHECK(out.shape == std::vector<uint32_t>{1, 2, 2, 1});
    CHECK(out.data == std::vector<int8_t>{12, 16, 24, 28});
  }
  SECTION("constant input counts taps") {
    const TensorI8 ones = make({1, 3, 3, 1}, std::vector<int8_t>(9, 1));
    const TensorI8 out = conv2d_int8(ones, w, identity_params(1, 1, 1));
    CHECK(out.data == std::vector<int8_t>{4, 6, 4, 6, 9, 6, 4, 6, 4});
  }
}

TEST_CASE("2x2 kernel with stride 2 and no padding tiles the input", "[reference]") {
  // Input 0..15 in a 4x4 grid; each output sums one 2x2 block.
  std::vector<int8_t> v(16);
  for (int i = 0; i < 16; ++i) v[size_t(i)] = int8_t(i);
  const TensorI8 in = make({1, 4, 4, 1}, v);
  TensorI8 w({1, 2, 2, 1});
  w.data.assign(4, 1);
  const TensorI8 out = conv2d_int8(in, w, identity_params(1, 2, 0));
  CHECK(out.shape == std::vector<uint32_t>{1, 2, 2, 1});
  CHECK(out.data == std::vector<int8_t>{10, 18, 42, 50});  // 0+1+4+5, 2+3+6+7, ...
}

TEST_CASE("channels, bias, per-channel scale, shift and ReLU combine", "[reference]") {
  // One pixel, C = 2: [3, -4]. k0 = [1, 2] -> -5; k1 = [-1, 1] -> -7.
  const TensorI8 in = make({1, 1, 1, 2}, {3, -4});
  const TensorI8 w = make({2, 1, 1, 2}, {1, 2, -1, 1});
  ConvParams p = identity_params(2);
  p.bias = {10, 0};
  p.scale = {2, 1};
  p.shift = 1;
  // k0: (-5 + 10) * 2 / 2 = 5. k1: -7 / 2 = -3.5 -> -3.
  CHECK(conv2d_int8(in, w, p).data == std::vector<int8_t>{5, -3});
  p.relu = true;
  CHECK(conv2d_int8(in, w, p).data == std::vector<int8_t>{5, 0});
}

TEST_CASE("each batch image is convolved with its own data", "[reference]") {
  const TensorI8 in = make({2, 1, 2, 1}, {1, 2, 30, 40});
  const TensorI8 w = make({1, 1, 2, 1}, {1, -1});
  const TensorI8 out = conv2d_int8(in, w, identity_params(1));
  CHECK(out.shape == std::vector<uint32_t>{2, 1, 1, 1});
  CHECK(out.data == std::vector<int8_t>{-1, -10});
}

TEST_CASE("reference matches a naive padded-copy convolution on random data", "[reference]") {
  struct Case {
    uint32_t N, H, W, C, K, R, S, stride, padding;
  };
  // Odd C exercises the scalar tail of the vectorised channel loop.
  const Case cases[] = {{1, 7, 9, 19, 5, 3, 3, 1, 1},
                        {2, 8, 6, 35, 4, 3, 2, 2, 2},
                        {1, 5, 5, 64, 3, 1, 1, 1, 0},
                        {1, 9, 7, 16, 2, 5, 5, 3, 2}};
  uint32_t state = 12345;
  for (const Case& c : cases) {
    TensorI8 in({c.N, c.H, c.W, c.C}), w({c.K, c.R, c.S, c.C});
    for (auto& v : in.data) v = lcg_byte(state);
    for (auto& v : w.data) v = lcg_byte(state);
    ConvParams p = identity_params(c.K, c.stride, c.padding);
    p.relu = (c.C % 2) == 1;
    for (uint32_t k = 0; k < c.K; ++k) {
      p.bias[k] = int32_t(k) * 1000 - 2000;
      p.scale[k] = int32_t(k) + 1;
    }
    p.shift = 9;
    INFO("C=" << c.C << " R=" << c.R << " S=" << c.S << " stride=" << c.stride);
    const TensorI8 expected = naive_conv(in, w, p);
    const TensorI8 got = conv2d_int8(in, w, p);
    CHECK(got.shape == expected.shape);
    CHECK(got.data == expected.data);
  }
}

TEST_CASE("conv2d_int8 rejects inconsistent shapes and parameters", "[reference]") {
  const TensorI8 in({1, 4, 4, 3});
  const TensorI8 w({2, 3, 3, 3});
  const ConvParams ok = identity_params(2, 1, 1);
  REQUIRE_NOTHROW(conv2d_int8(in, w, ok));

  CHECK_THROWS_AS(conv2d_int8(TensorI8({4, 4, 3}), w, ok), std::invalid_argument);
  CHECK_THROWS_AS(conv2d_int8(in, TensorI8({2, 3, 3}), ok), std::invalid_argument);
  CHECK_THROWS_WITH(conv2d_int8(in, TensorI8({2, 3, 3, 4}), ok),
                    Catch::Contains("channel count 4"));
  ConvParams p = ok;
  p.bias.pop_back();
  CHECK_THROWS_WITH(conv2d_int8(in, w, p), Catch::Contains("bias has 1 entries, expected K=2"));
  p = ok;
  p.scale.push_back(1);
  CHECK_THROWS_WITH(conv2d_int8(in, w, p), Catch::Contains("scale has 3 entries"));
  p = ok;
  p.scale[1] = 0;
  CHECK_THROWS_AS(conv2d_int8(in, w, p), std::invalid_argument);
  p = ok;
  p.stride = 0;
  CHECK_THROWS_AS(conv2d_int8(in, w, p), std::invalid_argument);
  p = ok;
  p.padding = 0;
  CHECK_THROWS_AS(conv2d_int8(TensorI8({1, 2, 2, 3}), w, p), std::invalid_argument);
  TensorI8 short_data({1, 4, 4, 3});
  short_data.data.pop_back();
  CHECK_THROWS_AS(conv2d_int8(short_data, w, ok), std::invalid_argument);
}
