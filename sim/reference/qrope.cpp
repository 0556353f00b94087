// Rotary embedding (rotate-half), from docs/transformers.md's definition
// (qsequence.h).
#include <cmath>
#include <string>

#include "sim/reference/qsequence.h"

namespace npusim::reference::qops {

using detail::f32;
using detail::fail;

QTensor rope(const QTensor& x, const Quant& xq, double base, uint32_t position_offset,
             const Quant& yq, ElemType y_type) {
  const char* op = "rope";
  detail::check_tensor(op, "x", x, 3);
  const uint32_t G = x.shape[0], M = x.shape[1], D = x.shape[2];
  if (D % 2 != 0) fail(op, "the last axis must be even");
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const float multiplier = f32(f32(xs.scale / 16384.0f) / ys.scale);
  QTensor y{x.shape, std::vector<int32_t>(x.data.size()), y_type};
  const uint32_t half = D / 2;
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t i = 0; i < half; ++i) {
      const double angle =
          (double(m) + double(position_offset)) * std::pow(base, -2.0 * double(i) / double(D));
      const int64_t c = int64_t(std::nearbyint(std::cos(angle) * 16384.0));
      const int64_t s = int64_t(std::nearbyint(std::sin(angle) * 16384.0));
      for (uint32_t g = 0; g < G; ++g) {
        const uint64_t at = (uint64_t(g) * M + m) * D;
        const int64_t first = x.data[at + i] - xs.zero_point;
        const int64_t second = x.data[at + i + half] - xs.zero_point;
        y.data[at + i] =
            detail::requantize_wide(first * c - second * s, multiplier, ys.zero_point, y_type);
        y.data[at + i + half] =
            detail::requantize_wide(second * c + first * s, multiplier, ys.zero_point, y_type);
      }
    }
  return y;
}

}  // namespace npusim::reference::qops
