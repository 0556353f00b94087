#include "sim/frontend/onnx/onnx_shapes.h"

#include <onnx/shape_inference/implementation.h>

#include <exception>
#include <utility>

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

// Whether libonnx's shape inference can run `n` safely. Its convolution and pooling
// inference divides by every stride and indexes the strides, dilations and pads by
// the kernel's rank, which it takes from the weights unless kernel_shape is given:
// a zero stride stopped the process (SIGFPE), and 5-D weights at a 4-D input read
// past the dilations (SIGSEGV). So spatial attributes must hold positive values of
// the right type, and a convolution's kernel_shape is stated from 4-D weights whose
// dims the graph gives (an initialiser, possibly through a DequantizeLinear); a node
// that fails this is left out of inference (the importer then refuses it by name).
bool prepare_for_inference(onnx::NodeProto& n,
                           const std::map<std::string, std::vector<int64_t>>& constant_dims) {
  bool has_kernel_shape = false;
  for (const onnx::AttributeProto& a : n.attribute()) {
    const std::string& name = a.name();
    const bool spatial = name == "strides" || name == "dilations" || name == "kernel_shape";
    if (!spatial && name != "pads") continue;
    if (a.type() != onnx::AttributeProto_AttributeType_INTS) return false;
    for (const int64_t v : a.ints())
      if (spatial ? v <= 0 : v < 0) return false;
    has_kernel_shape = has_kernel_shape || name == "kernel_shape";
  }
  const std::string& op = n.op_type();
  const int weight_at = op == "QLinearConv" ? 3 : op == "Conv" || op == "ConvInteger" ? 1 : -1;
  if (weight_at < 0 || !(n.domain().empty() || n.domain() == "ai.onnx")) return true;
  if (n.input_size() <= weight_at) return false;
  const auto w = constant_dims.find(n.input(weight_at));
  if (w == constant_dims.end() || w->second.size() != 4) return false;
  if (!has_kernel_shape) {
    onnx::AttributeProto* k = n.add_attribute();
    k->set_name("kernel_shape");
    k->set_type(onnx::AttributeProto_AttributeType_INTS);
    k->add_ints(w->second[2]);
    k->add_ints(w->second[3]);
  }
  return true;
}

}  // namespace

std::map<std::string, std::vector<int64_t>> stated_shapes(const onnx::ModelProto& model) {
  // Shape inference needs the initialisers' types and dims, not their values:
  // the copy leaves the weights out (25 MB for ResNet-50).
  onnx::ModelProto inferred;
  inferred.set_ir_version(model.ir_version());
  *inferred.mutable_opset_import() = model.opset_import();
  onnx::GraphProto& g = *inferred.mutable_graph();
  // The dims of the initialisers, and of DequantizeLinear outputs of them.
  std::map<std::string, std::vector<int64_t>> constant_dims;
  for (const onnx::TensorProto& t : model.graph().initializer())
    constant_dims[t.name()] = {t.dims().begin(), t.dims().end()};
  for (const onnx::NodeProto& n : model.graph().node())
    if (n.op_type() == "DequantizeLinear" && n.input_size() > 0 && n.output_size() > 0 &&
        constant_dims.count(n.input(0)))
      constant_dims[n.output(0)] = constant_dims[n.input(0)];
  for (const onnx::NodeProto& n : model.graph().node()) {
    onnx::NodeProto copy = n;
    if (prepare_for_inference(copy, constant_dims)) *g.add_node() = std::move(copy);
  }
  *g.mutable_input() = model.graph().input();
  *g.mutable_output() = model.graph().output();
  *g.mutable_value_info() = model.graph().value_info();
  for (const onnx::TensorProto& t : model.graph().initializer()) {
    onnx::TensorProto* header = g.add_initializer();
    header->set_name(t.name());
    header->set_data_type(t.data_type());
    *header->mutable_dims() = t.dims();
  }
  std::map<std::string, std::vector<int64_t>> shapes;
  try {
    // Lenient mode: a node libonnx cannot infer is skipped, not an error.
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception&) {
    // A conflict among the declared shapes: compare what was declared.
    for (const onnx::ValueInfoProto& v : model.graph().output()) add_known(v, shapes);
    for (const onnx::ValueInfoProto& v : model.graph().value_info()) add_known(v, shapes);
    return shapes;
  }
  for (const onnx::ValueInfoProto& v : inferred.graph().output()) add_known(v, shapes);
  for (const onnx::ValueInfoProto& v : inferred.graph().value_info()) add_known(v, shapes);
  return shapes;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string t;
  for (int64_t d : dims) t += (t.empty() ? "" : ", ") + std::to_string(d);
  return "[" + t + "]";
}

}  // namespace npusim
