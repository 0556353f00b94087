// The ONNX front-end (docs/onnx.md): a QOperator model becomes graph
// operators carrying the model's own weights, bias, scales and zero points,
// and every kind of model it cannot run is an error naming the file and the
// node. The models are built here with the ONNX protobuf API.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <limits>

#include "sim/config/config_error.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "sim/tensor/tensor.h"
#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

using ModelBuilder = test::OnnxModelBuilder;

// x uint8 [1, 2, 4, 3] -> QLinearConv 3 kernels 3x3 pads 1 -> y uint8.
ModelBuilder conv_model() {
  ModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, 2, 4, 3});
  m.scalar_float("xs", 0.02f);
  m.ints("xz", onnx::TensorProto_DataType_UINT8, {}, {128});
  std::vector<int32_t> w(3 * 2 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = int32_t(i % 7) - 3;  // w[k][c][r][s] = i % 7 - 3
  m.ints("w", onnx::TensorProto_DataType_INT8, {3, 2, 3, 3}, w);
  auto* ws = m.g->add_initializer();
  ws->set_name("ws");
  ws->set_data_type(onnx::TensorProto_DataType_FLOAT);
  ws->add_dims(3);
  for (float s : {0.01f, 0.02f, 0.03f}) ws->add_float_data(s);
  m.ints("wz", onnx::TensorProto_DataType_INT8, {}, {0});
  m.scalar_float("ys", 0.05f);
  m.ints("yz", onnx::TensorProto_DataType_UINT8, {}, {10});
  m.ints("b", onnx::TensorProto_DataType_INT32, {3}, {5, -6, 7});
  auto* n =
      m.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, {"y"}, "conv");
  ModelBuilder::ints_attribute(n, "pads", {1, 0, 1, 2});
  m.output("y");
  return m;
}

}  // namespace

TEST_CASE("onnx: QLinearConv becomes a conv with the model's weights, bias and quantisation",
          "[onnx]") {
  const OnnxModel m = import_onnx(conv_model().save("conv.onnx"), {});
  REQUIRE(m.network.layers.size() == 1);
  const LayerConfig& L = m.network.layers[0];
  CHECK(L.name == "conv");
  CHECK(L.source_op == "QLinearConv");
  CHECK(L.K == 3);
  CHECK(L.C == 2);
  CHECK(L.padding == 1);
  CHECK(pad_l(L) == 0);
  CHECK(pad_r(L) == 2);
  CHECK(L.out_w() == (3 + 0 + 2 - 3) / 1 + 1);
  CHECK(L.quant.inputs[0].zero_point == 128);
  CHECK(L.quant.output.zero_point == 10);
  CHECK(L.quant.weight_scale == std::vector<float>{0.01f, 0.02f, 0.03f});
  CHECK(L.bias_values == std::vector<int32_t>{5, -6, 7});
  // OIHW -> K,R,S,C: w[k=1][c=1][r=2][s=0] (ONNX index 1*18 + 1*9 + 2*3 + 0 = 33, 33 % 7 - 3 = 2)
  // lies at ((1*3 + 2)*3 + 0)*2 + 1 = 31.
  CHECK(int(L.weight_values[31]) == 2);
  CHECK(m.network.graph_inputs[0].quant.type == QuantType::Uint8);
  CHECK(m.network.graph_inputs[0].quant.scale == 0.02f);
  REQUIRE(m.outputs.size() == 1);
  CHECK(m.outputs[0].tensor == "y");
}

TEST_CASE("onnx: an unsupported operator is an error naming the node and what is supported",
          "[onnx]") {
  ModelBuilder m = conv_model();
  m.node("Softmax", {"y"}, {"z"}, "soft");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("soft.onnx"), {}); });
  CHECK_THAT(e.pointer(), Catch::Contains("soft") && Catch::Contains("Softmax"));
  CHECK_THAT(e.expected(), Catch::Contains("QLinearConv"));
}

TEST_CASE("onnx: a float Conv between quantised tensors is refused, not run in float", "[onnx]") {
  ModelBuilder m = conv_model();
  m.node("Conv", {"y", "w"}, {"z"}, "float_conv");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("fconv.onnx"), {}); });
  CHECK_THAT(e.pointer(), Catch::Contains("'float_conv' (Conv)"));
}

TEST_CASE("onnx: a missing initialiser is an error at the node and input", "[onnx]") {
  ModelBuilder m = conv_model();
  m.g->mutable_node(0)->set_input(4, "no_such_scale");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("missing.onnx"), {}); });
  CHECK(e.pointer() == "node 'conv' (QLinearConv)");
  CHECK_THAT(e.found(), Catch::Contains("input 'no_such_scale'"));
}

TEST_CASE("onnx: a truncated or non-ONNX file is a clear error", "[onnx]") {
  const std::string path = conv_model().save("whole.onnx");
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = test::write_temp_file("cut.onnx", bytes.substr(0, bytes.size() / 2));
  ConfigError e = test::config_error_from([&] { import_onnx(cut, {}); });
  CHECK(e.file() == cut);
  const std::string text = test::write_temp_file("text.onnx", "this is not a model\n");
  e = test::config_error_from([&] { import_onnx(text, {}); });
  CHECK_THAT(e.expected(), Catch::Contains("ONNX model"));
}

TEST_CASE("onnx: a dynamic dimension, an opset outside 10..19 and a zero scale are errors",
          "[onnx]") {
  ModelBuilder dynamic;
  dynamic.input("x", onnx::TensorProto_DataType_UINT8, {-1, 2, 4, 3}, "batch");
  ConfigError e = test::config_error_from([&] { import_onnx(dynamic.save("dyn.onnx"), {}); });
  CHECK_THAT(e.found(), Catch::Contains("batch"));

  ModelBuilder old = conv_model();
  old.model.mutable_opset_import(0)->set_version(9);
  e = test::config_error_from([&] { import_onnx(old.save("old.onnx"), {}); });
  CHECK_THAT(e.found(), Catch::Contains("opset 9"));

  ModelBuilder zero = conv_model();
  for (auto& t : *zero.g->mutable_initializer())
    if (t.name() == "ys") t.set_float_data(0, 0.0f);
  e = test::config_error_from([&] { import_onnx(zero.save("zero.onnx"), {}); });
  CHECK_THAT(e.expected(), Catch::Contains("positive finite"));
}

TEST_CASE("onnx: a zero point whose type differs from its tensor's is an error", "[onnx]") {
  ModelBuilder m = conv_model();
  for (auto& t : *m.g->mutable_initializer())
    if (t.name() == "wz") t.set_data_type(onnx::TensorProto_DataType_UINT8);
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("zptype.onnx"), {}); });
  CHECK_THAT(e.expected(), Catch::Contains("int8 zero point"));
}

TEST_CASE("onnx: Relu and Clip on a conv's output become its output range", "[onnx]") {
  ModelBuilder m = conv_model();  // y uint8, zero point 10
  m.g->mutable_output()->Clear();
  m.node("Relu", {"y"}, {"y_relu"}, "relu");
  m.ints("lo", onnx::TensorProto_DataType_UINT8, {}, {12});
  m.ints("hi", onnx::TensorProto_DataType_UINT8, {}, {200});
  m.node("Clip", {"y_relu", "lo", "hi"}, {"z"}, "clip");
  m.output("z");
  const OnnxModel model = import_onnx(m.save("relu_clip.onnx"), {});
  REQUIRE(model.network.layers.size() == 1);  // fused: no layer of their own
  const OpQuant& q = model.network.layers[0].quant;
  CHECK(q.clamp_lo == 12);  // max(relu's 0, clip's 12), on the integers
  CHECK(q.clamp_hi == 200);
  REQUIRE(model.outputs.size() == 1);
  CHECK(model.outputs[0].name == "z");
  CHECK(model.outputs[0].tensor == "y");  // the conv's output, clamped
}

TEST_CASE("onnx: a Relu whose input another node also reads is refused by name", "[onnx]") {
  ModelBuilder m = conv_model();
  m.node("Relu", {"y"}, {"y_relu"}, "relu");  // y is also a graph output: read twice
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("relu2.onnx"), {}); });
  CHECK_THAT(e.pointer(), Catch::Contains("'relu' (Relu)"));
  CHECK_THAT(e.expected(), Catch::Contains("an input only this node reads"));
  CHECK_THAT(e.found(), Catch::Contains("read 2 times"));
}

TEST_CASE("onnx: an output shape the model states but its node does not compute is refused",
          "[onnx]") {
  ModelBuilder m =
      conv_model();  // y is [1, 3, 4, 3]: 4 + 1 + 1 - 3 + 1 rows, 3 + 0 + 2 - 3 + 1 cols
  auto* shape = m.g->mutable_output(0)->mutable_type()->mutable_tensor_type();
  shape->set_elem_type(onnx::TensorProto_DataType_UINT8);
  for (int64_t d : {1, 3, 4, 5}) shape->mutable_shape()->add_dim()->set_dim_value(d);
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("badshape.onnx"), {}); });
  CHECK(e.pointer() == "node 'conv' (QLinearConv)");
  CHECK_THAT(e.expected(), Catch::Contains("\"y\" of the shape the model states, [1, 3, 4, 5]"));
  CHECK_THAT(e.found(), Catch::StartsWith("[1, 3, 4, 3]"));
  // Declared as computed: accepted.
  ModelBuilder ok = conv_model();
  auto* right = ok.g->mutable_output(0)->mutable_type()->mutable_tensor_type();
  right->set_elem_type(onnx::TensorProto_DataType_UINT8);
  for (int64_t d : {1, 3, 4, 3}) right->mutable_shape()->add_dim()->set_dim_value(d);
  CHECK_NOTHROW(import_onnx(ok.save("goodshape.onnx"), {}));
}

TEST_CASE("onnx: Transposes at an NHWC input and to an NHWC output become layouts, not nodes",
          "[onnx]") {
  ModelBuilder m = conv_model();  // the conv reads x as [1, 2, 4, 3] NCHW
  m.g->mutable_input(0)->set_name("x_nhwc");
  auto* dims = m.g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(1)->set_dim_value(4);  // declared [1, 4, 3, 2]: N, H, W, C
  dims->mutable_dim(2)->set_dim_value(3);
  dims->mutable_dim(3)->set_dim_value(2);
  auto* in = m.node("Transpose", {"x_nhwc"}, {"x"}, "to_nchw");
  ModelBuilder::ints_attribute(in, "perm", {0, 3, 1, 2});
  m.g->mutable_node()->SwapElements(0, 1);  // the Transpose first
  auto* out = m.node("Transpose", {"y"}, {"y_nhwc"}, "to_nhwc");
  ModelBuilder::ints_attribute(out, "perm", {0, 2, 3, 1});
  m.output("y_nhwc");
  const OnnxModel model = import_onnx(m.save("transposes.onnx"), {});
  REQUIRE(model.network.layers.size() == 1);  // the conv only
  const GraphInput& x = model.network.graph_inputs.at(0);
  CHECK((x.C == 2 && x.H == 4 && x.W == 3));
  CHECK(x.onnx_nhwc);
  CHECK(x.onnx_shape == std::vector<uint32_t>{1, 4, 3, 2});
  REQUIRE(model.outputs.size() == 2);
  CHECK((model.outputs[0].name == "y" && !model.outputs[0].nhwc));
  CHECK((model.outputs[1].name == "y_nhwc" && model.outputs[1].nhwc &&
         model.outputs[1].tensor == "y"));
}

TEST_CASE("onnx: a Transpose that would move data is refused with the forms it may take",
          "[onnx]") {
  ModelBuilder m = conv_model();
  auto* t = m.node("Transpose", {"y"}, {"y_t"}, "swap_hw");
  auto* perm = t->add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto_AttributeType_INTS);
  std::vector<int> axes = {0, 1, 3, 2};
  SECTION("swapping H and W") {}
  SECTION("to NHWC but read by another node") {
    axes = {0, 2, 3, 1};
    m.node("Relu", {"y_t"}, {"z"}, "relu");
  }
  for (int p : axes) perm->add_ints(p);
  m.output("y_t");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("swap.onnx"), {}); });
  CHECK(e.pointer() == "node 'swap_hw' (Transpose)");
  CHECK_THAT(e.expected(), Catch::Contains("perm [0, 3, 1, 2] of an NHWC graph input"));
  CHECK_THAT(e.found(), Catch::Contains("computed tensor \"y\""));
}

TEST_CASE(
    "onnx: malformed models that crashed the importer are errors naming the node: zero strides, "
    "5-D weights, an int16 zero point",
    "[onnx][robustness]") {
  // strides [0, 0]: libonnx's shape inference divided by them (SIGFPE).
  ModelBuilder strides = conv_model();
  ModelBuilder::ints_attribute(strides.g->mutable_node(0), "strides", {0, 0});
  ConfigError e = test::config_error_from([&] { import_onnx(strides.save("s0.onnx"), {}); });
  CHECK(e.pointer() == "node 'conv' (QLinearConv)");
  CHECK(e.expected() == "strides >= 1");

  // 5-D weights at a 4-D input: libonnx read past the dilations (SIGSEGV).
  ModelBuilder five = conv_model();
  for (auto& t : *five.g->mutable_initializer()) {
    if (t.name() != "w") continue;
    std::vector<int64_t> dims{1};  // [1, K, C, R, S], the same values
    dims.insert(dims.end(), t.dims().begin(), t.dims().end());
    t.clear_dims();
    for (int64_t d : dims) t.add_dims(d);
  }
  e = test::config_error_from([&] { import_onnx(five.save("w5.onnx"), {}); });
  CHECK(e.pointer() == "node 'conv' (QLinearConv)");
  CHECK(e.found() == "5-D");

  // An int16 zero point was read as 8-bit values (SIGSEGV).
  ModelBuilder wide = conv_model();
  for (auto& t : *wide.g->mutable_initializer())
    if (t.name() == "yz") t.set_data_type(onnx::TensorProto_DataType_INT16);
  e = test::config_error_from([&] { import_onnx(wide.save("z16.onnx"), {}); });
  CHECK(e.pointer() == "node 'conv' (QLinearConv)");
  CHECK(e.found() == "int16");

  // dilations 0 were taken as given.
  ModelBuilder dil = conv_model();
  ModelBuilder::ints_attribute(dil.g->mutable_node(0), "dilations", {0, 1});
  e = test::config_error_from([&] { import_onnx(dil.save("d0.onnx"), {}); });
  CHECK(e.expected() == "dilations >= 1");
}

TEST_CASE(
    "onnx: what onnx's checker rejects is refused, not guessed: a float group, two initialisers "
    "of one name, an extra node input",
    "[onnx][robustness]") {
  // An attribute of the wrong type was read as its default.
  ModelBuilder typed = conv_model();
  auto* g = typed.g->mutable_node(0)->add_attribute();
  g->set_name("group");
  g->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  g->set_f(2.0f);
  ConfigError e = test::config_error_from([&] { import_onnx(typed.save("fgroup.onnx"), {}); });
  CHECK(e.pointer() == "node 'conv' (QLinearConv)");
  CHECK(e.expected() == "a model ONNX's checker accepts");
  CHECK_THAT(e.found(), Catch::Contains("attribute type") && Catch::Contains("group"));

  // Two initialisers named "ys": the last one won.
  ModelBuilder twice = conv_model();
  twice.scalar_float("ys", 0.5f);
  e = test::config_error_from([&] { import_onnx(twice.save("twice.onnx"), {}); });
  CHECK(e.pointer() == "/graph/initializer/ys");
  CHECK(e.expected() == "each initialiser name once");

  // A tenth input to QLinearConv (at most 9): ignored before.
  ModelBuilder extra = conv_model();
  extra.g->mutable_node(0)->add_input("b");
  e = test::config_error_from([&] { import_onnx(extra.save("extra.onnx"), {}); });
  CHECK(e.pointer() == "node 'conv' (QLinearConv)");
  CHECK_THAT(e.found(), Catch::Contains("input size 10"));

  // A node without an output: the QDQ lowering read its first output (found by fuzzing).
  ModelBuilder bare = conv_model();
  bare.g->mutable_node(0)->clear_output();
  e = test::config_error_from([&] { import_onnx(bare.save("bare.onnx"), {}); });
  CHECK(e.pointer() == "node 'conv' (QLinearConv)");
}

TEST_CASE(
    "onnx: an attribute of a com.microsoft node (no schema in onnx's checker) with the wrong type "
    "is refused by the importer",
    "[onnx][robustness]") {
  ModelBuilder m = conv_model();
  m.scalar_float("gs", 0.05f);
  m.ints("gz", onnx::TensorProto_DataType_UINT8, {}, {10});
  auto* gap = m.node("QLinearGlobalAveragePool", {"y", "ys", "yz", "gs", "gz"}, {"g"}, "gap",
                     "com.microsoft");
  auto* a = gap->add_attribute();
  a->set_name("channels_last");
  a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(1.0f);  // read as an INT, it was 0: channels first
  m.output("g");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("gapf.onnx"), {}); });
  CHECK(e.pointer() == "node 'gap' (QLinearGlobalAveragePool)");
  CHECK(e.expected() == "attribute channels_last of type INT");
  CHECK(e.found() == "FLOAT");
}

TEST_CASE(
    "onnx: a QDQ MatMul's int32 bias with a zero point of 256 in raw_data is not taken as zero "
    "(the lowering read its first byte)",
    "[onnx]") {
  // x [1, 4] -> MatMul(int8 W [4, 3]) -> Add(int32 bias at x_scale * w_scale) -> y, in QDQ form.
  const auto model = [](int32_t bias_zero_point) {
    ModelBuilder m;
    m.input("x", onnx::TensorProto_DataType_FLOAT, {1, 4});
    m.output("y", onnx::TensorProto_DataType_FLOAT);
    m.scalar_float("xs", 0.5f), m.scalar_float("ws", 0.25f), m.scalar_float("bs", 0.125f);
    m.scalar_float("ys", 0.1f);
    m.ints("xz", onnx::TensorProto_DataType_UINT8, {}, {128});
    m.ints("yz", onnx::TensorProto_DataType_UINT8, {}, {128});
    m.ints("wz", onnx::TensorProto_DataType_INT8, {}, {0});
    m.ints("w", onnx::TensorProto_DataType_INT8, {4, 3}, {1, -2, 3, 4, -5, 6, 7, -8, 9, 1, 2, 3});
    m.ints("b", onnx::TensorProto_DataType_INT32, {3}, {10, -20, 30});
    auto* bz = m.g->add_initializer();  // as numpy_helper writes it: little-endian raw_data
    bz->set_name("bz");
    bz->set_data_type(onnx::TensorProto_DataType_INT32);
    const uint32_t v = uint32_t(bias_zero_point);
    bz->set_raw_data(
        std::string{char(v & 0xff), char((v >> 8) & 0xff), char((v >> 16) & 0xff), char(v >> 24)});
    m.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}, "quant");
    m.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, "x_dq");
    m.node("DequantizeLinear", {"w", "ws", "wz"}, {"wd"}, "w_dq");
    m.node("DequantizeLinear", {"b", "bs", "bz"}, {"bd"}, "b_dq");
    m.node("MatMul", {"xd", "wd"}, {"mm"}, "fc");
    m.node("Add", {"mm", "bd"}, {"sum"}, "bias");
    m.node("QuantizeLinear", {"sum", "ys", "yz"}, {"yq"}, "out_q");
    m.node("DequantizeLinear", {"yq", "ys", "yz"}, {"y"}, "out");
    return m;
  };
  // Zero point 0: the pattern is one QLinearMatMul with the bias.
  const OnnxModel plain = import_onnx(model(0).save("bias_z0.onnx"), {});
  REQUIRE(plain.network.layers.size() == 1);
  CHECK(plain.network.layers[0].op == OpKind::MatMul);
  // Zero point 256 (first byte 0): not a bias the accumulator can add, so the pattern stays float
  // and the model is refused (at its first DequantizeLinear of the input, which only a lowered
  // operator reads) instead of run with the zero point dropped.
  const ConfigError e =
      test::config_error_from([&] { import_onnx(model(256).save("bias_z256.onnx"), {}); });
  CHECK(e.pointer() == "node 'x_dq' (DequantizeLinear)");
}

TEST_CASE(
    "onnx: --input takes the model's own float input and quantises it as ONNX Runtime's "
    "QuantizeLinear does (x / scale, half to even, saturated, NaN to the low end), by channel "
    "and column",
    "[onnx]") {
  // x float [1, 2, 1, 3] -> QuantizeLinear (scale 0.5, zero point 128) -> 1x1 QLinearConv.
  ModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_FLOAT, {1, 2, 1, 3});
  m.scalar_float("xs", 0.5f), m.scalar_float("ws", 1.0f), m.scalar_float("ys", 1.0f);
  m.ints("xz", onnx::TensorProto_DataType_UINT8, {}, {128});
  m.ints("yz", onnx::TensorProto_DataType_UINT8, {}, {128});
  m.ints("wz", onnx::TensorProto_DataType_INT8, {}, {0});
  m.ints("w", onnx::TensorProto_DataType_INT8, {1, 2, 1, 1}, {1, 1});
  m.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}, "quant");
  m.node("QLinearConv", {"xq", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"y"}, "conv");
  m.output("y");
  // Channel 0: 0.25 -> 0.5 -> 0 (even), 0.75 -> 1.5 -> 2, -0.25 -> -0.5 -> -0;
  // channel 1: 100 -> 200 -> 127 (saturated), -100 -> -128, NaN -> -128 (the low end).
  const std::string values = test::temp_dir() + "/x_float.npy";
  write_npy_float(values, {1, 2, 1, 3},
                  {0.25f, 0.75f, -0.25f, 100.0f, -100.0f, std::numeric_limits<float>::quiet_NaN()});
  const OnnxModel model = import_onnx(m.save("float_input.onnx"), {{"x", values}});
  REQUIRE(model.network.graph_inputs.size() == 1);
  // Stored NHWC: (channel 0, channel 1) per column, as uint8 bytes plus the zero point 128.
  const std::vector<int8_t>& q = model.network.graph_inputs[0].values;
  const std::vector<int> got(q.begin(), q.end());
  CHECK(got ==
        std::vector<int>{int8_t(128), int8_t(255), int8_t(130), int8_t(0), int8_t(128), int8_t(0)});

  // An integer file stays what it was: the quantised tensor itself.
  TensorU8 ints;
  ints.shape = {1, 2, 1, 3};
  ints.data = {1, 2, 3, 4, 5, 6};
  const std::string codes = test::temp_dir() + "/x_u8.npy";
  write_npy(codes, ints);
  const OnnxModel as_codes = import_onnx(m.save("float_input2.onnx"), {{"x", codes}});
  const std::vector<int8_t>& c = as_codes.network.graph_inputs[0].values;
  CHECK(std::vector<int>(c.begin(), c.end()) == std::vector<int>{1, 4, 2, 5, 3, 6});
}

TEST_CASE(
    "onnx: a node or tensor name that is not UTF-8 is refused at import, naming where (it failed "
    "with a raw JSON library error only when the report was written)",
    "[onnx][robustness]") {
  ModelBuilder node = conv_model();
  node.g->mutable_node(0)->set_name("con\xff");
  const ConfigError e = test::config_error_from([&] { import_onnx(node.save("utf8.onnx"), {}); });
  CHECK(e.pointer() == "/graph/node/0/name");
  CHECK(e.found() == "bytes that are not UTF-8: \"con\\xFF\"");

  ModelBuilder tensor = conv_model();
  tensor.g->mutable_node(0)->set_output(0, "y\xc3");  // a two-byte sequence cut short
  tensor.g->mutable_output(0)->set_name("y\xc3");
  const ConfigError t =
      test::config_error_from([&] { import_onnx(tensor.save("utf8_tensor.onnx"), {}); });
  CHECK(t.pointer() == "/graph/node/0/output/0");

  ModelBuilder fine = conv_model();
  fine.g->mutable_node(0)->set_name("conv_\xc3\xa9");  // "conv_é" is UTF-8
  CHECK(import_onnx(fine.save("utf8_fine.onnx"), {}).network.layers.at(0).name == "conv_\xc3\xa9");
}
