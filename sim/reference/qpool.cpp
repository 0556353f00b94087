// MaxPool on 8-bit tensors, QLinearAveragePool and QLinearGlobalAveragePool
// (com.microsoft), with ONNX Runtime's arithmetic (docs/quantization.md):
//  - MaxPool: the largest input value under the dilated window; pads are skipped, so
//    they never win (a window holding only pads gives the type's lowest value, as ORT).
//  - QLinearGlobalAveragePool: integer sum, one float32 multiply by
//    x_scale / (y_scale * float(H*W)), round half to even, add y_zp, saturate.
//  - QLinearAveragePool: dequantise every input to float32, sum the window in row-major
//    order, divide by the count, then nearbyintf(avg / y_scale + y_zp), all in float32;
//    except when the kernel covers the whole image without pads, where ORT switches to
//    its global-average-pool kernel and so does this.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/reference/qops.h"

namespace npusim::reference::qops {
namespace {

using detail::f32;
using detail::fail;

struct PoolGeometry {
  uint32_t N, C, H, W, Ho, Wo;
};

PoolGeometry pool_geometry(const char* op, const QTensor& x, const PoolAttrs& a) {
  PoolGeometry g{x.shape[0], x.shape[1], x.shape[2], x.shape[3], 0, 0};
  for (int d = 0; d < 2; ++d) {
    if (a.kernel[d] == 0 || a.stride[d] == 0 || a.dilation[d] == 0)
      fail(op, "kernel, stride and dilation must be >= 1");
    // ORT's PoolAttributes: "Pad should be smaller than kernel".
    if (a.pads[d] >= a.kernel[d] || a.pads[d + 2] >= a.kernel[d])
      fail(op, "pads must be smaller than the kernel (ONNX Runtime refuses the model)");
  }
  try {
    g.Ho = pooled_size(g.H, a.kernel[0], a.stride[0], a.dilation[0], a.pads[0], a.pads[2],
                       a.ceil_mode);
    g.Wo = pooled_size(g.W, a.kernel[1], a.stride[1], a.dilation[1], a.pads[1], a.pads[3],
                       a.ceil_mode);
  } catch (const std::invalid_argument& e) {
    fail(op, std::string(e.what()) + " (input " + detail::dims(x.shape) + ")");
  }
  return g;
}

size_t at(const PoolGeometry& g, uint32_t n, uint32_t c, int64_t y, int64_t x) {
  return ((size_t(n) * g.C + c) * g.H + size_t(y)) * g.W + size_t(x);
}

}  // namespace

QTensor max_pool(const QTensor& x, const PoolAttrs& a) {
  const char* op = "max_pool";
  detail::check_tensor(op, "x", x, 4, /*allow_int32=*/true);
  const PoolGeometry g = pool_geometry(op, x, a);
  QTensor y{{g.N, g.C, g.Ho, g.Wo}, std::vector<int32_t>(size_t(g.N) * g.C * g.Ho * g.Wo), x.type};
  size_t o = 0;
  for (uint32_t n = 0; n < g.N; ++n)
    for (uint32_t c = 0; c < g.C; ++c)
      for (uint32_t oy = 0; oy < g.Ho; ++oy)
        for (uint32_t ox = 0; ox < g.Wo; ++ox) {
          int32_t best = type_min(x.type);  // what an all-pad window yields
          for (uint32_t i = 0; i < a.kernel[0]; ++i)
            for (uint32_t j = 0; j < a.kernel[1]; ++j) {
              const int64_t iy = int64_t(oy) * a.stride[0] - a.pads[0] + int64_t(i) * a.dilation[0];
              const int64_t ix = int64_t(ox) * a.stride[1] - a.pads[1] + int64_t(j) * a.dilation[1];
              if (iy < 0 || iy >= g.H || ix < 0 || ix >= g.W) continue;  // pads never win
              best = std::max(best, x.data[at(g, n, c, iy, ix)]);
            }
          y.data[o++] = best;
        }
  return y;
}

QTensor qlinear_global_average_pool(const QTensor& x, const Quant& xq, const Quant& yq,
                                    ElemType y_type) {
  const char* op = "qlinear_global_average_pool";
  detail::check_tensor(op, "x", x, 0);
  if (x.shape.size() < 3) fail(op, "x needs N, C and spatial dims, has " + detail::dims(x.shape));
  if (y_type != x.type)
    fail(op, std::string("output type must equal the input type (") + type_name(x.type) +
                 "), as in ONNX Runtime");
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const uint32_t N = x.shape[0], C = x.shape[1];
  uint64_t image = 1;
  for (size_t d = 2; d < x.shape.size(); ++d) image *= x.shape[d];
  // MLAS: scale = ScaleInput / (ScaleOutput * (float)ImageSize), refused outside
  // [2^-32, 256) or for images of 2^24 values and more.
  const float multiplier = f32(xs.scale / f32(ys.scale * float(image)));
  if (image == 0 || image >= (uint64_t(1) << 24) || multiplier < 0x1.0p-32f || multiplier >= 256.0f)
    fail(op, "x_scale / (y_scale * H*W) = " + std::to_string(multiplier) +
                 " or the image size is outside ONNX Runtime's range");
  std::vector<uint32_t> shape = x.shape;
  for (size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
  QTensor y{shape, std::vector<int32_t>(size_t(N) * C), y_type};
  for (size_t nc = 0; nc < size_t(N) * C; ++nc) {
    int64_t acc = 0;  // sum of (x - x_zp) over the image
    for (uint64_t i = 0; i < image; ++i) acc += x.data[nc * image + i] - xs.zero_point;
    if (acc < INT32_MIN || acc > INT32_MAX) fail(op, "the image sum overflows int32");
    y.data[nc] = requantize(int32_t(acc), multiplier, ys.zero_point, y_type);
  }
  return y;
}

QTensor qlinear_average_pool(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type,
                             const PoolAttrs& a) {
  const char* op = "qlinear_average_pool";
  detail::check_tensor(op, "x", x, 4);
  if (y_type != x.type)
    fail(op, std::string("output type must equal the input type (") + type_name(x.type) +
                 "), as in ONNX Runtime");
  if (a.dilation[0] != 1 || a.dilation[1] != 1)
    fail(op, "QLinearAveragePool has no dilation (must be 1)");
  const PoolGeometry g = pool_geometry(op, x, a);
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);

  // ORT: a kernel covering the whole image with no pads falls back to the global pool.
  const bool no_pads = a.pads[0] == 0 && a.pads[1] == 0 && a.pads[2] == 0 && a.pads[3] == 0;
  if (a.kernel[0] == g.H && a.kernel[1] == g.W && no_pads)
    return qlinear_global_average_pool(x, xq, yq, y_type);

  // Dequantise: x_scale * float(x - x_zp), one float32 product per input.
  std::vector<float> real(x.data.size());
  for (size_t i = 0; i < x.data.size(); ++i)
    real[i] = f32(xs.scale * float(x.data[i] - xs.zero_point));

  QTensor y{{g.N, g.C, g.Ho, g.Wo}, std::vector<int32_t>(size_t(g.N) * g.C * g.Ho * g.Wo), y_type};
  size_t o = 0;
  for (uint32_t n = 0; n < g.N; ++n)
    for (uint32_t c = 0; c < g.C; ++c)
      for (uint32_t oy = 0; oy < g.Ho; ++oy)
        for (uint32_t ox = 0; ox < g.Wo; ++ox) {
          // The window clipped to the input; the pads add nothing to the sum.
          const int64_t h0 = int64_t(oy) * a.stride[0] - a.pads[0];
          const int64_t w0 = int64_t(ox) * a.stride[1] - a.pads[1];
          const int64_t hstart = std::max<int64_t>(h0, 0),
                        hend = std::min<int64_t>(h0 + a.kernel[0], g.H);
          const int64_t wstart = std::max<int64_t>(w0, 0),
                        wend = std::min<int64_t>(w0 + a.kernel[1], g.W);
          float sum = 0.0f;
          for (int64_t h = hstart; h < hend; ++h)
            for (int64_t w = wstart; w < wend; ++w) sum = f32(sum + real[at(g, n, c, h, w)]);
          // count_include_pad divides by the full kernel area, even where a ceil-mode window
          // runs past the end pad (ORT's QLinearAveragePool does not clip it).
          const int64_t count = a.count_include_pad ? int64_t(a.kernel[0]) * a.kernel[1]
                                                    : (hend - hstart) * (wend - wstart);
          if (count <= 0) fail(op, "a window lies entirely in the padding");
          const float avg = f32(sum / float(count));
          // quantize_value: nearbyintf(y / y_scale + y_zero_point), the zero point added in
          // float32 before rounding.
          const float v = f32(f32(avg / ys.scale) + float(ys.zero_point));
          y.data[o++] = detail::round_add_saturate(v, 0, y_type);
        }
  return y;
}

}  // namespace npusim::reference::qops
