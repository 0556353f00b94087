// The golden int8 convolution, in two forms that must agree bit for bit:
//  - conv2d_int8_naive: the definition. A direct seven-loop convolution over the NHWC input
//    and KRSC weights; padding taps are skipped by bounds checks.
//  - conv2d_int8: the same sums as a GEMM. For a panel of output pixels it builds the
//    lowered (im2col) matrix, one row per pixel holding its R x S x C window as int16 (zeros
//    for padding taps), and multiplies it by the weights [K, R*S*C] (gemm_s16.h), then
//    requantises. This shares nothing with the simulator's compute engine, which walks
//    stages of buffered rows and kernel streams (models/).
// Every product is at most 128 * 128 = 2^14 in magnitude and C*R*S is at most 2^17 - 1, so any
// partial sum stays below 2^31 and the int32 sums are exact in any order.
#include "sim/reference/reference_conv.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sim/reference/gemm_s16.h"

namespace npusim::reference {
namespace {

// Largest C*R*S for which an int32 accumulator cannot overflow:
// every product is at most 128*128 = 2^14 in magnitude, so 2^17 - 1 taps keep
// |acc| below 2^31.
constexpr uint64_t kMaxTaps = (uint64_t(1) << 17) - 1;
constexpr uint32_t kMaxShift = 62;

[[noreturn]] void bad_int8_conv(const std::string& what) {
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

// requantize() once its scale and shift are known to be valid (conv2d_int8 checks them once per
// layer, not once per output).
inline int8_t requantize_valid(int32_t acc, int32_t bias, int32_t scale, uint32_t shift,
                               bool relu) {
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

}  // namespace

int8_t requantize(int32_t acc, int32_t bias, int32_t scale, uint32_t shift, bool relu) {
  if (scale < 1) throw std::invalid_argument("reference::requantize: scale must be >= 1");
  if (shift > kMaxShift) throw std::invalid_argument("reference::requantize: shift must be <= 62");
  return requantize_valid(acc, bias, scale, shift, relu);
}

namespace {

struct Geometry {
  uint32_t N, H, W, C, K, R, S, Ho, Wo;
  int64_t pad, stride;
};

// Checks the arguments (throwing std::invalid_argument naming what is wrong) and derives the
// output shape.
Geometry check_and_size(const TensorI8& input, const TensorI8& weights, const ConvParams& p) {
  if (input.shape.size() != 4)
    bad_int8_conv("input must be 4-d N,H,W,C, got shape " + dims(input.shape));
  if (weights.shape.size() != 4)
    bad_int8_conv("weights must be 4-d K,R,S,C, got shape " + dims(weights.shape));
  if (input.data.size() != TensorI8::element_count(input.shape))
    bad_int8_conv("input data size does not match its shape " + dims(input.shape));
  if (weights.data.size() != TensorI8::element_count(weights.shape))
    bad_int8_conv("weights data size does not match its shape " + dims(weights.shape));

  Geometry g{};
  g.N = input.shape[0], g.H = input.shape[1], g.W = input.shape[2], g.C = input.shape[3];
  g.K = weights.shape[0], g.R = weights.shape[1], g.S = weights.shape[2];
  if (weights.shape[3] != g.C)
    bad_int8_conv("weights channel count " + std::to_string(weights.shape[3]) +
                  " does not match input channel count " + std::to_string(g.C));
  if (p.bias.size() != g.K)
    bad_int8_conv("bias has " + std::to_string(p.bias.size()) +
                  " entries, expected K=" + std::to_string(g.K));
  if (p.scale.size() != g.K)
    bad_int8_conv("scale has " + std::to_string(p.scale.size()) +
                  " entries, expected K=" + std::to_string(g.K));
  for (int32_t s : p.scale)
    if (s < 1) bad_int8_conv("every scale must be >= 1, found " + std::to_string(s));
  if (p.shift > kMaxShift) bad_int8_conv("shift must be <= 62, got " + std::to_string(p.shift));
  if (p.stride == 0) bad_int8_conv("stride must be >= 1");
  if (g.R == 0 || g.S == 0) bad_int8_conv("kernel must be at least 1x1");
  const uint64_t padded_h = uint64_t(g.H) + 2 * uint64_t(p.padding);
  const uint64_t padded_w = uint64_t(g.W) + 2 * uint64_t(p.padding);
  if (padded_h < g.R || padded_w < g.S)
    bad_int8_conv("kernel " + std::to_string(g.R) + "x" + std::to_string(g.S) +
                  " is larger than the padded input " + std::to_string(padded_h) + "x" +
                  std::to_string(padded_w));
  if (uint64_t(g.C) * g.R * g.S > kMaxTaps)
    bad_int8_conv("C*R*S = " + std::to_string(uint64_t(g.C) * g.R * g.S) +
                  " could overflow the int32 accumulator");
  g.Ho = uint32_t((padded_h - g.R) / p.stride + 1);
  g.Wo = uint32_t((padded_w - g.S) / p.stride + 1);
  g.pad = p.padding, g.stride = p.stride;
  return g;
}

// Output pixels per GEMM panel: enough rows of the lowered matrix to fill about 128 KiB (so
// the panel stays in the L2 cache while every block of kernels passes over it), at least 2.
size_t panel_pixels(size_t taps, size_t pixels) {
  constexpr size_t kPanelBytes = 128 * 1024;
  return std::min(pixels, std::max<size_t>(2, kPanelBytes / (taps * sizeof(int16_t))));
}

}  // namespace

TensorI8 conv2d_int8_naive(const TensorI8& input, const TensorI8& weights, const ConvParams& p) {
  const Geometry g = check_and_size(input, weights, p);
  const uint32_t H = g.H, W = g.W, C = g.C, K = g.K, R = g.R, S = g.S;
  TensorI8 out({g.N, g.Ho, g.Wo, K});
  // Signed coordinates so that "row above the image" (padding) is just < 0.
  int8_t* dst = out.data.data();
  for (uint32_t n = 0; n < g.N; ++n) {
    const int8_t* image = input.data.data() + uint64_t(n) * H * W * C;
    for (uint32_t oy = 0; oy < g.Ho; ++oy) {
      for (uint32_t ox = 0; ox < g.Wo; ++ox) {
        for (uint32_t k = 0; k < K; ++k) {
          const int8_t* filter = weights.data.data() + uint64_t(k) * R * S * C;
          int32_t acc = 0;
          for (uint32_t r = 0; r < R; ++r) {
            const int64_t iy = int64_t(oy) * g.stride - g.pad + r;
            if (iy < 0 || iy >= int64_t(H)) continue;  // padding row: contributes 0
            for (uint32_t s = 0; s < S; ++s) {
              const int64_t ix = int64_t(ox) * g.stride - g.pad + s;
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

TensorI8 conv2d_int8(const TensorI8& input, const TensorI8& weights, const ConvParams& p) {
  const Geometry g = check_and_size(input, weights, p);
  const size_t C = g.C, J = size_t(g.R) * g.S * C;  // taps per output value, in (r, s, c) order
  const size_t pixels = size_t(g.Ho) * g.Wo;        // per image
  TensorI8 out({g.N, g.Ho, g.Wo, g.K});
  if (pixels == 0 || g.K == 0) return out;

  // The weights as int16, row k = kernel k's taps in KRSC order (the lowered rows' order).
  std::vector<int16_t> w16(weights.data.begin(), weights.data.end());
  const size_t panel = panel_pixels(J, pixels);
  std::vector<int16_t> lowered(panel * J);
  std::vector<int32_t> acc(panel * g.K);
  for (uint32_t n = 0; n < g.N; ++n) {
    const int8_t* image = input.data.data() + size_t(n) * g.H * g.W * C;
    for (size_t p0 = 0; p0 < pixels; p0 += panel) {
      const size_t len = std::min(panel, pixels - p0);
      // Row t of the panel: pixel p0 + t's window, rows r, columns s, channels c.
      for (size_t t = 0; t < len; ++t) {
        const int64_t oy = int64_t((p0 + t) / g.Wo), ox = int64_t((p0 + t) % g.Wo);
        int16_t* row = lowered.data() + t * J;
        for (uint32_t r = 0; r < g.R; ++r) {
          const int64_t iy = oy * g.stride - g.pad + r;
          for (uint32_t s = 0; s < g.S; ++s) {
            int16_t* dst = row + (size_t(r) * g.S + s) * C;
            const int64_t ix = ox * g.stride - g.pad + s;
            if (iy < 0 || iy >= int64_t(g.H) || ix < 0 || ix >= int64_t(g.W)) {
              std::fill_n(dst, C, int16_t(0));  // a padding tap
              continue;
            }
            const int8_t* src = image + (size_t(iy) * g.W + size_t(ix)) * C;
            for (size_t c = 0; c < C; ++c) dst[c] = src[c];
          }
        }
      }
      gemm_s16({lowered.data(), len, J, w16.data(), g.K, J, J, acc.data(), g.K, 1});
      int8_t* dst = out.data.data() + (size_t(n) * pixels + p0) * g.K;
      for (size_t t = 0; t < len; ++t)
        for (size_t k = 0; k < g.K; ++k)
          dst[t * g.K + k] =
              requantize_valid(acc[t * g.K + k], p.bias[k], p.scale[k], p.shift, p.relu);
    }
  }
  return out;
}

}  // namespace npusim::reference
