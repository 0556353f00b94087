#include "models/vector/softmax.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace npusim::vector_kernels {

// Softmax over each head's n = C / heads channels of a pixel: e = E[max - q]
// with E[d] = round(2^16 exp(-d * x_scale)), p = floor(e * 2^16 / sum e)
// (Q16), then the float32 requantiser with multiplier 2^-16 / y_scale. A causal
// row `oh` sees keys j <= oh + (n - H); the rest get p = 0.
void softmax_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out) {
  std::array<uint32_t, 256> table{};
  for (uint32_t d = 0; d < 256; ++d)
    table[d] =
        uint32_t(std::nearbyint(std::ldexp(std::exp(-double(d) * double(x.quant.scale)), 16)));
  const TensorQuant& y = L.quant.output;
  const float multiplier = (1.0f / 65536.0f) / y.scale;
  const uint32_t n = L.C / L.seq.heads;
  const uint32_t valid = L.seq.causal ? std::min<uint32_t>(n, oh + (n - L.H) + 1) : n;
  for (uint32_t ow = 0; ow < L.out_w; ++ow)
    for (uint32_t h = 0; h < L.seq.heads; ++h) {
      const uint64_t base = (uint64_t(oh) * L.W + ow) * L.C + uint64_t(h) * n;
      int32_t top = INT32_MIN;
      for (uint32_t j = 0; j < valid; ++j) top = std::max(top, x.value(base + j));
      uint64_t sum = 0;
      for (uint32_t j = 0; j < valid; ++j) sum += table[uint32_t(top - x.value(base + j))];
      for (uint32_t j = 0; j < n; ++j) {
        const uint64_t p =
            j < valid ? (uint64_t(table[uint32_t(top - x.value(base + j))]) << 16) / sum : 0;
        out[uint64_t(ow) * L.K + uint64_t(h) * n + j] =
            requantise_to_int8(int64_t(p), multiplier, y);
      }
    }
}

}  // namespace npusim::vector_kernels
