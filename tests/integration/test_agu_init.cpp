// Seed 001's initialisation instructions on whole runs: a fetch stream needs
// its layer's AGU_INIT (missing or late ones stop the run with an error that
// names the instruction), and the second register set hides the AGU_INIT of
// the next layer while one set alone exposes it (docs/address-generator.md).
#include <catch2/catch.hpp>
#include <string>

#include "sim/runner/runner.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

const char* kTiny = R"({"type":"conv2d","name":"tiny","C":8,"H":4,"W":4,"K":8,"R":1,"S":1})";
const char* kChain = R"({"name":"chain","layers":[
  {"type":"conv2d","name":"a","C":8,"H":12,"W":12,"K":16,"R":3,"S":3,"padding":1},
  {"type":"conv2d","name":"b","C":16,"H":12,"W":12,"K":16,"R":3,"S":3,"padding":1},
  {"type":"conv2d","name":"c","C":16,"H":12,"W":12,"K":8,"R":3,"S":3,"padding":1}]})";

std::unique_ptr<RunResult> run(const char* workload, const std::string& buffering,
                               std::function<void(Program&)> edit = {}) {
  RunOptions options;
  options.progress = false;
  options.record_timeline = true;
  options.edit_program = std::move(edit);
  const HardwareConfig hw = parse_hardware_config(
      nlohmann::json::parse(R"({"buffering":")" + buffering + "\"}"), "<test>");
  return run_network(test::workload(workload), hw, options);
}

// Begin and end cycles of instruction `id` on its engine's track.
std::pair<uint64_t, uint64_t> slice_of(const RunResult& r, uint32_t id) {
  for (const TimelineSlice& s : r.timeline.slices())
    if (s.instruction == id && s.stage < 0) return {s.begin, s.end};
  FAIL("no slice for instruction #" << id);
  return {0, 0};
}

}  // namespace

TEST_CASE("a fetch before its AGU_INIT has written the registers is an error", "[agu]") {
  // #0 agu_init (13 registers: ready at 13), #1 params, #2 weights, #3 the fetch: without its
  // data dependency the fetch goes out once the weights have crossed the bus.
  const auto r = run(kTiny, "pingpong", [](Program& p) {
    REQUIRE(p.instructions[3].op == Opcode::LoadInput);
    p.instructions[3].deps.clear();
  });
  INFO(r->outcome.message);
  REQUIRE(r->outcome.status == RunOutcome::Status::Failed);
  CHECK_THAT(r->outcome.message, Catch::Contains("#3 load_input") &&
                                     Catch::Contains("before AGU_INIT finished writing") &&
                                     Catch::Contains("register set 0 (cycle 13)"));
}

TEST_CASE("a fetch for a layer no register set holds is an error", "[agu]") {
  // The first AGU_INIT configures layer b instead of a: a's fetches find no set.
  const auto r = run(kChain, "pingpong", [](Program& p) {
    REQUIRE(p.instructions[0].op == Opcode::AguInit);
    p.instructions[0].layer = 1;
  });
  INFO(r->outcome.message);
  REQUIRE(r->outcome.status == RunOutcome::Status::Failed);
  CHECK_THAT(r->outcome.message, Catch::Contains("load_input layer a") &&
                                     Catch::Contains("not configured for this layer") &&
                                     Catch::Contains("set 0 holds layer b"));
}

// SystemC elaborates once per process: one run per test case.
void check_agu_init_timing(const std::string& buffering) {
  const auto r = run(kChain, buffering);
  REQUIRE(r->ok());
  CHECK(r->stats->get("load.agu_inits").total() == 3);
  const Program& p = r->program;
  for (uint32_t l = 1; l < 3; ++l) {
    uint32_t init = 0, first_fetch = 0, last_fetch_before = 0;
    for (const Instruction& in : p.instructions) {
      if (in.op == Opcode::AguInit && in.layer == l) init = in.id;
      if (in.op == Opcode::LoadInput && in.layer == l && first_fetch == 0) first_fetch = in.id;
      if (in.op == Opcode::LoadInput && in.layer == l - 1) last_fetch_before = in.id;
    }
    const auto [init_begin, init_end] = slice_of(*r, init);
    const uint64_t fetch_begin = slice_of(*r, first_fetch).first;
    INFO("layer " << l);
    // The AGU_INIT writes 13 registers, one per cycle, and the fetch waits for it.
    CHECK(init_end == init_begin + 13);
    CHECK(fetch_begin >= init_end);
    if (buffering == "pingpong") {
      // Written as soon as the in-order load queue reaches it, no later than the
      // end of the layer before's last fetch: it does not wait out the DRAM
      // latency as one set must (below), and long before this layer fetches.
      const auto [last_begin, last_end] = slice_of(*r, last_fetch_before);
      INFO("the layer before's last fetch " << last_begin << ".." << last_end << ", this layer's "
                                            << "first fetch " << fetch_begin);
      CHECK(init_begin <= last_end);
      CHECK(init_end + 100 <= fetch_begin);
    } else {
      // One set: only after the previous layer's last fetch has completed,
      // its data in the cache at least the DRAM latency (100) after the
      // engine let go of it.
      CHECK(init_begin >= slice_of(*r, last_fetch_before).second + 100);
    }
  }
}

TEST_CASE("two register sets hide the next layer's AGU_INIT behind the layer before", "[agu]") {
  check_agu_init_timing("pingpong");
}

TEST_CASE("one register set exposes the next layer's AGU_INIT after the last fetch", "[agu]") {
  check_agu_init_timing("single");
}
