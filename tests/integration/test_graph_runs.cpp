// Graph workloads end to end (docs/graphs.md): every operator's output equals
// the independent ONNX-semantics reference bit for bit, on small graphs built
// around the traps of quantised arithmetic and on the shipped whole networks,
// and the timing invariants of DESIGN.md hold on them.
#include <catch2/catch.hpp>

#include "sim/frontend/load_workload.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

HardwareConfig default_hw() { return parse_hardware_config(nlohmann::json::object(), "<test>"); }

// One graph holding every operator and the traps: a uint8 input with zero
// point 128 against int8 weights (9-bit operands), padding that must hold the
// zero point, asymmetric pads, dilation 2, depthwise and 4 groups, a stride
// larger than the kernel, per-channel weight scales and zero points, uint8
// weights with a zero point and raw int32 outputs (ConvInteger), average
// pooling with and without the pads counted, concat of differently scaled
// inputs, a residual add with ReLU, global pooling to 1x1 and a matmul on it.
const char* kTrapGraph = R"({
  "name": "traps",
  "inputs": [{"name": "x", "shape": [1, 8, 11, 9], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "c_asym", "op": "conv", "inputs": ["x"], "output": "a", "K": 8, "kernel": [3, 2],
     "pads": [2, 0, 1, 3], "stride": [1, 2],
     "weights": {"dtype": "int8", "scale": [0.01, 0.02, 0.015, 0.01, 0.03, 0.01, 0.02, 0.01], "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 7}, "activation": "relu"},
    {"name": "c_dil", "op": "conv", "inputs": ["x"], "output": "b", "K": 8, "kernel": 3,
     "dilation": 2, "pads": 2, "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 120}},
    {"name": "c_dw", "op": "conv", "inputs": ["b"], "output": "c", "K": 8, "kernel": 3, "group": 8,
     "pads": 1, "weights": {"dtype": "int8", "scale": 0.02, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.03, "zero_point": 100}, "activation": "relu6"},
    {"name": "c_g4", "op": "conv", "inputs": ["c"], "output": "d", "K": 12, "kernel": 3, "group": 4,
     "pads": [1, 1, 1, 1], "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.06, "zero_point": 90}},
    {"name": "c_wide_stride", "op": "conv", "inputs": ["x"], "output": "e", "K": 5, "kernel": 2,
     "stride": 3, "weights": {"dtype": "int8", "scale": 0.01, "zero_point": [0, 1, -2, 3, 0]},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 128}},
    {"name": "c_integer", "op": "conv", "inputs": ["x"], "output": "f", "K": 6, "kernel": 3, "pads": 1,
     "bias": false, "weights": {"dtype": "uint8", "scale": 1, "zero_point": 131},
     "out": {"dtype": "int32"}},
    {"name": "mp", "op": "maxpool", "inputs": ["d"], "output": "g", "kernel": 3, "stride": 2, "pads": 1},
    {"name": "ap_in", "op": "averagepool", "inputs": ["d"], "output": "h", "kernel": 3, "stride": 2,
     "pads": 1, "count_include_pad": true, "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 80}},
    {"name": "ap_ex", "op": "averagepool", "inputs": ["d"], "output": "i", "kernel": 3, "stride": 2,
     "pads": 1, "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 80}},
    {"name": "cat", "op": "concat", "inputs": ["g", "h", "i"], "output": "cat", "axis": 1,
     "out": {"dtype": "uint8", "scale": 0.07, "zero_point": 60}},
    {"name": "add", "op": "add", "inputs": ["h", "i"], "output": "j",
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 20}, "activation": "relu"},
    {"name": "gap", "op": "globalaveragepool", "inputs": ["cat"], "output": "k",
     "out": {"dtype": "uint8", "scale": 0.03, "zero_point": 40}},
    {"name": "fc", "op": "matmul", "inputs": ["k"], "output": "y", "out_features": 37,
     "weights": {"dtype": "int8", "scale": 0.004, "zero_point": 0},
     "out": {"dtype": "int8", "scale": 0.08, "zero_point": -3}}
  ]
})";

}  // namespace

TEST_CASE("graph: every operator equals the ONNX-semantics reference bit for bit, traps included",
          "[graph]") {
  const NetworkConfig net = test::workload(kTrapGraph);
  REQUIRE(net.layers.size() == 13);
  test::run_bit_exact(net, default_hw());
}

TEST_CASE("graph: bit-exact with a small cache, single buffering and the early policy", "[graph]") {
  HardwareConfig hw = default_hw();
  hw.cache.size_kib = 16;  // several pieces per operator
  hw.vector.buffer_kib = 1;
  hw.buffering = Buffering::Single;
  hw.policy = SchedulerPolicy::Early;
  const auto r = test::run_bit_exact(test::workload(kTrapGraph), hw);
  CHECK(r->stats->get("vector.instructions").at(6) > 1);  // maxpool ran in several pieces
}

TEST_CASE("graph: whole MobileNetV2 runs bit-exact", "[graph][network]") {
  const NetworkConfig net = load_workload(NPUSIM_SOURCE_DIR "/configs/networks/mobilenet_v2.json");
  REQUIRE(net.layers.size() == 64);
  test::run_bit_exact(net, default_hw());
}

// SystemC elaborates once per process: each policy runs as its own npusim.
TEST_CASE("graph: on MobileNetV2 early <= strict and ping-pong <= single buffering",
          "[heavy][graph][network]") {
  const std::string net = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/mobilenet_v2.json";
  const auto cycles = [&](const std::string& args) {
    return test::run_report("run " + net + " --timing-only " + args)["totals"]["cycles"]
        .get<uint64_t>();
  };
  const uint64_t strict = cycles("--policy strict");
  CHECK(cycles("--policy early") <= strict);
  CHECK(strict <= cycles("--policy strict --buffering single"));
}

TEST_CASE("graph: whole ResNet-18 with pooling, adds and FC runs bit-exact", "[graph][network]") {
  const NetworkConfig net = load_workload(NPUSIM_SOURCE_DIR "/configs/networks/resnet18_full.json");
  REQUIRE(net.layers.size() == 31);
  test::run_bit_exact(net, default_hw());
}

TEST_CASE("graph: the fixed-point requantiser is bit-exact against its written-out reference",
          "[graph]") {
  HardwareConfig hw = default_hw();
  hw.requantiser = Requantiser::FixedPoint;
  test::run_bit_exact(test::workload(kTrapGraph), hw);
}

TEST_CASE("graph: whole ResNet-50 with pooling, adds and FC runs bit-exact",
          "[heavy][graph][network]") {
  const NetworkConfig net = load_workload(NPUSIM_SOURCE_DIR "/configs/networks/resnet50_full.json");
  REQUIRE(net.layers.size() == 72);
  test::run_bit_exact(net, default_hw());
}

TEST_CASE(
    "graph: pools with rectangular kernels, unequal strides, one-sided pads and a one-direction "
    "dilation on a tall map equal the reference",
    "[graph]") {
  // Each attribute differs between rows and columns, so a pool reading the
  // row's value for the column (or the reverse) reads other pixels.
  const NetworkConfig net = test::workload(R"({
    "inputs": [{"name": "x", "shape": [1, 4, 11, 6], "dtype": "int8", "scale": 0.1, "zero_point": 3}],
    "operators": [
      {"name": "mp", "op": "maxpool", "inputs": ["x"], "output": "m", "kernel": [3, 2],
       "stride": [2, 1], "pads": [1, 0, 0, 1], "dilation": [1, 2]},
      {"name": "ap_in", "op": "averagepool", "inputs": ["x"], "output": "a", "kernel": [2, 3],
       "stride": [1, 2], "pads": [0, 1, 1, 0], "count_include_pad": true,
       "out": {"dtype": "int8", "scale": 0.1, "zero_point": 0}},
      {"name": "ap_ex", "op": "averagepool", "inputs": ["x"], "output": "b", "kernel": [2, 3],
       "stride": [1, 2], "pads": [0, 1, 1, 0],
       "out": {"dtype": "int8", "scale": 0.1, "zero_point": 0}}]})");
  const auto r = test::run_bit_exact(net, default_hw());
  CHECK(r->summary.checks.size() == 3);
}

namespace {
// ShuffleNet's unit: shuffle 12 channels in 2 groups, split the halves,
// convolve one, concatenate. A gather copying channel k (not channels[k]),
// or reading the output's channel count per pixel, gives other bytes.
const char* kShuffleGraph = R"({
  "inputs": [{"name": "x", "shape": [1, 12, 5, 11], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "c1", "op": "conv", "inputs": ["x"], "output": "a", "K": 12, "kernel": 3, "pads": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 7}},
    {"name": "shuffle", "op": "gather", "inputs": ["a"], "output": "s",
     "channels": [0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11]},
    {"name": "left", "op": "gather", "inputs": ["s"], "output": "l", "channels": [0, 1, 2, 3, 4, 5]},
    {"name": "right", "op": "gather", "inputs": ["s"], "output": "r", "channels": [11, 9, 9, 7, 8, 6]},
    {"name": "dw", "op": "conv", "inputs": ["r"], "output": "d", "K": 6, "kernel": 3, "group": 6,
     "pads": 1, "weights": {"dtype": "int8", "scale": 0.02, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.03, "zero_point": 100}},
    {"name": "cat", "op": "concat", "inputs": ["l", "d"], "output": "y", "axis": 1,
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 7}}]})";
}  // namespace

TEST_CASE(
    "graph: a channel shuffle and a channel split written as gathers equal the reference on a "
    "wide map",
    "[graph]") {
  const NetworkConfig net = test::workload(kShuffleGraph);
  REQUIRE(net.layers[1].op == OpKind::Gather);
  CHECK(net.layers[2].K == 6);
  CHECK(test::run_bit_exact(net, default_hw())->summary.checks.size() == 6);
}

TEST_CASE("graph: gathers equal the reference when a small vector buffer cuts them into rows",
          "[graph]") {
  HardwareConfig hw = default_hw();
  hw.vector.buffer_kib = 1;  // a row is 11 pixels x 12 channels in and out: 3 rows fit
  const auto r = test::run_bit_exact(test::workload(kShuffleGraph), hw);
  CHECK(r->stats->get("vector.instructions").at(1) > 1);
}

TEST_CASE(
    "graph: a nearest resize by 2 rows and 3 columns of a tall map equals the reference, and the "
    "conv after it reads the upsampled rows",
    "[graph]") {
  // Factors that differ tell rows from columns; a 3x1 kernel after it reads
  // rows of the upsampled map that two instructions may have written.
  const NetworkConfig net = test::workload(R"({
    "inputs": [{"name": "x", "shape": [1, 12, 7, 4], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
    "operators": [
      {"name": "c1", "op": "conv", "inputs": ["x"], "output": "a", "K": 12, "kernel": 3, "pads": 1,
       "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
       "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 7}},
      {"name": "up", "op": "resize", "inputs": ["a"], "output": "u", "scales": [2, 3]},
      {"name": "c2", "op": "conv", "inputs": ["u"], "output": "y", "K": 8, "kernel": [3, 1],
       "pads": [1, 0, 1, 0], "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
       "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 3}}]})");
  REQUIRE(net.layers[1].op == OpKind::Resize);
  CHECK((net.layers[1].out_h() == 14 && net.layers[1].out_w() == 12));
  CHECK(test::run_bit_exact(net, default_hw())->summary.checks.size() == 3);
}

TEST_CASE(
    "graph: a nearest resize whose output row does not fit the vector region runs in channel "
    "tiles and equals the reference",
    "[graph]") {
  HardwareConfig hw = default_hw();
  hw.vector.buffer_kib = 1;  // one output row is 120 pixels x 64 channels: 7.5 KiB
  const auto r = test::run_bit_exact(test::workload(R"({
    "inputs": [{"name": "x", "shape": [1, 64, 3, 40], "dtype": "int8", "scale": 0.02, "zero_point": -3}],
    "operators": [
      {"name": "up", "op": "resize", "inputs": ["x"], "output": "u", "scales": [2, 3]}]})"),
                                     hw);
  CHECK(r->stats->get("vector.instructions").at(0) > 6);  // more than one per output row
}

TEST_CASE("graph: a max pool window holding only padding gives the type's lowest value",
          "[graph]") {
  // 1x1 input, 2x2 kernel dilated by 2, pads 1: the taps fall at -1 and 1 on
  // both axes, all outside the input, so every output is int8's -128.
  const NetworkConfig net = test::workload(R"({
    "inputs": [{"name": "x", "shape": [1, 4, 1, 1], "dtype": "int8", "scale": 0.1, "zero_point": 3}],
    "operators": [{"name": "mp", "op": "maxpool", "inputs": ["x"], "output": "y", "kernel": 2,
                   "dilation": 2, "pads": 1}]})");
  RunOptions options;
  options.progress = false;
  options.keep_outputs = true;
  const auto r = run_network(net, default_hw(), options);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  INFO(r->summary.checks[0].mismatch);
  CHECK(r->summary.checks[0].match);
  REQUIRE(r->operator_outputs.size() == 1);
  REQUIRE(r->operator_outputs[0].size() == 4);
  for (int32_t v : r->operator_outputs[0].data) CHECK(v == -128);
}
