// ONNX Resize, mode linear, between DequantizeLinear and QuantizeLinear, as ONNX
// Runtime evaluates it (it keeps the float Resize; docs/quantization.md): the
// input dequantised in float32, ONNX's bilinear interpolation with ONNX
// Runtime's float32 coordinates, weights and summation order, quantised again.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/reference/qops.h"

namespace npusim::reference::qops {
namespace {

// One output index's two source indices and their weights along an axis.
struct AxisTap {
  uint32_t first, second;
  float weight_first, weight_second;
};

// ONNX Runtime's get_original_coordinate, then its clamp to the input and its
// two neighbours; the weight of each neighbour is the distance to the other.
std::vector<AxisTap> axis_taps(const char* op, const std::string& mode, uint32_t in,
                               uint32_t scale) {
  const uint32_t out = in * scale;
  std::vector<AxisTap> taps;
  taps.reserve(out);
  for (uint32_t i = 0; i < out; ++i) {
    const float resized = float(i), s = float(scale);
    float original = 0;
    if (mode == "half_pixel")
      original = detail::f32(detail::f32(resized + 0.5f) / s) - 0.5f;
    else if (mode == "pytorch_half_pixel")
      original = out > 1 ? detail::f32(detail::f32(resized + 0.5f) / s) - 0.5f : 0.0f;
    else if (mode == "asymmetric")
      original = resized / s;
    else if (mode == "align_corners")
      original = out == 1 ? 0.0f : detail::f32(resized * float(in - 1)) / float(out - 1);
    else
      detail::fail(op, "coordinate_transformation_mode " + mode + " is not supported");
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

}  // namespace

QTensor resize_linear(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type,
                      uint32_t scale_h, uint32_t scale_w, const std::string& coordinates) {
  const char* op = "resize_linear";
  detail::check_tensor(op, "x", x, 4);
  detail::check_8bit(op, "output type", y_type);
  if (scale_h == 0 || scale_w == 0) detail::fail(op, "scales must be at least 1");
  const detail::Single in = detail::single(op, "x", xq, x.type);
  const detail::Single out = detail::single(op, "y", yq, y_type);
  const uint32_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const std::vector<AxisTap> rows = axis_taps(op, coordinates, H, scale_h);
  const std::vector<AxisTap> cols = axis_taps(op, coordinates, W, scale_w);
  QTensor y{{N, C, H * scale_h, W * scale_w}, {}, y_type};
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

}  // namespace npusim::reference::qops
