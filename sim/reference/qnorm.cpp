// LayerNorm and RMSNorm along the last axis, with the integer square root
// they use, from docs/transformers.md's definitions (qsequence.h).
#include <cmath>
#include <string>

#include "sim/reference/qsequence.h"

namespace npusim::reference::qops {

using detail::f32;
using detail::fail;

uint64_t integer_sqrt(uint64_t v) {
  uint64_t root = 0;
  uint64_t bit = uint64_t(1) << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

QTensor normalize(const QTensor& x, const Quant& xq, const std::vector<int32_t>& gamma,
                  ElemType gamma_type, const Quant& gq, const std::vector<int32_t>& beta,
                  double epsilon, NormForm form, const Quant& yq, ElemType y_type) {
  bool rms = false;
  switch (form) {
    case NormForm::Layer:
      rms = false;
      break;
    case NormForm::Rms:
      rms = true;
      break;
  }
  const char* op = rms ? "rms_norm" : "layer_norm";
  detail::check_tensor(op, "x", x, 2);
  const uint32_t M = x.shape[0], C = x.shape[1];
  if (gamma.size() != C || (!beta.empty() && beta.size() != C))
    fail(op, "gamma and beta need one value per channel");
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single gs = detail::single(op, "gamma", gq, gamma_type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const double sx2 = double(xs.scale) * double(xs.scale);
  // epsilon in the integer units of the quantity under the root.
  const double eps_units = rms ? epsilon * 65536.0 / sx2 : epsilon * double(C) * double(C) / sx2;
  const uint64_t eps_int = uint64_t(std::fmin(std::nearbyint(eps_units), 4.0e18));
  const float multiplier = f32(f32(gs.scale / 4096.0f) / ys.scale);
  QTensor y{x.shape, std::vector<int32_t>(x.data.size()), y_type};
  std::vector<int64_t> dev(C);
  for (uint32_t m = 0; m < M; ++m) {
    const int32_t* v = x.data.data() + uint64_t(m) * C;
    int64_t sum = 0;
    for (uint32_t c = 0; c < C; ++c) sum += v[c] - xs.zero_point;
    // LayerNorm: C times each deviation from the mean (exact); RMSNorm: the values.
    uint64_t sum_sq = 0;
    for (uint32_t c = 0; c < C; ++c) {
      const int64_t centred = v[c] - xs.zero_point;
      dev[c] = rms ? centred : int64_t(C) * centred - sum;
      sum_sq += uint64_t(dev[c] * dev[c]);
    }
    const uint64_t under_root = rms ? sum_sq * 65536 / C : sum_sq / C;
    const int64_t denominator = int64_t(integer_sqrt(under_root + eps_int));
    const int64_t scale_up = rms ? int64_t(1) << 20 : int64_t(1) << 12;
    for (uint32_t c = 0; c < C; ++c) {
      const int64_t z = denominator == 0 ? 0 : dev[c] * scale_up / denominator;  // Q12
      int64_t acc = int64_t(gamma[c] - gs.zero_point) * z;
      if (!beta.empty()) acc += beta[c];
      y.data[uint64_t(m) * C + c] = detail::requantize_wide(acc, multiplier, ys.zero_point, y_type);
    }
  }
  return y;
}

}  // namespace npusim::reference::qops
