// A tiny two-tile program whose cycle counts were worked out by hand under
// both dependency policies (the derivation is in docs/scheduler-examples.md, "Worked
// example"). Layer: 1x1 conv, C=64, 4x16 input, K=32. Hardware: 16 KiB cache
// -> 6912 B halves -> two pieces of two output rows; a 2 KiB accumulator ->
// one output row per compute stage; 512 B store batches -> one row per batch;
// 256 B/cycle cache ports (two of them), DRAM 32 B/cycle, latency 100.
#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using namespace npusim;

namespace {

const char* kLayer = R"({"type":"conv2d","name":"tiny","C":64,"H":4,"W":16,"K":32,"R":1,"S":1})";

std::unique_ptr<RunResult> run_tiny(const char* policy) {
  const std::string hw_json = std::string(R"({"cache":{"size_kib":16,"port_bytes_per_cycle":256,
      "banks":16,"bank_bytes_per_cycle":32,"ports":2},
      "compute":{"accumulator_kib":2,"pipeline_latency_cycles":8,"fold":"matmul"},
      "store":{"batch_bytes":512},
      "dram":{"bytes_per_cycle":32,"latency_cycles":100,"burst_bytes":64},
      "scheduler":{"policy":")") +
                              policy + R"("}})";
  RunOptions options;
  options.progress = false;
  HardwareConfig hw = parse_hardware_config(nlohmann::json::parse(hw_json), "<test>");
  hw.mapper = Mapper::Greedy;  // the hand computation follows the greedy tiling
  auto r = run_network(test::workload(kLayer), hw, options);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  REQUIRE(r->summary.checks[0].match);
  // The program the derivation assumes: the AGU_INIT, params, weights, then
  // per piece load (2 stages), compute (2 stages), store (2 batches).
  REQUIRE(r->program.instructions.size() == 9);
  CHECK(r->program.instructions[0].op == Opcode::AguInit);
  CHECK(r->program.instructions[3].stages == 2);
  CHECK(r->program.instructions[4].stages == 2);
  CHECK(r->program.instructions[5].stages == 2);
  return r;
}

}  // namespace

TEST_CASE("hand-computed two-tile program under the strict policy", "[scheduler]") {
  const auto r = run_tiny("strict");
  // Last store batch of piece 1 reaches memory at cycle 640 (docs/scheduler-examples.md#worked-example).
  CHECK(r->outcome.cycles == 640);
  CHECK(r->stats->get("compute.work_cycles").total() == 4 * 64 + 2 * 8);
  CHECK(r->stats->get("dram.bus_busy_cycles").total() == 8 + 64 + 4 * 32 + 4 * 16);
}

TEST_CASE("hand-computed two-tile program under the early policy", "[scheduler]") {
  const auto r = run_tiny("early");
  // Compute starts on the first loaded row (rule 1), stores on the first final
  // row (rule 2): the last batch reaches memory at cycle 592.
  CHECK(r->outcome.cycles == 592);
  CHECK(r->stats->get("overlap.early_start_cycles").total() > 0);
}
