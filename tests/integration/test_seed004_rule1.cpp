// Seed 004 rule 1 end to end: under the early policy a compute starts once
// one complete compute unit's weights (the first array_rows kernels) and its
// input rows are in the cache, and takes each later kernel group as its
// weights arrive. The compiler loads weights before features (weight
// stationary), so the rule shows when a program loads the features first:
// here the compiled program with its input load moved ahead of the weights.
//
// Layer: 1x1, C 64, 1x16 input, K 64 (one piece of one row). Hardware: 32
// rows x 64 columns (kernel groups are array rows: 2 of 32; the 16 pixels are
// one pass on 32 or 64 columns alike), dense mode, DRAM 16 B/cycle, latency 100, bursts 64 B; wide
// cache ports. Hand-computed (load engine in program order, one bus):
//   #0 agu_init (no bus)
//   #1 params 512 B: bus [0, 32)
//   #2 input 1024 B: bus [32, 96), in the cache at 196
//   #3 weights, 2 stages of 32 kernels x 64 B = 2048 B: bus [96, 224) -> 324,
//      bus [224, 352) -> 452
//   #4 compute: each group 64 coefficients x ceil(16/32) = 64 cycles, fill 8.
//      unit: starts at 324 (group 0 in), 332 + 64 = 396, group 1 waits for
//            452: 452 + 64 = 516.
//      tile: starts at 452, 452 + 8 + 128 = 588.
#include <catch2/catch.hpp>
#include <string>

#include "sim/runner/runner.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

const char* kSeed004Rule1Layer =
    R"({"type":"conv2d","name":"one","C":64,"H":1,"W":16,"K":64,"R":1,"S":1})";

// Swaps instructions a and a + 1 (neither depends on the other), renumbering.
void swap_adjacent(Program& p, uint32_t a) {
  std::swap(p.instructions[a], p.instructions[a + 1]);
  p.instructions[a].id = a;
  p.instructions[a + 1].id = a + 1;
  for (Instruction& in : p.instructions)
    for (Dependency& d : in.deps)
      if (d.producer == a || d.producer == a + 1) d.producer = d.producer == a ? a + 1 : a;
}

std::unique_ptr<RunResult> seed004_rule1_run(const std::string& compute_start) {
  const HardwareConfig hw = parse_hardware_config(
      nlohmann::json::parse(R"({"cache":{"port_bytes_per_cycle":256,"banks":16,
        "bank_bytes_per_cycle":32,"ports":2},
        "compute":{"array_rows":32,"array_cols":64,"mode":"dense","pipeline_latency_cycles":8,
                   "fold":"matmul"},
        "compiler":{"mapper":"greedy"},
        "dram":{"bytes_per_cycle":16,"latency_cycles":100,"burst_bytes":64},
        "scheduler":{"policy":"early","compute_start":")" +
                            compute_start + R"("}})"),
      "<test>");
  RunOptions options;
  options.progress = false;
  options.record_timeline = true;
  options.edit_program = [](Program& p) {
    REQUIRE(p.instructions.size() == 6);
    REQUIRE(p.instructions[2].op == Opcode::LoadWeights);
    REQUIRE(p.instructions[2].stages == 2);
    REQUIRE(p.instructions[3].op == Opcode::LoadInput);
    swap_adjacent(p, 2);  // features first
  };
  auto r = run_network(test::workload(kSeed004Rule1Layer), hw, options);
  INFO(r->outcome.message);
  REQUIRE(r->ok());
  return r;
}

std::pair<uint64_t, uint64_t> compute_slice(const RunResult& r) {
  for (const TimelineSlice& s : r.timeline.slices())
    if (s.instruction == 4 && s.stage < 0) return {s.begin, s.end};
  FAIL("no slice for the compute");
  return {0, 0};
}

}  // namespace

TEST_CASE(
    "seed 004 rule 1 end to end: kernel groups start as their weights arrive, "
    "hand-computed",
    "[scheduler][seed004]") {
  const auto r = seed004_rule1_run("unit");
  const auto [begin, end] = compute_slice(*r);
  CHECK(begin == 324);
  CHECK(end == 516);
}

TEST_CASE(
    "seed 004 rule 1 end to end: compute_start tile waits for the whole weight tile, "
    "hand-computed",
    "[scheduler][seed004]") {
  const auto r = seed004_rule1_run("tile");
  const auto [begin, end] = compute_slice(*r);
  CHECK(begin == 452);
  CHECK(end == 588);
}
