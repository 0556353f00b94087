// ONNX Resize of an NCHW tensor's rows and columns as ONNX Runtime evaluates
// it (upsamplebase.h, upsample.cc; docs/quantization.md): each output index
// mapped to an input coordinate in float32 by the node's
// coordinate_transformation_mode at the axis' float32 scale; nearest picks an
// input index by its nearest_mode; linear, between DequantizeLinear and
// QuantizeLinear (ONNX Runtime keeps the float Resize there), dequantises the
// input in float32, blends the four neighbours with ONNX Runtime's clamping,
// weights and summation order, and quantises again; cubic the same with the
// 4 x 4 neighbours of ResizeBiCubic (unclamped coordinate, clamped indices).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/reference/qops.h"

namespace npusim::reference::qops {
namespace {

// ONNX Runtime's get_original_coordinate for output index `i` of an axis
// `in` -> `out` long at `scale`; an axis of scale 1 keeps its index.
float original_coordinate(const char* op, const std::string& mode, uint32_t i, uint32_t in,
                          uint32_t out, float scale) {
  const float resized = float(i);
  if (scale == 1.0f) return resized;
  if (mode == "half_pixel") return detail::f32(detail::f32(resized + 0.5f) / scale) - 0.5f;
  if (mode == "pytorch_half_pixel")
    return out > 1 ? detail::f32(detail::f32(resized + 0.5f) / scale) - 0.5f : 0.0f;
  if (mode == "asymmetric") return resized / scale;
  if (mode == "tf_half_pixel_for_nn") return detail::f32(resized + 0.5f) / scale;
  if (mode == "align_corners")
    return out == 1 ? 0.0f : detail::f32(resized * float(in - 1)) / float(out - 1);
  detail::fail(op, "coordinate_transformation_mode " + mode + " is not supported");
}

// The output length, at least one, and a positive finite scale.
void check_axis(const char* op, const char* name, uint32_t out, float scale) {
  if (out == 0) detail::fail(op, std::string(name) + ": the output length must be at least 1");
  if (!(scale > 0.0f) || !std::isfinite(scale))
    detail::fail(op, std::string(name) + ": the scale must be positive and finite");
}

// ONNX Runtime's get_nearest_pixel, then its clamp to the input.
std::vector<uint32_t> nearest_indices(const char* op, const std::string& coordinates,
                                      const std::string& nearest_mode, uint32_t in, uint32_t out,
                                      float scale) {
  std::vector<uint32_t> picked;
  picked.reserve(out);
  for (uint32_t i = 0; i < out; ++i) {
    const float x = original_coordinate(op, coordinates, i, in, out, scale);
    // A half, or one float32 step from it, is a tie (ONNX Runtime 1.30, measured).
    const float half = float(int64_t(std::floor(x))) + 0.5f;
    const bool tie = x == half || std::nextafter(x, half) == half;
    double index = 0;
    if (nearest_mode == "round_prefer_floor")
      index = tie ? double(half) - 0.5 : std::round(x);
    else if (nearest_mode == "round_prefer_ceil")
      index = tie ? double(half) + 0.5 : std::round(x);
    else if (nearest_mode == "floor")
      index = std::floor(x);
    else if (nearest_mode == "ceil")
      index = std::ceil(x);
    else
      detail::fail(op, "nearest_mode " + nearest_mode + " is not supported");
    picked.push_back(uint32_t(std::clamp(index, 0.0, double(in) - 1.0)));
  }
  return picked;
}

// One output index's two source indices and their weights along an axis.
struct AxisTap {
  uint32_t first, second;
  float weight_first, weight_second;
};

// ONNX Runtime's clamp of the original coordinate to the input and its two
// neighbours; the weight of each neighbour is the distance to the other.
std::vector<AxisTap> axis_taps(const char* op, const std::string& mode, uint32_t in, uint32_t out,
                               float scale) {
  std::vector<AxisTap> taps;
  taps.reserve(out);
  for (uint32_t i = 0; i < out; ++i) {
    const float original = original_coordinate(op, mode, i, in, out, scale);
    const float clamped = std::min(std::max(original, 0.0f), float(in) - 1.0f);
    AxisTap t;
    t.first = std::min(uint32_t(std::floor(clamped)), in - 1);
    t.second = std::min(t.first + 1, in - 1);
    if (t.first == t.second) {
      t.weight_first = t.weight_second = 0.5f;
    } else {
      t.weight_first = std::fabs(clamped - float(t.second));
      t.weight_second = std::fabs(clamped - float(t.first));
    }
    taps.push_back(t);
  }
  return taps;
}

// Keys' kernel at the distance d from the coordinate, as ONNX Runtime's
// GetCubicCoeffs writes both pieces (the inner one for the two nearest
// neighbours, 0 <= d <= 1; the outer for the others, 1 <= d <= 2), each step
// in float32.
float keys_weight(float a, float d, bool nearest_two) {
  using detail::f32;
  if (nearest_two) return f32(f32(f32(f32(f32(a + 2.0f) * d) - f32(a + 3.0f)) * d) * d) + 1.0f;
  const float five_a = f32(5.0f * a), eight_a = f32(8.0f * a), four_a = f32(4.0f * a);
  return f32(f32(f32(f32(f32(a * d) - five_a) * d) + eight_a) * d) - four_a;
}

// One output index's four source indices (clamped) and their weights divided
// as ONNX Runtime divides them: by 1, or with exclude_outside by their sum.
struct CubicAxisTap {
  uint32_t source[4];
  float weight[4];
  float divisor;
};

std::vector<CubicAxisTap> cubic_axis_taps(const char* op, const std::string& mode, uint32_t in,
                                          uint32_t out, float scale, const Cubic& cubic) {
  std::vector<CubicAxisTap> taps;
  taps.reserve(out);
  for (uint32_t i = 0; i < out; ++i) {
    const float original = original_coordinate(op, mode, i, in, out, scale);
    const double whole = std::floor(double(original));
    const float frac = detail::f32(original - float(whole));
    // The distances of the four neighbours whole - 1 .. whole + 2.
    const float distance[4] = {detail::f32(frac + 1.0f), frac, detail::f32(1.0f - frac),
                               detail::f32(2.0f - frac)};
    CubicAxisTap t;
    t.divisor = cubic.exclude_outside ? 0.0f : 1.0f;
    for (int k = 0; k < 4; ++k) {
      const int64_t at = int64_t(whole) - 1 + k;
      const bool outside = at < 0 || at >= int64_t(in);
      t.weight[k] = cubic.exclude_outside && outside
                        ? 0.0f
                        : keys_weight(cubic.coeff_a, distance[k], k == 1 || k == 2);
      if (cubic.exclude_outside) t.divisor = detail::f32(t.divisor + t.weight[k]);
      t.source[k] = uint32_t(std::min<int64_t>(std::max<int64_t>(at, 0), int64_t(in) - 1));
    }
    taps.push_back(t);
  }
  return taps;
}

}  // namespace

QTensor resize_nearest(const QTensor& x, const ResizeTo& to, const std::string& coordinates,
                       const std::string& nearest_mode) {
  const char* op = "resize_nearest";
  detail::check_tensor(op, "x", x, 4);
  check_axis(op, "rows", to.out_h, to.scale_h);
  check_axis(op, "columns", to.out_w, to.scale_w);
  const uint32_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const std::vector<uint32_t> rows =
      nearest_indices(op, coordinates, nearest_mode, H, to.out_h, to.scale_h);
  const std::vector<uint32_t> cols =
      nearest_indices(op, coordinates, nearest_mode, W, to.out_w, to.scale_w);
  QTensor y{{N, C, to.out_h, to.out_w}, {}, x.type};
  y.data.reserve(detail::element_count(y.shape));
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t c = 0; c < C; ++c)
      for (const uint32_t i : rows)
        for (const uint32_t j : cols)
          y.data.push_back(x.data[((uint64_t(n) * C + c) * H + i) * W + j]);
  return y;
}

QTensor resize_linear(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type,
                      const ResizeTo& to, const std::string& coordinates) {
  const char* op = "resize_linear";
  detail::check_tensor(op, "x", x, 4);
  detail::check_8bit(op, "output type", y_type);
  check_axis(op, "rows", to.out_h, to.scale_h);
  check_axis(op, "columns", to.out_w, to.scale_w);
  const detail::Single in = detail::single(op, "x", xq, x.type);
  const detail::Single out = detail::single(op, "y", yq, y_type);
  const uint32_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const std::vector<AxisTap> rows = axis_taps(op, coordinates, H, to.out_h, to.scale_h);
  const std::vector<AxisTap> cols = axis_taps(op, coordinates, W, to.out_w, to.scale_w);
  QTensor y{{N, C, to.out_h, to.out_w}, {}, y_type};
  y.data.reserve(detail::element_count(y.shape));
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t c = 0; c < C; ++c) {
      const int32_t* plane = x.data.data() + (uint64_t(n) * C + c) * H * W;
      const auto real = [&](uint32_t i, uint32_t j) {
        return detail::f32(float(plane[uint64_t(i) * W + j] - in.zero_point) * in.scale);
      };
      for (const AxisTap& r : rows)
        for (const AxisTap& q : cols) {
          // x11, x21 (the second column), x12 (the second row), x22, ONNX Runtime's order.
          float sum =
              detail::f32(detail::f32(q.weight_first * r.weight_first) * real(r.first, q.first));
          sum = detail::f32(sum + detail::f32(detail::f32(q.weight_second * r.weight_first) *
                                              real(r.first, q.second)));
          sum = detail::f32(sum + detail::f32(detail::f32(q.weight_first * r.weight_second) *
                                              real(r.second, q.first)));
          sum = detail::f32(sum + detail::f32(detail::f32(q.weight_second * r.weight_second) *
                                              real(r.second, q.second)));
          y.data.push_back(quantize_linear(sum, out.scale, out.zero_point, y_type));
        }
    }
  return y;
}

QTensor resize_cubic(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type,
                     const ResizeTo& to, const std::string& coordinates, const Cubic& cubic) {
  const char* op = "resize_cubic";
  detail::check_tensor(op, "x", x, 4);
  detail::check_8bit(op, "output type", y_type);
  check_axis(op, "rows", to.out_h, to.scale_h);
  check_axis(op, "columns", to.out_w, to.scale_w);
  if (!std::isfinite(cubic.coeff_a)) detail::fail(op, "cubic_coeff_a must be finite");
  const detail::Single in = detail::single(op, "x", xq, x.type);
  const detail::Single out = detail::single(op, "y", yq, y_type);
  const uint32_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const std::vector<CubicAxisTap> rows =
      cubic_axis_taps(op, coordinates, H, to.out_h, to.scale_h, cubic);
  const std::vector<CubicAxisTap> cols =
      cubic_axis_taps(op, coordinates, W, to.out_w, to.scale_w, cubic);
  QTensor y{{N, C, to.out_h, to.out_w}, {}, y_type};
  y.data.reserve(detail::element_count(y.shape));
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t c = 0; c < C; ++c) {
      const int32_t* plane = x.data.data() + (uint64_t(n) * C + c) * H * W;
      // A map whose size stays is copied (ONNX Runtime's Resize returns its input).
      if (to.out_h == H && to.out_w == W) {
        for (uint64_t i = 0; i < uint64_t(H) * W; ++i)
          y.data.push_back(quantize_linear(detail::f32(float(plane[i] - in.zero_point) * in.scale),
                                           out.scale, out.zero_point, y_type));
        continue;
      }
      for (const CubicAxisTap& r : rows)
        for (const CubicAxisTap& q : cols) {
          // Along the columns of each of the four rows (weight / divisor, times the
          // value), then along the rows (value times weight, / divisor).
          float total = 0.0f;
          for (int i = 0; i < 4; ++i) {
            float along = 0.0f;
            for (int j = 0; j < 4; ++j) {
              const float value = detail::f32(
                  float(plane[uint64_t(r.source[i]) * W + q.source[j]] - in.zero_point) * in.scale);
              along =
                  detail::f32(along + detail::f32(detail::f32(q.weight[j] / q.divisor) * value));
            }
            total = detail::f32(total + detail::f32(detail::f32(along * r.weight[i]) / r.divisor));
          }
          y.data.push_back(quantize_linear(total, out.scale, out.zero_point, y_type));
        }
    }
  return y;
}

}  // namespace npusim::reference::qops
