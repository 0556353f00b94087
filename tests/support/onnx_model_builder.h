// Builds ONNX models in tests with the ONNX protobuf API: opsets (the default
// domain and com.microsoft), inputs, outputs, initialisers and nodes, saved
// into the test's temporary folder.
#pragma once

#include <onnx/onnx_pb.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace npusim::test {

struct OnnxModelBuilder {
  onnx::ModelProto model;
  onnx::GraphProto* g;

  explicit OnnxModelBuilder(int64_t opset = 13) {
    model.set_ir_version(8);
    auto* o = model.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    auto* ms = model.add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
    g = model.mutable_graph();
    g->set_name("test_model");
  }
  void input(const std::string& name, int type, std::vector<int64_t> dims,
             const std::string& dynamic = "") {
    auto* v = g->add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    for (int64_t d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (d < 0)
        dim->set_dim_param(dynamic);
      else
        dim->set_dim_value(d);
    }
  }
  // A graph output, typed as exporters write them (ONNX's checker requires the type).
  void output(const std::string& name, int type = onnx::TensorProto_DataType_UINT8) {
    auto* o = g->add_output();
    o->set_name(name);
    o->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  void scalar_float(const std::string& name, float v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    t->add_float_data(v);
  }
  void ints(const std::string& name, int type, std::vector<int64_t> dims,
            std::vector<int32_t> values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    for (int32_t v : values) t->add_int32_data(v);
  }
  // A 1-D int64 initialiser (ints() stores int32_data, which int64 tensors do not read).
  void int64_values(const std::string& name, const std::vector<int64_t>& values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    t->add_dims(int64_t(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  // A 1-D float initialiser.
  void float_values(const std::string& name, const std::vector<float>& values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    t->add_dims(int64_t(values.size()));
    for (float v : values) t->add_float_data(v);
  }
  onnx::NodeProto* node(const std::string& op, std::vector<std::string> in,
                        std::vector<std::string> out, const std::string& name,
                        const std::string& domain = "") {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    n->set_domain(domain);
    for (auto& i : in) n->add_input(i);
    for (auto& o : out) n->add_output(o);
    return n;
  }
  // An INTS attribute (strides, pads, perm, ...) on `n`.
  static void ints_attribute(onnx::NodeProto* n, const std::string& name,
                             const std::vector<int64_t>& values) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (int64_t v : values) a->add_ints(v);
  }
  // A STRING attribute (mode, coordinate_transformation_mode, ...) on `n`.
  static void text_attribute(onnx::NodeProto* n, const std::string& name,
                             const std::string& value) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_STRING);
    a->set_s(value);
  }
  std::string save(const std::string& file) const {
    const std::string path = temp_dir() + "/" + file;
    std::ofstream f(path, std::ios::binary);
    model.SerializeToOstream(&f);
    return path;
  }
};

}  // namespace npusim::test
