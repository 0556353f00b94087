// The independent golden model: an int8 convolution with requantisation. It shares no code
// with the compiler or the hardware models, so agreement between them means something. The
// direct loops (conv2d_int8_naive) define it; conv2d_int8 computes the same sums as a GEMM
// over an im2col matrix, and the two are tested against each other
// (tests/unit/test_reference_gemm.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/tensor/tensor.h"

namespace npusim::reference {

struct ConvParams {
  uint32_t stride = 1, padding = 0;
  bool relu = true;
  std::vector<int32_t> bias;   // K
  std::vector<int32_t> scale;  // K
  uint32_t shift = 0;
};

// input: N,H,W,C int8; weights: K,R,S,C int8 -> output N,Ho,Wo,K int8.
// Both forms check their arguments alike and throw std::invalid_argument naming the problem.
TensorI8 conv2d_int8(const TensorI8& input, const TensorI8& weights, const ConvParams& p);
TensorI8 conv2d_int8_naive(const TensorI8& input, const TensorI8& weights, const ConvParams& p);

// The requantisation rule, written out once for the reference:
// v = (acc + bias) * scale (int64); v = round-half-up(v / 2^shift);
// clamp to [-128, 127]; ReLU clamps below at 0.
int8_t requantize(int32_t acc, int32_t bias, int32_t scale, uint32_t shift, bool relu);

}  // namespace npusim::reference
