// sim/reference/qops against numbers worked out by hand, one TEST_CASE per
// property (docs/quantization.md). The float32 values quoted in the derivations
// are exact: 0.1f = 0.10000000149011612, and every product or quotient written
// as "f32(...)" is the float32 nearest to the exact result.
#include <catch2/catch.hpp>
#include <cfenv>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/reference/qops.h"

using namespace npusim::reference::qops;

namespace {

QTensor t(ElemType type, std::vector<uint32_t> shape, std::vector<int32_t> data) {
  return QTensor{std::move(shape), std::move(data), type};
}
QTensor s8(std::vector<uint32_t> shape, std::vector<int32_t> data) {
  return t(ElemType::Int8, std::move(shape), std::move(data));
}
QTensor u8(std::vector<uint32_t> shape, std::vector<int32_t> data) {
  return t(ElemType::Uint8, std::move(shape), std::move(data));
}
Quant q(float scale, int32_t zp) { return Quant{{scale}, {zp}}; }

ConvAttrs pads(uint32_t top, uint32_t left, uint32_t bottom, uint32_t right) {
  ConvAttrs a;
  a.pads[0] = top, a.pads[1] = left, a.pads[2] = bottom, a.pads[3] = right;
  return a;
}

PoolAttrs pool(uint32_t kh, uint32_t kw, uint32_t sh = 1, uint32_t sw = 1) {
  PoolAttrs a;
  a.kernel[0] = kh, a.kernel[1] = kw, a.stride[0] = sh, a.stride[1] = sw;
  return a;
}

using Shape = std::vector<uint32_t>;
using Values = std::vector<int32_t>;

}  // namespace

TEST_CASE("requantize rounds float32(acc) * multiplier half to even, then adds the zero point",
          "[reference][qops]") {
  // Exact ties go to the even neighbour, for both signs.
  CHECK(requantize(5, 0.5f, 0, ElemType::Int8) == 2);    // 2.5 -> 2
  CHECK(requantize(7, 0.5f, 0, ElemType::Int8) == 4);    // 3.5 -> 4
  CHECK(requantize(-5, 0.5f, 0, ElemType::Int8) == -2);  // -2.5 -> -2
  CHECK(requantize(-7, 0.5f, 0, ElemType::Int8) == -4);  // -3.5 -> -4
  // The zero point joins after rounding: round(2.5) + 7 = 9, not round(9.5) = 10.
  CHECK(requantize(5, 0.5f, 7, ElemType::Int8) == 9);
  // The product is float32: f32(1/6) = 0.16666667163372040, 3 * that = 0.50000001490116
  // rounds to the float32 0.5 (the next float is 0.50000006), a tie, so 0. A double
  // product would round to 1.
  CHECK(requantize(3, 1.0f / 6.0f, 0, ElemType::Int8) == 0);
}

TEST_CASE(
    "requantize_run gives requantize's value for every accumulator, ties, huge products, clamps "
    "and both types included, and throws past int32",
    "[reference][qops]") {
  uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 17;
  };
  // Multipliers with exact ties (0.5, 0.25, 1.5), float32 rounding (1/6), tiny, 1 and huge ones
  // (2^100: products beyond any int, some infinite).
  const float multipliers[] = {0.5f, 0.25f, 1.5f, 1.0f / 6.0f, 1e-9f, 1.0f, 3.7e-3f, 0x1p100f};
  const Clamp clamps[] = {Clamp{}, Clamp{0, 6}, Clamp{-3, 100}};
  for (const ElemType type : {ElemType::Int8, ElemType::Uint8})
    for (const float m : multipliers)
      for (const Clamp& clamp : clamps) {
        const int32_t zp = type == ElemType::Int8 ? -3 : 128;
        std::vector<int64_t> acc(600);
        for (size_t i = 0; i < acc.size(); ++i) {
          const int64_t r = int64_t(next() % 4096) - 2048;
          acc[i] = i < 200 ? r : i < 400 ? r * 1000003 : (i % 2 ? INT32_MAX - 10 : INT32_MIN + 10);
        }
        const int64_t add = -7;
        std::vector<int32_t> got(acc.size());
        detail::requantize_run("t", acc.data(), acc.size(), add, m, zp, type, clamp, got.data());
        for (size_t i = 0; i < acc.size(); ++i) {
          INFO("acc " << acc[i] << ", multiplier " << m << ", type " << type_name(type)
                      << ", clamp " << clamp.lo << ".." << clamp.hi);
          REQUIRE(got[i] == requantize(int32_t(acc[i] + add), m, zp, type, clamp));
        }
      }
  const int64_t too_big[] = {int64_t(INT32_MAX) + 1};
  int32_t out = 0;
  CHECK_THROWS_WITH(
      detail::requantize_run("qlinear_conv", too_big, 1, 0, 1.0f, 0, ElemType::Int8, {}, &out),
      Catch::Contains("qlinear_conv") && Catch::Contains("overflows int32"));
}

TEST_CASE("requantize saturates to the output type and to the fused clamp", "[reference][qops]") {
  CHECK(requantize(1000, 1.0f, 0, ElemType::Int8) == 127);
  CHECK(requantize(-1000, 1.0f, 0, ElemType::Int8) == -128);
  CHECK(requantize(200, 1.0f, 128, ElemType::Uint8) == 255);  // 200 + 128
  CHECK(requantize(-200, 1.0f, 128, ElemType::Uint8) == 0);   // -200 + 128
  // ReLU6 on int8 with zero point 0: [0, 6]; ReLU on uint8 with zero point 128: [128, 255].
  CHECK(requantize(50, 1.0f, 0, ElemType::Int8, Clamp{0, 6}) == 6);
  CHECK(requantize(-5, 1.0f, 0, ElemType::Int8, Clamp{0, 6}) == 0);
  CHECK(requantize(-10, 1.0f, 128, ElemType::Uint8, Clamp{128, 255}) == 128);
  CHECK(requantize(10, 1.0f, 128, ElemType::Uint8, Clamp{128, 255}) == 138);
}

TEST_CASE("rounding is half to even whatever the FPU rounding mode", "[reference][qops]") {
  const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  const int saved = std::fegetround();
  for (int mode : modes) {
    std::fesetround(mode);
    CHECK(round_half_to_even(2.5f) == 2.0);
    CHECK(round_half_to_even(3.5f) == 4.0);
    CHECK(round_half_to_even(-2.5f) == -2.0);
    CHECK(round_half_to_even(-3.5f) == -4.0);
    CHECK(round_half_to_even(0.49999997f) == 0.0);  // the float just below 0.5
    CHECK(round_half_to_even(2.5000002f) == 3.0);   // the float just above 2.5
    CHECK(round_half_to_even(-0.5f) == 0.0);
  }
  std::fesetround(saved);
}

TEST_CASE("a convolution's padding holds the input zero point, so pads contribute 0",
          "[reference][qops]") {
  // One input value 130 (zero point 128) under a 3x3 kernel of ones with pads 1:
  // (130 - 128) * 1 from the centre, and (128 - 128) * 1 = 0 from each of the 8 pads.
  // Padding with 0 instead would add 8 * (0 - 128) = -1024.
  ConvAttrs a = pads(1, 1, 1, 1);
  const QTensor x = u8({1, 1, 1, 1}, {130});
  const QTensor w = s8({1, 1, 3, 3}, Values(9, 1));
  CHECK(conv_integer(x, 128, w, {0}, a).data == Values{2});
  // QLinearConv: 2 * (0.5 * 1 / 1) = 1, + y_zp 128 = 129.
  CHECK(qlinear_conv(x, q(0.5f, 128), w, q(1.0f, 0), {}, q(1.0f, 128), ElemType::Uint8, a).data ==
        Values{129});
}

TEST_CASE("uint8 activations with zero point 128 against int8 weights use exact 9-bit operands",
          "[reference][qops]") {
  // x = {0, 255} - 128 = {-128, 127}; w = {-127, 127}:
  // acc = (-128)(-127) + (127)(127) = 16256 + 16129 = 32385.
  const QTensor x = u8({1, 2, 1, 1}, {0, 255});
  const QTensor w = s8({1, 2, 1, 1}, {-127, 127});
  CHECK(conv_integer(x, 128, w, {0}, ConvAttrs{}).data == Values{32385});
  CHECK(matmul_integer(u8({1, 2}, {0, 255}), 128, s8({2, 1}, {-127, 127}), {0}).data ==
        Values{32385});
  // Multiplier 1 * 1 / 256: 32385 / 256 = 126.50390625 -> 127.
  CHECK(qlinear_conv(x, q(1.0f, 128), w, q(1.0f, 0), {}, q(256.0f, 0), ElemType::Int8, ConvAttrs{})
            .data == Values{127});
}

TEST_CASE("ConvInteger subtracts per-tensor and per-channel uint8 weight zero points",
          "[reference][qops]") {
  // x - 10 = {0, 10, 20, 30}. Channel 0: w - 5 = {0, 1, 2, 3} -> 0 + 10 + 40 + 90 = 140.
  // Channel 1: w - 8 = {-3, -2, -1, 0} -> 0 - 20 - 20 + 0 = -40.
  const QTensor x = u8({1, 1, 2, 2}, {10, 20, 30, 40});
  const QTensor w1 = u8({1, 1, 2, 2}, {5, 6, 7, 8});
  CHECK(conv_integer(x, 10, w1, {5}, ConvAttrs{}).data == Values{140});
  const QTensor w2 = u8({2, 1, 2, 2}, {5, 6, 7, 8, 5, 6, 7, 8});
  const QTensor y = conv_integer(x, 10, w2, {5, 8}, ConvAttrs{});
  CHECK(y.type == ElemType::Int32);
  CHECK(y.shape == Shape{1, 2, 1, 1});
  CHECK(y.data == Values{140, -40});
}

TEST_CASE("asymmetric pads follow ONNX order [top, left, bottom, right]", "[reference][qops]") {
  // x - 1 = {0, 1; 2, 3}, 1x1 kernel of 1, pads top 1, left 0, bottom 0, right 2:
  // output 3 x 4 = a row of pads, then each input row followed by two pad columns.
  const QTensor y =
      conv_integer(s8({1, 1, 2, 2}, {1, 2, 3, 4}), 1, s8({1, 1, 1, 1}, {1}), {0}, pads(1, 0, 0, 2));
  CHECK(y.shape == Shape{1, 1, 3, 4});
  CHECK(y.data == Values{0, 0, 0, 0, 0, 1, 0, 0, 2, 3, 0, 0});
}

TEST_CASE("dilation 2 samples every second input", "[reference][qops]") {
  // x[i][j] = 5i + j; a 2x2 kernel of ones dilated by 2 spans 3x3 and sums
  // x[i][j] + x[i][j+2] + x[i+2][j] + x[i+2][j+2] = 20i + 4j + 24.
  Values x(25);
  for (int i = 0; i < 25; ++i) x[size_t(i)] = i;
  ConvAttrs a;
  a.dilation[0] = a.dilation[1] = 2;
  const QTensor y = conv_integer(s8({1, 1, 5, 5}, x), 0, s8({1, 1, 2, 2}, {1, 1, 1, 1}), {0}, a);
  CHECK(y.shape == Shape{1, 1, 3, 3});
  CHECK(y.data == Values{24, 28, 32, 44, 48, 52, 64, 68, 72});
}

TEST_CASE("group = C (depthwise) convolves each channel with its own filter", "[reference][qops]") {
  // Channel 0 {1, 2, 3, 4} . {1, 1, 1, 1} = 10; channel 1 {10, 20, 30, 40} . {1, 0, 0, -1} = -30.
  ConvAttrs a;
  a.group = 2;
  const QTensor y = conv_integer(s8({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40}), 0,
                                 s8({2, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, -1}), {0}, a);
  CHECK(y.data == Values{10, -30});
}

TEST_CASE("group = 4 reads only its own group's input channels", "[reference][qops]") {
  // 8 input channels holding 1..8, 4 groups of 2, weights all 1: output k = x[2k] + x[2k+1].
  ConvAttrs a;
  a.group = 4;
  const QTensor x = s8({1, 8, 1, 1}, {1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(conv_integer(x, 0, s8({4, 2, 1, 1}, Values(8, 1)), {0}, a).data == Values{3, 7, 11, 15});
  a.group = 3;  // does not divide 8 channels
  CHECK_THROWS_AS(conv_integer(x, 0, s8({3, 8, 1, 1}, Values(24, 1)), {0}, a),
                  std::invalid_argument);
}

TEST_CASE("a stride larger than the kernel skips inputs", "[reference][qops]") {
  // W = 7, kernel 1x2, stride 3: windows at columns {0, 1} and {3, 4}; (7 - 2) / 3 + 1 = 2.
  ConvAttrs a;
  a.stride[1] = 3;
  const QTensor y =
      conv_integer(s8({1, 1, 1, 7}, {0, 1, 2, 3, 4, 5, 6}), 0, s8({1, 1, 1, 2}, {1, 1}), {0}, a);
  CHECK(y.shape == Shape{1, 1, 1, 2});
  CHECK(y.data == Values{1, 7});
}

TEST_CASE("a 1x1 input with pads 1 sees data only under the centre tap", "[reference][qops]") {
  // (50 - 20) * centre weight 5 = 150; the other 8 taps read the zero point 20.
  const QTensor y =
      conv_integer(u8({1, 1, 1, 1}, {50}), 20, s8({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), {0},
                   pads(1, 1, 1, 1));
  CHECK(y.shape == Shape{1, 1, 1, 1});
  CHECK(y.data == Values{150});
}

TEST_CASE("per-channel weight scales and zero points give each output channel its multiplier",
          "[reference][qops]") {
  // x = 10 (scale 1); w = 5 with zero points {1, 3} and scales {0.5, 0.25}; y scale 1.
  // Channel 0: 10 * (5 - 1) = 40 -> 40 * 0.5 = 20. Channel 1: 10 * (5 - 3) = 20 -> 20 * 0.25 = 5.
  const QTensor x = s8({1, 1, 1, 1}, {10});
  const QTensor w = u8({2, 1, 1, 1}, {5, 5});
  const Quant wq{{0.5f, 0.25f}, {1, 3}};
  CHECK(qlinear_conv(x, q(1.0f, 0), w, wq, {}, q(1.0f, 0), ElemType::Int8, ConvAttrs{}).data ==
        Values{20, 5});
  // The bias joins the accumulator before scaling: 41 * 0.5 = 20.5 -> 20, 22 * 0.25 = 5.5 -> 6.
  CHECK(qlinear_conv(x, q(1.0f, 0), w, wq, {1, 2}, q(1.0f, 0), ElemType::Int8, ConvAttrs{}).data ==
        Values{20, 6});
}

TEST_CASE("the QLinearConv multiplier is float32 (x_scale * w_scale) / y_scale, in that order",
          "[reference][qops]") {
  // f32(0.1f * 0.1f) = 0.010000000707805157; / 0.1f = 0.10000000894069672.
  // acc 5: f32(5 * 0.10000000894069672) = 0.5000000596046448 -> 1.
  // Either other order gives exactly 0.1f, 5 * 0.1f = 0.5 in float32, a tie -> 0.
  const QTensor x = s8({1, 1, 1, 1}, {5});
  const QTensor w = s8({1, 1, 1, 1}, {1});
  CHECK(qlinear_conv(x, q(0.1f, 0), w, q(0.1f, 0), {}, q(0.1f, 0), ElemType::Int8, ConvAttrs{})
            .data == Values{1});
  CHECK(qlinear_matmul(s8({1, 1}, {5}), q(0.1f, 0), s8({1, 1}, {1}), q(0.1f, 0), {}, q(0.1f, 0),
                       ElemType::Int8)
            .data == Values{1});
}

TEST_CASE("matmul_integer subtracts per-column b zero points", "[reference][qops]") {
  // a - 1 = {0, 1; 2, 3}; b - {5, 0} = {0, 6; 2, 8}.
  // Row 0: {0*0 + 1*2, 0*6 + 1*8} = {2, 8}; row 1: {2*0 + 3*2, 2*6 + 3*8} = {6, 36}.
  const QTensor y = matmul_integer(u8({2, 2}, {1, 2, 3, 4}), 1, u8({2, 2}, {5, 6, 7, 8}), {5, 0});
  CHECK(y.shape == Shape{2, 2});
  CHECK(y.data == Values{2, 8, 6, 36});
}

TEST_CASE("qlinear_matmul adds the bias to the accumulator and scales each column",
          "[reference][qops]") {
  // a = {2, 3} (scale 0.5); b columns {1, 1}, {2, -2}, {0, -1} with scales {1, 0.5, 1};
  // bias {1, 0, 0}; y scale 1.
  // Column 0: 2 + 3 + 1 = 6, * 0.5 = 3. Column 1: 4 - 6 = -2, * 0.25 = -0.5 -> 0 (even).
  // Column 2: -3, * 0.5 = -1.5 -> -2 (even).
  const QTensor y =
      qlinear_matmul(s8({1, 2}, {2, 3}), q(0.5f, 0), s8({2, 3}, {1, 2, 0, 1, -2, -1}),
                     Quant{{1.0f, 0.5f, 1.0f}, {0, 0, 0}}, {1, 0, 0}, q(1.0f, 0), ElemType::Int8);
  CHECK(y.shape == Shape{1, 3});
  CHECK(y.data == Values{3, 0, -2});
}

TEST_CASE("max_pool: pads never win, and a window of pads only gives the type's lowest value",
          "[reference][qops]") {
  // All-negative 2x2 input, 3x3 windows with pads 1: every window covers all four values.
  PoolAttrs a = pool(3, 3);
  a.pads[0] = a.pads[1] = a.pads[2] = a.pads[3] = 1;
  const QTensor y = max_pool(s8({1, 1, 2, 2}, {-5, -7, -9, -3}), a);
  CHECK(y.shape == Shape{1, 1, 2, 2});
  CHECK(y.data == Values{-3, -3, -3, -3});
  CHECK(y.type == ElemType::Int8);
  // H = 2, kernel 2 with dilation 3 and pads 1/1: the one window reads rows -1 and 2, both
  // pads, so uint8's lowest value 0 (ORT does the same).
  PoolAttrs b = pool(2, 1);
  b.dilation[0] = 3;
  b.pads[0] = b.pads[2] = 1;
  CHECK(max_pool(u8({1, 1, 2, 1}, {7, 9}), b).data == Values{0});
}

TEST_CASE("max_pool ceil_mode adds a partial last window, never one that starts in the end pad",
          "[reference][qops]") {
  // W = 5, kernel 2, stride 2: floor -> windows {0,1}, {2,3}; ceil adds {4}.
  const QTensor x = u8({1, 1, 1, 5}, {1, 5, 2, 8, 3});
  PoolAttrs a = pool(1, 2, 1, 2);
  CHECK(max_pool(x, a).data == Values{5, 8});
  a.ceil_mode = true;
  CHECK(max_pool(x, a).data == Values{5, 8, 3});
  // W = 6, kernel 2, stride 3, right pad 1: ceil((6 + 1 - 2) / 3) + 1 = 3 windows, but the
  // third would start at column 6, in the pad, so it is dropped: {0,1} -> 2, {3,4} -> 5.
  PoolAttrs b = pool(1, 2, 1, 3);
  b.pads[3] = 1;
  b.ceil_mode = true;
  CHECK(max_pool(u8({1, 1, 1, 6}, {1, 2, 3, 4, 5, 6}), b).data == Values{2, 5});
  CHECK(pooled_size(6, 2, 3, 1, 0, 1, true) == 2);
  CHECK(pooled_size(5, 2, 2, 1, 0, 0, true) == 3);
  CHECK(pooled_size(5, 2, 2, 1, 0, 0, false) == 2);
}

TEST_CASE("max_pool dilation skips inputs inside the window", "[reference][qops]") {
  // Kernel 2 dilated by 3 reads columns {0, 3} and {1, 4}.
  PoolAttrs a = pool(1, 2);
  a.dilation[1] = 3;
  CHECK(max_pool(s8({1, 1, 1, 5}, {9, 1, 2, 1, 7}), a).data == Values{9, 7});
}

TEST_CASE("qlinear_average_pool: count_include_pad chooses the divisor", "[reference][qops]") {
  // x = {4, 8; 12, 16}, 2x2 windows, pads top 1 and left 1, scales 1. The windows hold
  // {4}, {4, 8}, {4, 12} and all four: sums 4, 12, 16, 40.
  // Divided by the values present: 4, 6, 8, 10. By the kernel area 4: 1, 3, 4, 10.
  const QTensor x = s8({1, 1, 2, 2}, {4, 8, 12, 16});
  PoolAttrs a = pool(2, 2);
  a.pads[0] = a.pads[1] = 1;
  CHECK(qlinear_average_pool(x, q(1.0f, 0), q(1.0f, 0), ElemType::Int8, a).data ==
        Values{4, 6, 8, 10});
  a.count_include_pad = true;
  CHECK(qlinear_average_pool(x, q(1.0f, 0), q(1.0f, 0), ElemType::Int8, a).data ==
        Values{1, 3, 4, 10});
  // ceil_mode: W = 3, kernel 2, stride 2 -> a second window {2, 3} with column 3 beyond
  // the input. count_include_pad still divides by 2 (ORT does not clip the kernel).
  PoolAttrs c = pool(1, 2, 1, 2);
  c.ceil_mode = true;
  c.count_include_pad = true;
  CHECK(qlinear_average_pool(s8({1, 1, 1, 3}, {2, 4, 6}), q(1.0f, 0), q(1.0f, 0), ElemType::Int8, c)
            .data == Values{3, 3});
  c.count_include_pad = false;
  CHECK(qlinear_average_pool(s8({1, 1, 1, 3}, {2, 4, 6}), q(1.0f, 0), q(1.0f, 0), ElemType::Int8, c)
            .data == Values{3, 6});
}

TEST_CASE("qlinear_average_pool adds the output zero point in float32 before rounding",
          "[reference][qops]") {
  // avg(-10, -5) = -7.5; -7.5 + 127 = 119.5 -> 120 (even). Rounding first would give
  // round(-7.5) + 127 = -8 + 127 = 119, which is what requantize does.
  const QTensor y = qlinear_average_pool(s8({1, 1, 1, 3}, {-10, -5, 0}), q(1.0f, 0), q(1.0f, 127),
                                         ElemType::Int8, pool(1, 2, 1, 2));
  CHECK(y.data[0] == 120);
  CHECK(requantize(-15, 0.5f, 127, ElemType::Int8) == 119);
  // And it divides by y_scale: window {4, 5} with scales 0.7f sums to 6.300000190734863,
  // avg 3.1500000953674316, / 0.7f = exactly 4.5 -> 4. Multiplying by f32(1 / 0.7f) =
  // 1.4285714626312256 would give 4.500000476837158 -> 5.
  CHECK(qlinear_average_pool(s8({1, 1, 1, 3}, {4, 5, 0}), q(0.7f, 0), q(0.7f, 0), ElemType::Int8,
                             pool(1, 2, 1, 2))
            .data[0] == 4);
}

TEST_CASE("qlinear_average_pool over the whole image without pads uses the global-pool formula",
          "[reference][qops]") {
  // x = {5, -4, 0, -3}, scales 0.1f. Global formula: integer sum -2 times
  // f32(0.1f / f32(0.1f * 4)) = 0.25 exactly -> -0.5 -> 0 (even).
  const QTensor x = s8({1, 1, 2, 2}, {5, -4, 0, -3});
  CHECK(qlinear_average_pool(x, q(0.1f, 0), q(0.1f, 0), ElemType::Int8, pool(2, 2)).data ==
        Values{0});
  CHECK(qlinear_global_average_pool(x, q(0.1f, 0), q(0.1f, 0), ElemType::Int8).data == Values{0});
  // The same window inside a wider image goes through the float path: dequantised
  // 0.5, -0.40000001, 0, -0.30000001; running float32 sum 0.5, 0.099999994, 0.099999994,
  // -0.20000002; / 4 = -0.050000004; / 0.1f = -0.50000006 -> -1.
  const QTensor wide = s8({1, 1, 2, 3}, {5, -4, 7, 0, -3, 7});
  CHECK(qlinear_average_pool(wide, q(0.1f, 0), q(0.1f, 0), ElemType::Int8, pool(2, 2)).data[0] ==
        -1);
}

TEST_CASE("qlinear_global_average_pool: integer sum times x_scale / (y_scale * H*W), then y_zp",
          "[reference][qops]") {
  // Sum of (x - 128) = 2 + 3 + 4 + 5 = 14; multiplier 1 / (1 * 4) = 0.25; 3.5 -> 4 (even),
  // + 101 = 105 (adding 101 first would round 104.5 to 104).
  const QTensor y = qlinear_global_average_pool(u8({1, 1, 2, 2}, {130, 131, 132, 133}),
                                                q(1.0f, 128), q(1.0f, 101), ElemType::Uint8);
  CHECK(y.shape == Shape{1, 1, 1, 1});
  CHECK(y.data == Values{105});
  // Two channels of two values, multiplier 1 / (0.5 * 2) = 1: sums -7 and 11.
  const QTensor z = qlinear_global_average_pool(s8({1, 2, 1, 2}, {-3, -4, 5, 6}), q(1.0f, 0),
                                                q(0.5f, 0), ElemType::Int8);
  CHECK(z.shape == Shape{1, 2, 1, 1});
  CHECK(z.data == Values{-7, 11});
  // The multiplier is x_scale / (y_scale * HW) in float32: 1.8f = 1.7999999523162842,
  // f32(0.2f * 6) = 1.2000000476837158, 1.8f / that = 1.4999998807907104, so a sum of 1
  // gives 1. (x_scale / y_scale) / HW would be exactly 1.5 and give 2.
  CHECK(qlinear_global_average_pool(s8({1, 1, 2, 3}, {1, 0, 0, 0, 0, 0}), q(1.8f, 0), q(0.2f, 0),
                                    ElemType::Int8)
            .data == Values{1});
}

TEST_CASE("qlinear_add: zero points folded into a float32 constant, two fused multiply-adds",
          "[reference][qops]") {
  // Exact ratios 0.5 and 0.25: 0.5*10 + 0.25*(3-1) = 5.5 -> 6; 0.5*8 + 0.5 = 4.5 -> 4.
  const QTensor a = s8({2}, {10, 8});
  const QTensor b = s8({2}, {3, 3});
  CHECK(qlinear_add(a, q(0.5f, 0), b, q(0.25f, 1), q(1.0f, 0), ElemType::Int8).data ==
        Values{6, 4});
  // The output zero point is inside the constant, so ties are broken after adding it:
  // 6.5 -> 6 and 5.5 -> 6 (rounding first would give 7 and 5).
  CHECK(qlinear_add(a, q(0.5f, 0), b, q(0.25f, 1), q(1.0f, 1), ElemType::Int8).data ==
        Values{6, 6});
  // a = b = -19 with scales 0.1f, 0.2f, 0.6f: exactly -9.5, but in float32
  // ratio_a = f32(0.1f / 0.6f) = 0.1666666567325592, ratio_b = 0.3333333134651184,
  // fma(-19, ratio_b, 0) = -6.3333330154418945, fma(-19, ratio_a, that) = -9.499999046 -> -9.
  CHECK(qlinear_add(s8({1}, {-19}), q(0.1f, 0), s8({1}, {-19}), q(0.2f, 0), q(0.6f, 0),
                    ElemType::Int8)
            .data == Values{-9});
  // The zero-point constant is itself a fused multiply-add (as ORT's released x86-64 binary
  // computes it): a = 150, b = 143 (uint8), scales 0.45f, 0.15f, 0.3f, zero points 163,
  // 157, 171. Exactly: 1.5 * (150 - 163) + 0.5 * (143 - 157) + 171 = 144.5 -> 144. In
  // float32: ratio_a = 1.4999998807907104, ratio_b = 0.5, ratio_b * 157 = 78.5,
  // fma(ratio_a, 163, 78.5) = 322.9999694824219 (two roundings would give 323),
  // fixed = 171 - that = -151.99996948242188, fma(143, 0.5, fixed) = -80.49996948242188,
  // fma(150, ratio_a, that) = 144.50001525878906 -> 145.
  CHECK(qlinear_add(u8({1}, {150}), q(0.45f, 163), u8({1}, {143}), q(0.15f, 157), q(0.3f, 171),
                    ElemType::Uint8)
            .data == Values{145});
  // b's product goes in first: a = 7, b = 2, scales 0.1f, 0.1f, 0.6f is exactly 1.5 (-> 2),
  // but with ratio = f32(0.1f / 0.6f) = 0.1666666567325592, fma(2, ratio, 0) =
  // 0.3333333134651184 and fma(7, ratio, that) = 1.4999998807907104 -> 1 (a's product first
  // would give 1.5 -> 2).
  CHECK(qlinear_add(s8({1}, {7}), q(0.1f, 0), s8({1}, {2}), q(0.1f, 0), q(0.6f, 0), ElemType::Int8)
            .data == Values{1});
  // Saturation at both ends.
  CHECK(qlinear_add(s8({2}, {127, -128}), q(1.0f, 0), s8({2}, {127, -128}), q(1.0f, 0), q(1.0f, 0),
                    ElemType::Int8)
            .data == Values{127, -128});
  CHECK(qlinear_add(u8({2}, {255, 0}), q(1.0f, 128), u8({2}, {255, 0}), q(1.0f, 128), q(1.0f, 128),
                    ElemType::Uint8)
            .data == Values{255, 0});
}

TEST_CASE("qlinear_concat requantises each input with its own scale and copies matching ones",
          "[reference][qops]") {
  // x0 shares the output's scale 1 and zero point 0: copied. x1 (scale 0.5, zp 1):
  // (3-1)*0.5 = 1, (4-1)*0.5 = 1.5 -> 2, (2-1)*0.5 = 0.5 -> 0.
  const std::vector<QTensor> xs{s8({1, 2}, {1, 2}), s8({1, 3}, {3, 4, 2})};
  const std::vector<Quant> qs{q(1.0f, 0), q(0.5f, 1)};
  QTensor y = qlinear_concat(xs, qs, q(1.0f, 0), ElemType::Int8, 1);
  CHECK(y.shape == Shape{1, 5});
  CHECK(y.data == Values{1, 2, 1, 2, 0});
  // Output zero point 7 joins after rounding (QuantizeLinear): 1+7, 2+7, 1+7, 2+7, 0+7.
  y = qlinear_concat(xs, qs, q(1.0f, 7), ElemType::Int8, 1);
  CHECK(y.data == Values{8, 9, 8, 9, 7});
  // QuantizeLinear divides the dequantised float32 by y_scale: f32(0.1f * 13) =
  // 1.3000000715255737, / 0.2f = 6.500000476837158 -> 7 (13 * f32(0.1f / 0.2f) = 6.5 -> 6).
  // f32(0.1f * 45) = 4.5, / 0.6f = 7.499999523162842 -> 7 (4.5 * f32(1 / 0.6f) = 7.5 -> 8).
  CHECK(qlinear_concat({s8({1}, {13})}, {q(0.1f, 0)}, q(0.2f, 0), ElemType::Int8, 0).data ==
        Values{7});
  CHECK(quantize_linear(0.1f * 13.0f, 0.2f, 0, ElemType::Int8) == 7);
  CHECK(quantize_linear(0.1f * 45.0f, 0.6f, 0, ElemType::Int8) == 7);
  // Axis 1 interleaves rows, axis 0 stacks them.
  const std::vector<QTensor> cols{s8({2, 1}, {1, 2}), s8({2, 1}, {3, 4})};
  const std::vector<Quant> same{q(1.0f, 0), q(1.0f, 0)};
  CHECK(qlinear_concat(cols, same, q(1.0f, 0), ElemType::Int8, 1).data == Values{1, 3, 2, 4});
  y = qlinear_concat(cols, same, q(1.0f, 0), ElemType::Int8, 0);
  CHECK(y.shape == Shape{4, 1});
  CHECK(y.data == Values{1, 2, 3, 4});
}

TEST_CASE("gather picks whole slices on its axis by index, negative indices from the end",
          "[reference][qops]") {
  // x is [2, 3, 2]: x[a][b][c] = 100a + 10b + c. Axis 1, indices {2, 0, -1, 2}:
  // slices b = 2, 0, 2, 2 of each a, each holding its 2 values of c.
  Values v;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 2; ++c) v.push_back(100 * a + 10 * b + c);
  const QTensor x = s8({2, 3, 2}, v);
  QTensor y = gather(x, 1, {2, 0, -1, 2});
  CHECK(y.shape == Shape{2, 4, 2});
  CHECK(y.data == Values{20, 21, 0, 1, 20, 21, 20, 21, 120, 121, 100, 101, 120, 121, 120, 121});
  // Axis 2 (the last) tells the slice length from the outer count: {1} keeps c = 1.
  y = gather(x, 2, {1});
  CHECK(y.shape == Shape{2, 3, 1});
  CHECK(y.data == Values{1, 11, 21, 101, 111, 121});
  CHECK_THROWS_AS(gather(x, 1, {3}), std::invalid_argument);
  CHECK_THROWS_AS(gather(x, 1, {-4}), std::invalid_argument);
}

TEST_CASE(
    "resize_nearest by whole factors repeats each row scale_h times and each column scale_w "
    "times, in ONNX's default modes and in torch's",
    "[reference][qops]") {
  // x is [1, 1, 2, 3] = {1 2 3 / 4 5 6}; scales 2 (rows) and 1 (columns) tell the axes apart.
  const QTensor x = s8({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  for (const char* coordinates : {"half_pixel", "asymmetric"}) {
    const std::string rounding =
        coordinates == std::string("half_pixel") ? "round_prefer_floor" : "floor";
    QTensor y = resize_nearest(x, {4, 3, 2.0f, 1.0f}, coordinates, rounding);
    CHECK(y.shape == Shape{1, 1, 4, 3});
    CHECK(y.data == Values{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
    y = resize_nearest(x, {2, 6, 1.0f, 2.0f}, coordinates, rounding);
    CHECK(y.shape == Shape{1, 1, 2, 6});
    CHECK(y.data == Values{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6});
  }
  CHECK_THROWS_AS(resize_nearest(x, {0, 3, 1.0f, 1.0f}, "half_pixel", "floor"),
                  std::invalid_argument);
  CHECK_THROWS_AS(resize_nearest(x, {2, 3, 1.0f, 0.0f}, "half_pixel", "floor"),
                  std::invalid_argument);
  CHECK_THROWS_AS(resize_nearest(x, {4, 3, 2.0f, 1.0f}, "tf_crop_and_resize", "floor"),
                  std::invalid_argument);
  CHECK_THROWS_AS(resize_nearest(x, {4, 3, 2.0f, 1.0f}, "half_pixel", "simple"),
                  std::invalid_argument);
}

TEST_CASE("invalid arguments throw std::invalid_argument", "[reference][qops]") {
  const QTensor x = s8({1, 2, 3, 3}, Values(18, 1));
  const QTensor w = s8({2, 2, 3, 3}, Values(36, 1));
  const Quant one = q(1.0f, 0);
  // Weights whose channel count does not match the input / group.
  CHECK_THROWS_AS(conv_integer(x, 0, s8({2, 1, 3, 3}, Values(18, 1)), {0}, ConvAttrs{}),
                  std::invalid_argument);
  // Kernel larger than the padded input.
  CHECK_THROWS_AS(conv_integer(s8({1, 2, 2, 2}, Values(8, 1)), 0, w, {0}, ConvAttrs{}),
                  std::invalid_argument);
  // Zero points: wrong count, outside the type.
  CHECK_THROWS_AS(conv_integer(x, 0, w, {0, 0, 0}, ConvAttrs{}), std::invalid_argument);
  CHECK_THROWS_AS(conv_integer(x, 200, w, {0}, ConvAttrs{}), std::invalid_argument);
  // A value outside its type; data not matching the shape.
  CHECK_THROWS_AS(conv_integer(s8({1, 2, 3, 3}, Values(18, 300)), 0, w, {0}, ConvAttrs{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(conv_integer(s8({1, 2, 3, 3}, Values(17, 1)), 0, w, {0}, ConvAttrs{}),
                  std::invalid_argument);
  // Scales must be positive and finite; one x scale; bias of K values; 8-bit output type.
  CHECK_THROWS_AS(qlinear_conv(x, q(0.0f, 0), w, one, {}, one, ElemType::Int8, ConvAttrs{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      qlinear_conv(x, Quant{{1.0f, 1.0f}, {0, 0}}, w, one, {}, one, ElemType::Int8, ConvAttrs{}),
      std::invalid_argument);
  CHECK_THROWS_AS(qlinear_conv(x, one, w, one, {1, 2, 3}, one, ElemType::Int8, ConvAttrs{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(qlinear_conv(x, one, w, one, {}, one, ElemType::Int32, ConvAttrs{}),
                  std::invalid_argument);
  // Matmul inner dimensions.
  CHECK_THROWS_AS(matmul_integer(s8({2, 3}, Values(6, 1)), 0, s8({2, 2}, Values(4, 1)), {0}),
                  std::invalid_argument);
  // Pools: pads not smaller than the kernel (ORT refuses those models); avg pool dilation.
  PoolAttrs p = pool(2, 2);
  p.pads[0] = 2;
  CHECK_THROWS_AS(max_pool(x, p), std::invalid_argument);
  PoolAttrs d = pool(2, 2);
  d.dilation[0] = 2;
  CHECK_THROWS_AS(qlinear_average_pool(x, one, one, ElemType::Int8, d), std::invalid_argument);
  CHECK_THROWS_AS(qlinear_average_pool(x, one, one, ElemType::Uint8, pool(2, 2)),
                  std::invalid_argument);
  // Add: shapes and types must match. Concat: axis, shapes off the axis, types.
  CHECK_THROWS_AS(qlinear_add(s8({2}, {1, 2}), one, s8({3}, {1, 2, 3}), one, one, ElemType::Int8),
                  std::invalid_argument);
  CHECK_THROWS_AS(qlinear_add(s8({1}, {1}), one, u8({1}, {1}), one, one, ElemType::Int8),
                  std::invalid_argument);
  CHECK_THROWS_AS(qlinear_concat({s8({1, 2}, {1, 2})}, {one}, one, ElemType::Int8, 2),
                  std::invalid_argument);
  CHECK_THROWS_AS(qlinear_concat({s8({1, 2}, {1, 2}), s8({2, 2}, Values(4, 1))}, {one, one}, one,
                                 ElemType::Int8, 1),
                  std::invalid_argument);
  CHECK_THROWS_AS(qlinear_concat({s8({1, 2}, {1, 2})}, {one, one}, one, ElemType::Int8, 1),
                  std::invalid_argument);
  // An empty clamp range.
  CHECK_THROWS_AS(requantize(1, 1.0f, 0, ElemType::Int8, Clamp{5, 4}), std::invalid_argument);
}
