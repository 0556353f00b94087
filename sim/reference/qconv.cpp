// ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul (docs/quantization.md).
// Logical NCHW tensors and [K, C/group, R, S] weights. A padding tap reads the input zero
// point, exactly as if the input had been padded with it, so it contributes
// (x_zp - x_zp) * (w - w_zp) = 0. Accumulation is exact, and a result that would not fit
// ONNX Runtime's int32 accumulator is an error, not a wrap.
//
// The convolution is computed as a GEMM per image and group (gemm_s16.h): an im2col matrix of
// the centred input, one row per output pixel p = (oy, ox) holding its taps j = (c, r, s) in the
// weights' OIHW order, times the centred weights [Kg, Cg*R*S]. Every operand (x - x_zp, w - w_zp)
// lies in -255..255, so int16 holds it exactly and each product is at most 255*255 = 65025 in
// magnitude; any partial sum of J such products is then below 2^31 while J <= 33025, and the
// int32 accumulator is exact (kInt32Taps). Longer sums are cut into pieces of that many taps
// and added in int64. The direct
// loops (conv_accumulate_naive, matmul_accumulate_naive) are kept as the definition the GEMM
// is tested against (tests/unit/test_reference_fast_conv.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/reference/gemm_s16.h"
#include "sim/reference/qops.h"

namespace npusim::reference::qops {
namespace {

using detail::fail;

struct ConvGeometry {
  uint32_t N, C, H, W;   // input
  uint32_t K, Cg, R, S;  // weights: K output channels, Cg = C / group inputs each
  uint32_t Kg;           // output channels per group
  uint32_t Ho, Wo;       // output
};

ConvGeometry conv_geometry(const char* op, const QTensor& x, const QTensor& w, const ConvAttrs& a) {
  detail::check_tensor(op, "x", x, 4);
  detail::check_tensor(op, "w", w, 4);
  ConvGeometry g{};
  g.N = x.shape[0], g.C = x.shape[1], g.H = x.shape[2], g.W = x.shape[3];
  g.K = w.shape[0], g.Cg = w.shape[1], g.R = w.shape[2], g.S = w.shape[3];
  if (a.group == 0) fail(op, "group must be >= 1");
  if (g.C % a.group != 0)
    fail(op, "group " + std::to_string(a.group) + " does not divide the " + std::to_string(g.C) +
                 " input channels");
  if (g.K % a.group != 0)
    fail(op, "group " + std::to_string(a.group) + " does not divide the " + std::to_string(g.K) +
                 " output channels");
  if (g.Cg != g.C / a.group)
    fail(op, "weights " + detail::dims(w.shape) + " need " + std::to_string(g.C / a.group) +
                 " input channels per group (input " + detail::dims(x.shape) + ", group " +
                 std::to_string(a.group) + ")");
  if (g.K == 0 || g.R == 0 || g.S == 0) fail(op, "empty weights " + detail::dims(w.shape));
  g.Kg = g.K / a.group;
  try {
    g.Ho = pooled_size(g.H, g.R, a.stride[0], a.dilation[0], a.pads[0], a.pads[2], false);
    g.Wo = pooled_size(g.W, g.S, a.stride[1], a.dilation[1], a.pads[1], a.pads[3], false);
  } catch (const std::invalid_argument& e) {
    fail(op, std::string(e.what()) + " (input " + detail::dims(x.shape) + ", weights " +
                 detail::dims(w.shape) + ")");
  }
  return g;
}

int32_t to_int32(const char* op, int64_t acc) {
  if (acc < INT32_MIN || acc > INT32_MAX)
    fail(op, "accumulator " + std::to_string(acc) + " overflows int32");
  return int32_t(acc);
}

// acc[n, k, oy, ox] = sum over the group's input channels c and taps (r, s) of
//   (xv - x_zp) * (w[k, c, r, s] - w_zp[k]),
// xv = x[n, g*Cg + c, oy*sh - pad_top + r*dh, ox*sw - pad_left + s*dw], or x_zp outside.
// The direct loops, one int64 product per tap: the definition the GEMM is checked against.
std::vector<int64_t> conv_accumulate_direct(const ConvGeometry& g, const QTensor& x, int32_t x_zp,
                                            const QTensor& w, const std::vector<int32_t>& w_zp,
                                            const ConvAttrs& a) {
  std::vector<int64_t> acc(size_t(g.N) * g.K * g.Ho * g.Wo, 0);
  for (uint32_t n = 0; n < g.N; ++n)
    for (uint32_t k = 0; k < g.K; ++k) {
      const uint32_t group = k / g.Kg;
      for (uint32_t oy = 0; oy < g.Ho; ++oy)
        for (uint32_t ox = 0; ox < g.Wo; ++ox) {
          int64_t sum = 0;
          for (uint32_t c = 0; c < g.Cg; ++c) {
            const uint32_t ci = group * g.Cg + c;
            for (uint32_t r = 0; r < g.R; ++r)
              for (uint32_t s = 0; s < g.S; ++s) {
                const int64_t iy =
                    int64_t(oy) * a.stride[0] - a.pads[0] + int64_t(r) * a.dilation[0];
                const int64_t ix =
                    int64_t(ox) * a.stride[1] - a.pads[1] + int64_t(s) * a.dilation[1];
                const bool inside = iy >= 0 && iy < g.H && ix >= 0 && ix < g.W;
                const int32_t xv =
                    inside ? x.data[((size_t(n) * g.C + ci) * g.H + size_t(iy)) * g.W + size_t(ix)]
                           : x_zp;  // the padding holds the input zero point
                const int32_t wv = w.data[((size_t(k) * g.Cg + c) * g.R + r) * g.S + s];
                sum += int64_t(xv - x_zp) * int64_t(wv - w_zp[k]);
              }
          }
          acc[((size_t(n) * g.K + k) * g.Ho + oy) * g.Wo + ox] = sum;
        }
    }
  return acc;
}

// The longest sum the int32 accumulator holds exactly: every operand (x - x_zp, w - w_zp)
// lies in -255..255, so a product is at most 65025 in magnitude and any partial sum of J
// products at most J * 65025, which stays below 2^31 up to J = 33025.
constexpr size_t kInt32Taps = 33025;
static_assert(int64_t(kInt32Taps) * 255 * 255 <= INT32_MAX, "int32 accumulation must be exact");
static_assert(int64_t(kInt32Taps + 1) * 255 * 255 > INT32_MAX, "kInt32Taps is the largest");

// Rows of the lowered matrix per GEMM panel: about 128 KiB of int16, so the panel stays in the
// L2 cache while every block of output channels passes over it; at least 2.
size_t panel_rows(size_t taps, size_t rows) {
  constexpr size_t kPanelBytes = 128 * 1024;
  return std::min(rows, std::max<size_t>(2, kPanelBytes / (std::max<size_t>(taps, 1) * 2)));
}

// acc[p * acc_p + k * acc_k] = sum over j < J of L[p][j] * W[k][j] (rows J long, contiguous),
// exactly: gemm_s16 sums at most kInt32Taps products at a time in int32 (exact, as above), and
// the pieces of a longer sum are added here in int64.
void exact_gemm(const int16_t* L, size_t P, const int16_t* W, size_t K, size_t J, int64_t* acc,
                size_t acc_p, size_t acc_k, std::vector<int32_t>& scratch) {
  scratch.resize(P * K);
  for (size_t j0 = 0; j0 == 0 || j0 < J; j0 += kInt32Taps) {
    const size_t len = std::min(kInt32Taps, J - j0);
    gemm_s16({L + j0, P, J, W + j0, K, J, len, scratch.data(), K, 1});
    for (size_t p = 0; p < P; ++p)
      for (size_t k = 0; k < K; ++k) {
        int64_t& a = acc[p * acc_p + k * acc_k];
        a = (j0 == 0 ? 0 : a) + scratch[p * K + k];
      }
  }
}

// The same sums as conv_accumulate_direct, as one GEMM per image n and group:
//   acc[n, group*Kg + k, p] = sum over j of col[p, j] * wc[k, j]
// with j = (c, r, s) in the weights' OIHW order, p = oy * Wo + ox,
//   wc[k, j]  = w[group*Kg + k, c, r, s] - w_zp[group*Kg + k]
//   col[p, j] = x[n, group*Cg + c, iy, ix] - x_zp, iy = oy*sh - pad_top + r*dh,
//               ix = ox*sw - pad_left + s*dw, and 0 where (iy, ix) is outside the input
// (the padding holds x_zp). The lowered rows col[p] are built a panel of pixels at a time.
std::vector<int64_t> conv_accumulate_gemm(const ConvGeometry& g, const QTensor& x, int32_t x_zp,
                                          const QTensor& w, const std::vector<int32_t>& w_zp,
                                          const ConvAttrs& a) {
  const size_t J = size_t(g.Cg) * g.R * g.S;  // taps per output value
  const size_t P = size_t(g.Ho) * g.Wo;       // output pixels per image
  std::vector<int16_t> wc(size_t(g.K) * J);   // [K, J], row k = w[k] - w_zp[k]
  for (size_t k = 0; k < g.K; ++k)
    for (size_t j = 0; j < J; ++j) wc[k * J + j] = int16_t(w.data[k * J + j] - w_zp[k]);

  std::vector<int64_t> acc(size_t(g.N) * g.K * P, 0);  // [N, K, P]
  if (P == 0) return acc;
  const size_t panel = panel_rows(J, P);
  std::vector<int16_t> col(panel * J);  // [len, J]
  std::vector<int32_t> scratch;
  for (uint32_t n = 0; n < g.N; ++n)
    for (uint32_t group = 0; group < a.group; ++group)
      for (size_t p0 = 0; p0 < P; p0 += panel) {
        const size_t len = std::min(panel, P - p0);
        for (size_t t = 0; t < len; ++t) {
          const int64_t top = int64_t((p0 + t) / g.Wo) * a.stride[0] - a.pads[0];
          const int64_t left = int64_t((p0 + t) % g.Wo) * a.stride[1] - a.pads[1];
          int16_t* row = col.data() + t * J;
          for (uint32_t c = 0; c < g.Cg; ++c) {
            const int32_t* plane =
                x.data.data() + (size_t(n) * g.C + size_t(group) * g.Cg + c) * g.H * g.W;
            for (uint32_t r = 0; r < g.R; ++r, row += g.S) {
              const int64_t iy = top + int64_t(r) * a.dilation[0];
              if (iy < 0 || iy >= g.H) {
                std::fill_n(row, g.S, int16_t(0));
                continue;
              }
              // Taps s in [s_lo, s_hi) read inside the row (0 <= left + s * dw < W); the
              // others are padding.
              const int64_t dw = a.dilation[1];
              const int64_t s_lo = std::min<int64_t>(left >= 0 ? 0 : (-left + dw - 1) / dw, g.S);
              const int64_t s_hi = std::clamp<int64_t>(
                  int64_t(g.W) > left ? (int64_t(g.W) - left + dw - 1) / dw : 0, s_lo, g.S);
              const int32_t* src = plane + size_t(iy) * g.W;
              for (int64_t s = 0; s < s_lo; ++s) row[s] = 0;
              for (int64_t s = s_lo; s < s_hi; ++s) row[s] = int16_t(src[left + s * dw] - x_zp);
              for (int64_t s = s_hi; s < int64_t(g.S); ++s) row[s] = 0;
            }
          }
        }
        exact_gemm(col.data(), len, wc.data() + size_t(group) * g.Kg * J, g.Kg, J,
                   acc.data() + (size_t(n) * g.K + size_t(group) * g.Kg) * P + p0, /*acc_p=*/1,
                   /*acc_k=*/P, scratch);
      }
  return acc;
}

struct MatMulGeometry {
  uint32_t M, K, N;
};

MatMulGeometry matmul_geometry(const char* op, const QTensor& a, const QTensor& b) {
  detail::check_tensor(op, "a", a, 2);
  detail::check_tensor(op, "b", b, 2);
  if (a.shape[1] != b.shape[0])
    fail(op,
         "inner dimensions differ: a " + detail::dims(a.shape) + ", b " + detail::dims(b.shape));
  return {a.shape[0], a.shape[1], b.shape[1]};
}

// acc[m, n] = sum over k of (a[m, k] - a_zp) * (b[k, n] - b_zp[n]), by direct loops.
std::vector<int64_t> matmul_accumulate_direct(const MatMulGeometry& g, const QTensor& a,
                                              int32_t a_zp, const QTensor& b,
                                              const std::vector<int32_t>& b_zp) {
  std::vector<int64_t> acc(size_t(g.M) * g.N, 0);
  for (uint32_t m = 0; m < g.M; ++m)
    for (uint32_t n = 0; n < g.N; ++n) {
      int64_t sum = 0;
      for (uint32_t k = 0; k < g.K; ++k)
        sum += int64_t(a.data[size_t(m) * g.K + k] - a_zp) *
               int64_t(b.data[size_t(k) * g.N + n] - b_zp[n]);
      acc[size_t(m) * g.N + n] = sum;
    }
  return acc;
}

// The same sums as a GEMM of the centred operands, a panel of rows of a at a time:
//   acc[m, n] = sum over k of ac[m, k] * bt[n, k], ac = a - a_zp, bt[n, k] = b[k, n] - b_zp[n].
std::vector<int64_t> matmul_accumulate_gemm(const MatMulGeometry& g, const QTensor& a, int32_t a_zp,
                                            const QTensor& b, const std::vector<int32_t>& b_zp) {
  std::vector<int16_t> ac(size_t(g.M) * g.K), bt(size_t(g.N) * g.K);
  for (size_t i = 0; i < ac.size(); ++i) ac[i] = int16_t(a.data[i] - a_zp);
  for (size_t k = 0; k < g.K; ++k)
    for (size_t n = 0; n < g.N; ++n) bt[n * g.K + k] = int16_t(b.data[k * g.N + n] - b_zp[n]);
  std::vector<int64_t> acc(size_t(g.M) * g.N, 0);
  std::vector<int32_t> scratch;
  const size_t panel = panel_rows(g.K, g.M);
  for (size_t m0 = 0; m0 < g.M; m0 += panel)
    exact_gemm(ac.data() + m0 * g.K, std::min(panel, g.M - m0), bt.data(), g.N, g.K,
               acc.data() + m0 * g.N, /*acc_p=*/g.N, /*acc_k=*/1, scratch);
  return acc;
}

// multiplier = in_scale * w_scale / out_scale in float32, in that order (ORT's
// ComputeOutputScale: (X_scale * W_scale[i]) / Y_scale).
float output_multiplier(float in_scale, float w_scale, float out_scale) {
  return detail::f32(detail::f32(in_scale * w_scale) / out_scale);
}

}  // namespace

// ---- The accumulators on their own, for the tests (qops.h, namespace detail) ----------

namespace detail {

namespace {

struct ConvArgs {
  ConvGeometry g;
  std::vector<int32_t> w_zp;  // one per output channel
};

ConvArgs conv_args(const char* op, const QTensor& x, int32_t x_zp, const QTensor& w,
                   const std::vector<int32_t>& w_zp, const ConvAttrs& a) {
  ConvArgs args{conv_geometry(op, x, w, a), {}};
  check_zero_point(op, "x", x_zp, x.type);
  args.w_zp = channel_zero_points(op, "w", w_zp, w.type, args.g.K);
  return args;
}

struct MatMulArgs {
  MatMulGeometry g;
  std::vector<int32_t> b_zp;  // one per column
};

MatMulArgs matmul_args(const char* op, const QTensor& a, int32_t a_zp, const QTensor& b,
                       const std::vector<int32_t>& b_zp) {
  MatMulArgs args{matmul_geometry(op, a, b), {}};
  check_zero_point(op, "a", a_zp, a.type);
  args.b_zp = channel_zero_points(op, "b", b_zp, b.type, args.g.N);
  return args;
}

}  // namespace

std::vector<int64_t> conv_accumulate(const QTensor& x, int32_t x_zp, const QTensor& w,
                                     const std::vector<int32_t>& w_zp, const ConvAttrs& a) {
  const ConvArgs args = conv_args("conv_accumulate", x, x_zp, w, w_zp, a);
  return conv_accumulate_gemm(args.g, x, x_zp, w, args.w_zp, a);
}

std::vector<int64_t> conv_accumulate_naive(const QTensor& x, int32_t x_zp, const QTensor& w,
                                           const std::vector<int32_t>& w_zp, const ConvAttrs& a) {
  const ConvArgs args = conv_args("conv_accumulate_naive", x, x_zp, w, w_zp, a);
  return conv_accumulate_direct(args.g, x, x_zp, w, args.w_zp, a);
}

std::vector<int64_t> matmul_accumulate(const QTensor& a, int32_t a_zp, const QTensor& b,
                                       const std::vector<int32_t>& b_zp) {
  const MatMulArgs args = matmul_args("matmul_accumulate", a, a_zp, b, b_zp);
  return matmul_accumulate_gemm(args.g, a, a_zp, b, args.b_zp);
}

std::vector<int64_t> matmul_accumulate_naive(const QTensor& a, int32_t a_zp, const QTensor& b,
                                             const std::vector<int32_t>& b_zp) {
  const MatMulArgs args = matmul_args("matmul_accumulate_naive", a, a_zp, b, b_zp);
  return matmul_accumulate_direct(args.g, a, a_zp, b, args.b_zp);
}

}  // namespace detail

QTensor conv_integer(const QTensor& x, int32_t x_zp, const QTensor& w,
                     const std::vector<int32_t>& w_zp, const ConvAttrs& a) {
  const char* op = "conv_integer";
  const ConvGeometry g = conv_geometry(op, x, w, a);
  detail::check_zero_point(op, "x", x_zp, x.type);
  const std::vector<int32_t> wzp = detail::channel_zero_points(op, "w", w_zp, w.type, g.K);
  const std::vector<int64_t> acc = conv_accumulate_gemm(g, x, x_zp, w, wzp, a);
  QTensor y{{g.N, g.K, g.Ho, g.Wo}, std::vector<int32_t>(acc.size()), ElemType::Int32};
  for (size_t i = 0; i < acc.size(); ++i) y.data[i] = to_int32(op, acc[i]);
  return y;
}

QTensor qlinear_conv(const QTensor& x, const Quant& xq, const QTensor& w, const Quant& wq,
                     const std::vector<int32_t>& bias, const Quant& yq, ElemType y_type,
                     const ConvAttrs& a, Clamp clamp) {
  const char* op = "qlinear_conv";
  const ConvGeometry g = conv_geometry(op, x, w, a);
  detail::check_8bit(op, "output type", y_type);
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const std::vector<float> ws = detail::channel_scales(op, "w", wq, g.K);
  const std::vector<int32_t> wzp = detail::channel_zero_points(op, "w", wq.zero_point, w.type, g.K);
  if (!bias.empty() && bias.size() != g.K)
    fail(op, "bias needs " + std::to_string(g.K) + " values, has " + std::to_string(bias.size()));
  const std::vector<int64_t> acc = conv_accumulate_gemm(g, x, xs.zero_point, w, wzp, a);
  QTensor y{{g.N, g.K, g.Ho, g.Wo}, std::vector<int32_t>(acc.size()), y_type};
  const size_t plane = size_t(g.Ho) * g.Wo;
  for (uint32_t n = 0; n < g.N; ++n)
    for (uint32_t k = 0; k < g.K; ++k) {
      const float multiplier = output_multiplier(xs.scale, ws[k], ys.scale);
      const int64_t b = bias.empty() ? 0 : bias[k];
      const size_t begin = (size_t(n) * g.K + k) * plane;
      detail::requantize_run(op, acc.data() + begin, plane, b, multiplier, ys.zero_point, y_type,
                             clamp, y.data.data() + begin);
    }
  return y;
}

QTensor matmul_integer(const QTensor& a, int32_t a_zp, const QTensor& b,
                       const std::vector<int32_t>& b_zp) {
  const char* op = "matmul_integer";
  const MatMulGeometry g = matmul_geometry(op, a, b);
  detail::check_zero_point(op, "a", a_zp, a.type);
  const std::vector<int32_t> bzp = detail::channel_zero_points(op, "b", b_zp, b.type, g.N);
  const std::vector<int64_t> acc = matmul_accumulate_gemm(g, a, a_zp, b, bzp);
  QTensor y{{g.M, g.N}, std::vector<int32_t>(acc.size()), ElemType::Int32};
  for (size_t i = 0; i < acc.size(); ++i) y.data[i] = to_int32(op, acc[i]);
  return y;
}

QTensor qlinear_matmul(const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq,
                       const std::vector<int32_t>& bias, const Quant& yq, ElemType y_type,
                       Clamp clamp) {
  const char* op = "qlinear_matmul";
  const MatMulGeometry g = matmul_geometry(op, a, b);
  detail::check_8bit(op, "output type", y_type);
  const detail::Single as = detail::single(op, "a", aq, a.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const std::vector<float> bs = detail::channel_scales(op, "b", bq, g.N);
  const std::vector<int32_t> bzp = detail::channel_zero_points(op, "b", bq.zero_point, b.type, g.N);
  if (!bias.empty() && bias.size() != g.N)
    fail(op, "bias needs " + std::to_string(g.N) + " values, has " + std::to_string(bias.size()));
  const std::vector<int64_t> acc = matmul_accumulate_gemm(g, a, as.zero_point, b, bzp);
  QTensor y{{g.M, g.N}, std::vector<int32_t>(acc.size()), y_type};
  for (size_t i = 0; i < acc.size(); ++i) {
    const uint32_t n = uint32_t(i % g.N);
    const int32_t total = to_int32(op, acc[i] + (bias.empty() ? 0 : bias[n]));
    y.data[i] = requantize(total, output_multiplier(as.scale, bs[n], ys.scale), ys.zero_point,
                           y_type, clamp);
  }
  return y;
}

}  // namespace npusim::reference::qops
