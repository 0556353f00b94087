// `npusim compile` of graph workloads and ONNX models, replayed with
// `npusim run --program` (docs/traces.md#graph-workloads): the replay takes
// the same cycles and computes the same outputs as running the workload
// directly; an ONNX program finds its model relative to the program file and
// refuses a model that changed since it was compiled.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

const std::string kGraphProgramReplayRoot = NPUSIM_SOURCE_DIR;

std::string file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

uint64_t graph_program_replay_total_cycles(const std::string& out_dir) {
  return nlohmann::json::parse(file_text(out_dir + "/report.json"))["totals"]["cycles"]
      .get<uint64_t>();
}

const char* kGraphProgramReplayGraph = R"({
  "name": "replayed",
  "inputs": [{"name": "x", "shape": [1, 4, 12, 10], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "c1", "op": "conv", "inputs": ["x"], "output": "a", "K": 8, "kernel": 3, "pads": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 10}, "activation": "relu"},
    {"name": "c2", "op": "conv", "inputs": ["a"], "output": "b", "K": 8, "kernel": 3, "pads": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 10}},
    {"name": "sum", "op": "add", "inputs": ["a", "b"], "output": "c",
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 20}},
    {"name": "mp", "op": "maxpool", "inputs": ["c"], "output": "y", "kernel": 2, "stride": 2}
  ]})";

}  // namespace

TEST_CASE("graph replay: a compiled graph program replays with the same cycles and outputs",
          "[graph][trace]") {
  const std::string dir = test::temp_dir() + "/graph_replay";
  const std::string graph = test::write_temp_file("replayed.json", kGraphProgramReplayGraph);
  const std::string hw = "--set cache.size_kib=96";  // several pieces per conv
  REQUIRE(test::run_cli("compile " + graph + " " + hw + " -o " + dir + "/p.jsonl").exit_code == 0);
  const test::CliResult direct =
      test::run_cli("run " + graph + " " + hw + " -q --out " + dir + "/direct --save-outputs");
  const test::CliResult replay =
      test::run_cli("run --program " + dir + "/p.jsonl -q --out " + dir + "/replay --save-outputs");
  INFO(direct.out << direct.err << replay.out << replay.err);
  REQUIRE(direct.exit_code == 0);
  REQUIRE(replay.exit_code == 0);
  CHECK_THAT(replay.out, Contains("bit-exact vs reference (4 layers)"));
  CHECK(graph_program_replay_total_cycles(dir + "/replay") ==
        graph_program_replay_total_cycles(dir + "/direct"));
  const std::string y = file_text(dir + "/replay/mp.output.npy");
  CHECK_FALSE(y.empty());
  CHECK(y == file_text(dir + "/direct/mp.output.npy"));
}

TEST_CASE(
    "graph replay: a batched decoder's program, its matmuls one image of rows, replays with the "
    "same cycles",
    "[heavy][graph][trace][decoder]") {
  // tests/data/transformer/decode_p8_d2_b2.json: 2 sequences, so every projection is a
  // [2, C, T, 1] matmul the program describes as [1, C, 2T, 1].
  const std::string dir = test::temp_dir() + "/batch_replay";
  const std::string net = kGraphProgramReplayRoot + "/tests/data/transformer/decode_p8_d2_b2.json";
  REQUIRE(test::run_cli("compile " + net + " -o " + dir + "/p.jsonl").exit_code == 0);
  const std::string program = file_text(dir + "/p.jsonl");
  CHECK_THAT(program, Contains(R"("name":"prefill.l0.q","operator":"matmul","N":1,"C":64,"H":16)"));
  const test::CliResult direct = test::run_cli("run " + net + " -q --out " + dir + "/direct");
  const test::CliResult replay =
      test::run_cli("run --program " + dir + "/p.jsonl -q --out " + dir + "/replay");
  INFO(direct.out << direct.err << replay.out << replay.err);
  REQUIRE(direct.exit_code == 0);
  REQUIRE(replay.exit_code == 0);
  CHECK_THAT(replay.out, Contains("bit-exact vs reference (54 layers)"));
  CHECK(graph_program_replay_total_cycles(dir + "/replay") ==
        graph_program_replay_total_cycles(dir + "/direct"));
}

TEST_CASE(
    "graph replay: an ONNX program finds its model beside it, replays it exactly and refuses a "
    "changed model",
    "[onnx][trace]") {
  if (!test::have_python_onnx()) {
    WARN("SKIPPED: /usr/bin/python3 lacks python3-onnx (tools/install-deps --onnx)");
    return;
  }
  namespace fs = std::filesystem;
  const std::string dir = test::temp_dir() + "/onnx_replay";
  REQUIRE(std::system((kGraphProgramReplayRoot + "/tools/gen-onnx-models " + dir +
                       "/models ops > /dev/null")
                          .c_str()) == 0);
  const std::string model = dir + "/models/ops.onnx";
  REQUIRE(test::run_cli("compile " + model + " -o " + dir + "/progs/ops.jsonl").exit_code == 0);
  const std::string header = file_text(dir + "/progs/ops.jsonl");
  CHECK_THAT(header, Contains("\"onnx\":\"../models/ops.onnx\""));

  // The header's path is relative to the program file, not to the working
  // directory (the source tree here), so the pair can move together.
  const test::CliResult direct =
      test::run_cli("run " + model + " -q --out " + dir + "/direct --save-outputs");
  const test::CliResult replay = test::run_cli(
      "run --program " + dir + "/progs/ops.jsonl -q --out " + dir + "/replay --save-outputs");
  INFO(direct.out << direct.err << replay.out << replay.err);
  REQUIRE(direct.exit_code == 0);
  REQUIRE(replay.exit_code == 0);
  CHECK(graph_program_replay_total_cycles(dir + "/replay") ==
        graph_program_replay_total_cycles(dir + "/direct"));
  // Outputs in the model's dtype and shape, as a direct run writes them.
  const std::string y = file_text(dir + "/replay/y.npy");
  CHECK_FALSE(y.empty());
  CHECK(y == file_text(dir + "/direct/y.npy"));

  // A model that changed since the compile is refused by name.
  { std::ofstream(model, std::ios::app) << '\0'; }
  const test::CliResult changed = test::run_cli("run --program " + dir + "/progs/ops.jsonl -q");
  CHECK(changed.exit_code == 2);
  CHECK_THAT(changed.err, Contains("/workload/fnv1a64") && Contains("recompile"));
  fs::remove(model);
  const test::CliResult missing = test::run_cli("run --program " + dir + "/progs/ops.jsonl -q");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Contains("/workload/onnx"));
}
