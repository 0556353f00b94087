#include "models/vector_ops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/requantiser.h"
#include "sim/program/resize_taps.h"

namespace npusim::vector_ops {
namespace {

int8_t saturate(float rounded, QuantType t) {
  const float v = std::min(std::max(rounded, float(quant_min(t))), float(quant_max(t)));
  return int8_t(int32_t(v));
}

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

// QLinearConcat along channels: an input quantised like the output is
// copied; another is requantised value by value:
// nearbyint((x - x_zp) * x_scale / y_scale) + y_zp, saturated.
void concat_row(const LayerDescriptor& L, const InputView* in, uint32_t oh, int8_t* out) {
  const TensorQuant& y = L.quant.output;
  uint32_t k0 = 0;
  for (size_t i = 0; i <= L.more_inputs.size(); ++i) {
    const InputView& x = in[i];
    const bool same =
        x.quant.type == y.type && x.quant.scale == y.scale && x.quant.zero_point == y.zero_point;
    for (uint32_t ow = 0; ow < L.out_w; ++ow)
      for (uint32_t c = 0; c < x.C; ++c) {
        const int32_t v = x.value((uint64_t(oh) * L.W + ow) * x.C + c);
        const float real = float(v - x.quant.zero_point) * x.quant.scale;
        out[uint64_t(ow) * L.K + k0 + c] =
            same ? int8_t(v)
                 : saturate(std::nearbyintf(real / y.scale) + float(y.zero_point), y.type);
      }
    k0 += x.C;
  }
}

// Gather on channels: output channel k of each pixel is input channel
// gather_channels[k], copied (the output keeps the input's quantisation).
void gather_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out) {
  for (uint32_t ow = 0; ow < L.out_w; ++ow) {
    const uint64_t pixel = (uint64_t(oh) * L.W + ow) * L.C;
    for (uint32_t k = 0; k < L.K; ++k)
      out[uint64_t(ow) * L.K + k] = int8_t(x.value(pixel + L.gather_channels[k]));
  }
}

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

// A nearest resize: output pixel (oh, ow) copies the input pixel its
// coordinates and rounding pick (sim/program/resize_taps.h), channels
// [k_begin, k_end).
void resize_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, uint32_t k_begin,
                uint32_t k_end, int8_t* out) {
  if (L.resize_mode == ResizeMode::Linear) return resize_linear_row(L, x, oh, k_begin, k_end, out);
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

}  // namespace

void compute_row(const LayerDescriptor& L, const InputView* inputs, uint32_t oh, uint32_t k_begin,
                 uint32_t k_end, int8_t* out_row) {
  const OpInfo& info = op_info(L.op);
  switch (info.family) {
    case OpFamily::Pool:
      switch (info.pool) {
        case PoolKind::Max:
          return max_pool_row(L, inputs[0], oh, k_begin, k_end, out_row);
        case PoolKind::Average:
          // A window over the whole unpadded image is global pooling to ONNX Runtime.
          if (L.R == L.H && L.S == L.W && L.padding == 0 && pad_l(L) == 0 && pad_b(L) == 0 &&
              pad_r(L) == 0)
            return global_average_pool_row(L, inputs[0], k_begin, k_end, out_row);
          return average_pool_row(L, inputs[0], oh, k_begin, k_end, out_row);
        case PoolKind::GlobalAverage:
          return global_average_pool_row(L, inputs[0], k_begin, k_end, out_row);
      }
      break;
    case OpFamily::Elementwise:
      switch (info.elementwise) {
        case ElementwiseKind::Add:
          return add_row(L, inputs, oh, k_begin, k_end, out_row);
        case ElementwiseKind::Mul:  // sequence_ops'
          break;
      }
      break;
    case OpFamily::Concat:
      return concat_row(L, inputs, oh, out_row);
    case OpFamily::Gather:
      switch (info.gather) {
        case GatherKind::Channels:
          return gather_row(L, inputs[0], oh, out_row);
        case GatherKind::Resize:
          return resize_row(L, inputs[0], oh, k_begin, k_end, out_row);
      }
      break;
    case OpFamily::Conv:  // the array's
    case OpFamily::Matmul:
    case OpFamily::Softmax:  // sequence_ops'
    case OpFamily::Norm:
    case OpFamily::Activation:
    case OpFamily::Rope:
      break;
  }
  throw std::logic_error(std::string("vector_ops::compute_row: ") + to_string(L.op) +
                         " is not a pooling, add, concat, gather or resize operator");
}

}  // namespace npusim::vector_ops
