#include "models/vector/rope.h"

#include <cmath>
#include <vector>

namespace npusim::vector_kernels {

// Rotary embedding, rotate-half pairs (i, i + dim/2) of each head at position
// p = oh + position_offset: cos and sin of p * base^(-2i/dim) in Q14.
void rope_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out) {
  const uint32_t dim = L.C / L.seq.heads, half = dim / 2;
  const double position = double(oh) + double(L.seq.position_offset);
  std::vector<int64_t> cosines(half), sines(half);
  for (uint32_t i = 0; i < half; ++i) {
    const double theta = position * std::pow(L.seq.rope_base, -2.0 * double(i) / double(dim));
    cosines[i] = int64_t(std::nearbyint(std::cos(theta) * 16384.0));
    sines[i] = int64_t(std::nearbyint(std::sin(theta) * 16384.0));
  }
  const float multiplier = (x.quant.scale / 16384.0f) / L.quant.output.scale;
  const uint64_t row = uint64_t(oh) * L.W * L.C;
  for (uint32_t h = 0; h < L.seq.heads; ++h)
    for (uint32_t i = 0; i < half; ++i) {
      const uint64_t lo = row + uint64_t(h) * dim + i, hi = lo + half;
      const int64_t a = x.value(lo) - x.quant.zero_point, b = x.value(hi) - x.quant.zero_point;
      out[lo - row] = requantise_to_int8(a * cosines[i] - b * sines[i], multiplier, L.quant.output);
      out[hi - row] = requantise_to_int8(b * cosines[i] + a * sines[i], multiplier, L.quant.output);
    }
}

}  // namespace npusim::vector_kernels
