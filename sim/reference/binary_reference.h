// The independent golden model of a binary (+-1) convolution (seed 000).
// Plain loops over unpacked -1/+1 values: no bit packing, no XOR, no popcount,
// so it shares nothing with the hardware model (models/) or the GPU kernels it
// checks. The packed hardware computes sum(validbits - 2*popc((a ^ w) & mask));
// that equals the sum of a*w computed here.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/tensor/tensor.h"

namespace npusim::reference {

// What a kernel tap outside the input contributes:
//   Skip     - nothing (the term is not counted; same as zero-padding the +-1 tensor),
//   PlusOne  - the pad value is +1,
//   MinusOne - the pad value is -1 (what an all-zero-bits padded buffer holds).
enum class BinaryPadding { Skip, PlusOne, MinusOne };

struct BinaryConvParams {
  uint32_t stride = 1, padding = 0;
  BinaryPadding pad_mode = BinaryPadding::Skip;
  std::vector<int32_t> threshold;  // K
  std::vector<uint8_t> flip;       // K, 0 or 1
};

// input: N,H,W,C int8 holding -1/+1; weights: K,R,S,C int8 holding -1/+1.
// Returns the int32 dot products N,Ho,Wo,K (threshold/flip are not used).
TensorI32 binary_conv_dot(const TensorI8& input, const TensorI8& weights,
                          const BinaryConvParams& p);

// The binarised output N,Ho,Wo,K of -1/+1:
// out = +1 if (flip[k] == 0 ? dot >= threshold[k] : dot <= threshold[k]) else -1.
TensorI8 conv2d_binary(const TensorI8& input, const TensorI8& weights, const BinaryConvParams& p);

// Mixed networks (docs/binary.md#mixed): an int8 tensor entering a binary
// layer becomes +1 where the value is >= 0 and -1 elsewhere.
TensorI8 sign_to_pm1(const TensorI8& int8);

// The output rule for one value, written out once.
int8_t binarize(int32_t dot, int32_t threshold, uint8_t flip);

}  // namespace npusim::reference
