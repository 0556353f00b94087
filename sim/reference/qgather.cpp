// Gather along one axis with constant indices (ONNX Gather): copies, no
// arithmetic.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/reference/qops.h"

namespace npusim::reference::qops {

using detail::fail;

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
