// The elementwise family: QLinearAdd (com.microsoft) and the elementwise multiply
// (QLinearMul; qsequence.h), with ONNX Runtime's float32 arithmetic (docs/quantization.md).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/reference/qops.h"
#include "sim/reference/qsequence.h"

namespace npusim::reference::qops {

using detail::f32;
using detail::fail;

// ORT's x86-64 kernel (MLAS QLinearAdd, AVX2, chosen on every CPU with AVX2 and FMA)
// folds the zero points into one constant and evaluates, per element, two fused
// multiply-adds on the raw stored values:
//   ratio_a = a_scale / y_scale,  ratio_b = b_scale / y_scale                 (float32)
//   fixed   = float(y_zp) - fma(ratio_a, a_zp, ratio_b * b_zp)                (float32)
//   y       = saturate(round_half_to_even(fma(a, ratio_a, fma(b, ratio_b, fixed))))
// The source writes fixed as y_zp - (ratio_a * a_zp + ratio_b * b_zp); the released binary
// computes it as the fma above (as a compiler contracting a * b + c into one FMA does, and
// that file is built with FMA enabled), which the probe vectors
// qlinear_add_probe_zp_constant_* confirm. std::fma rounds once, exactly as vfmadd does, so
// this is portable.
QTensor qlinear_add(const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq,
                    const Quant& yq, ElemType y_type, Clamp clamp) {
  const char* op = "qlinear_add";
  detail::check_tensor(op, "a", a, 0);
  detail::check_tensor(op, "b", b, 0);
  if (a.shape != b.shape)
    fail(op, "a " + detail::dims(a.shape) + " and b " + detail::dims(b.shape) +
                 " must have the same shape (no broadcasting)");
  if (b.type != a.type || y_type != a.type)
    fail(op, "a, b and the output must share one type, as in ONNX Runtime");
  const detail::Single as = detail::single(op, "a", aq, a.type);
  const detail::Single bs = detail::single(op, "b", bq, b.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);

  const float ratio_a = f32(as.scale / ys.scale);
  const float ratio_b = f32(bs.scale / ys.scale);
  const float zp_part =
      std::fma(ratio_a, float(as.zero_point), f32(ratio_b * float(bs.zero_point)));
  const float fixed = f32(float(ys.zero_point) - zp_part);

  QTensor y{a.shape, std::vector<int32_t>(a.data.size()), y_type};
  for (size_t i = 0; i < a.data.size(); ++i) {
    const float partial = std::fma(float(b.data[i]), ratio_b, fixed);
    const float v = std::fma(float(a.data[i]), ratio_a, partial);
    y.data[i] = detail::round_add_saturate(v, 0, y_type, clamp);
  }
  return y;
}

QTensor mul(const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq, const Quant& yq,
            ElemType y_type) {
  const char* op = "mul";
  detail::check_tensor(op, "a", a, 0);
  detail::check_tensor(op, "b", b, 0);
  if (a.shape.size() != b.shape.size()) fail(op, "a and b must have one rank");
  for (size_t d = 0; d < a.shape.size(); ++d)
    if (b.shape[d] != a.shape[d] && b.shape[d] != 1)
      fail(op, "each dimension of b must equal a's or be 1");
  const detail::Single as = detail::single(op, "a", aq, a.type);
  const detail::Single bs = detail::single(op, "b", bq, b.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const float ratio = f32(f32(as.scale * bs.scale) / ys.scale);
  const double lo = type_min(y_type), hi = type_max(y_type);
  QTensor y{a.shape, std::vector<int32_t>(a.data.size()), y_type};
  std::vector<size_t> index(a.shape.size(), 0);  // a's multi-index, last axis fastest
  for (size_t i = 0; i < a.data.size(); ++i) {
    size_t j = 0;  // b's flat index: a broadcast axis stays at 0
    for (size_t d = 0; d < a.shape.size(); ++d)
      j = j * b.shape[d] + (b.shape[d] == 1 ? 0 : index[d]);
    const int32_t product = (a.data[i] - as.zero_point) * (b.data[j] - bs.zero_point);
    const float v = f32(f32(float(product) * ratio) + float(ys.zero_point));
    const double r = double(std::nearbyint(v));
    y.data[i] = int32_t(r < lo ? lo : r > hi ? hi : r);
    for (size_t d = a.shape.size(); d-- > 0;) {
      if (++index[d] < a.shape[d]) break;
      index[d] = 0;
    }
  }
  return y;
}

}  // namespace npusim::reference::qops
