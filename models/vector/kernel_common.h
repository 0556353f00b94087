// What every kernel of the vector unit shares: the view of one input tensor
// and the two steps back to 8 bits (saturating a rounded float32, and the
// float32 requantiser of a wide integer sum). Header only: each family's file
// (models/vector/*.h) includes it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "models/vector/requantiser.h"
#include "sim/program/program.h"

namespace npusim::vector_kernels {

// One input tensor as the unit sees it: NHWC bytes of image n, its channel
// count and quantisation.
struct InputView {
  const int8_t* image = nullptr;  // N,H,W,C bytes of the batch being processed
  uint32_t C = 0;
  uint64_t pixels = 0;  // of one image; 1: a per-channel operand read by every pixel
  TensorQuant quant;
  int32_t value(uint64_t i) const {
    return quant.type == QuantType::Uint8 ? int32_t(uint8_t(image[i])) : int32_t(image[i]);
  }
};

// A rounded float32 value saturated to the range of type t.
inline int8_t saturate(float rounded, QuantType t) {
  const float v = std::min(std::max(rounded, float(quant_min(t))), float(quant_max(t)));
  return int8_t(int32_t(v));
}

// A 64-bit sum clamped to int32, then the float32 requantiser into y.
inline int8_t requantise_to_int8(int64_t acc, float multiplier, const TensorQuant& y) {
  const int64_t clamped = std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX);
  return int8_t(requantise_float32(int32_t(clamped), multiplier, y.zero_point, quant_min(y.type),
                                   quant_max(y.type)));
}

}  // namespace npusim::vector_kernels
