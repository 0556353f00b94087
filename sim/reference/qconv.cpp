// ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul (docs/quantization.md).
// Direct loops over logical NCHW tensors and [K, C/group, R, S] weights. A padding tap
// reads the input zero point, exactly as if the input had been padded with it, so it
// contributes (x_zp - x_zp) * (w - w_zp) = 0. Accumulation is exact (int64), and a
// result that would not fit ONNX Runtime's int32 accumulator is an error, not a wrap.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

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
std::vector<int64_t> conv_accumulate(const ConvGeometry& g, const QTensor& x, int32_t x_zp,
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

// acc[m, n] = sum over k of (a[m, k] - a_zp) * (b[k, n] - b_zp[n]).
std::vector<int64_t> matmul_accumulate(const MatMulGeometry& g, const QTensor& a, int32_t a_zp,
                                       const QTensor& b, const std::vector<int32_t>& b_zp) {
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

// multiplier = in_scale * w_scale / out_scale in float32, in that order (ORT's
// ComputeOutputScale: (X_scale * W_scale[i]) / Y_scale).
float output_multiplier(float in_scale, float w_scale, float out_scale) {
  return detail::f32(detail::f32(in_scale * w_scale) / out_scale);
}

}  // namespace

QTensor conv_integer(const QTensor& x, int32_t x_zp, const QTensor& w,
                     const std::vector<int32_t>& w_zp, const ConvAttrs& a) {
  const char* op = "conv_integer";
  const ConvGeometry g = conv_geometry(op, x, w, a);
  detail::check_zero_point(op, "x", x_zp, x.type);
  const std::vector<int32_t> wzp = detail::channel_zero_points(op, "w", w_zp, w.type, g.K);
  const std::vector<int64_t> acc = conv_accumulate(g, x, x_zp, w, wzp, a);
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
  const std::vector<int64_t> acc = conv_accumulate(g, x, xs.zero_point, w, wzp, a);
  QTensor y{{g.N, g.K, g.Ho, g.Wo}, std::vector<int32_t>(acc.size()), y_type};
  const size_t plane = size_t(g.Ho) * g.Wo;
  for (size_t i = 0; i < acc.size(); ++i) {
    const uint32_t k = uint32_t((i / plane) % g.K);
    const int32_t total = to_int32(op, acc[i] + (bias.empty() ? 0 : bias[k]));
    y.data[i] = requantize(total, output_multiplier(xs.scale, ws[k], ys.scale), ys.zero_point,
                           y_type, clamp);
  }
  return y;
}

QTensor matmul_integer(const QTensor& a, int32_t a_zp, const QTensor& b,
                       const std::vector<int32_t>& b_zp) {
  const char* op = "matmul_integer";
  const MatMulGeometry g = matmul_geometry(op, a, b);
  detail::check_zero_point(op, "a", a_zp, a.type);
  const std::vector<int32_t> bzp = detail::channel_zero_points(op, "b", b_zp, b.type, g.N);
  const std::vector<int64_t> acc = matmul_accumulate(g, a, a_zp, b, bzp);
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
  const std::vector<int64_t> acc = matmul_accumulate(g, a, as.zero_point, b, bzp);
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
