#include "sim/tensor/layout.h"

#include <stdexcept>
#include <string>

namespace npusim {

namespace {

void check_rank4(const std::vector<uint32_t>& shape, uint64_t size, const char* what) {
  if (shape.size() != 4 || Tensor<int8_t>::element_count(shape) != size) {
    throw std::invalid_argument(std::string(what) + ": expected a complete rank-4 tensor");
  }
}

// Moves element (a, b, c, d) of a {A, B, C, D} tensor to (a, c, d, b) when
// `to_last` (NCHW -> NHWC), or (a, d, b, c) otherwise (NHWC -> NCHW).
template <typename T>
Tensor<T> permute(const Tensor<T>& src, bool to_last) {
  const uint32_t A = src.shape[0], B = src.shape[1], C = src.shape[2], D = src.shape[3];
  Tensor<T> dst(to_last ? std::vector<uint32_t>{A, C, D, B} : std::vector<uint32_t>{A, D, B, C});
  uint64_t i = 0;
  for (uint32_t a = 0; a < A; ++a) {
    for (uint32_t b = 0; b < B; ++b) {
      for (uint32_t c = 0; c < C; ++c) {
        for (uint32_t d = 0; d < D; ++d, ++i) {
          const uint64_t j = to_last ? ((uint64_t(a) * C + c) * D + d) * B + b
                                     : ((uint64_t(a) * D + d) * B + b) * C + c;
          dst.data[j] = src.data[i];
        }
      }
    }
  }
  return dst;
}

}  // namespace

template <typename T>
Tensor<T> nchw_to_nhwc(const Tensor<T>& nchw) {
  check_rank4(nchw.shape, nchw.size(), "nchw_to_nhwc");
  return permute(nchw, true);
}

template <typename T>
Tensor<T> nhwc_to_nchw(const Tensor<T>& nhwc) {
  check_rank4(nhwc.shape, nhwc.size(), "nhwc_to_nchw");
  return permute(nhwc, false);
}

template TensorI8 nchw_to_nhwc(const TensorI8&);
template TensorI32 nchw_to_nhwc(const TensorI32&);
template TensorI8 nhwc_to_nchw(const TensorI8&);
template TensorI32 nhwc_to_nchw(const TensorI32&);

uint64_t PackedTensor::tail_mask(uint32_t group) const {
  const uint32_t real = group + 1 < groups() ? bits : c - group * bits;
  return real == 64 ? ~uint64_t(0) : (uint64_t(1) << real) - 1;
}

std::vector<uint8_t> PackedTensor::bytes() const {
  std::vector<uint8_t> out;
  out.reserve(words.size() * bits / 8);
  for (uint64_t word : words) {
    for (uint32_t i = 0; i < bits / 8; ++i) out.push_back(uint8_t(word >> (8 * i)));
  }
  return out;
}

PackedTensor pack_nhwc(const TensorI8& nhwc, uint32_t bits) {
  check_rank4(nhwc.shape, nhwc.size(), "pack_nhwc");
  if (bits != 32 && bits != 64) throw std::invalid_argument("pack_nhwc: b must be 32 or 64");
  PackedTensor p;
  p.n = nhwc.shape[0];
  p.h = nhwc.shape[1];
  p.w = nhwc.shape[2];
  p.c = nhwc.shape[3];
  p.bits = bits;
  p.words.assign(uint64_t(p.n) * p.groups() * p.h * p.w, 0);
  uint64_t i = 0;
  for (uint32_t n = 0; n < p.n; ++n) {
    for (uint32_t h = 0; h < p.h; ++h) {
      for (uint32_t w = 0; w < p.w; ++w) {
        for (uint32_t c = 0; c < p.c; ++c, ++i) {
          const int8_t v = nhwc.data[i];
          if (v != 1 && v != -1) {
            throw std::invalid_argument("pack_nhwc: element " + std::to_string(i) + " is " +
                                        std::to_string(v) + ", not -1 or +1");
          }
          if (v == 1) p.words[p.word_index(n, c / bits, h, w)] |= uint64_t(1) << (c % bits);
        }
      }
    }
  }
  return p;
}

TensorI8 unpack_to_nhwc(const PackedTensor& p) {
  if (p.bits != 32 && p.bits != 64) throw std::invalid_argument("unpack: b must be 32 or 64");
  if (p.words.size() != uint64_t(p.n) * p.groups() * p.h * p.w) {
    throw std::invalid_argument("unpack: word count does not match the shape");
  }
  TensorI8 out({p.n, p.h, p.w, p.c});
  uint64_t i = 0;
  for (uint32_t n = 0; n < p.n; ++n) {
    for (uint32_t h = 0; h < p.h; ++h) {
      for (uint32_t w = 0; w < p.w; ++w) {
        for (uint32_t c = 0; c < p.c; ++c, ++i) {
          const uint64_t word = p.words[p.word_index(n, c / p.bits, h, w)];
          out.data[i] = (word >> (c % p.bits)) & 1 ? 1 : -1;
        }
      }
    }
  }
  return out;
}

}  // namespace npusim
