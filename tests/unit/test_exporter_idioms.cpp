// The exporter idioms (sim/frontend/onnx/exporter_idioms.h): what torch.onnx
// writes around quantised tensors becomes the plain QDQ form, node by node, and
// each look-alike that would change the values is left as it is.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/frontend/onnx/exporter_idioms.h"
#include "tests/support/onnx_model_builder.h"

using namespace npusim;

namespace {

using ModelBuilder = test::OnnxModelBuilder;
constexpr int kU8 = onnx::TensorProto_DataType_UINT8;
constexpr int kI8 = onnx::TensorProto_DataType_INT8;

std::vector<std::string> op_types(const onnx::GraphProto& g) {
  std::vector<std::string> ops;
  for (const onnx::NodeProto& n : g.node()) ops.push_back(n.op_type());
  return ops;
}

const onnx::NodeProto& only(const onnx::GraphProto& g, const std::string& op) {
  const onnx::NodeProto* found = nullptr;
  for (const onnx::NodeProto& n : g.node())
    if (n.op_type() == op) {
      REQUIRE(found == nullptr);
      found = &n;
    }
  REQUIRE(found != nullptr);
  return *found;
}

void attribute_f(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(v);
}

void attribute_i(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(v);
}

std::vector<int64_t> ints_of(const onnx::NodeProto& n, const std::string& name) {
  for (const onnx::AttributeProto& a : n.attribute())
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  return {};
}

int64_t int_of(const onnx::NodeProto& n, const std::string& name) {
  for (const onnx::AttributeProto& a : n.attribute())
    if (a.name() == name) return a.i();
  return -1;
}

// x float -> QuantizeLinear (s 0.1, z 128 of `z_type`) -> q, then `rest`.
ModelBuilder quantised_input(int z_type = kU8) {
  ModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_FLOAT, {1, 8, 4, 4});
  m.scalar_float("s", 0.1f);
  m.ints("z", z_type, {}, {z_type == kU8 ? 128 : 0});
  m.node("QuantizeLinear", {"x", "s", "z"}, {"q"}, "quant");
  return m;
}

// quantised_input's q -> DequantizeLinear -> Flatten -> QuantizeLinear(scale, zero_point) -> fq.
void flatten_between(ModelBuilder& m, const std::string& scale, const std::string& zero_point) {
  m.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq");
  m.node("Flatten", {"d"}, {"f"}, "flatten");
  m.node("QuantizeLinear", {"f", scale, zero_point}, {"fq"}, "requant");
}

}  // namespace

TEST_CASE("exporter idioms: a Cast of a quantised tensor to its own type is removed", "[onnx]") {
  ModelBuilder m = quantised_input();
  auto* cast = m.node("Cast", {"q"}, {"c"}, "cast");
  attribute_i(cast, "to", kU8);
  m.node("DequantizeLinear", {"c", "s", "z"}, {"d"}, "dq");
  CHECK(rewrite_exporter_idioms(*m.g) == 1);
  CHECK(op_types(*m.g) == std::vector<std::string>{"QuantizeLinear", "DequantizeLinear"});
  CHECK(only(*m.g, "DequantizeLinear").input(0) == "q");
}

TEST_CASE("exporter idioms: a Cast that changes the type (uint8 to int8) stays", "[onnx]") {
  ModelBuilder m = quantised_input();
  auto* cast = m.node("Cast", {"q"}, {"c"}, "cast");
  attribute_i(cast, "to", kI8);
  m.node("DequantizeLinear", {"c", "s", "z"}, {"d"}, "dq");
  CHECK(rewrite_exporter_idioms(*m.g) == 0);
  CHECK(only(*m.g, "DequantizeLinear").input(0) == "c");
}

TEST_CASE(
    "exporter idioms: DequantizeLinear -> Flatten -> QuantizeLinear at one scale is the Flatten "
    "of the quantised tensor",
    "[onnx]") {
  ModelBuilder m = quantised_input();
  flatten_between(m, "s", "z");
  m.node("DequantizeLinear", {"fq", "s", "z"}, {"y"}, "out");
  CHECK(rewrite_exporter_idioms(*m.g) == 1);
  const onnx::NodeProto& flatten = only(*m.g, "Flatten");
  CHECK(flatten.input(0) == "q");
  CHECK(flatten.output(0) == "fq");  // read by the next DequantizeLinear as before
  CHECK(m.g->node_size() == 4);      // quant, dq (now unread), flatten, out
}

TEST_CASE(
    "exporter idioms: DequantizeLinear -> Flatten -> QuantizeLinear at another scale requantises "
    "first (a one-input QLinearConcat to the new scale and zero point)",
    "[onnx]") {
  ModelBuilder m = quantised_input();
  m.scalar_float("s2", 0.25f);
  m.ints("z2", kU8, {}, {10});
  flatten_between(m, "s2", "z2");
  CHECK(rewrite_exporter_idioms(*m.g) == 1);
  const onnx::NodeProto& concat = only(*m.g, "QLinearConcat");
  CHECK(concat.domain() == "com.microsoft");
  CHECK(std::vector<std::string>(concat.input().begin(), concat.input().end()) ==
        std::vector<std::string>{"s2", "z2", "q", "s", "z"});  // y pair, then the x triple
  CHECK(only(*m.g, "Flatten").input(0) == concat.output(0));
  CHECK(only(*m.g, "Flatten").output(0) == "fq");
}

TEST_CASE(
    "exporter idioms: DequantizeLinear -> Split -> a QuantizeLinear per part at one scale is the "
    "Split of the quantised tensor, and parts at two scales stay",
    "[onnx]") {
  ModelBuilder m = quantised_input();
  m.scalar_float("s2", 0.25f);
  m.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq");
  auto* split = m.node("Split", {"d"}, {"a", "b"}, "split");
  attribute_i(split, "axis", 1);
  m.node("QuantizeLinear", {"a", "s", "z"}, {"aq"}, "qa");
  SECTION("one scale") {
    m.node("QuantizeLinear", {"b", "s", "z"}, {"bq"}, "qb");
    CHECK(rewrite_exporter_idioms(*m.g) == 1);
    const onnx::NodeProto& moved = only(*m.g, "Split");
    CHECK(moved.input(0) == "q");
    CHECK(std::vector<std::string>(moved.output().begin(), moved.output().end()) ==
          std::vector<std::string>{"aq", "bq"});
    CHECK(op_types(*m.g) ==
          std::vector<std::string>{"QuantizeLinear", "DequantizeLinear", "Split"});
  }
  SECTION("two scales") {
    m.node("QuantizeLinear", {"b", "s2", "z"}, {"bq"}, "qb");
    CHECK(rewrite_exporter_idioms(*m.g) == 0);
    CHECK(only(*m.g, "Split").input(0) == "d");
  }
}

TEST_CASE("exporter idioms: a Flatten between uint8 and int8 quantisations stays", "[onnx]") {
  ModelBuilder m = quantised_input();
  m.ints("zi", kI8, {}, {0});
  flatten_between(m, "s", "zi");
  CHECK(rewrite_exporter_idioms(*m.g) == 0);
  CHECK(only(*m.g, "Flatten").input(0) == "d");
}

TEST_CASE(
    "exporter idioms: Pad (0 on H and W) -> AveragePool becomes one AveragePool with the pads "
    "as [top, left, bottom, right] and count_include_pad 1",
    "[onnx]") {
  ModelBuilder m = quantised_input();
  m.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq");
  // ONNX pads: [n, c, h, w] begins then ends: top 1, left 2, bottom 3, right 0.
  m.int64_values("pads", {0, 0, 1, 2, 0, 0, 3, 0});
  auto* pad = m.node("Pad", {"d", "pads"}, {"p"}, "pad");
  pad->add_attribute()->set_name("mode");
  pad->mutable_attribute(0)->set_type(onnx::AttributeProto_AttributeType_STRING);
  pad->mutable_attribute(0)->set_s("constant");
  auto* pool = m.node("AveragePool", {"p"}, {"a"}, "pool");
  ModelBuilder::ints_attribute(pool, "kernel_shape", {4, 3});
  CHECK(rewrite_exporter_idioms(*m.g) == 1);
  const onnx::NodeProto& merged = only(*m.g, "AveragePool");
  CHECK(merged.input(0) == "d");
  CHECK(ints_of(merged, "pads") == std::vector<int64_t>{1, 2, 3, 0});
  CHECK(int_of(merged, "count_include_pad") == 1);
  CHECK(ints_of(merged, "kernel_shape") == std::vector<int64_t>{4, 3});
  CHECK(op_types(*m.g) ==
        std::vector<std::string>{"QuantizeLinear", "DequantizeLinear", "AveragePool"});
}

TEST_CASE(
    "exporter idioms: a Pad that is not zeros on H and W only, a pool that would drop its own "
    "pads from the count, or a pad as wide as the kernel, stays",
    "[onnx]") {
  for (int variant = 0; variant < 4; ++variant) {
    ModelBuilder m = quantised_input();
    m.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq");
    m.int64_values(
        "pads", variant == 0   ? std::vector<int64_t>{0, 1, 1, 1, 0, 0, 1, 1}  // pads channels
                : variant == 3 ? std::vector<int64_t>{0, 0, 0, 0, 0, 0, 0, 3}  // right 3, kernel 3
                               : std::vector<int64_t>{0, 0, 1, 1, 0, 0, 1, 1});
    m.scalar_float("value", variant == 1 ? 0.5f : 0.0f);  // 0.5: not the zero point
    m.node("Pad", {"d", "pads", "value"}, {"p"}, "pad");
    auto* pool = m.node("AveragePool", {"p"}, {"a"}, "pool");
    ModelBuilder::ints_attribute(pool, "kernel_shape", {3, 3});
    if (variant == 2) ModelBuilder::ints_attribute(pool, "pads", {1, 1, 1, 1});  // excluded
    INFO("variant " << variant);
    CHECK(rewrite_exporter_idioms(*m.g) == 0);
    CHECK(only(*m.g, "AveragePool").input(0) == "p");
  }
}

TEST_CASE("exporter idioms: x * HardSigmoid(x) with alpha 1/6, beta 1/2 becomes HardSwish(x)",
          "[onnx]") {
  for (int order = 0; order < 2; ++order) {
    ModelBuilder m = quantised_input();
    m.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq");
    attribute_f(m.node("HardSigmoid", {"d"}, {"h"}, "hsig"), "alpha", 1.0f / 6.0f);
    m.node("Mul",
           order == 0 ? std::vector<std::string>{"d", "h"} : std::vector<std::string>{"h", "d"},
           {"y"}, "mul");
    INFO("order " << order);
    CHECK(rewrite_exporter_idioms(*m.g) == 1);
    const onnx::NodeProto& swish = only(*m.g, "HardSwish");
    CHECK(swish.input(0) == "d");
    CHECK(swish.output(0) == "y");
    CHECK(m.g->node_size() == 3);
  }
}

TEST_CASE(
    "exporter idioms: x * HardSigmoid(x) with ONNX's default alpha 0.2, or times another tensor, "
    "stays",
    "[onnx]") {
  ModelBuilder m = quantised_input();
  m.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq");
  m.node("DequantizeLinear", {"q", "s", "z"}, {"e"}, "dq2");
  m.node("HardSigmoid", {"d"}, {"h"}, "hsig");  // alpha 0.2: not hardswish
  m.node("Mul", {"d", "h"}, {"y"}, "mul");
  attribute_f(m.node("HardSigmoid", {"d"}, {"h2"}, "hsig2"), "alpha", 1.0f / 6.0f);
  m.node("Mul", {"e", "h2"}, {"y2"}, "mul2");  // another tensor's product: a gate, not hardswish
  CHECK(rewrite_exporter_idioms(*m.g) == 0);
}

TEST_CASE("exporter idioms: x * Sigmoid(x) (SiLU) becomes QuickGelu(x) with alpha 1", "[onnx]") {
  for (int order = 0; order < 2; ++order) {
    ModelBuilder m = quantised_input();
    m.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq");
    m.node("Sigmoid", {"d"}, {"g"}, "sigmoid");
    m.node("Mul",
           order == 0 ? std::vector<std::string>{"d", "g"} : std::vector<std::string>{"g", "d"},
           {"y"}, "mul");
    INFO("order " << order);
    CHECK(rewrite_exporter_idioms(*m.g) == 1);
    const onnx::NodeProto& silu = only(*m.g, "QuickGelu");
    CHECK(silu.domain() == "com.microsoft");
    CHECK(silu.input(0) == "d");
    CHECK(silu.output(0) == "y");
    REQUIRE(silu.attribute_size() == 1);
    CHECK(silu.attribute(0).name() == "alpha");
    CHECK(silu.attribute(0).f() == 1.0f);
    CHECK(m.g->node_size() == 3);
  }
}

TEST_CASE(
    "exporter idioms: a Sigmoid gate times another tensor (squeeze-excitation), or one whose "
    "output another node also reads, stays",
    "[onnx]") {
  ModelBuilder m = quantised_input();
  m.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq");
  m.node("DequantizeLinear", {"q", "s", "z"}, {"e"}, "dq2");
  m.node("Sigmoid", {"d"}, {"g"}, "sigmoid");
  m.node("Mul", {"e", "g"}, {"y"}, "gate");  // e * sigmoid(d): not SiLU
  m.node("Sigmoid", {"d"}, {"g2"}, "sigmoid2");
  m.node("Mul", {"d", "g2"}, {"y2"}, "mul2");
  m.node("Relu", {"g2"}, {"r"}, "reads_the_sigmoid");
  CHECK(rewrite_exporter_idioms(*m.g) == 0);
}

TEST_CASE(
    "exporter idioms: DequantizeLinear -> QuantizeLinear at another scale becomes a "
    "requantisation, its zero point read through an Identity",
    "[onnx]") {
  ModelBuilder m = quantised_input();
  m.scalar_float("s2", 0.37f);
  m.ints("z2_source", kU8, {}, {90});
  m.node("Identity", {"z2_source"}, {"z2"}, "shared_zero_point");
  m.node("DequantizeLinear", {"q", "s", "z"}, {"d"}, "dq");
  m.node("QuantizeLinear", {"d", "s2", "z2"}, {"q2"}, "requant");
  CHECK(rewrite_exporter_idioms(*m.g) == 1);
  const onnx::NodeProto& r = only(*m.g, "QLinearConcat");
  CHECK(r.domain() == "com.microsoft");
  // y_scale, y_zero_point, then the one input's triple.
  CHECK(std::vector<std::string>(r.input().begin(), r.input().end()) ==
        std::vector<std::string>{"s2", "z2", "q", "s", "z"});
  CHECK(r.output(0) == "q2");
  CHECK(int_of(r, "axis") == 1);
}
