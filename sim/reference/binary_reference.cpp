// The golden binary convolution: a direct seven-loop convolution on -1/+1
// int8 values. Padding taps are handled by the mode: skipped, or read as a
// constant +1 or -1.
#include "sim/reference/binary_reference.h"

#include <stdexcept>
#include <string>

namespace npusim::reference {
namespace {

[[noreturn]] void bad_binary_conv(const std::string& what) {
  throw std::invalid_argument("reference::binary_conv: " + what);
}

void check_pm1(const TensorI8& t, const char* name) {
  if (t.shape.size() != 4) bad_binary_conv(std::string(name) + " must be 4-d");
  if (t.data.size() != TensorI8::element_count(t.shape))
    bad_binary_conv(std::string(name) + " data size does not match its shape");
  for (uint64_t i = 0; i < t.data.size(); ++i) {
    if (t.data[i] != 1 && t.data[i] != -1)
      bad_binary_conv(std::string(name) + " element " + std::to_string(i) + " is " +
                      std::to_string(t.data[i]) + ", not -1 or +1");
  }
}

}  // namespace

TensorI8 sign_to_pm1(const TensorI8& int8) {
  TensorI8 out(int8.shape);
  for (uint64_t i = 0; i < int8.data.size(); ++i) out.data[i] = int8.data[i] >= 0 ? 1 : -1;
  return out;
}

int8_t binarize(int32_t dot, int32_t threshold, uint8_t flip) {
  const bool on = flip == 0 ? dot >= threshold : dot <= threshold;
  return on ? 1 : -1;
}

TensorI32 binary_conv_dot(const TensorI8& input, const TensorI8& weights,
                          const BinaryConvParams& p) {
  check_pm1(input, "input");
  check_pm1(weights, "weights");
  const uint32_t N = input.shape[0], H = input.shape[1], W = input.shape[2], C = input.shape[3];
  const uint32_t K = weights.shape[0], R = weights.shape[1], S = weights.shape[2];
  if (weights.shape[3] != C) bad_binary_conv("weights and input channel counts differ");
  if (p.stride == 0) bad_binary_conv("stride must be >= 1");
  if (R == 0 || S == 0) bad_binary_conv("kernel must be at least 1x1");
  const uint64_t padded_h = uint64_t(H) + 2 * uint64_t(p.padding);
  const uint64_t padded_w = uint64_t(W) + 2 * uint64_t(p.padding);
  if (padded_h < R || padded_w < S) bad_binary_conv("kernel is larger than the padded input");

  const uint32_t Ho = uint32_t((padded_h - R) / p.stride + 1);
  const uint32_t Wo = uint32_t((padded_w - S) / p.stride + 1);
  TensorI32 out({N, Ho, Wo, K});
  const int32_t pad_value = p.pad_mode == BinaryPadding::PlusOne    ? 1
                            : p.pad_mode == BinaryPadding::MinusOne ? -1
                                                                    : 0;
  int32_t* dst = out.data.data();
  for (uint32_t n = 0; n < N; ++n) {
    for (uint32_t oy = 0; oy < Ho; ++oy) {
      for (uint32_t ox = 0; ox < Wo; ++ox) {
        for (uint32_t k = 0; k < K; ++k) {
          int32_t acc = 0;
          for (uint32_t r = 0; r < R; ++r) {
            const int64_t iy = int64_t(oy) * p.stride - int64_t(p.padding) + r;
            for (uint32_t s = 0; s < S; ++s) {
              const int64_t ix = int64_t(ox) * p.stride - int64_t(p.padding) + s;
              const int8_t* w = weights.data.data() + ((uint64_t(k) * R + r) * S + s) * C;
              const bool inside = iy >= 0 && iy < int64_t(H) && ix >= 0 && ix < int64_t(W);
              if (!inside) {
                // Every channel reads the pad value; Skip adds nothing.
                for (uint32_t c = 0; c < C; ++c) acc += pad_value * w[c];
                continue;
              }
              const int8_t* a =
                  input.data.data() + ((uint64_t(n) * H + uint64_t(iy)) * W + uint64_t(ix)) * C;
              for (uint32_t c = 0; c < C; ++c) acc += int32_t(a[c]) * int32_t(w[c]);
            }
          }
          *dst++ = acc;
        }
      }
    }
  }
  return out;
}

TensorI8 conv2d_binary(const TensorI8& input, const TensorI8& weights, const BinaryConvParams& p) {
  const uint32_t K = weights.shape.size() == 4 ? weights.shape[0] : 0;
  if (p.threshold.size() != K)
    bad_binary_conv("threshold has " + std::to_string(p.threshold.size()) +
                    " entries, expected K=" + std::to_string(K));
  if (p.flip.size() != K)
    bad_binary_conv("flip has " + std::to_string(p.flip.size()) +
                    " entries, expected K=" + std::to_string(K));
  for (uint8_t f : p.flip)
    if (f > 1) bad_binary_conv("every flip must be 0 or 1");
  const TensorI32 dot = binary_conv_dot(input, weights, p);
  TensorI8 out(dot.shape);
  for (uint64_t i = 0; i < dot.data.size(); ++i) {
    const uint32_t k = uint32_t(i % K);
    out.data[i] = binarize(dot.data[i], p.threshold[k], p.flip[k]);
  }
  return out;
}

}  // namespace npusim::reference
