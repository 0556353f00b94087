// The golden int8 convolution. Deliberately plain: a direct seven-loop
// convolution over the NHWC input and KRSC weights, with the only concession
// to speed being the loop order — the innermost loop runs over C, which is
// contiguous in both tensors, so it is a dot product the compiler vectorises.
// Padding taps are skipped by bounds checks instead of building a padded copy.
#include "sim/reference/reference_conv.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace npusim::reference {
namespace {

// Largest C*R*S for which an int32 accumulator cannot overflow:
// every product is at most 128*128 = 2^14 in magnitude, so 2^17 - 1 taps keep
// |acc| below 2^31.
constexpr uint64_t kMaxTaps = (uint64_t(1) << 17) - 1;
constexpr uint32_t kMaxShift = 62;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("reference::conv2d_int8: " + what);
}

std::string dims(const std::vector<uint32_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// Sum of in[c] * w[c] over one (r, s) tap. GCC's -O2 cost model vectorises a
// loop only when its trip count is known to be a multiple of the vector width,
// so the bulk loop runs to C rounded down to 16 and a scalar loop takes the rest.
inline int32_t dot_c(const int8_t* in, const int8_t* w, uint32_t C) {
  int32_t acc = 0;
  const uint32_t bulk = C & ~15u;
  for (uint32_t c = 0; c < bulk; ++c) acc += int32_t(in[c]) * int32_t(w[c]);
  for (uint32_t c = bulk; c < C; ++c) acc += int32_t(in[c]) * int32_t(w[c]);
  return acc;
}

}  // namespace

int8_t requantize(int32_t acc, int32_t bias, int32_t scale, uint32_t shift, bool relu) {
  if (scale < 1) throw std::invalid_argument("reference::requantize: scale must be >= 1");
  if (shift > kMaxShift) throw std::invalid_argument("reference::requantize: shift must be <= 62");
  // |acc + bias| <= 2^32 and scale < 2^31, so the product fits in int64.
  int64_t v = (int64_t(acc) + int64_t(bias)) * int64_t(scale);
  if (shift > 0) {
    // Round half up: floor((v + 2^(shift-1)) / 2^shift). Written as floor plus
    // a remainder test so that adding the half cannot overflow near INT64_MAX.
    const int64_t floor_q = v >> shift;  // arithmetic shift: floor for negatives
    const int64_t rem = v & ((int64_t(1) << shift) - 1);
    v = floor_q + (rem >= (int64_t(1) << (shift - 1)) ? 1 : 0);
  }
  v = std::clamp<int64_t>(v, -128, 127);
  if (relu) v = std::max<int64_t>(v, 0);
  return int8_t(v);
}

TensorI8 conv2d_int8(const TensorI8& input, const TensorI8& weights, const ConvParams& p) {
  if (input.shape.size() != 4) bad("input must be 4-d N,H,W,C, got shape " + dims(input.shape));
  if (weights.shape.size() != 4)
    bad("weights must be 4-d K,R,S,C, got shape " + dims(weights.shape));
  if (input.data.size() != TensorI8::element_count(input.shape))
    bad("input data size does not match its shape " + dims(input.shape));
  if (weights.data.size() != TensorI8::element_count(weights.shape))
    bad("weights data size does not match its shape " + dims(weights.shape));

  const uint32_t N = input.shape[0], H = input.shape[1], W = input.shape[2], C = input.shape[3];
  const uint32_t K = weights.shape[0], R = weights.shape[1], S = weights.shape[2];
  if (weights.shape[3] != C)
    bad("weights channel count " + std::to_string(weights.shape[3]) +
        " does not match input channel count " + std::to_string(C));
  if (p.bias.size() != K)
    bad("bias has " + std::to_string(p.bias.size()) + " entries, expected K=" + std::to_string(K));
  if (p.scale.size() != K)
    bad("scale has " + std::to_string(p.scale.size()) +
        " entries, expected K=" + std::to_string(K));
  for (int32_t s : p.scale)
    if (s < 1) bad("every scale must be >= 1, found " + std::to_string(s));
  if (p.shift > kMaxShift) bad("shift must be <= 62, got " + std::to_string(p.shift));
  if (p.stride == 0) bad("stride must be >= 1");
  if (R == 0 || S == 0) bad("kernel must be at least 1x1");
  const uint64_t padded_h = uint64_t(H) + 2 * uint64_t(p.padding);
  const uint64_t padded_w = uint64_t(W) + 2 * uint64_t(p.padding);
  if (padded_h < R || padded_w < S)
    bad("kernel " + std::to_string(R) + "x" + std::to_string(S) +
        " is larger than the padded input " + std::to_string(padded_h) + "x" +
        std::to_string(padded_w));
  if (uint64_t(C) * R * S > kMaxTaps)
    bad("C*R*S = " + std::to_string(uint64_t(C) * R * S) + " could overflow the int32 accumulator");

  const uint32_t Ho = uint32_t((padded_h - R) / p.stride + 1);
  const uint32_t Wo = uint32_t((padded_w - S) / p.stride + 1);
  TensorI8 out({N, Ho, Wo, K});

  // Signed coordinates so that "row above the image" (padding) is just < 0.
  const int64_t pad = p.padding, stride = p.stride;
  int8_t* dst = out.data.data();
  for (uint32_t n = 0; n < N; ++n) {
    const int8_t* image = input.data.data() + uint64_t(n) * H * W * C;
    for (uint32_t oy = 0; oy < Ho; ++oy) {
      for (uint32_t ox = 0; ox < Wo; ++ox) {
        for (uint32_t k = 0; k < K; ++k) {
          const int8_t* filter = weights.data.data() + uint64_t(k) * R * S * C;
          int32_t acc = 0;
          for (uint32_t r = 0; r < R; ++r) {
            const int64_t iy = int64_t(oy) * stride - pad + r;
            if (iy < 0 || iy >= int64_t(H)) continue;  // padding row: contributes 0
            for (uint32_t s = 0; s < S; ++s) {
              const int64_t ix = int64_t(ox) * stride - pad + s;
              if (ix < 0 || ix >= int64_t(W)) continue;  // padding column
              acc += dot_c(image + (uint64_t(iy) * W + uint64_t(ix)) * C,
                           filter + (uint64_t(r) * S + s) * C, C);
            }
          }
          *dst++ = requantize(acc, p.bias[k], p.scale[k], p.shift, p.relu);
        }
      }
    }
  }
  return out;
}

}  // namespace npusim::reference
