// QLinearAdd and QLinearConcat (com.microsoft), with ONNX Runtime's float32
// arithmetic (docs/quantization.md).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/reference/qops.h"

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

// ORT's QLinearConcat maps every input value through a 256-entry table built with
// QuantizeLinear: y = saturate(round_half_to_even((x_scale * float(x - x_zp)) / y_scale)
// + y_zp), each operation in float32. An input whose scale and zero point equal the
// output's is copied unchanged (the table would give the same values).
QTensor qlinear_concat(const std::vector<QTensor>& xs, const std::vector<Quant>& xqs,
                       const Quant& yq, ElemType y_type, uint32_t axis) {
  const char* op = "qlinear_concat";
  if (xs.empty()) fail(op, "needs at least one input");
  if (xqs.size() != xs.size())
    fail(op, std::to_string(xs.size()) + " inputs but " + std::to_string(xqs.size()) +
                 " quantisation parameters");
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const std::vector<uint32_t>& first = xs[0].shape;
  if (axis >= first.size())
    fail(op, "axis " + std::to_string(axis) + " is outside rank " + std::to_string(first.size()));
  std::vector<uint32_t> shape = first;
  shape[axis] = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    detail::check_tensor(op, name.c_str(), xs[i], first.size());
    if (xs[i].type != y_type)
      fail(op, name + " is " + type_name(xs[i].type) + " but the output is " + type_name(y_type) +
                   " (ONNX Runtime needs one type)");
    for (size_t d = 0; d < first.size(); ++d)
      if (d != axis && xs[i].shape[d] != first[d])
        fail(op, name + " " + detail::dims(xs[i].shape) + " does not match x0 " +
                     detail::dims(first) + " outside axis " + std::to_string(axis));
    shape[axis] += xs[i].shape[axis];
  }

  // outer = product of the dims before the axis; each input contributes contiguous
  // chunks of shape[axis] * (product of the dims after it) values per outer index.
  uint64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= first[d];
  for (size_t d = axis + 1; d < first.size(); ++d) inner *= first[d];

  QTensor y{shape, {}, y_type};
  y.data.reserve(detail::element_count(shape));
  for (uint64_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < xs.size(); ++i) {
      const std::string name = "x" + std::to_string(i);
      const detail::Single q = detail::single(op, name.c_str(), xqs[i], xs[i].type);
      const bool copy = q.scale == ys.scale && q.zero_point == ys.zero_point;
      const uint64_t chunk = uint64_t(xs[i].shape[axis]) * inner;
      for (uint64_t j = 0; j < chunk; ++j) {
        const int32_t v = xs[i].data[o * chunk + j];
        const float real = f32(q.scale * float(v - q.zero_point));
        y.data.push_back(copy ? v : quantize_linear(real, ys.scale, ys.zero_point, y_type));
      }
    }
  return y;
}

QTensor gather(const QTensor& x, uint32_t axis, const std::vector<int64_t>& indices) {
  const char* op = "gather";
  detail::check_tensor(op, "x", x, x.shape.size());
  if (axis >= x.shape.size())
    fail(op, "axis " + std::to_string(axis) + " is outside rank " + std::to_string(x.shape.size()));
  const int64_t extent = x.shape[axis];
  uint64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  QTensor y{x.shape, {}, x.type};
  y.shape[axis] = uint32_t(indices.size());
  y.data.reserve(outer * indices.size() * inner);
  for (uint64_t o = 0; o < outer; ++o)
    for (const int64_t index : indices) {
      if (index < -extent || index >= extent)
        fail(op, "index " + std::to_string(index) + " is outside [-" + std::to_string(extent) +
                     ", " + std::to_string(extent) + ")");
      const uint64_t from = uint64_t(index < 0 ? index + extent : index);
      const auto first = x.data.begin() + int64_t((o * uint64_t(extent) + from) * inner);
      y.data.insert(y.data.end(), first, first + int64_t(inner));
    }
  return y;
}

}  // namespace npusim::reference::qops
