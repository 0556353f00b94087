// softmax along the last axis with an optional causal mask, from
// docs/transformers.md's definition (qsequence.h), step by step in its order.
#include <cmath>
#include <string>

#include "sim/reference/qsequence.h"

namespace npusim::reference::qops {

using detail::f32;
using detail::fail;

QTensor softmax(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type, bool causal) {
  const char* op = "softmax";
  detail::check_tensor(op, "x", x, 3);
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const uint32_t G = x.shape[0], M = x.shape[1], N = x.shape[2];
  if (causal && N < M) fail(op, "a causal softmax needs at least as many keys as queries");
  const float multiplier = f32(f32(1.0f / 65536.0f) / ys.scale);
  QTensor y{x.shape, std::vector<int32_t>(x.data.size()), y_type};
  for (uint32_t g = 0; g < G; ++g)
    for (uint32_t m = 0; m < M; ++m) {
      const uint64_t row = (uint64_t(g) * M + m) * N;
      const uint32_t seen = causal ? m + (N - M) + 1 : N;  // keys 0 .. seen-1
      int32_t largest = x.data[row];
      for (uint32_t n = 1; n < seen; ++n)
        if (x.data[row + n] > largest) largest = x.data[row + n];
      std::vector<uint64_t> e(seen);
      uint64_t total = 0;
      for (uint32_t n = 0; n < seen; ++n) {
        const double gap = double(largest - x.data[row + n]);  // in input steps, >= 0
        e[n] = uint64_t(std::nearbyint(std::ldexp(std::exp(-gap * double(xs.scale)), 16)));
        total += e[n];
      }
      for (uint32_t n = 0; n < N; ++n) {
        const uint64_t p = n < seen ? e[n] * 65536 / total : 0;
        y.data[row + n] = requantize(int32_t(p), multiplier, ys.zero_point, y_type);
      }
    }
  return y;
}

}  // namespace npusim::reference::qops
