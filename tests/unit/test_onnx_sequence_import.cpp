// The ONNX front-end on transformer operators in QDQ form
// (docs/onnx.md#transformer-blocks): DequantizeLinear -> Softmax /
// LayerNormalization -> QuantizeLinear on a [1, T, F] sequence become the
// graph's softmax and layernorm, with the model's gamma and beta quantised as
// documented, and a softmax over another axis is refused naming the node.
// The models are built here with the ONNX protobuf API.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include "sim/config/config_error.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

// x uint8 [1, 4, 8] -> DequantizeLinear -> OP -> QuantizeLinear -> y uint8 [1, 4, 8].
struct SequenceModel : test::OnnxModelBuilder {
  onnx::NodeProto* op = nullptr;

  SequenceModel(const std::string& op_type, int64_t axis) : OnnxModelBuilder(17) {
    input("x", onnx::TensorProto_DataType_UINT8, {1, 4, 8});
    output("y");
    scalar_float("xs", 0.05f);
    scalar_float("ys", op_type == "Softmax" ? 1.0f / 256 : 0.02f);
    ints("xz", onnx::TensorProto_DataType_UINT8, {}, {128});
    ints("yz", onnx::TensorProto_DataType_UINT8, {}, {op_type == "Softmax" ? 0 : 128});
    node("DequantizeLinear", {"x", "xs", "xz"}, {"xf"}, "xf");
    std::vector<std::string> ins = {"xf"};
    if (op_type == "LayerNormalization") {
      floats("gamma", {0.5f, -1.0f, 2.0f, 1.0f, 0.25f, 1.5f, -0.75f, 1.0f});
      floats("beta", {0.1f, 0.0f, -0.2f, 0.0f, 0.0f, 0.0f, 0.0f, 0.3f});
      ins = {"xf", "gamma", "beta"};
    }
    op = node(op_type, ins, {"yf"}, "op");
    auto* a = op->add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto_AttributeType_INT);
    a->set_i(axis);
    node("QuantizeLinear", {"yf", "ys", "yz"}, {"y"}, "y");
  }
  void floats(const std::string& name, std::vector<float> values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    t->add_dims(int64_t(values.size()));
    for (float v : values) t->add_float_data(v);
  }
};

}  // namespace

TEST_CASE("onnx: a QDQ Softmax over the last axis of a [1, T, F] sequence becomes a softmax",
          "[onnx]") {
  const OnnxModel m = import_onnx(SequenceModel("Softmax", -1).save("softmax.onnx"), {});
  REQUIRE(m.network.layers.size() == 1);
  const LayerConfig& L = m.network.layers[0];
  CHECK(L.op == OpKind::Softmax);
  CHECK(L.source_op == "Softmax(QDQ)");
  CHECK(L.seq.heads == 1);
  CHECK((L.C == 8 && L.H == 4 && L.W == 1 && L.N == 1));  // T rows of F channels
  CHECK(L.quant.output.scale == 1.0f / 256);
  // The input and output keep the model's [1, T, F] shape, in DRAM order.
  CHECK(m.network.graph_inputs[0].onnx_shape == std::vector<uint32_t>{1, 4, 8});
  REQUIRE(m.outputs.size() == 1);
  CHECK(m.outputs[0].nhwc);
  CHECK(m.outputs[0].shape == std::vector<uint32_t>{1, 4, 8});
}

TEST_CASE("onnx: a Softmax over an axis other than the last is refused naming the node", "[onnx]") {
  const ConfigError e = test::config_error_from(
      [&] { import_onnx(SequenceModel("Softmax", 1).save("softmax_axis1.onnx"), {}); });
  CHECK_THAT(e.pointer(), Catch::Contains("node 'op' (QLinearSoftmax)"));
  CHECK_THAT(e.expected(), Catch::Contains("softmax over the last axis"));
  CHECK_THAT(e.found(), Catch::Contains("axis 1 of shape [1, 4, 8]"));
}

TEST_CASE(
    "onnx: LayerNormalization's float gamma becomes int8 at max|gamma| / 127 and beta int32 at "
    "that scale / 4096",
    "[onnx]") {
  const OnnxModel m = import_onnx(SequenceModel("LayerNormalization", -1).save("ln.onnx"), {});
  REQUIRE(m.network.layers.size() == 1);
  const LayerConfig& L = m.network.layers[0];
  CHECK(L.op == OpKind::LayerNorm);
  const float gamma_scale = 2.0f / 127.0f;
  CHECK(L.quant.weight_scale == std::vector<float>{gamma_scale});
  CHECK(L.quant.weight_zero_point == std::vector<int32_t>{0});
  // 0.5 / (2 / 127) = 31.75 -> 32; -1 -> -63.5 -> -64 (half to even); 0.25 -> 15.875 -> 16.
  CHECK(L.weight_values == std::vector<int8_t>{32, -64, 127, 64, 16, 95, -48, 64});
  // 0.1 * 4096 / (2 / 127) = 26009.6 -> 26010; -0.2 -> -52019; 0.3 -> 78029.
  CHECK(L.quant.bias);
  CHECK(L.bias_values == std::vector<int32_t>{26010, 0, -52019, 0, 0, 0, 0, 78029});
  CHECK(L.seq.epsilon == double(1e-5f));
}
