// One convolution as the GPU path runs it: the layer's shape and the
// parameters of its output rule, independent of the simulator's configs (the
// CLI translates a LayerConfig into these). Host code only; no CUDA.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/gpu/direct_math.h"
#include "sim/gpu/tiling_plan.h"

namespace npusim::gpu {

// A binary layer: +1 iff (flip[k] == 0 ? dot >= threshold[k] : dot <= threshold[k]).
struct BinaryParams {
  uint32_t bits = 32;
  PadMode pad_mode = PadMode::Skip;
  std::vector<int32_t> threshold;  // K
  std::vector<uint8_t> flip;       // K, 0 or 1
};

// The direct kernel's output rule: requantise (int8 layer) or binarise (a
// binary layer run on its +-1 values as int8), or keep the sums (float).
struct DirectParams {
  DirectEpilogue epilogue = DirectEpilogue::Requantize;
  int8_t pad_value = 0;  // what a tap outside the input reads (binary PlusOne: 1, MinusOne: -1)
  bool relu = true;
  std::vector<int32_t> bias, scale;  // K (Requantize)
  uint32_t shift = 0;
  std::vector<int32_t> threshold;  // K (Binarize)
  std::vector<uint8_t> flip;       // K (Binarize)
};

// The pad value a binary layer's mode means on unpacked +-1 values.
inline int8_t pad_value_of(PadMode mode) {
  return mode == PadMode::PlusOne ? 1 : mode == PadMode::MinusOne ? -1 : 0;
}

// Largest |sum| the float baseline keeps exact: every integer up to 2^24 is a
// float, so the float sums equal the int32 sums when |a*w| * C*R*S <= 2^24.
inline bool float_sums_exact(const ConvShape& s, uint32_t max_abs_product) {
  return uint64_t(max_abs_product) * s.c * s.r * s.s <= (uint64_t(1) << 24);
}

}  // namespace npusim::gpu
