// Program files of graph workloads (sim/program/operator_lines.h): a compiled
// graph program written as JSON lines and read back is the same program,
// field by field, graph fields included; operator lines carry placement and
// tiling only, and a line that contradicts the header's workload or places a
// tensor outside DRAM is an error at its key.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/compiler/tiler.h"
#include "sim/config/config_error.h"
#include "sim/program/trace_io.h"
#include "tests/support/test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

// Every kind of graph operator: array (conv, matmul) and vector unit (pools,
// add, concat), fan-out, an add reading a graph input, two graph inputs.
const char* kGraph = R"({
  "name": "mixed",
  "inputs": [{"name": "x", "shape": [1, 4, 9, 7], "dtype": "uint8", "scale": 0.02, "zero_point": 128},
             {"name": "s", "shape": [1, 6, 9, 7], "dtype": "uint8", "scale": 0.03, "zero_point": 100}],
  "operators": [
    {"name": "c1", "op": "conv", "inputs": ["x"], "output": "a", "K": 6, "kernel": 3, "pads": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 10}},
    {"name": "sum", "op": "add", "inputs": ["a", "s"], "output": "b",
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 20}},
    {"name": "cat", "op": "concat", "inputs": ["a", "b"], "output": "c",
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 20}},
    {"name": "mp", "op": "maxpool", "inputs": ["c"], "output": "d", "kernel": 3, "stride": 2, "pads": 1},
    {"name": "gap", "op": "globalaveragepool", "inputs": ["d"], "output": "e",
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 20}},
    {"name": "fc", "op": "matmul", "inputs": ["e"], "output": "y", "out_features": 5,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.1, "zero_point": 128}}
  ]})";

struct Compiled {
  NetworkConfig net;
  HardwareConfig hw;
  Program program;
  std::vector<std::string> lines;
};

Compiled compiled() {
  Compiled c;
  c.net = test::workload(kGraph);
  c.hw.cache.size_kib = 16;  // several pieces per layer
  c.hw.vector.buffer_kib = 2;
  c.program = compile_for_workload(c.net, c.hw);
  std::ostringstream out;
  write_program_jsonl(out, c.program, to_json(c.net), to_json(c.hw), true);
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) c.lines.push_back(line);
  return c;
}

std::string join(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

template <class Edit>
void edit_line(std::vector<std::string>& lines, size_t index, Edit edit) {
  json j = json::parse(lines.at(index));
  edit(j);
  lines[index] = j.dump();
}

ConfigError read_error(const std::string& name, const std::vector<std::string>& lines) {
  const std::string path = test::write_temp_file(name, join(lines));
  try {
    read_program_jsonl(path);
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("reading " << path << " did not fail");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("graph programs: a compiled graph program round-trips with every graph field",
          "[trace]") {
  const Compiled c = compiled();
  REQUIRE(c.program.layers.size() == 6);
  REQUIRE(c.lines.size() == 1 + 6 + c.program.instructions.size());
  const ProgramFile file = read_program_jsonl(test::write_temp_file("graph.jsonl", join(c.lines)));
  const Program& p = file.program;
  CHECK(file.network.is_graph());
  CHECK(p.dram_bytes == c.program.dram_bytes);
  CHECK(p.graph_input_addresses == c.program.graph_input_addresses);
  REQUIRE(p.layers.size() == c.program.layers.size());
  for (size_t i = 0; i < p.layers.size(); ++i) {
    const LayerDescriptor &x = c.program.layers[i], &y = p.layers[i];
    INFO("operator " << x.name);
    CHECK((x.op == y.op && x.quantized == y.quantized && x.conv_groups == y.conv_groups));
    CHECK((x.quant.output.scale == y.quant.output.scale &&
           x.quant.output.zero_point == y.quant.output.zero_point));
    CHECK((x.input_address == y.input_address && x.output_address == y.output_address &&
           x.weights_address == y.weights_address && x.params_address == y.params_address));
    REQUIRE(x.more_inputs.size() == y.more_inputs.size());
    for (size_t m = 0; m < x.more_inputs.size(); ++m)
      CHECK((x.more_inputs[m].address == y.more_inputs[m].address &&
             x.more_inputs[m].from_layer == y.more_inputs[m].from_layer &&
             x.more_inputs[m].C == y.more_inputs[m].C));
    CHECK((x.k_tile == y.k_tile && x.rows_per_piece == y.rows_per_piece &&
           x.rows_per_compute_stage == y.rows_per_compute_stage));
    CHECK((x.half_bytes == y.half_bytes && x.weight_region_bytes == y.weight_region_bytes &&
           x.params_region_bytes == y.params_region_bytes &&
           x.vector_region_bytes == y.vector_region_bytes && x.units == y.units &&
           x.weight_buffers == y.weight_buffers));
    CHECK((x.weight_format == y.weight_format && x.kernel_nonzeros == y.kernel_nonzeros));
    CHECK(x.input_from_layer == y.input_from_layer);
  }
  REQUIRE(p.instructions.size() == c.program.instructions.size());
  for (size_t i = 0; i < p.instructions.size(); ++i) {
    const Instruction &x = c.program.instructions[i], &y = p.instructions[i];
    INFO("instruction " << i);
    CHECK((x.op == y.op && x.layer == y.layer && x.batch == y.batch && x.k_end == y.k_end &&
           x.out_row_begin == y.out_row_begin && x.out_row_end == y.out_row_end &&
           x.stages == y.stages && x.deps.size() == y.deps.size()));
  }
  // Writing what was read gives the same bytes.
  std::ostringstream again;
  write_program_jsonl(again, p, file.workload, file.hardware, true);
  CHECK(again.str() == join(c.lines));
}

TEST_CASE("graph programs: operator lines carry placement and tiling, and say the operator",
          "[trace]") {
  const Compiled c = compiled();
  const json conv = json::parse(c.lines[1]);
  CHECK(conv["operator"] == "conv");
  CHECK(conv.contains("k_tile"));
  CHECK_FALSE(conv.contains("scale"));  // quantisation follows from the workload
  const json add = json::parse(c.lines[2]);
  CHECK(add["operator"] == "add");
  CHECK(add["more_input_addresses"].size() == 1);
  CHECK_FALSE(add.contains("k_tile"));
  CHECK(json::parse(c.lines[0])["graph_input_addresses"].size() == 2);
}

TEST_CASE(
    "graph programs: a line that contradicts the workload or leaves DRAM is an error at its key",
    "[trace]") {
  Compiled c = compiled();
  std::string pointer, found;
  SECTION("another operator kind") {
    edit_line(c.lines, 2, [](json& j) { j["operator"] = "concat"; });
    pointer = "/operator", found = "\"concat\"";
  }
  SECTION("another shape") {
    edit_line(c.lines, 1, [](json& j) { j["K"] = 7; });
    pointer = "/K", found = "7";
  }
  SECTION("an input read from another operator") {
    edit_line(c.lines, 3, [](json& j) { j["input_from_layer"] = -1; });
    pointer = "/input_from_layer", found = "-1";
  }
  SECTION("an add's second input beyond DRAM") {
    const uint64_t dram = c.program.dram_bytes;
    edit_line(c.lines, 2, [&](json& j) { j["more_input_addresses"][0] = dram - 8; });
    pointer = "/more_input_addresses/0", found = std::to_string(dram - 8);
  }
  SECTION("a missing second input") {
    edit_line(c.lines, 2, [](json& j) { j.erase("more_input_addresses"); });
    pointer = "/more_input_addresses", found = "nothing";
  }
  SECTION("tiling on a vector-unit operator") {
    edit_line(c.lines, 4, [](json& j) { j["k_tile"] = 4; });
    pointer = "/k_tile", found = "4";
  }
  SECTION("a k_tile above K") {
    edit_line(c.lines, 1, [](json& j) { j["k_tile"] = 7; });
    pointer = "/k_tile", found = "7";
  }
  SECTION("a graph input beyond DRAM") {
    const uint64_t dram = c.program.dram_bytes;
    edit_line(c.lines, 0, [&](json& j) { j["graph_input_addresses"][1] = dram; });
    pointer = "/graph_input_addresses/1", found = std::to_string(dram);
  }
  SECTION("graph input addresses missing") {
    edit_line(c.lines, 0, [](json& j) { j.erase("graph_input_addresses"); });
    pointer = "/graph_input_addresses", found = "nothing";
  }
  const ConfigError e = read_error("bad_graph.jsonl", c.lines);
  INFO(e.what());
  CHECK(e.pointer() == pointer);
  CHECK_THAT(e.found(), Contains(found));
}

TEST_CASE("graph programs: a vector instruction on a conv operator is refused", "[trace]") {
  Compiled c = compiled();
  size_t line = 0;
  for (size_t i = 0; i < c.program.instructions.size(); ++i)
    if (c.program.instructions[i].op == Opcode::Compute) {
      line = 1 + c.program.layers.size() + i;
      break;
    }
  REQUIRE(line > 0);
  edit_line(c.lines, line, [](json& j) { j["op"] = "vector"; });
  const ConfigError e = read_error("vector_on_conv.jsonl", c.lines);
  CHECK_THAT(e.found(), Contains("a vector instruction on an array operator"));
}
