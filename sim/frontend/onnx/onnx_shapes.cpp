#include "sim/frontend/onnx/onnx_shapes.h"

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
  // Shape inference needs the initialisers' types and dims, not their values:
  // the copy leaves the weights out (25 MB for ResNet-50).
  onnx::ModelProto inferred;
  inferred.set_ir_version(model.ir_version());
  *inferred.mutable_opset_import() = model.opset_import();
  onnx::GraphProto& g = *inferred.mutable_graph();
  *g.mutable_node() = model.graph().node();
  *g.mutable_input() = model.graph().input();
  *g.mutable_output() = model.graph().output();
  *g.mutable_value_info() = model.graph().value_info();
  for (const onnx::TensorProto& t : model.graph().initializer()) {
    onnx::TensorProto* header = g.add_initializer();
    header->set_name(t.name());
    header->set_data_type(t.data_type());
    *header->mutable_dims() = t.dims();
  }
  const onnx::ModelProto declared = inferred;
  try {
    // Lenient mode: a node libonnx cannot infer is skipped, not an error.
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception&) {
    inferred = declared;  // a conflict among the declared shapes: compare what was declared
  }
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const onnx::ValueInfoProto& v : inferred.graph().output()) add_known(v, shapes);
  for (const onnx::ValueInfoProto& v : inferred.graph().value_info()) add_known(v, shapes);
  return shapes;
}

}  // namespace npusim
