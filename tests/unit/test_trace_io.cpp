// Program files (sim/program/trace_io.h): a compiled program written as JSON
// lines and read back is identical field by field, and hand-edited bad files
// are rejected with errors that name file:line and the JSON pointer inside
// that line (later/missing dependency, unknown key with a suggestion, bad op
// name, wrong type, ids out of order, channels beyond K, ...).
#include <catch2/catch.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/compiler/program_emitter.h"
#include "sim/compiler/tiler.h"
#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/program/trace_io.h"
#include "tests/support/test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

// Two chained layers; a 4 KiB cache and two units give several pieces per
// layer, both halves, both units and memory dependencies between the layers.
const char* kNetwork = R"({"name": "tiny", "layers": [
  {"name": "a", "C": 4, "H": 8, "W": 8, "K": 8, "R": 3, "S": 3, "padding": 1},
  {"name": "b", "C": 8, "H": 8, "W": 8, "K": 16, "R": 3, "S": 3, "padding": 1, "stride": 2}]})";

struct Compiled {
  NetworkConfig net;
  HardwareConfig hw;
  Program program;
  std::vector<std::string> lines;  // the written file, one entry per line
};

Compiled trace_io_compiled() {
  Compiled c;
  c.net = test::workload(kNetwork);
  c.hw.cache.size_kib = 4;
  c.hw.compute.units = 2;
  c.program = compile_network(c.net, c.hw);
  std::ostringstream out;
  write_program_jsonl(out, c.program, to_json(c.net), to_json(c.hw), c.net.is_graph());
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) c.lines.push_back(line);
  return c;
}

std::string trace_io_join(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

// Index in `lines` (0-based) of instruction `id`.
size_t instruction_line(const Compiled& c, uint32_t id) { return 1 + c.program.layers.size() + id; }

// Parses one line, lets `edit` change it, and writes it back.
template <class Edit>
void trace_io_edit_line(std::vector<std::string>& lines, size_t index, Edit edit) {
  json j = json::parse(lines.at(index));
  edit(j);
  lines[index] = j.dump();
}

ConfigError trace_io_read_error(const std::string& name, const std::vector<std::string>& lines) {
  const std::string path = test::write_temp_file(name, trace_io_join(lines));
  try {
    read_program_jsonl(path);
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("reading " << path << " did not fail");
  throw std::logic_error("unreachable");
}

// The error names "<path>:<line>" (1-based) and the pointer.
void check_at(const ConfigError& e, const std::string& name, size_t index,
              const std::string& pointer) {
  INFO(e.what());
  CHECK(e.file() == test::temp_dir() + "/" + name + ":" + std::to_string(index + 1));
  CHECK(e.pointer() == pointer);
  CHECK_THAT(e.what(), Contains(name + ":" + std::to_string(index + 1) + ": at " + pointer));
}

void check_same(const Program& a, const Program& b) {
  CHECK(a.dram_bytes == b.dram_bytes);
  REQUIRE(a.layers.size() == b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    const LayerDescriptor &x = a.layers[i], &y = b.layers[i];
    INFO("layer " << i);
    CHECK(x.name == y.name);
    CHECK((x.N == y.N && x.C == y.C && x.H == y.H && x.W == y.W && x.K == y.K && x.R == y.R &&
           x.S == y.S));
    CHECK((x.stride == y.stride && x.padding == y.padding && x.out_h == y.out_h &&
           x.out_w == y.out_w));
    CHECK((x.relu == y.relu && x.shift == y.shift));
    CHECK((x.input_address == y.input_address && x.weights_address == y.weights_address &&
           x.params_address == y.params_address && x.output_address == y.output_address));
    CHECK((x.k_tile == y.k_tile && x.rows_per_piece == y.rows_per_piece &&
           x.rows_per_compute_stage == y.rows_per_compute_stage));
    CHECK((x.half_bytes == y.half_bytes && x.weight_region_bytes == y.weight_region_bytes &&
           x.params_region_bytes == y.params_region_bytes));
    CHECK(x.weight_buffers == y.weight_buffers);
    CHECK(x.input_from_layer == y.input_from_layer);
  }
  REQUIRE(a.instructions.size() == b.instructions.size());
  for (size_t i = 0; i < a.instructions.size(); ++i) {
    const Instruction &x = a.instructions[i], &y = b.instructions[i];
    INFO("instruction " << i);
    CHECK((x.id == y.id && x.op == y.op && x.layer == y.layer));
    CHECK((x.unit == y.unit && x.half == y.half && x.batch == y.batch));
    CHECK((x.k_begin == y.k_begin && x.k_end == y.k_end));
    CHECK((x.out_row_begin == y.out_row_begin && x.out_row_end == y.out_row_end));
    CHECK(x.stages == y.stages);
    REQUIRE(x.deps.size() == y.deps.size());
    for (size_t j = 0; j < x.deps.size(); ++j) {
      CHECK(x.deps[j].producer == y.deps[j].producer);
      CHECK(x.deps[j].kind == y.deps[j].kind);
    }
  }
}

// The first instruction of `op` that has at least `deps` dependencies.
uint32_t find_instruction(const Program& p, Opcode op, size_t deps = 0) {
  for (const Instruction& in : p.instructions)
    if (in.op == op && in.deps.size() >= deps) return in.id;
  throw std::logic_error("no such instruction in the test program");
}

}  // namespace

TEST_CASE("trace: a compiled program round-trips exactly", "[trace]") {
  const Compiled c = trace_io_compiled();
  REQUIRE(c.program.layers.size() == 2);
  REQUIRE(c.program.instructions.size() > 10);
  REQUIRE(c.lines.size() == 1 + 2 + c.program.instructions.size());
  const std::string path = test::write_temp_file("roundtrip.jsonl", trace_io_join(c.lines));
  const ProgramFile file = read_program_jsonl(path);
  check_same(c.program, file.program);
  CHECK(file.workload == to_json(c.net));
  CHECK(file.hardware == to_json(c.hw));

  // Writing what was read gives the same bytes.
  std::ostringstream again;
  write_program_jsonl(again, file.program, file.workload, file.hardware, file.network.is_graph());
  CHECK(again.str() == trace_io_join(c.lines));
}

TEST_CASE("trace: instruction lines are human-readable", "[trace]") {
  const Compiled c = trace_io_compiled();
  const uint32_t id = find_instruction(c.program, Opcode::Compute, 2);
  const std::string& line = c.lines[instruction_line(c, id)];
  CHECK_THAT(line, Contains("{\"id\": " + std::to_string(id) + ", \"op\": \"compute\""));
  CHECK_THAT(line, Contains("\"rows\": ["));
  CHECK_THAT(line, Contains("\"deps\": [{\"on\": "));
  CHECK_THAT(line, Contains("\"kind\": \"data\""));
  // Loads of parameters and weights have no rows.
  const uint32_t w = find_instruction(c.program, Opcode::LoadWeights);
  CHECK_THAT(c.lines[instruction_line(c, w)], !Contains("\"rows\""));
  CHECK_THAT(c.lines[1], Contains("{\"layer\": 0, \"name\": \"a\", \"N\": 1, \"C\": 4"));
}

TEST_CASE("trace: comments and blank lines are allowed, errors count physical lines", "[trace]") {
  Compiled c = trace_io_compiled();
  c.lines.insert(c.lines.begin(), "# a hand-edited program");
  c.lines.insert(c.lines.begin() + 2, "");
  c.lines.insert(c.lines.begin() + 3, "   # layers follow");
  const std::string path = test::write_temp_file("comments.jsonl", trace_io_join(c.lines));
  check_same(c.program, read_program_jsonl(path).program);

  // Instruction 0 is now on line index 3 + 1 + 2 (comments, header, layers).
  trace_io_edit_line(c.lines, 6, [](json& j) { j["stages"] = "many"; });
  check_at(trace_io_read_error("comments_bad.jsonl", c.lines), "comments_bad.jsonl", 6, "/stages");
}

TEST_CASE("trace: a dependency on a later instruction names file:line and pointer", "[trace]") {
  Compiled c = trace_io_compiled();
  const uint32_t id = find_instruction(c.program, Opcode::Compute, 2);
  const size_t index = instruction_line(c, id);
  trace_io_edit_line(c.lines, index, [&](json& j) { j["deps"][1]["on"] = id + 2; });
  const ConfigError e = trace_io_read_error("later.jsonl", c.lines);
  check_at(e, "later.jsonl", index, "/deps/1/on");
  CHECK_THAT(e.found(), Contains("instruction #" + std::to_string(id) + " depends on #" +
                                 std::to_string(id + 2) + ", which comes later"));
  CHECK_THAT(e.what(), Contains("dependencies must point to earlier instructions"));

  // On itself.
  trace_io_edit_line(c.lines, index, [&](json& j) { j["deps"][1]["on"] = id; });
  CHECK_THAT(trace_io_read_error("self.jsonl", c.lines).found(), Contains("depends on itself"));
}

TEST_CASE("trace: a dependency on a missing instruction", "[trace]") {
  Compiled c = trace_io_compiled();
  const uint32_t id = find_instruction(c.program, Opcode::Store, 1);
  const size_t index = instruction_line(c, id);
  trace_io_edit_line(c.lines, index, [](json& j) { j["deps"][0]["on"] = 99999; });
  const ConfigError e = trace_io_read_error("missing.jsonl", c.lines);
  check_at(e, "missing.jsonl", index, "/deps/0/on");
  CHECK_THAT(e.found(), Contains("no instruction #99999"));
}

TEST_CASE("trace: unknown keys are rejected with the nearest key", "[trace]") {
  Compiled c = trace_io_compiled();
  const size_t index = instruction_line(c, 1);
  trace_io_edit_line(c.lines, index, [](json& j) {
    j["stagse"] = j["stages"];
    j.erase("stages");
  });
  const ConfigError e = trace_io_read_error("unknown.jsonl", c.lines);
  check_at(e, "unknown.jsonl", index, "/stagse");
  CHECK(e.hint() == "stages");
  CHECK_THAT(e.what(), Contains("did you mean \"stages\"?"));

  // In a layer line and in a dependency too.
  Compiled d = trace_io_compiled();
  trace_io_edit_line(d.lines, 2, [](json& j) { j["paddng"] = 1; });
  const ConfigError layer = trace_io_read_error("unknown_layer.jsonl", d.lines);
  check_at(layer, "unknown_layer.jsonl", 2, "/paddng");
  CHECK(layer.hint() == "padding");
  Compiled f = trace_io_compiled();
  const size_t dep_line = instruction_line(f, find_instruction(f.program, Opcode::Compute, 1));
  trace_io_edit_line(f.lines, dep_line, [](json& j) { j["deps"][0]["knd"] = "data"; });
  check_at(trace_io_read_error("unknown_dep.jsonl", f.lines), "unknown_dep.jsonl", dep_line,
           "/deps/0/knd");
}

TEST_CASE("trace: a bad op name is rejected with a suggestion", "[trace]") {
  Compiled c = trace_io_compiled();
  const uint32_t id = find_instruction(c.program, Opcode::Compute);
  const size_t index = instruction_line(c, id);
  trace_io_edit_line(c.lines, index, [](json& j) { j["op"] = "compte"; });
  const ConfigError e = trace_io_read_error("op.jsonl", c.lines);
  check_at(e, "op.jsonl", index, "/op");
  CHECK(e.hint() == "compute");
  CHECK_THAT(e.expected(), Contains("\"load_weights\""));
}

TEST_CASE("trace: a value of the wrong type", "[trace]") {
  Compiled c = trace_io_compiled();
  const size_t index = instruction_line(c, 2);
  trace_io_edit_line(c.lines, index, [](json& j) { j["unit"] = "0"; });
  const ConfigError e = trace_io_read_error("type.jsonl", c.lines);
  check_at(e, "type.jsonl", index, "/unit");
  CHECK(e.found() == "string \"0\"");

  Compiled d = trace_io_compiled();
  trace_io_edit_line(d.lines, instruction_line(d, 2), [](json& j) { j["k"] = 8; });
  check_at(trace_io_read_error("type_k.jsonl", d.lines), "type_k.jsonl", instruction_line(d, 2),
           "/k");
}

TEST_CASE("trace: ids must be 0, 1, 2, ... in order", "[trace]") {
  Compiled c = trace_io_compiled();
  std::swap(c.lines[instruction_line(c, 3)], c.lines[instruction_line(c, 4)]);
  const ConfigError e = trace_io_read_error("order.jsonl", c.lines);
  check_at(e, "order.jsonl", instruction_line(c, 3), "/id");
  CHECK_THAT(e.expected(), Contains("3"));
  CHECK(e.found() == "number 4");
}

TEST_CASE("trace: out-of-range values are errors at their pointer", "[trace]") {
  Compiled c = trace_io_compiled();
  const uint32_t id = find_instruction(c.program, Opcode::LoadInput);
  const size_t index = instruction_line(c, id);
  const uint32_t K = c.program.layers[0].K;

  auto bad = [&](const char* name, auto edit, const std::string& pointer) {
    std::vector<std::string> lines = c.lines;
    trace_io_edit_line(lines, index, edit);
    const ConfigError e = trace_io_read_error(name, lines);
    check_at(e, name, index, pointer);
    return e;
  };
  const ConfigError k = bad(
      "k.jsonl",
      [&](json& j) {
        j["k"] = {0, K + 1};
      },
      "/k/1");
  CHECK_THAT(k.expected(), Contains("K = " + std::to_string(K)));
  bad(
      "k_empty.jsonl",
      [](json& j) {
        j["k"] = {4, 4};
      },
      "/k/1");
  bad(
      "rows.jsonl",
      [](json& j) {
        j["rows"] = {0, 9};
      },
      "/rows/1");
  bad(
      "unit.jsonl", [](json& j) { j["unit"] = 2; }, "/unit");
  bad(
      "half.jsonl", [](json& j) { j["half"] = 2; }, "/half");
  bad(
      "n.jsonl", [](json& j) { j["n"] = 1; }, "/n");
  bad(
      "stages.jsonl", [](json& j) { j["stages"] = 0; }, "/stages");
  bad(
      "layer.jsonl", [](json& j) { j["layer"] = 2; }, "/layer");
  bad(
      "kind.jsonl",
      [](json& j) {
        j["deps"] = json::array({json{{"on", 0}, {"kind", "date"}}});
      },
      "/deps/0/kind");
  bad(
      "neg.jsonl",
      [](json& j) {
        j["k"] = {-1, 4};
      },
      "/k/0");
}

TEST_CASE("trace: layer lines are checked and come first, numbered in order", "[trace]") {
  Compiled c = trace_io_compiled();
  SECTION("out_h must match the shape") {
    trace_io_edit_line(c.lines, 1, [](json& j) { j["out_h"] = 7; });
    check_at(trace_io_read_error("out_h.jsonl", c.lines), "out_h.jsonl", 1, "/out_h");
  }
  SECTION("layers are numbered 0, 1, ...") {
    trace_io_edit_line(c.lines, 2, [](json& j) { j["layer"] = 5; });
    check_at(trace_io_read_error("layer_no.jsonl", c.lines), "layer_no.jsonl", 2, "/layer");
  }
  SECTION("a layer line after an instruction line") {
    c.lines.push_back(c.lines[2]);
    check_at(trace_io_read_error("late_layer.jsonl", c.lines), "late_layer.jsonl",
             c.lines.size() - 1, "");
  }
  SECTION("a layer that disagrees with the header's workload") {
    trace_io_edit_line(c.lines, 1, [](json& j) { j["shift"] = 3; });
    const ConfigError e = trace_io_read_error("workload.jsonl", c.lines);
    check_at(e, "workload.jsonl", 1, "/shift");
    CHECK_THAT(e.expected(), Contains("header's workload"));
  }
  SECTION("a tensor outside DRAM") {
    trace_io_edit_line(c.lines, 2, [&](json& j) { j["output_address"] = c.program.dram_bytes; });
    check_at(trace_io_read_error("dram.jsonl", c.lines), "dram.jsonl", 2, "/output_address");
  }
  SECTION("a layout the header's workload does not have") {
    trace_io_edit_line(c.lines, 1, [](json& j) { j["output_layout"] = "nchw"; });
    const ConfigError e = trace_io_read_error("layout.jsonl", c.lines);
    check_at(e, "layout.jsonl", 1, "/output_layout");
    CHECK(e.found() == "nchw");
  }
  SECTION("an input layout on a binary layer, an output layout on a packed output") {
    trace_io_edit_line(c.lines, 1, [](json& j) {
      j["dtype"] = "binary", j["bits"] = 32, j["input_layout"] = "nhwc";
    });
    check_at(trace_io_read_error("binary_layout.jsonl", c.lines), "binary_layout.jsonl", 1,
             "/input_layout");
    trace_io_edit_line(c.lines, 1, [](json& j) {
      j.erase("dtype"), j.erase("bits"), j.erase("input_layout");
      j["output_bits"] = 32, j["output_layout"] = "nhwc";
    });
    const ConfigError e = trace_io_read_error("packed_layout.jsonl", c.lines);
    check_at(e, "packed_layout.jsonl", 1, "/output_layout");
    CHECK_THAT(e.expected(), Contains("the output is packed"));
  }
}

TEST_CASE("trace: header and syntax errors", "[trace]") {
  Compiled c = trace_io_compiled();
  SECTION("bad hardware in the header points inside it") {
    trace_io_edit_line(c.lines, 0, [](json& j) { j["hardware"]["compute"]["units"] = 0; });
    check_at(trace_io_read_error("hw.jsonl", c.lines), "hw.jsonl", 0, "/hardware/compute/units");
  }
  SECTION("wrong format version") {
    trace_io_edit_line(c.lines, 0, [](json& j) { j["npusim_program"] = 1; });
    const ConfigError e = trace_io_read_error("version.jsonl", c.lines);
    check_at(e, "version.jsonl", 0, "/npusim_program");
    CHECK_THAT(e.what(), Contains("predate agu_init"));
  }
  SECTION("no header") {
    c.lines.erase(c.lines.begin());
    check_at(trace_io_read_error("noheader.jsonl", c.lines), "noheader.jsonl", 0, "");
  }
  SECTION("a line that is not JSON") {
    c.lines[5] = "{\"id\": 2, \"op\": ";
    const ConfigError e = trace_io_read_error("syntax.jsonl", c.lines);
    check_at(e, "syntax.jsonl", 5, "");
    CHECK_THAT(e.found(), Contains("column"));
  }
  SECTION("a missing file") {
    CHECK_THROWS_AS(read_program_jsonl(test::temp_dir() + "/no_such.jsonl"), ConfigError);
  }
}

TEST_CASE("trace: a layer line's weight_buffers is read back, and must be 1 or 2", "[trace]") {
  Compiled c = trace_io_compiled();
  trace_io_edit_line(c.lines, 1, [](json& j) { j["weight_buffers"] = 2; });
  const std::string path = test::write_temp_file("weight_buffers.jsonl", trace_io_join(c.lines));
  const ProgramFile file = read_program_jsonl(path);
  CHECK(file.program.layers[0].weight_buffers == 2);
  CHECK(file.program.layers[1].weight_buffers == 1);  // absent: one tile
  std::ostringstream again;
  write_program_jsonl(again, file.program, file.workload, file.hardware, file.network.is_graph());
  CHECK_THAT(again.str(), Contains("\"weight_buffers\": 2"));
  trace_io_edit_line(c.lines, 1, [](json& j) { j["weight_buffers"] = 3; });
  check_at(trace_io_read_error("weight_buffers_bad.jsonl", c.lines), "weight_buffers_bad.jsonl", 1,
           "/weight_buffers");
}
