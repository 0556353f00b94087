// The operator table (sim/graph/op_table.h): one row per operator drives the
// graph parser, the array/vector split and the vector unit's dispatch.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <utility>

#include "sim/frontend/json/workload_json.h"
#include "sim/graph/op_table.h"
#include "tests/support/test_support.h"

using namespace npusim;

TEST_CASE("op table: every operator has one row, a unique name, and parses back by that name",
          "[op_table]") {
  std::set<std::string> names;
  for (const OpKind k : kOpKinds) {
    const OpInfo i = op_info(k);
    REQUIRE(i.name != nullptr);
    CHECK(i.kind == k);
    CHECK(names.insert(i.name).second);
    CHECK(op_kind_named(i.name) == k);
    CHECK(i.min_inputs >= 1);
    CHECK((i.max_inputs == kManyInputs || i.max_inputs >= i.min_inputs));
  }
  CHECK(names.size() == kOpKindCount);
  CHECK_FALSE(op_kind_named("erf").has_value());
  CHECK(op_names_list().rfind("conv, matmul, ", 0) == 0);
}

TEST_CASE("op table: the array runs conv, matmul and batch_matmul, the vector unit the rest",
          "[op_table]") {
  std::set<std::string> array;
  for (const OpKind k : kOpKinds)
    if (runs_on_array(k)) array.insert(to_string(k));
  CHECK(array == std::set<std::string>{"conv", "matmul", "batch_matmul"});
  // batch_matmul is a matmul whose second operand is produced, not a constant weight.
  CHECK(op_info(OpKind::BatchMatMul).family == OpFamily::Matmul);
  CHECK_FALSE(op_info(OpKind::BatchMatMul).weights);
  CHECK(op_info(OpKind::MatMul).weights);
}

TEST_CASE("op table: families group operators by what they compute", "[op_table]") {
  CHECK(op_info(OpKind::MaxPool).family == OpFamily::Pool);
  CHECK(op_info(OpKind::GlobalAveragePool).family == OpFamily::Pool);
  CHECK(op_info(OpKind::Add).family == OpFamily::Elementwise);
  CHECK(op_info(OpKind::Mul).family == OpFamily::Elementwise);
  CHECK(op_info(OpKind::Gelu).family == OpFamily::Activation);
  CHECK(op_info(OpKind::Silu).family == OpFamily::Activation);
  CHECK(op_info(OpKind::Sigmoid).family == OpFamily::Activation);
  CHECK(op_info(OpKind::HardSigmoid).family == OpFamily::Activation);
  CHECK(op_info(OpKind::HardSwish).family == OpFamily::Activation);
  CHECK(op_info(OpKind::RmsNorm).family == OpFamily::Norm);
  CHECK(std::string(to_string(OpFamily::Rope)) == "rope");
  // gather and resize copy values: channels picked by index, pixels repeated.
  CHECK(op_info(OpKind::Gather).family == OpFamily::Gather);
  CHECK(op_info(OpKind::Resize).family == OpFamily::Gather);
  // Only the norms carry per-channel parameters; only pools, add and resize
  // (output channel c reads only input channel c) split channels.
  for (const OpKind k : kOpKinds) {
    CHECK(has_norm_params(k) == (op_info(k).family == OpFamily::Norm));
    const bool splits = k == OpKind::MaxPool || k == OpKind::AveragePool ||
                        k == OpKind::GlobalAveragePool || k == OpKind::Add || k == OpKind::Resize;
    CHECK(op_info(k).splits_channels == splits);
  }
}

TEST_CASE("op table: the graph parser takes operator names and input counts from the table",
          "[op_table][config]") {
  // A name the table lacks is refused with the table's names as the choices.
  const nlohmann::json bad = nlohmann::json::parse(R"({
    "inputs": [{"name": "x", "shape": [1, 4, 2, 2], "dtype": "int8", "scale": 0.1, "zero_point": 0}],
    "operators": [{"name": "a", "op": "erf", "inputs": ["x"], "output": "y",
                   "out": {"dtype": "int8", "scale": 0.1, "zero_point": 0}}],
    "outputs": ["y"]})");
  try {
    parse_graph_workload(bad, "g.json");
    FAIL("erf was accepted");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find("/operators/0/op") != std::string::npos);
    CHECK(what.find("batch_matmul") != std::string::npos);
  }
  // add takes exactly two inputs (min_inputs = max_inputs = 2).
  const nlohmann::json one = nlohmann::json::parse(R"({
    "inputs": [{"name": "x", "shape": [1, 4, 2, 2], "dtype": "int8", "scale": 0.1, "zero_point": 0}],
    "operators": [{"name": "a", "op": "add", "inputs": ["x"], "output": "y",
                   "out": {"dtype": "int8", "scale": 0.1, "zero_point": 0}}],
    "outputs": ["y"]})");
  try {
    parse_graph_workload(one, "g.json");
    FAIL("add with one input was accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("an array of 2 tensor names for add") != std::string::npos);
  }
  // maxpool keeps its input's quantisation: an "out" key is refused by name.
  const nlohmann::json pool = nlohmann::json::parse(R"({
    "inputs": [{"name": "x", "shape": [1, 4, 4, 4], "dtype": "int8", "scale": 0.1, "zero_point": 0}],
    "operators": [{"name": "p", "op": "maxpool", "inputs": ["x"], "output": "y", "kernel": 2,
                   "out": {"dtype": "int8", "scale": 0.1, "zero_point": 0}}],
    "outputs": ["y"]})");
  try {
    parse_graph_workload(pool, "g.json");
    FAIL("maxpool with out was accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("no \"out\" on maxpool") != std::string::npos);
  }
}

TEST_CASE("op table: hardsigmoid takes alpha and beta, ONNX's 0.2 and 0.5 when absent",
          "[op_table][config]") {
  const auto graph = [](const std::string& extra) {
    return nlohmann::json::parse(R"({
    "inputs": [{"name": "x", "shape": [1, 4, 3, 5], "dtype": "uint8", "scale": 0.1, "zero_point": 9}],
    "operators": [{"name": "h", "op": "hardsigmoid", "inputs": ["x"], "output": "y")" +
                                 extra + R"(,
                   "out": {"dtype": "uint8", "scale": 0.004, "zero_point": 0}}],
    "outputs": ["y"]})");
  };
  const NetworkConfig plain = parse_graph_workload(graph(""), "g.json");
  CHECK(plain.layers[0].op == OpKind::HardSigmoid);
  CHECK(plain.layers[0].seq.alpha == 0.2f);
  CHECK(plain.layers[0].seq.beta == 0.5f);
  // A feature map, not a sequence: 3 rows of 5 pixels, K = C.
  CHECK((plain.layers[0].out_h() == 3 && plain.layers[0].out_w() == 5 && plain.layers[0].K == 4));
  const NetworkConfig set = parse_graph_workload(graph(R"(, "alpha": 0.25, "beta": -1)"), "g.json");
  CHECK(set.layers[0].seq.alpha == 0.25f);
  CHECK(set.layers[0].seq.beta == -1.0f);
  try {
    parse_graph_workload(graph(R"(, "alpha": "big")"), "g.json");
    FAIL("a string alpha was accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("/operators/0/alpha") != std::string::npos);
  }
}

TEST_CASE(
    "op table: the members of a family are told apart by their sub-kind (a row that forgets "
    "its own shares another's)",
    "[op_table]") {
  // Kernels, references, parsers and cost lines switch on the family, then on its sub-kind:
  // two members of one family with one sub-kind would compute the same thing.
  std::set<std::pair<int, int>> seen;
  for (const OpKind k : kOpKinds) {
    const OpInfo& i = op_info(k);
    int sub = 0;
    switch (i.family) {
      case OpFamily::Matmul:
        sub = int(i.matmul);
        break;
      case OpFamily::Pool:
        sub = int(i.pool);
        break;
      case OpFamily::Elementwise:
        sub = int(i.elementwise);
        break;
      case OpFamily::Gather:
        sub = int(i.gather);
        break;
      case OpFamily::Norm:
        sub = int(i.norm);
        break;
      case OpFamily::Activation:
        sub = int(i.activation);
        break;
      case OpFamily::Conv:  // one member each
      case OpFamily::Concat:
      case OpFamily::Softmax:
      case OpFamily::Rope:
        break;
    }
    INFO(i.name);
    CHECK(seen.insert({int(i.family), sub}).second);
  }
  // The ones the kernels tell apart, spelled out.
  CHECK(op_info(OpKind::BatchMatMul).matmul == MatmulKind::Produced);
  CHECK(op_info(OpKind::GlobalAveragePool).pool == PoolKind::GlobalAverage);
  CHECK(op_info(OpKind::Mul).elementwise == ElementwiseKind::Mul);
  CHECK(op_info(OpKind::Resize).gather == GatherKind::Resize);
  CHECK(op_info(OpKind::RmsNorm).norm == NormKind::Rms);
  CHECK(op_info(OpKind::HardSwish).activation == ActivationFn::HardSwish);
  // Only hardsigmoid reads "alpha" and "beta".
  for (const OpKind k : kOpKinds) {
    CHECK(op_info(k).has_beta == (k == OpKind::HardSigmoid));
    CHECK(op_info(k).has_alpha == (k == OpKind::HardSigmoid || k == OpKind::LeakyRelu));
  }
}

TEST_CASE(
    "graph: leakyrelu takes alpha (ONNX's default 0.01 when absent) and refuses hardsigmoid's "
    "beta, naming the key",
    "[op_table]") {
  const auto graph = [](const std::string& keys) {
    return R"({"name": "g", "inputs": [{"name": "x", "shape": [1, 4, 5, 7], "dtype": "int8",
      "scale": 0.05, "zero_point": 0}], "operators": [{"name": "a", "op": "leakyrelu",
      "inputs": ["x"], "output": "y", )" +
           keys + R"("out": {"dtype": "int8", "scale": 0.04, "zero_point": -3}}]})";
  };
  CHECK(test::workload(graph("")).layers.at(0).seq.alpha == 0.01f);
  CHECK(test::workload(graph(R"("alpha": 0.1, )")).layers.at(0).seq.alpha == 0.1f);
  const ConfigError e = test::config_error_from([&] { test::workload(graph(R"("beta": 0.3, )")); });
  CHECK(e.pointer() == "/operators/0/beta");
  CHECK_THAT(e.found(), Catch::Contains("unknown key \"beta\""));
}
