// QLinearConcat (com.microsoft), with ONNX Runtime's float32 arithmetic
// (docs/quantization.md).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/reference/qops.h"

namespace npusim::reference::qops {

using detail::f32;
using detail::fail;

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

}  // namespace npusim::reference::qops
