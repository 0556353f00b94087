#include "sim/frontend/onnx_shapes.h"

#include <onnx/shape_inference/implementation.h>

#include <exception>

namespace npusim {

namespace {

void add_known(const onnx::ValueInfoProto& v, std::map<std::string, std::vector<int64_t>>& out) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
  std::vector<int64_t> dims;
  for (const auto& d : v.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() <= 0) return;  // not fully known
    dims.push_back(d.dim_value());
  }
  out.emplace(v.name(), std::move(dims));
}

}  // namespace

std::map<std::string, std::vector<int64_t>> stated_shapes(const onnx::ModelProto& model) {
  onnx::ModelProto inferred = model;
  try {
    // Lenient mode: a node libonnx cannot infer is skipped, not an error.
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception&) {
    inferred = model;  // a conflict among the declared shapes: compare what was declared
  }
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const onnx::ValueInfoProto& v : inferred.graph().output()) add_known(v, shapes);
  for (const onnx::ValueInfoProto& v : inferred.graph().value_info()) add_known(v, shapes);
  return shapes;
}

}  // namespace npusim
