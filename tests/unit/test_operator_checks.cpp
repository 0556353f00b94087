// The checks every front-end shares (sim/graph/operator_checks.h): each
// limit at its boundary, worked out by hand, rows told from columns, and the
// same problem worded the same from the layer list, graph JSON and ONNX,
// each placing it where its own file says it.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/config/config_error.h"
#include "sim/frontend/json/workload_json.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "sim/graph/operator_checks.h"
#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

using namespace npusim;
using nlohmann::json;

namespace {

LayerConfig checked_conv(uint32_t C, uint32_t H, uint32_t W, uint32_t K, uint32_t R, uint32_t S) {
  LayerConfig L;
  L.op = OpKind::Conv;
  L.C = C, L.H = H, L.W = W, L.K = K, L.R = R, L.S = S;
  return L;
}

// A graph operator with per-tensor uint8 quantisation throughout.
LayerConfig quantised(LayerConfig L) {
  L.quantized = true;
  L.quant.inputs = {{QuantType::Uint8, 0.02f, 128}};
  L.quant.output = {QuantType::Uint8, 0.05f, 10};
  L.quant.weight_scale = {0.01f};
  L.quant.weight_zero_point = {0};
  return L;
}

// L as the vector operator `op`, which has no weights to quantise.
LayerConfig vector_operator(LayerConfig L, OpKind op) {
  L.op = op;
  L.quant.weight_scale.clear(), L.quant.weight_zero_point.clear();
  return L;
}

// An operator reading one tensor of its own N, C, H, W.
std::optional<OperatorProblem> check_one(const LayerConfig& L) {
  return check_operator(L, {{L.N, L.C, L.H, L.W}});
}

OperatorPart problem_part(const LayerConfig& L) {
  const auto p = check_one(L);
  REQUIRE(p);
  return p->part;
}

}  // namespace

TEST_CASE(
    "operator checks: a window wider than its padded input is the kernel's columns on a tall map "
    "and its rows on a wide one, with dilation and asymmetric pads counted",
    "[operator_checks]") {
  CHECK_FALSE(check_one(checked_conv(2, 10, 5, 4, 3, 5)));  // 3 <= 10 rows, 5 <= 5 columns
  // Tall: 10 x 3, a 3 x 5 kernel: the rows fit, the columns do not.
  auto p = check_one(checked_conv(2, 10, 3, 4, 3, 5));
  REQUIRE(p);
  CHECK(p->part == OperatorPart::KernelCols);
  CHECK(p->expected == "S <= W + pads = 3 (a window that fits the padded input)");
  CHECK(p->found == "S = 5");
  // Wide: 3 x 10, a 5 x 3 kernel.
  CHECK(problem_part(checked_conv(2, 3, 10, 4, 5, 3)) == OperatorPart::KernelRows);

  // A 3-row kernel dilated by 3 spans (3 - 1) * 3 + 1 = 7 rows: 5 rows are too few.
  LayerConfig d = checked_conv(2, 5, 8, 4, 3, 1);
  d.general = LayerConfig::Geometry{};
  d.general->dilation_h = 3;
  p = check_one(d);
  REQUIRE(p);
  CHECK(p->part == OperatorPart::KernelRows);
  CHECK(p->expected ==
        "(R - 1) * dilation + 1 <= H + pads = 5 (a window that fits the padded input)");
  CHECK(p->found == "R = 3, dilation 3: 7");
  // One row of padding above (padding) and one below (pad_bottom) make 7: it fits.
  d.padding = 1;
  d.general->pad_bottom = 1;
  CHECK_FALSE(check_one(d));
  // Pads on the left and right count for the columns only.
  LayerConfig c = checked_conv(2, 8, 5, 4, 1, 7);
  c.general = LayerConfig::Geometry{};
  c.general->pad_left = 1;
  CHECK(problem_part(c) == OperatorPart::KernelCols);  // 7 > 5 + 1
  c.general->pad_right = 1;
  CHECK_FALSE(check_one(c));  // 7 <= 5 + 2
}

TEST_CASE(
    "operator checks: each tensor may hold 2^28 elements and not one more, the weights counted "
    "only "
    "on the array",
    "[operator_checks]") {
  // Input and output 1 x 1 x 16384 x 16384 = 2^28 elements.
  CHECK_FALSE(check_one(checked_conv(1, 16384, 16384, 1, 1, 1)));
  auto p = check_one(checked_conv(1, 16385, 16384, 1, 1, 1));
  REQUIRE(p);
  CHECK(p->part == OperatorPart::Operator);
  CHECK(p->expected == "input tensor N*C*H*W <= 268435456 elements (256 MiB as the host holds it)");
  CHECK(p->found == "1*1*16385*16384 = 268451840 elements");
  // The output alone: one channel of 16384 x 8192 in (2^27), four out (2^29).
  p = check_one(checked_conv(1, 16384, 8192, 4, 1, 1));
  REQUIRE(p);
  CHECK(p->found == "1*4*16384*8192 = 536870912 elements");
  CHECK(p->expected.rfind("output tensor", 0) == 0);

  // Weights K*R*S*(C/groups): 16384 x 16384 is 2^28, one more channel is over.
  LayerConfig m = quantised(checked_conv(16384, 1, 1, 16384, 1, 1));
  m.op = OpKind::MatMul;
  CHECK_FALSE(check_one(m));
  m.C = 16385;
  p = check_one(m);
  REQUIRE(p);
  CHECK(p->found == "16384*1*1*16385 = 268451840 elements");
  // 8 groups of 16384 channels: each kernel reads its group's 16384, not all 131072.
  LayerConfig g = quantised(checked_conv(8 * 16384, 1, 1, 16384, 1, 1));
  g.groups = 8;
  CHECK_FALSE(check_one(g));
  // A vector operator's K x C is no tensor: softmax over 16385 channels has no weights.
  const LayerConfig s =
      vector_operator(quantised(checked_conv(16385, 1, 1, 16385, 1, 1)), OpKind::Softmax);
  CHECK_FALSE(check_one(s));
}

TEST_CASE(
    "operator checks: a symmetric int8 conv takes at most 131071 taps, a quantised or binary one "
    "any number",
    "[operator_checks]") {
  CHECK_FALSE(check_one(checked_conv(14563, 3, 3, 1, 3, 3)));  // 14563 * 9 = 131067
  auto p = check_one(checked_conv(14564, 3, 3, 1, 3, 3));      // 131076
  REQUIRE(p);
  CHECK(p->expected == "C*R*S <= 131071 taps (an int32 accumulator cannot overflow)");
  CHECK(p->found == "14564*3*3 = 131076 taps");
  CHECK_FALSE(check_one(quantised(checked_conv(14564, 3, 3, 1, 3, 3))));
  LayerConfig b = checked_conv(14564, 3, 3, 1, 3, 3);
  b.dtype = DataType::Binary;
  CHECK_FALSE(check_one(b));
}

TEST_CASE("operator checks: a conv's groups divide its input and its output channels",
          "[operator_checks]") {
  LayerConfig g = quantised(checked_conv(12, 4, 4, 8, 3, 3));
  g.groups = 4;  // 3 channels in and 2 out per group
  CHECK_FALSE(check_one(g));
  g.groups = 3;  // divides C = 12, not K = 8
  auto p = check_one(g);
  REQUIRE(p);
  CHECK(p->part == OperatorPart::Groups);
  CHECK(p->expected == "groups dividing C = 12 and K = 8");
  CHECK(p->found == "group 3");
  g.groups = 8;  // divides K, not C
  CHECK(problem_part(g) == OperatorPart::Groups);
  g.groups = 0;
  CHECK(problem_part(g) == OperatorPart::Groups);
}

TEST_CASE(
    "operator checks: an add's inputs have one shape, a mul's second may be per channel, a "
    "concat's share N, H and W",
    "[operator_checks]") {
  LayerConfig add = vector_operator(quantised(checked_conv(8, 6, 4, 8, 1, 1)), OpKind::Add);
  add.quant.inputs.push_back(add.quant.inputs[0]);
  CHECK_FALSE(check_operator(add, {{1, 8, 6, 4}, {1, 8, 6, 4}}));
  // A 6 x 4 map and a 4 x 6 one hold as many values, but not the same shape.
  auto p = check_operator(add, {{1, 8, 6, 4}, {1, 8, 4, 6}});
  REQUIRE(p);
  CHECK(p->part == OperatorPart::Input);
  CHECK(p->input == 1);
  CHECK(p->expected == "a tensor of the first input's shape [1, 8, 6, 4]");
  CHECK(p->found == "[1, 8, 4, 6]");
  CHECK(check_operator(add, {{1, 8, 6, 4}, {1, 8, 1, 1}}));  // no broadcasting for add

  LayerConfig mul = add;
  mul.op = OpKind::Mul;
  CHECK_FALSE(check_operator(mul, {{1, 8, 6, 4}, {1, 8, 1, 1}}));  // per channel
  CHECK_FALSE(check_operator(mul, {{1, 8, 6, 4}, {1, 8, 6, 4}}));
  p = check_operator(mul, {{1, 8, 6, 4}, {1, 8, 6, 1}});  // a column is not per channel
  REQUIRE(p);
  CHECK(p->expected ==
        "a tensor of the first input's shape [1, 8, 6, 4] or a per-channel [N, C, 1, 1] = "
        "[1, 8, 1, 1]");
  CHECK(check_operator(mul, {{1, 8, 6, 4}, {1, 4, 1, 1}}));  // other channels
  CHECK(check_operator(mul, {{1, 8, 6, 4}}));                // one input

  LayerConfig cat = add;
  cat.op = OpKind::Concat;
  cat.K = 8 + 3 + 5;
  CHECK_FALSE(check_operator(cat, {{1, 8, 6, 4}, {1, 3, 6, 4}, {1, 5, 6, 4}}));
  p = check_operator(cat, {{1, 8, 6, 4}, {1, 3, 6, 4}, {1, 5, 4, 6}});
  REQUIRE(p);
  CHECK(p->input == 2);
  CHECK(p->expected == "a tensor with the first input's N, H, W (1, 6, 4)");
}

TEST_CASE("operator checks: a norm normalises at most 16384 channels", "[operator_checks]") {
  LayerConfig n = quantised(checked_conv(16384, 4, 1, 16384, 1, 1));
  n.op = OpKind::LayerNorm;
  CHECK_FALSE(check_one(n));
  n.C = n.K = 16385;
  auto p = check_one(n);
  REQUIRE(p);
  CHECK(p->part == OperatorPart::Input);
  CHECK(p->expected == "at most 16384 channels to normalise");
  CHECK_FALSE(check_one(vector_operator(n, OpKind::Softmax)));  // another family: no such limit
}

TEST_CASE(
    "operator checks: scales are positive and finite, zero points within their type, weight "
    "quantisation per tensor or per output channel",
    "[operator_checks]") {
  const LayerConfig good = quantised(checked_conv(2, 4, 4, 3, 3, 3));
  CHECK_FALSE(check_one(good));

  LayerConfig L = good;
  L.quant.output.scale = 0.0f;
  CHECK(problem_part(L) == OperatorPart::OutputQuant);
  L.quant.output = {QuantType::Int32, 0.0f, 0};  // raw accumulators: no scale to check
  CHECK_FALSE(check_one(L));

  L = good;
  L.quant.inputs[0].zero_point = 255;
  CHECK_FALSE(check_one(L));
  L.quant.inputs[0].zero_point = 256;
  auto p = check_one(L);
  REQUIRE(p);
  CHECK(p->part == OperatorPart::InputQuant);
  CHECK(p->expected == "input 0: a zero point in 0..255 (uint8)");
  L.quant.inputs[0] = {QuantType::Int8, 0.02f, -128};
  CHECK_FALSE(check_one(L));
  L.quant.inputs[0].scale = std::numeric_limits<float>::infinity();
  CHECK(problem_part(L) == OperatorPart::InputQuant);

  L = good;
  L.quant.weight_scale = {0.1f, 0.2f, 0.3f};  // K = 3: per channel
  CHECK_FALSE(check_one(L));
  L.quant.weight_scale = {0.1f, 0.2f};
  p = check_one(L);
  REQUIRE(p);
  CHECK(p->part == OperatorPart::WeightQuant);
  CHECK(p->found == "2 scales, 1 zero points");
  L = good;
  L.quant.weight_zero_point = {0, 0, -129};
  CHECK(problem_part(L) == OperatorPart::WeightQuant);
  L.quant.weight_zero_point.clear();  // a conv has weights: their quantisation is required
  CHECK(problem_part(L) == OperatorPart::WeightQuant);
}

TEST_CASE(
    "operator checks: a kernel wider than its map is one problem in the same words from the layer "
    "list, graph JSON and ONNX, each at its own place",
    "[operator_checks]") {
  const std::string expected = "S <= W + pads = 3 (a window that fits the padded input)";
  // The layer list: a 3 x 5 kernel on a 6 x 3 map, at the key S.
  const json layer = {{"type", "conv2d"}, {"C", 2}, {"H", 6}, {"W", 3},
                      {"K", 4},           {"R", 3}, {"S", 5}, {"padding", 0}};
  ConfigError e = test::config_error_from([&] { parse_workload(layer, "layer.json"); });
  CHECK(e.pointer() == "/S");
  CHECK(e.expected() == expected);
  CHECK(e.found() == "S = 5");

  // Graph JSON: at the operator's "kernel".
  const json quant = {{"dtype", "uint8"}, {"scale", 0.05}, {"zero_point", 0}};
  const json graph = {
      {"inputs", {{{"name", "x"}, {"shape", {1, 2, 6, 3}}, {"dtype", "uint8"}, {"scale", 0.02}}}},
      {"operators",
       {{{"name", "c"},
         {"op", "conv"},
         {"inputs", {"x"}},
         {"output", "y"},
         {"K", 4},
         {"kernel", {3, 5}},
         {"weights", {{"dtype", "int8"}, {"scale", 0.01}}},
         {"out", quant}}}}};
  e = test::config_error_from([&] { parse_workload(graph, "graph.json"); });
  CHECK(e.pointer() == "/operators/0/kernel");
  CHECK(e.expected() == expected);
  CHECK(e.found() == "S = 5");

  // ONNX: a QLinearConv with 3 x 5 weights on a [1, 2, 6, 3] input, at the node.
  test::OnnxModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, 2, 6, 3});
  m.scalar_float("xs", 0.02f);
  m.ints("xz", onnx::TensorProto_DataType_UINT8, {}, {0});
  m.ints("w", onnx::TensorProto_DataType_INT8, {4, 2, 3, 5},
         std::vector<int32_t>(4 * 2 * 3 * 5, 1));
  m.scalar_float("ws", 0.01f);
  m.ints("wz", onnx::TensorProto_DataType_INT8, {}, {0});
  m.scalar_float("ys", 0.05f);
  m.ints("yz", onnx::TensorProto_DataType_UINT8, {}, {0});
  m.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"y"}, "c");
  m.output("y");
  e = test::config_error_from([&] { import_onnx(m.save("wide_kernel.onnx"), {}); });
  CHECK(e.pointer() == "node 'c' (QLinearConv)");
  CHECK(e.expected() == expected);
  CHECK(e.found() == "S = 5");
}

TEST_CASE(
    "operator checks: an add of a 6 x 4 and a 4 x 6 map is one problem in the same words from "
    "graph JSON and ONNX, at the second input",
    "[operator_checks]") {
  const std::string expected = "a tensor of the first input's shape [1, 8, 6, 4]";
  const json q = {{"dtype", "uint8"}, {"scale", 0.05}, {"zero_point", 0}};
  const json graph = {
      {"inputs",
       {{{"name", "a"}, {"shape", {1, 8, 6, 4}}, {"dtype", "uint8"}, {"scale", 0.02}},
        {{"name", "b"}, {"shape", {1, 8, 4, 6}}, {"dtype", "uint8"}, {"scale", 0.02}}}},
      {"operators",
       {{{"name", "sum"}, {"op", "add"}, {"inputs", {"a", "b"}}, {"output", "y"}, {"out", q}}}}};
  ConfigError e = test::config_error_from([&] { parse_workload(graph, "add.json"); });
  CHECK(e.pointer() == "/operators/0/inputs/1");
  CHECK(e.expected() == expected);
  CHECK(e.found() == "\"b\" of shape [1, 8, 4, 6]");

  test::OnnxModelBuilder m;
  m.input("a", onnx::TensorProto_DataType_UINT8, {1, 8, 6, 4});
  m.input("b", onnx::TensorProto_DataType_UINT8, {1, 8, 4, 6});
  m.scalar_float("s", 0.02f);
  m.ints("z", onnx::TensorProto_DataType_UINT8, {}, {0});
  m.node("QLinearAdd", {"a", "s", "z", "b", "s", "z", "s", "z"}, {"y"}, "sum", "com.microsoft");
  m.output("y");
  e = test::config_error_from([&] { import_onnx(m.save("add.onnx"), {}); });
  CHECK(e.pointer() == "node 'sum' (QLinearAdd)");
  CHECK(e.expected() == expected);
  CHECK(e.found() == "operand 1 [1, 8, 4, 6]");
}
