#include "models/vector/elementwise.h"

#include <algorithm>
#include <cmath>

namespace npusim::vector_kernels {

// QLinearAdd as ONNX Runtime's kernel computes it: with ratios ra = a_scale /
// y_scale and rb = b_scale / y_scale, one float32 constant c, then two fused
// multiply-adds
// v = fma(a, ra, fma(b, rb, c)), rounded half to even, saturated and clamped;
// c = y_zp - fma(ra, a_zp, rb * b_zp) (docs/quantization.md).
void add_row(const LayerDescriptor& L, const InputView* in, uint32_t oh, uint32_t k_begin,
             uint32_t k_end, int8_t* out) {
  const TensorQuant& y = L.quant.output;
  const float ratio_a = in[0].quant.scale / y.scale, ratio_b = in[1].quant.scale / y.scale;
  // ONNX Runtime's released kernel contracts this constant into one fma too.
  const float zero_part =
      std::fma(ratio_a, float(in[0].quant.zero_point), ratio_b * float(in[1].quant.zero_point));
  const float constant = float(y.zero_point) - zero_part;
  const int32_t lo = std::max(quant_min(y.type), L.quant.clamp_lo);
  const int32_t hi = std::min(quant_max(y.type), L.quant.clamp_hi);
  const uint64_t first = uint64_t(oh) * L.W * L.C;
  for (uint64_t pixel = 0; pixel < L.W; ++pixel)
    for (uint64_t i = pixel * L.C + k_begin; i < pixel * L.C + k_end; ++i) {
      const float partial = std::fma(float(in[1].value(first + i)), ratio_b, constant);
      const float sum = std::fma(float(in[0].value(first + i)), ratio_a, partial);
      const int32_t v = int32_t(std::nearbyintf(sum));
      out[i] = int8_t(std::min(std::max(v, lo), hi));
    }
}

// Elementwise product as ONNX Runtime's QLinearMul: (a - a_zp) * (b - b_zp)
// times (a_scale * b_scale) / y_scale, plus y_zp, rounded, in float32. A
// per-channel b ([N, C, 1, 1]: one pixel per image) scales every pixel.
void mul_row(const LayerDescriptor& L, const InputView* in, uint32_t oh, int8_t* out) {
  const float ratio = (in[0].quant.scale * in[1].quant.scale) / L.quant.output.scale;
  const float zero_point = float(L.quant.output.zero_point);
  const float lo = float(quant_min(L.quant.output.type)),
              hi = float(quant_max(L.quant.output.type));
  const uint64_t first = uint64_t(oh) * L.W * L.C, count = uint64_t(L.W) * L.C;
  const bool per_channel = in[1].pixels == 1;
  for (uint64_t i = 0; i < count; ++i) {
    const int32_t a = in[0].value(first + i) - in[0].quant.zero_point;
    const int32_t b = in[1].value(per_channel ? i % L.C : first + i) - in[1].quant.zero_point;
    const float v = std::nearbyint(float(a * b) * ratio + zero_point);
    out[i] = int8_t(int32_t(std::min(hi, std::max(lo, v))));
  }
}

}  // namespace npusim::vector_kernels
