// The constant subgraphs exporters write for a Reshape's shape, folded at
// import (sim/frontend/onnx_constants.h): each node against hand-worked values.
#include <catch2/catch.hpp>
#include <map>

#include "sim/frontend/onnx/onnx_constants.h"

using namespace npusim;

namespace {

Constant ints(std::vector<int64_t> dims, std::vector<int64_t> values) {
  Constant c;
  c.type = onnx::TensorProto_DataType_INT64;
  c.dims = std::move(dims);
  c.ints = std::move(values);
  return c;
}

struct Folder {
  std::map<std::string, Constant> constants;
  std::map<std::string, std::vector<int64_t>> shapes;
  int64_t opset = 13;
  std::optional<Constant> fold(const onnx::NodeProto& n) {
    return fold_constant_node(
        n, opset, "m.onnx",
        [&](const std::string& name) -> const Constant* {
          const auto it = constants.find(name);
          return it == constants.end() ? nullptr : &it->second;
        },
        [&](const std::string& name) -> std::optional<std::vector<int64_t>> {
          const auto it = shapes.find(name);
          if (it == shapes.end()) return std::nullopt;
          return it->second;
        });
  }
};

onnx::NodeProto node(const std::string& op, std::vector<std::string> in) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(op);
  for (const std::string& i : in) n.add_input(i);
  n.add_output(op + ".out");
  return n;
}

void int_attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(v);
}

}  // namespace

TEST_CASE("constant folding: torch's x.view(x.size(0), -1) chain gives [N, -1]", "[onnx]") {
  Folder f;
  f.shapes["g"] = {3, 512, 1, 1};  // an activation N, C, H, W
  const std::optional<Constant> shape = f.fold(node("Shape", {"g"}));
  REQUIRE(shape);
  CHECK(shape->ints == std::vector<int64_t>{3, 512, 1, 1});
  CHECK(shape->dims == std::vector<int64_t>{4});
  f.constants["shape"] = *shape;
  f.constants["zero"] = ints({}, {0});
  f.constants["last"] = ints({}, {-1});  // a negative index counts from the end
  const std::optional<Constant> n = f.fold(node("Gather", {"shape", "zero"}));
  REQUIRE(n);
  CHECK(n->ints == std::vector<int64_t>{3});
  CHECK(n->dims.empty());  // a scalar index gives a scalar
  CHECK(f.fold(node("Gather", {"shape", "last"}))->ints == std::vector<int64_t>{1});
  f.constants["n"] = *n;
  f.constants["axes"] = ints({1}, {0});
  const std::optional<Constant> n1 = f.fold(node("Unsqueeze", {"n", "axes"}));  // opset 13: input
  REQUIRE(n1);
  CHECK(n1->dims == std::vector<int64_t>{1});
  f.constants["n1"] = *n1;
  f.constants["minus_one"] = ints({1}, {-1});
  const std::optional<Constant> target = f.fold(node("Concat", {"n1", "minus_one"}));
  REQUIRE(target);
  CHECK(target->ints == std::vector<int64_t>{3, -1});
  CHECK(target->dims == std::vector<int64_t>{2});
}

TEST_CASE("constant folding: Unsqueeze axes by attribute before opset 13, Squeeze, Cast",
          "[onnx]") {
  Folder f;
  f.opset = 11;
  f.constants["s"] = ints({}, {7});
  onnx::NodeProto u = node("Unsqueeze", {"s"});
  auto* axes = u.add_attribute();
  axes->set_name("axes");
  axes->set_type(onnx::AttributeProto_AttributeType_INTS);
  axes->add_ints(0);
  axes->add_ints(-1);  // rank 2 after: -1 is axis 1
  CHECK(f.fold(u)->dims == std::vector<int64_t>{1, 1});
  f.constants["v"] = ints({1, 2, 1}, {4, 5});
  CHECK(f.fold(node("Squeeze", {"v"}))->dims == std::vector<int64_t>{2});  // every size-1 axis
  onnx::NodeProto cast = node("Cast", {"v"});
  int_attr(cast, "to", onnx::TensorProto_DataType_FLOAT);
  const std::optional<Constant> fl = f.fold(cast);
  CHECK(fl->type == onnx::TensorProto_DataType_FLOAT);
  CHECK(fl->floats == std::vector<float>{4.0f, 5.0f});
}

TEST_CASE("constant folding: other nodes and activations are left alone, bad indices refused",
          "[onnx]") {
  Folder f;
  f.constants["shape"] = ints({2}, {1, 8});
  f.constants["far"] = ints({}, {2});
  CHECK_FALSE(f.fold(node("QLinearConv", {"x"})));
  CHECK_FALSE(f.fold(node("Concat", {"activation", "shape"})));  // not all constant
  CHECK_FALSE(f.fold(node("Shape", {"unknown"})));
  try {
    f.fold(node("Gather", {"shape", "far"}));
    FAIL("an index past the end was folded");
  } catch (const FoldError& e) {
    CHECK(e.expected == "indices within the data's 2 values");
    CHECK(e.found == "2");
  }
  f.constants["dims"] = ints({1}, {3});
  const std::optional<Constant> zeros = f.fold(node("ConstantOfShape", {"dims"}));
  CHECK(zeros->floats == std::vector<float>{0.0f, 0.0f, 0.0f});  // the default value: float 0
}

TEST_CASE(
    "constant folding: a required input left empty is refused, never read (a Gather of \"\" "
    "crashed)",
    "[onnx]") {
  Folder f;
  f.constants["shape"] = ints({2}, {1, 8});
  f.constants["zero"] = ints({}, {0});
  const auto refused = [&](const onnx::NodeProto& n, const std::string& found) {
    try {
      f.fold(n);
      FAIL(n.op_type() + " with an empty input was folded");
    } catch (const FoldError& e) {
      CHECK_THAT(e.expected, Catch::Contains("not optional"));
      CHECK(e.found == found);
    }
  };
  refused(node("Gather", {"", "zero"}), "an empty name");
  refused(node("Gather", {"shape", ""}), "an empty name");
  refused(node("Gather", {"shape"}), "no such input");
  refused(node("Cast", {""}), "an empty name");
  refused(node("Unsqueeze", {""}), "an empty name");
  refused(node("Concat", {"shape", ""}), "an empty name");
  refused(node("ConstantOfShape", {}), "no such input");
}
