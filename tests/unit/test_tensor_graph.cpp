// The tensor graph (sim/graph/tensor_graph.h): tensors with producers,
// consumers and lifetimes, worked by hand on small graphs and layer lists.
#include <catch2/catch.hpp>
#include <string>

#include "sim/frontend/load_workload.h"
#include "sim/graph/tensor_graph.h"
#include "tests/support/test_support.h"

using namespace npusim;
using nlohmann::json;

namespace {

const GraphTensor& named(const TensorGraph& g, const std::string& name) {
  for (const GraphTensor& t : g.tensors)
    if (t.name == name) return t;
  FAIL("no tensor named " << name);
  return g.tensors.front();
}

json tensor_quant(const char* dtype, double scale, int zp) {
  return {{"dtype", dtype}, {"scale", scale}, {"zero_point", zp}};
}

// x [1, 8, 6, 10] -> conv a (K 4, 3x3, pads 1) -> y [1, 4, 6, 10]
//                 -> maxpool p (2x2 / 2)       -> z [1, 4, 3, 5]
// y and z -> ... add needs equal shapes, so: y -> conv b (K 4, 1x1) -> w; add(y, w) -> out.
// y lives from a (0) to the add (3): the skip connection keeps it alive.
json residual_graph() {
  json conv_a = {{"name", "a"},
                 {"op", "conv"},
                 {"inputs", {"x"}},
                 {"output", "y"},
                 {"K", 4},
                 {"kernel", {3, 3}},
                 {"pads", 1},
                 {"weights", tensor_quant("int8", 0.01, 0)},
                 {"out", tensor_quant("uint8", 0.05, 3)}};
  json pool = {{"name", "p"},   {"op", "maxpool"}, {"inputs", {"y"}},
               {"output", "z"}, {"kernel", 2},     {"stride", 2}};
  json conv_b = {
      {"name", "b"},
      {"op", "conv"},
      {"inputs", {"y"}},
      {"output", "w"},
      {"K", 4},
      {"kernel", 1},
      {"weights", {{"dtype", "int8"}, {"scale", {0.01, 0.02, 0.03, 0.04}}, {"zero_point", 0}}},
      {"out", tensor_quant("uint8", 0.05, 3)}};
  json add = {{"name", "s"},
              {"op", "add"},
              {"inputs", {"y", "w"}},
              {"output", "out"},
              {"out", tensor_quant("uint8", 0.1, 0)}};
  return {{"inputs",
           {{{"name", "x"},
             {"shape", {1, 8, 6, 10}},
             {"dtype", "uint8"},
             {"scale", 0.02},
             {"zero_point", 128}}}},
          {"operators", {conv_a, pool, conv_b, add}},
          {"outputs", {"out", "z"}}};
}

}  // namespace

TEST_CASE("tensor graph: a residual graph's tensors have their producers, consumers and lifetimes",
          "[graph]") {
  const TensorGraph g = build_tensor_graph(parse_graph_workload(residual_graph(), "g.json"));
  REQUIRE(g.operators.size() == 4);
  // x, y, z, w, out and two weight tensors.
  CHECK(g.tensors.size() == 7);
  const GraphTensor& x = named(g, "x");
  CHECK(x.role == TensorRole::Input);
  CHECK(x.producer == -1);
  CHECK(x.first_use == 0);
  CHECK(x.last_use == 0);
  CHECK(x.bytes == 8 * 6 * 10);
  CHECK(x.element == QuantType::Uint8);
  CHECK(x.zero_point == std::vector<int32_t>{128});
  const GraphTensor& y = named(g, "y");
  CHECK(y.producer == 0);
  CHECK(y.consumers == std::vector<int32_t>{1, 2, 3});
  CHECK(y.first_use == 0);
  CHECK(y.last_use == 3);  // the add reads it last
  CHECK((y.N == 1 && y.C == 4 && y.H == 6 && y.W == 10));
  CHECK_FALSE(y.graph_output);
  // z is a graph output: read back after the run, so it lives to the last operator.
  const GraphTensor& z = named(g, "z");
  CHECK((z.C == 4 && z.H == 3 && z.W == 5));  // 6x10 pooled 2x2 / 2: rows and columns differ
  CHECK(z.graph_output);
  CHECK(z.first_use == 1);
  CHECK(z.last_use == 3);
  CHECK(z.scale == y.scale);  // maxpool keeps its input's quantisation
  const GraphTensor& w = named(g, "w");
  CHECK(w.first_use == 2);
  CHECK(w.last_use == 3);
  // Weights: [K, C / groups, R, S], quantised per tensor or per output channel.
  const GraphTensor& wa = named(g, "a.weights");
  CHECK(wa.constant());
  CHECK((wa.N == 4 && wa.C == 8 && wa.H == 3 && wa.W == 3));
  CHECK(wa.bytes == 4 * 8 * 9);
  CHECK_FALSE(wa.per_axis);
  const GraphTensor& wb = named(g, "b.weights");
  CHECK(wb.per_axis);
  CHECK(wb.scale.size() == 4);
  CHECK(g.operators[1].weights == -1);  // maxpool has none
  CHECK(g.operators[3].inputs.size() == 2);
}

TEST_CASE("tensor graph: live bytes per operator add up what each lifetime spans, worked by hand",
          "[graph]") {
  const TensorGraph g = build_tensor_graph(parse_graph_workload(residual_graph(), "g.json"));
  // Activations: x 480 (op 0), y 240 (0..3), z 60 (1..3), w 240 (2..3), out 240 (3).
  CHECK(g.live_bytes_at(0, false) == 480 + 240);
  CHECK(g.live_bytes_at(1, false) == 240 + 60);
  CHECK(g.live_bytes_at(2, false) == 240 + 60 + 240);
  CHECK(g.live_bytes_at(3, false) == 240 + 60 + 240 + 240);
  const TensorGraph::Peak peak = g.peak_live_bytes(false);
  CHECK(peak.bytes == 780);
  CHECK(peak.op == 3);
  // With constants: a's 288 weight bytes at op 0, b's 16 at op 2.
  CHECK(g.live_bytes_at(0, true) == 720 + 288);
  CHECK(g.live_bytes_at(2, true) == 540 + 16);
  CHECK(g.live_at(1).size() == 2);
}

TEST_CASE("tensor graph: a layer list chains each layer into the next where the shapes chain",
          "[graph]") {
  const NetworkConfig net = default_network();  // ResNet-18: 3 downsample layers do not chain
  const TensorGraph g = build_tensor_graph(net);
  REQUIRE(g.operators.size() == net.layers.size());
  size_t own_inputs = 0, outputs = 0;
  for (const GraphTensor& t : g.tensors) {
    own_inputs += t.role == TensorRole::Input;
    outputs += t.graph_output;
  }
  // conv1 and the layers that do not chain read their own inputs (4 + conv1).
  CHECK(own_inputs == 5);
  // Every output the next layer does not read is read back: conv1's (layer1.0.conv1
  // reads 56x56), those of the three layers before a downsample, and the last one.
  CHECK(outputs == 5);
  const GraphTensor& c1 = named(g, "conv1.output");
  CHECK((c1.C == 64 && c1.H == 112 && c1.W == 112));
  CHECK(c1.consumers.empty());  // layer1.0.conv1 reads 56x56: it does not chain
  CHECK(c1.graph_output);
  const GraphTensor& l1 = named(g, "layer1.0.conv1.output");
  CHECK(l1.consumers == std::vector<int32_t>{2});
  CHECK(l1.last_use == 2);
  CHECK(named(g, "layer4.1.conv2.output").last_use == int32_t(net.layers.size()) - 1);
}

TEST_CASE("tensor graph: decode steps share the prefill's seeded weights as one tensor",
          "[graph]") {
  const NetworkConfig net =
      load_workload(std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/tinyllama_layer.json");
  const TensorGraph g = build_tensor_graph(net);
  size_t weight_tensors = 0, weighted_ops = 0;
  for (const GraphTensor& t : g.tensors) weight_tensors += t.role == TensorRole::Weights;
  for (const GraphOperator& op : g.operators) weighted_ops += op.weights >= 0;
  CHECK(weighted_ops > weight_tensors);  // shared, not copied
  // batch_matmul's second operand is an activation, never a weight tensor.
  for (const GraphOperator& op : g.operators)
    if (op.kind == OpKind::BatchMatMul) {
      CHECK(op.weights == -1);
      CHECK(op.inputs.size() >= 2);
    }
}
