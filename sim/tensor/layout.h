// Tensor layouts and conversions between them: NCHW, NHWC, and the packed
// binary layout N(C/b)HWb of seed 000 (b = 32 or 64): channel c of position
// (n, h, w) is bit c % b of word (n, c / b, h, w); physical bit 1 means +1,
// bit 0 means -1. When C is not a multiple of b the last group's high bits
// are padding: pack writes them as 0 and unpack ignores them (tail_mask).
//
// The address generator (models/address_generator.h) computes the same
// offsets one element at a time; these whole-tensor versions are what the
// host does and what the tests use as the independent reference.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/tensor/tensor.h"

namespace npusim {

// Shape {N, C, H, W} -> {N, H, W, C} and back. Throw std::invalid_argument
// unless the tensor has rank 4 and as many elements as its shape says.
template <typename T>
Tensor<T> nchw_to_nhwc(const Tensor<T>& nchw);
template <typename T>
Tensor<T> nhwc_to_nchw(const Tensor<T>& nhwc);

// A binary tensor in N(C/b)HWb: words in (n, group, h, w) order, each holding
// b channel bits in its low b bits (a 32-bit word is kept in a uint64_t).
struct PackedTensor {
  uint32_t n = 0, c = 0, h = 0, w = 0;
  uint32_t bits = 32;  // b
  std::vector<uint64_t> words;

  uint32_t groups() const { return (c + bits - 1) / bits; }
  uint64_t word_index(uint32_t in, uint32_t group, uint32_t ih, uint32_t iw) const {
    return ((uint64_t(in) * groups() + group) * h + ih) * w + iw;
  }
  // The bits of `group` that hold real channels (all b except in the last group).
  uint64_t tail_mask(uint32_t group) const;
  // Little-endian byte image, b/8 bytes per word: what lies in DRAM.
  std::vector<uint8_t> bytes() const;
};

// From NHWC {N, H, W, C} int8 holding only -1 and +1 (anything else throws
// std::invalid_argument: a binary tensor has no zero).
PackedTensor pack_nhwc(const TensorI8& nhwc, uint32_t bits);
// Back to NHWC {N, H, W, C} with -1 / +1; padding bits are not read.
TensorI8 unpack_to_nhwc(const PackedTensor& packed);

}  // namespace npusim
