// batch_matmul: a matmul of two activations batched over heads, with
// grouped-query sharing, from docs/transformers.md's definition (qsequence.h).
#include <cmath>
#include <string>

#include "sim/reference/qsequence.h"

namespace npusim::reference::qops {

using detail::f32;
using detail::fail;

QTensor batch_matmul(const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq,
                     const Quant& yq, ElemType y_type) {
  const char* op = "batch_matmul";
  detail::check_tensor(op, "a", a, 3);
  detail::check_tensor(op, "b", b, 3);
  const uint32_t G = a.shape[0], M = a.shape[1], D = a.shape[2];
  const uint32_t Gb = b.shape[0], N = b.shape[2];
  if (b.shape[1] != D)
    fail(op, "a " + detail::dims(a.shape) + " and b " + detail::dims(b.shape) +
                 " do not chain (a's last axis must equal b's middle axis)");
  if (Gb == 0 || G % Gb != 0) fail(op, "b's batch must divide a's (grouped-query sharing)");
  const detail::Single as = detail::single(op, "a", aq, a.type);
  const detail::Single bs = detail::single(op, "b", bq, b.type);
  const bool raw = y_type == ElemType::Int32;
  float multiplier = 0.0f;
  int32_t y_zp = 0;
  if (!raw) {
    const detail::Single ys = detail::single(op, "y", yq, y_type);
    multiplier = f32(f32(as.scale * bs.scale) / ys.scale);
    y_zp = ys.zero_point;
  }
  QTensor y{{G, M, N}, std::vector<int32_t>(uint64_t(G) * M * N), y_type};
  for (uint32_t g = 0; g < G; ++g) {
    const uint32_t gb = g / (G / Gb);
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t n = 0; n < N; ++n) {
        int64_t acc = 0;
        for (uint32_t d = 0; d < D; ++d)
          acc += int64_t(a.data[(uint64_t(g) * M + m) * D + d] - as.zero_point) *
                 int64_t(b.data[(uint64_t(gb) * D + d) * N + n] - bs.zero_point);
        if (acc < INT32_MIN || acc > INT32_MAX) fail(op, "a sum overflows int32");
        y.data[(uint64_t(g) * M + m) * N + n] =
            raw ? int32_t(acc) : requantize(int32_t(acc), multiplier, y_zp, y_type);
      }
  }
  return y;
}

}  // namespace npusim::reference::qops
