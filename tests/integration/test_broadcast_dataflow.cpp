// Seed 002's broadcast dataflow (compute.dataflow "broadcast",
// docs/zero-skip.md#dataflows): its own data path computes outputs the
// independent reference agrees with bit for bit, on plain, sparse and graph
// layers (zero points, groups, dilation, asymmetric pads, a matmul), and the
// array time follows cost::broadcast_stage_cycles on a layer derived by hand.
#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using npusim::test::run_cli;
using npusim::test::run_report;
using npusim::test::write_temp_file;

namespace {

const char* kGraph = R"({
  "name": "broadcast_traps",
  "inputs": [{"name": "x", "shape": [1, 8, 11, 9], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "c_asym", "op": "conv", "inputs": ["x"], "output": "a", "K": 8, "kernel": [3, 2],
     "pads": [2, 0, 1, 3], "stride": [1, 2],
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 7}, "activation": "relu"},
    {"name": "c_dil", "op": "conv", "inputs": ["x"], "output": "b", "K": 8, "kernel": 3,
     "dilation": 2, "pads": 2, "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 120}},
    {"name": "c_dil_w", "op": "conv", "inputs": ["x"], "output": "b_w", "K": 5, "kernel": [2, 3],
     "dilation": [1, 2], "pads": [0, 1, 1, 2], "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 120}},
    {"name": "c_dil_h", "op": "conv", "inputs": ["x"], "output": "b_h", "K": 6, "kernel": [3, 2],
     "dilation": [3, 1], "stride": [1, 2], "pads": [3, 0, 2, 1],
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 110}},
    {"name": "c_g2_wide", "op": "conv", "inputs": ["x"], "output": "b_g", "K": 6, "kernel": 3,
     "group": 2, "stride": [1, 2], "pads": [1, 0, 1, 2],
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 100}},
    {"name": "c_g4", "op": "conv", "inputs": ["b"], "output": "d", "K": 12, "kernel": 3, "group": 4,
     "pads": 1, "weights": {"dtype": "uint8", "scale": 0.01, "zero_point": 131},
     "out": {"dtype": "uint8", "scale": 0.06, "zero_point": 90}},
    {"name": "c_dw", "op": "conv", "inputs": ["d"], "output": "e", "K": 12, "kernel": 3, "group": 12,
     "pads": 1, "weights": {"dtype": "int8", "scale": 0.02, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.03, "zero_point": 100}},
    {"name": "gap", "op": "globalaveragepool", "inputs": ["e"], "output": "g",
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 20}},
    {"name": "fc", "op": "matmul", "inputs": ["g"], "output": "y", "out_features": 7,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.1, "zero_point": 128}}
  ]})";

// Runs kGraph under `dataflow`; every operator must equal the reference.
void require_graph_bit_exact(const std::string& dataflow) {
  const std::string graph = write_temp_file(dataflow + "_graph.json", kGraph);
  const auto r = run_cli("run " + graph + " --set compute.dataflow=" + dataflow + " -q");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("bit-exact vs reference (9 layers)"));
}

}  // namespace

// The input map is taller than wide (11x9), c_dil_w / c_dil_h dilate one
// direction only (rows 1 columns 2, rows 3 columns 1) and the grouped c_g2_wide
// strides columns by 2 and rows by 1, so a data path that steps one
// direction's taps by the other's dilation or stride reads the wrong pixels.
TEST_CASE(
    "broadcast dataflow: outputs equal the reference on graph operators with zero points, "
    "groups, square and one-direction dilations",
    "[zero-skip][graph]") {
  require_graph_bit_exact("broadcast");
}

TEST_CASE(
    "the lockstep data path equals the reference on the same graph, one-direction dilations "
    "included",
    "[zero-skip][graph]") {
  require_graph_bit_exact("lockstep");
}

TEST_CASE("broadcast dataflow: outputs equal the reference on sparse plain layers", "[zero-skip]") {
  const std::string layers = write_temp_file("broadcast_layers.json", R"({"name":"s","layers":[
      {"name":"a","C":12,"H":10,"W":9,"K":20,"R":3,"S":3,"padding":1,
       "sparsity":{"pattern":"unstructured","density":0.3}},
      {"name":"b","C":20,"H":10,"W":9,"K":8,"R":3,"S":3,"padding":1,"stride":2,
       "sparsity":{"pattern":"nm","n":2,"m":4}},
      {"name":"c","C":8,"H":5,"W":5,"K":6,"R":1,"S":1}]})");
  // A small cache: several pieces and k-tiles per layer.
  const auto r =
      run_cli("run " + layers + " --set compute.dataflow=broadcast --set cache.size_kib=12 -q");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("bit-exact vs reference (3 layers)"));
}

TEST_CASE("broadcast dataflow: each coefficient costs ceil(pixels / (rows x cols)) cycles",
          "[zero-skip]") {
  // C=4, 6x6, K=5, 3x3, pad 1: one piece and one stage of 36 output pixels
  // (greedy mapping). A 4x8 array has 32 multipliers: ceil(36 / 32) = 2
  // cycles per coefficient, plus the pipeline fill of 8 once.
  const std::string layer = write_temp_file("broadcast_hand.json", R"({"type":"conv2d",
      "name":"h","C":4,"H":6,"W":6,"K":5,"R":3,"S":3,"padding":1,
      "sparsity":{"pattern":"unstructured","density":0.5}})");
  const std::string set =
      " --timing-only --set compute.dataflow=broadcast --set compute.array_rows=4"
      " --set compute.array_cols=8 --set compiler.mapper=greedy --set compiler.pieces=greedy";
  // Dense: all 5 x 36 coefficients: 180 * 2 + 8 = 368.
  const auto dense = run_report("run " + layer + set + " --set compute.mode=dense");
  const auto& dc = dense.at("totals").at("counters");
  CHECK(dc.at("compute.instructions").get<uint64_t>() == 1);
  CHECK(dc.at("compute.work_cycles").get<uint64_t>() == 368);
  // Zero-skip: the non-zero coefficients, n = macs_performed / 36 pixels, 2 cycles each.
  const auto skip = run_report("run " + layer + set);
  const auto& sc = skip.at("totals").at("counters");
  const uint64_t nonzeros = sc.at("compute.macs_performed").get<uint64_t>() / 36;
  REQUIRE(nonzeros < 180);
  CHECK(sc.at("compute.work_cycles").get<uint64_t>() == nonzeros * 2 + 8);
}

TEST_CASE("broadcast dataflow: a layer whose input the host lowers is refused by name",
          "[zero-skip]") {
  const auto r = run_cli("run " + std::string(NPUSIM_SOURCE_DIR) +
                         "/configs/layers/conv3x3.json --set compute.dataflow=broadcast "
                         "--set load.access=host_im2col -q");
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err,
             Catch::Contains("compute.dataflow \"broadcast\"") && Catch::Contains("host_im2col"));
}
