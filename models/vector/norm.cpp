#include "models/vector/norm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace npusim::vector_kernels {
namespace {

int32_t param(const int8_t* params, uint32_t c, uint32_t which) {
  int32_t v = 0;
  std::memcpy(&v, params + uint64_t(c) * 8 + which * 4, 4);
  return v;
}

}  // namespace

// LayerNorm and RMSNorm per pixel over its C channels; z in Q12, then
// acc = (gamma - gamma_zp) * z + beta, requantised with (gamma_scale / 2^12) / y_scale.
void norm_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, const int8_t* params,
              int8_t* out) {
  const uint32_t C = L.C;
  // LayerNorm works on the deviations from the mean, RMSNorm on the values.
  bool layer_norm = false;
  switch (op_info(L.op).norm) {
    case NormKind::Layer:
      layer_norm = true;
      break;
    case NormKind::Rms:
      layer_norm = false;
      break;
  }
  const double sx = double(x.quant.scale);
  const double eps = layer_norm ? L.seq.epsilon * double(C) * double(C) / (sx * sx)
                                : L.seq.epsilon * 65536.0 / (sx * sx);
  const uint64_t eps_int = uint64_t(std::min(std::nearbyint(eps), 4.0e18));
  const bool g_unsigned = L.quant.weight_type == QuantType::Uint8;
  const int32_t g_zp = L.quant.weight_zero_point[0];
  const float multiplier = (L.quant.weight_scale[0] / 4096.0f) / L.quant.output.scale;
  for (uint32_t ow = 0; ow < L.out_w; ++ow) {
    const uint64_t base = (uint64_t(oh) * L.W + ow) * C;
    const auto centred = [&](uint32_t c) {
      return int64_t(x.value(base + c) - x.quant.zero_point);
    };
    int64_t total = 0;
    for (uint32_t c = 0; c < C; ++c) total += centred(c);
    uint64_t squares = 0;
    for (uint32_t c = 0; c < C; ++c) {
      const int64_t d = layer_norm ? int64_t(C) * centred(c) - total : centred(c);
      squares += uint64_t(d * d);
    }
    const uint64_t root = isqrt((layer_norm ? squares / C : (squares << 16) / C) + eps_int);
    for (uint32_t c = 0; c < C; ++c) {
      const int64_t d = layer_norm ? int64_t(C) * centred(c) - total : centred(c);
      const int64_t z = root == 0 ? 0 : d * (layer_norm ? 4096 : 1048576) / int64_t(root);
      const int32_t raw = param(params, c, 1);
      const int32_t gamma =
          (g_unsigned ? int32_t(uint8_t(int8_t(raw))) : int32_t(int8_t(raw))) - g_zp;
      const int64_t acc = int64_t(gamma) * z + (L.quant.bias ? param(params, c, 0) : 0);
      out[uint64_t(ow) * L.K + c] = requantise_to_int8(acc, multiplier, L.quant.output);
    }
  }
}

uint64_t isqrt(uint64_t v) {
  constexpr uint64_t kMax = 0xFFFFFFFFull;  // floor(sqrt(2^64 - 1))
  uint64_t r = std::min<uint64_t>(uint64_t(std::sqrt(double(v))), kMax);
  while (r * r > v) --r;
  while (r < kMax && (r + 1) * (r + 1) <= v) ++r;
  return r;
}

}  // namespace npusim::vector_kernels
