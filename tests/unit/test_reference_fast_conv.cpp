// The reference's fast convolution and matmul (a GEMM over an im2col matrix of the centred
// input, int32 accumulation up to 33025 taps) against its direct loops (one int64 product per
// tap), on seeded random shapes, at every GEMM level the CPU runs: every sum must be identical.
// sim/reference/qconv.cpp says why int32 is exact; docs/quantization.md defines the sums.
#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/reference/gemm_s16.h"
#include "sim/reference/qops.h"

using namespace npusim::reference::qops;

namespace {

// splitmix64: the same sequence on every platform and standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  int32_t range(int32_t lo, int32_t hi) {
    return lo + int32_t(next() % uint64_t(int64_t(hi) - lo + 1));
  }
  bool chance(int percent) { return range(0, 99) < percent; }

 private:
  uint64_t state_;
};

ElemType random_type(Rng& rng) { return rng.chance(50) ? ElemType::Uint8 : ElemType::Int8; }

// A value of type t, a quarter of them at the type's extremes (the largest 9-bit operands).
int32_t random_value(Rng& rng, ElemType t) {
  if (rng.chance(25)) return rng.chance(50) ? type_min(t) : type_max(t);
  return rng.range(type_min(t), type_max(t));
}

QTensor random_tensor(Rng& rng, ElemType t, std::vector<uint32_t> shape) {
  uint64_t count = 1;
  for (uint32_t d : shape) count *= d;
  QTensor q{std::move(shape), std::vector<int32_t>(count), t};
  for (int32_t& v : q.data) v = random_value(rng, t);
  return q;
}

// Zero points: per tensor, or one per output channel (half the time each).
std::vector<int32_t> random_zero_points(Rng& rng, ElemType t, uint32_t channels) {
  std::vector<int32_t> zp(rng.chance(50) ? 1 : channels);
  for (int32_t& z : zp) z = random_value(rng, t);
  return zp;
}

struct ConvCase {
  QTensor x, w;
  int32_t x_zp = 0;
  std::vector<int32_t> w_zp;
  ConvAttrs a;
};

std::string describe(const ConvCase& c) {
  std::ostringstream os;
  os << "x " << type_name(c.x.type) << " [" << c.x.shape[0] << "," << c.x.shape[1] << ","
     << c.x.shape[2] << "," << c.x.shape[3] << "] zp " << c.x_zp << ", w " << type_name(c.w.type)
     << " [" << c.w.shape[0] << "," << c.w.shape[1] << "," << c.w.shape[2] << "," << c.w.shape[3]
     << "] " << c.w_zp.size() << " zp, group " << c.a.group << ", stride " << c.a.stride[0] << "x"
     << c.a.stride[1] << ", dilation " << c.a.dilation[0] << "x" << c.a.dilation[1] << ", pads "
     << c.a.pads[0] << "," << c.a.pads[1] << "," << c.a.pads[2] << "," << c.a.pads[3];
  return os.str();
}

// A random convolution with at least one output pixel. Groups are 1, 2 or C (depthwise, with
// a channel multiplier), channel counts often odd, kernels 1..4 per axis, strides and
// dilations 1..3 per axis, each pad 0..(effective kernel + 1) so some pads reach past the
// kernel, 1x1 inputs now and then, and a few planes of 16..40 pixels a side.
ConvCase random_conv(Rng& rng) {
  ConvCase c;
  const uint32_t N = uint32_t(rng.range(1, 3));
  uint32_t group = 1, Cg = 1;
  switch (rng.range(0, 2)) {
    case 0:
      Cg = uint32_t(rng.range(1, 7));
      break;
    case 1:
      group = 2, Cg = uint32_t(rng.range(1, 5));
      break;
    default:
      group = uint32_t(rng.range(1, 7)), Cg = 1;  // depthwise: group = C
      break;
  }
  const uint32_t C = group * Cg, K = group * uint32_t(rng.range(1, 3));
  uint32_t H = uint32_t(rng.range(1, 9)), W = uint32_t(rng.range(1, 9));
  if (rng.chance(15)) H = W = 1;
  if (rng.chance(8)) H = uint32_t(rng.range(16, 40)), W = uint32_t(rng.range(16, 40));
  const uint32_t R = uint32_t(rng.range(1, 4)), S = uint32_t(rng.range(1, 4));
  c.a.group = group;
  for (int axis = 0; axis < 2; ++axis) {
    c.a.stride[axis] = uint32_t(rng.range(1, 3));
    c.a.dilation[axis] = uint32_t(rng.range(1, 3));
  }
  const uint32_t span[2] = {(R - 1) * c.a.dilation[0] + 1, (S - 1) * c.a.dilation[1] + 1};
  for (int i = 0; i < 4; ++i) c.a.pads[i] = uint32_t(rng.range(0, int32_t(span[i % 2]) + 1));
  // At least one window must fit: H + top + bottom >= span (likewise for W).
  if (H + c.a.pads[0] + c.a.pads[2] < span[0]) c.a.pads[2] = span[0] - H - c.a.pads[0];
  if (W + c.a.pads[1] + c.a.pads[3] < span[1]) c.a.pads[3] = span[1] - W - c.a.pads[1];
  const ElemType xt = random_type(rng), wt = random_type(rng);
  c.x = random_tensor(rng, xt, {N, C, H, W});
  c.x_zp = random_value(rng, xt);
  c.w = random_tensor(rng, wt, {K, Cg, R, S});
  c.w_zp = random_zero_points(rng, wt, K);
  return c;
}

std::vector<int64_t> fast(const ConvCase& c) {
  return detail::conv_accumulate(c.x, c.x_zp, c.w, c.w_zp, c.a);
}
std::vector<int64_t> naive(const ConvCase& c) {
  return detail::conv_accumulate_naive(c.x, c.x_zp, c.w, c.w_zp, c.a);
}

// One input channel of `taps` values against one filter, every product (255 - 0) *
// (-128 - 127) = -65025: the most negative sum `taps` taps can make.
ConvCase extreme_conv(uint32_t taps) {
  ConvCase c;
  c.x = QTensor{{1, taps, 1, 1}, std::vector<int32_t>(taps, 255), ElemType::Uint8};
  c.x_zp = 0;
  c.w = QTensor{{1, taps, 1, 1}, std::vector<int32_t>(taps, -128), ElemType::Int8};
  c.w_zp = {127};
  return c;
}

// Sets each supported GEMM level in turn and restores the automatic choice at the end.
template <typename Body>
void at_every_level(Body body) {
  const npusim::reference::GemmLevel automatic = npusim::reference::gemm_level();
  for (npusim::reference::GemmLevel level : npusim::reference::supported_gemm_levels()) {
    npusim::reference::set_gemm_level(level);
    INFO("GEMM level " << npusim::reference::to_string(level));
    body();
  }
  npusim::reference::set_gemm_level(automatic);
}

}  // namespace

TEST_CASE(
    "the im2col GEMM convolution gives exactly the direct loops' sums on 200 random shapes "
    "(groups 1, 2 and C, strides and dilations 1-3, asymmetric pads, some past the kernel, 1x1 "
    "inputs, uint8 and int8, per-tensor and per-channel zero points, N up to 3) at every GEMM "
    "level",
    "[reference][qops][fast_conv]") {
  Rng rng(20240611);
  int depthwise = 0, grouped = 0, one_by_one = 0, wide_pads = 0, per_channel = 0, large = 0;
  for (int i = 0; i < 200; ++i) {
    const ConvCase c = random_conv(rng);
    INFO("case " << i << ": " << describe(c));
    const std::vector<int64_t> want = naive(c);
    at_every_level([&] { REQUIRE(fast(c) == want); });
    const uint32_t C = c.x.shape[1], R = c.w.shape[2], S = c.w.shape[3];
    depthwise += c.a.group == C && C > 2;
    grouped += c.a.group == 2;
    one_by_one += c.x.shape[2] == 1 && c.x.shape[3] == 1;
    wide_pads += c.a.pads[0] >= R || c.a.pads[1] >= S || c.a.pads[2] >= R || c.a.pads[3] >= S;
    per_channel += c.w_zp.size() > 1;
    large += want.size() / (size_t(c.x.shape[0]) * c.w.shape[0]) > 256;
  }
  // The generator really produced each kind of case.
  CHECK(depthwise >= 10);
  CHECK(grouped >= 10);
  CHECK(one_by_one >= 10);
  CHECK(wide_pads >= 10);
  CHECK(per_channel >= 10);
  CHECK(large >= 3);
}

TEST_CASE(
    "an output plane spanning several GEMM panels, with a partial last panel, is exact at every "
    "level",
    "[reference][qops][fast_conv]") {
  Rng rng(7);
  // 64 channels x 3 x 3 = 576 int16 taps a row, so a 128 KiB panel holds 113 pixels: 113, 114,
  // 512 and 529 output pixels are one whole panel, one and one pixel, four and 60, four and 77.
  const uint32_t sizes[][2] = {{1, 113}, {1, 114}, {16, 32}, {23, 23}};
  for (const auto& hw : sizes) {
    ConvCase c;
    c.x = random_tensor(rng, ElemType::Uint8, {2, 64, hw[0] + 2, hw[1] + 2});
    c.x_zp = 131;
    c.w = random_tensor(rng, ElemType::Int8, {5, 64, 3, 3});
    c.w_zp = random_zero_points(rng, ElemType::Int8, 5);
    INFO(describe(c));
    const std::vector<int64_t> want = naive(c);
    REQUIRE(want.size() == size_t(2) * 5 * hw[0] * hw[1]);
    at_every_level([&] { CHECK(fast(c) == want); });
  }
}

TEST_CASE("the int32 GEMM is exact at its limit of 33025 taps of the largest 9-bit products",
          "[reference][qops][fast_conv]") {
  const ConvCase c = extreme_conv(33025);
  const std::vector<int64_t> want{-int64_t(33025) * 65025};  // -2147450625 > INT32_MIN
  CHECK(naive(c) == want);
  at_every_level([&] { CHECK(fast(c) == want); });
  CHECK(conv_integer(c.x, c.x_zp, c.w, c.w_zp, c.a).data == std::vector<int32_t>{-2147450625});
}

TEST_CASE(
    "past 33025 taps the GEMM accumulates in int64: exact sums, and conv_integer throws on a "
    "sum outside int32",
    "[reference][qops][fast_conv]") {
  const ConvCase c = extreme_conv(33027);
  const std::vector<int64_t> want{-int64_t(33027) * 65025};  // -2147580675 < INT32_MIN
  CHECK(naive(c) == want);
  CHECK(fast(c) == want);
  CHECK_THROWS_AS(conv_integer(c.x, c.x_zp, c.w, c.w_zp, c.a), std::invalid_argument);
  // Random long sums (int64 path) over a few pixels and channels match the direct loops.
  Rng rng(99);
  ConvCase r;
  r.x = random_tensor(rng, ElemType::Int8, {1, 3700, 4, 3});
  r.x_zp = -5;
  r.w = random_tensor(rng, ElemType::Uint8, {3, 3700, 3, 3});  // 33300 taps
  r.w_zp = random_zero_points(rng, ElemType::Uint8, 3);
  r.a.pads[0] = r.a.pads[1] = r.a.pads[2] = r.a.pads[3] = 1;
  INFO(describe(r));
  CHECK(fast(r) == naive(r));
}

TEST_CASE(
    "the matmul GEMM gives exactly the direct loops' sums on 100 random shapes with per-tensor "
    "and per-column zero points",
    "[reference][qops][fast_conv]") {
  Rng rng(424242);
  for (int i = 0; i < 100; ++i) {
    const uint32_t M = uint32_t(rng.range(1, 9)), K = uint32_t(rng.range(1, 70));
    const uint32_t N = uint32_t(rng.chance(10) ? rng.range(250, 600) : rng.range(1, 40));
    const ElemType at = random_type(rng), bt = random_type(rng);
    const QTensor a = random_tensor(rng, at, {M, K}), b = random_tensor(rng, bt, {K, N});
    const int32_t a_zp = random_value(rng, at);
    const std::vector<int32_t> b_zp = random_zero_points(rng, bt, N);
    INFO("case " << i << ": a " << type_name(at) << " [" << M << "," << K << "] zp " << a_zp
                 << ", b " << type_name(bt) << " [" << K << "," << N << "] " << b_zp.size()
                 << " zp");
    const std::vector<int64_t> want = detail::matmul_accumulate_naive(a, a_zp, b, b_zp);
    at_every_level([&] { REQUIRE(detail::matmul_accumulate(a, a_zp, b, b_zp) == want); });
  }
}

TEST_CASE(
    "the matmul GEMM is exact on both sides of 33025 terms, and matmul_integer throws past int32",
    "[reference][qops][fast_conv]") {
  for (uint32_t K : {33025u, 33027u}) {
    const QTensor a{{1, K}, std::vector<int32_t>(K, 255), ElemType::Uint8};
    const QTensor b{{K, 2}, std::vector<int32_t>(size_t(K) * 2, -128), ElemType::Int8};
    const std::vector<int32_t> b_zp{127, -128};  // column 1 is all zeros after centring
    const std::vector<int64_t> want{-int64_t(K) * 65025, 0};
    CHECK(detail::matmul_accumulate_naive(a, 0, b, b_zp) == want);
    CHECK(detail::matmul_accumulate(a, 0, b, b_zp) == want);
    if (K == 33025)
      CHECK(matmul_integer(a, 0, b, b_zp).data == std::vector<int32_t>{-2147450625, 0});
    else
      CHECK_THROWS_AS(matmul_integer(a, 0, b, b_zp), std::invalid_argument);
  }
}
