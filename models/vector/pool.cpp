#include "models/vector/pool.h"

#include <algorithm>
#include <cmath>

namespace npusim::vector_kernels {
namespace {

// The window of output pixel (oh, ow) in input coordinates: rows [y0, y1)
// and columns [x0, x1), padding included, stepped by the dilation.
struct Window {
  int64_t y0, y1, x0, x1;
};

Window window_of(const LayerDescriptor& L, uint32_t oh, uint32_t ow) {
  const int64_t top = int64_t(oh) * L.stride - L.padding;
  const int64_t left = int64_t(ow) * col_stride(L) - pad_l(L);
  return {top, top + int64_t(window_h(L)), left, left + int64_t(window_w(L))};
}

}  // namespace

void max_pool_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, uint32_t k_begin,
                  uint32_t k_end, int8_t* out) {
  const uint32_t dh = dil_h(L), dw = dil_w(L);
  for (uint32_t ow = 0; ow < L.out_w; ++ow) {
    const Window w = window_of(L, oh, ow);
    for (uint32_t k = k_begin; k < k_end; ++k) {
      // A window of padding alone gives the type's lowest value, as ONNX Runtime.
      int32_t best = quant_min(x.quant.type);
      for (int64_t y = w.y0; y < w.y1; y += dh)
        for (int64_t c = w.x0; c < w.x1; c += dw)
          if (y >= 0 && y < L.H && c >= 0 && c < L.W)
            best = std::max(best, x.value((uint64_t(y) * L.W + uint64_t(c)) * L.C + k));
      out[uint64_t(ow) * L.K + k] = int8_t(best);
    }
  }
}

// QLinearAveragePool: dequantise each tap, sum in float32 in row-major order,
// divide by the tap count, quantise: nearbyint(avg / y_scale + y_zp).
void average_pool_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, uint32_t k_begin,
                      uint32_t k_end, int8_t* out) {
  const TensorQuant& y = L.quant.output;
  for (uint32_t ow = 0; ow < L.out_w; ++ow) {
    const Window w = window_of(L, oh, ow);
    const int64_t y0 = std::max<int64_t>(w.y0, 0), y1 = std::min<int64_t>(w.y1, L.H);
    const int64_t x0 = std::max<int64_t>(w.x0, 0), x1 = std::min<int64_t>(w.x1, L.W);
    // count_include_pad divides by the whole kernel, as ONNX Runtime does
    // (even where a ceil-mode window runs past the end pad).
    const uint64_t taps =
        L.count_include_pad ? uint64_t(L.R) * L.S : uint64_t(y1 - y0) * uint64_t(x1 - x0);
    for (uint32_t k = k_begin; k < k_end; ++k) {
      float sum = 0.0f;
      for (int64_t r = y0; r < y1; ++r)
        for (int64_t c = x0; c < x1; ++c)
          sum += float(x.value((uint64_t(r) * L.W + uint64_t(c)) * L.C + k) - x.quant.zero_point) *
                 x.quant.scale;
      const float avg = sum / float(taps);
      out[uint64_t(ow) * L.K + k] =
          saturate(std::nearbyintf(avg / y.scale + float(y.zero_point)), y.type);
    }
  }
}

// QLinearGlobalAveragePool: an int32 sum per channel less x_zp * H*W, then
// the float32 requantiser with scale x_scale / (y_scale * H*W).
void global_average_pool_row(const LayerDescriptor& L, const InputView& x, uint32_t k_begin,
                             uint32_t k_end, int8_t* out) {
  const TensorQuant& y = L.quant.output;
  const uint64_t pixels = uint64_t(L.H) * L.W;
  const float scale = x.quant.scale / (y.scale * float(pixels));
  for (uint32_t k = k_begin; k < k_end; ++k) {
    int32_t acc = -x.quant.zero_point * int32_t(pixels);
    for (uint64_t p = 0; p < pixels; ++p) acc += x.value(p * L.C + k);
    out[k] =
        int8_t(requantise_float32(acc, scale, y.zero_point, quant_min(y.type), quant_max(y.type)));
  }
}

}  // namespace npusim::vector_kernels
