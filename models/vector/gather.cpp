#include "models/vector/gather.h"

#include <cmath>

#include "sim/program/resize_taps.h"

namespace npusim::vector_kernels {
namespace {

// A linear resize (sim/program/resize_taps.h): each output pixel from the
// four input pixels around it, dequantised, weighted in float32 in ONNX
// Runtime's order and quantised again.
void resize_linear_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, uint32_t k_begin,
                       uint32_t k_end, int8_t* out) {
  const TensorQuant& y = L.quant.output;
  const ResizeAxis cols{L.W, L.out_w, L.resize_scale_w};
  const LinearTap ty = linear_tap(L.resize_coordinates, {L.H, L.out_h, L.resize_scale_h}, oh);
  const auto real = [&](uint32_t row, uint32_t col, uint32_t k) {
    const int32_t v = x.value((uint64_t(row) * L.W + col) * L.C + k);
    return float(v - x.quant.zero_point) * x.quant.scale;
  };
  for (uint32_t ow = 0; ow < L.out_w; ++ow) {
    const LinearTap tx = linear_tap(L.resize_coordinates, cols, ow);
    const float w11 = tx.w_lo * ty.w_lo, w21 = tx.w_hi * ty.w_lo;
    const float w12 = tx.w_lo * ty.w_hi, w22 = tx.w_hi * ty.w_hi;
    for (uint32_t k = k_begin; k < k_end; ++k) {
      const float v = w11 * real(ty.lo, tx.lo, k) + w21 * real(ty.lo, tx.hi, k) +
                      w12 * real(ty.hi, tx.lo, k) + w22 * real(ty.hi, tx.hi, k);
      out[uint64_t(ow) * L.K + k] =
          saturate(std::nearbyintf(v / y.scale) + float(y.zero_point), y.type);
    }
  }
}

// A cubic resize (sim/program/resize_taps.h): each output pixel from the four
// rows and four columns around it, dequantised, each row interpolated along
// its columns, then the four rows, in float32 in ONNX Runtime's order, and
// quantised again.
void resize_cubic_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, uint32_t k_begin,
                      uint32_t k_end, int8_t* out) {
  const TensorQuant& y = L.quant.output;
  const float a = L.resize_cubic_a;
  const bool exclude = L.resize_exclude_outside;
  const ResizeAxis cols{L.W, L.out_w, L.resize_scale_w};
  const CubicTap ty =
      cubic_tap(L.resize_coordinates, {L.H, L.out_h, L.resize_scale_h}, a, exclude, oh);
  const auto real = [&](uint32_t row, uint32_t col, uint32_t k) {
    const int32_t v = x.value((uint64_t(row) * L.W + col) * L.C + k);
    return float(v - x.quant.zero_point) * x.quant.scale;
  };
  // ONNX Runtime copies a map whose size stays (Keys' weights at t = 0 need not be exactly
  // 0, 1, 0, 0 for every a).
  const bool copy = L.out_h == L.H && L.out_w == L.W;
  for (uint32_t ow = 0; ow < L.out_w; ++ow) {
    const CubicTap tx = cubic_tap(L.resize_coordinates, cols, a, exclude, ow);
    for (uint32_t k = k_begin; k < k_end; ++k) {
      float v = copy ? real(oh, ow, k) : 0.0f;
      for (int r = 0; r < 4 && !copy; ++r) {
        float h = 0;
        for (int j = 0; j < 4; ++j) h += tx.w[j] / tx.sum * real(ty.index[r], tx.index[j], k);
        v += h * ty.w[r] / ty.sum;
      }
      out[uint64_t(ow) * L.K + k] =
          saturate(std::nearbyintf(v / y.scale) + float(y.zero_point), y.type);
    }
  }
}

}  // namespace

// Gather on channels: output channel k of each pixel is input channel
// gather_channels[k], copied (the output keeps the input's quantisation).
void gather_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out) {
  for (uint32_t ow = 0; ow < L.out_w; ++ow) {
    const uint64_t pixel = (uint64_t(oh) * L.W + ow) * L.C;
    for (uint32_t k = 0; k < L.K; ++k)
      out[uint64_t(ow) * L.K + k] = int8_t(x.value(pixel + L.gather_channels[k]));
  }
}

// A nearest resize: output pixel (oh, ow) copies the input pixel its
// coordinates and rounding pick (sim/program/resize_taps.h), channels
// [k_begin, k_end).
void resize_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, uint32_t k_begin,
                uint32_t k_end, int8_t* out) {
  switch (L.resize_mode) {
    case ResizeMode::Linear:
      return resize_linear_row(L, x, oh, k_begin, k_end, out);
    case ResizeMode::Cubic:
      return resize_cubic_row(L, x, oh, k_begin, k_end, out);
    case ResizeMode::Nearest:
      break;
  }
  const ResizeCoordinates c = L.resize_coordinates;
  const ResizeAxis cols{L.W, L.out_w, L.resize_scale_w};
  const uint64_t row =
      uint64_t(nearest_tap(c, L.resize_rounding, {L.H, L.out_h, L.resize_scale_h}, oh)) * L.W;
  for (uint32_t ow = 0; ow < L.out_w; ++ow) {
    const uint64_t pixel = (row + nearest_tap(c, L.resize_rounding, cols, ow)) * L.C;
    for (uint32_t k = k_begin; k < k_end; ++k)
      out[uint64_t(ow) * L.K + k] = int8_t(x.value(pixel + k));
  }
}

}  // namespace npusim::vector_kernels
