// Weight double-buffering (docs/tiling.md#weight-double-buffering): a layer
// whose weight region holds two tiles loads tile t + 1 while tile t computes.
// Its programs replay exactly, its outputs stay bit-exact, it is faster than
// one tile where the weight loads idle the array, the DESIGN.md invariants
// hold, and a dropped weight-slot dependency fails loudly.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/test_support.h"

using namespace npusim;
using npusim::test::run_cli;
using npusim::test::run_report;

namespace {

// Two chained 3x3 layers of 256 kernels of 2304 B (589,824 B of weights
// each): a 512 KiB weight region holds 227 kernels in one tile, 113 in each
// of two slots, so the cost mapper double-buffers tiles of 96 or fewer.
const char* kPair = R"({"name":"pair","layers":[
    {"name":"a","C":256,"H":7,"W":7,"K":256,"R":3,"S":3,"padding":1},
    {"name":"b","C":256,"H":7,"W":7,"K":256,"R":3,"S":3,"padding":1}]})";

// The same pair on 28x28 inputs, for the fault below.
const char* kPair28 = R"({"name":"pair28","layers":[
    {"name":"a","C":256,"H":28,"W":28,"K":256,"R":3,"S":3,"padding":1},
    {"name":"b","C":256,"H":28,"W":28,"K":256,"R":3,"S":3,"padding":1}]})";

std::string pair_file() { return test::write_temp_file("pair.json", kPair); }

uint64_t weight_buffers_cycles(const std::string& args) {
  return run_report("run -q --timing-only " + args).at("totals").at("cycles").get<uint64_t>();
}

}  // namespace

TEST_CASE(
    "a double-buffered program says so in its layer lines, replays with the same cycles and "
    "matches the reference",
    "[weight_buffers]") {
  const std::string workload = pair_file();
  const std::string program = test::temp_dir() + "/pair_program.jsonl";
  std::remove(program.c_str());
  const auto compiled = run_cli("compile " + workload + " -o " + program);
  INFO(compiled.err);
  REQUIRE(compiled.exit_code == 0);
  std::ifstream in(program);
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(text.str().find("\"weight_buffers\": 2") != std::string::npos);

  const nlohmann::json direct = run_report("run -q " + workload);
  const nlohmann::json replay = run_report("run -q --program " + program);
  CHECK(direct.at("totals").at("all_layers_match") == true);
  CHECK(replay.at("totals").at("all_layers_match") == true);
  CHECK(direct.at("layers").at(0).at("tiling").at("weight_buffers") == 2);
  CHECK(replay.at("totals").at("cycles") == direct.at("totals").at("cycles"));
}

TEST_CASE(
    "two weight slots take fewer cycles than one where each tile's weight load idles the "
    "array, and keep early <= strict and pingpong <= single",
    "[weight_buffers]") {
  const std::string w = pair_file();
  const uint64_t single = weight_buffers_cycles(w + " --set compiler.weight_buffers=single");
  const uint64_t strict_pp = weight_buffers_cycles(w + " --policy strict --buffering pingpong");
  const uint64_t early_pp = weight_buffers_cycles(w + " --policy early --buffering pingpong");
  const uint64_t strict_single = weight_buffers_cycles(w + " --policy strict --buffering single");
  const uint64_t early_single = weight_buffers_cycles(w + " --policy early --buffering single");
  INFO("one weight tile " << single << "; two slots: strict/pingpong " << strict_pp
                          << ", early/pingpong " << early_pp << ", strict/single " << strict_single
                          << ", early/single " << early_single);
  CHECK(strict_pp < single);
  CHECK(early_pp <= strict_pp);
  CHECK(early_single <= strict_single);
  CHECK(strict_pp <= strict_single);
  CHECK(early_pp <= early_single);
}

TEST_CASE("a weight load into a slot a compute still reads fails loudly", "[weight_buffers]") {
  // Drop every LoadWeights' buffer-space dependency: tile t + 2 then loads
  // into the slot while tile t's computes still read it.
  RunOptions options;
  options.progress = false;
  options.timing_only = true;
  bool doubled = false;
  options.edit_program = [&](Program& p) {
    doubled = std::any_of(p.layers.begin(), p.layers.end(),
                          [](const LayerDescriptor& d) { return d.weight_buffers == 2; });
    for (Instruction& in : p.instructions)
      if (in.op == Opcode::LoadWeights) in.deps.clear();
  };
  HardwareConfig hw;
  // Four units, one piece each per tile (the mapper picks 32 kernels, 4
  // pieces of 7 rows, one row per compute stage): a unit's next input load
  // waits only for its compute two tiles back, so only the weight dependency
  // keeps tile t + 2's weights out of the slot tile t's later stages read.
  hw.compute.units = 4;
  hw.compute.accumulator_kib = 4;
  const RunOutcome o = run_network(test::workload(kPair28), hw, options)->outcome;
  REQUIRE(doubled);
  INFO(o.message);
  REQUIRE(o.status == RunOutcome::Status::Failed);
  CHECK_THAT(o.message, Catch::Contains("compute") && Catch::Contains("weights.slot"));
}
