// The buffers' valid-row tracking must catch a scheduling bug: drop a
// dependency from a correct program and the run has to stop with an error
// naming the instruction and stage, never finish with an optimistic count.
#include <algorithm>
#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using namespace npusim;

namespace {

const char* kFaultInjectionChain = R"({"name":"chain","layers":[
    {"name":"a","C":16,"H":16,"W":16,"K":32,"R":3,"S":3,"padding":1},
    {"name":"b","C":32,"H":16,"W":16,"K":16,"R":3,"S":3,"padding":1}]})";

RunOutcome run_edited(const std::function<void(Program&)>& edit, const char* hw_json = "{}") {
  RunOptions options;
  options.progress = false;
  options.edit_program = edit;
  HardwareConfig hw = parse_hardware_config(nlohmann::json::parse(hw_json), "<test>");
  hw.mapper = Mapper::Greedy;  // the edits below expect the greedy tiling's pieces
  return run_network(test::workload(kFaultInjectionChain), hw, options)->outcome;
}

}  // namespace

TEST_CASE("compute without waiting for its input load fails loudly", "[fault]") {
  // Drop only the first compute's dependency on its input load (keep weights).
  const RunOutcome o = run_edited([](Program& p) {
    for (Instruction& in : p.instructions) {
      if (in.op != Opcode::Compute) continue;
      in.deps.erase(std::remove_if(in.deps.begin(), in.deps.end(),
                                   [&](const Dependency& d) {
                                     return p.instructions[d.producer].op == Opcode::LoadInput;
                                   }),
                    in.deps.end());
      return;
    }
  });
  INFO(o.message);
  REQUIRE(o.status == RunOutcome::Status::Failed);
  CHECK_THAT(o.message, Catch::Contains("instruction #") && Catch::Contains("compute") &&
                            Catch::Contains("stage 0 reads") &&
                            Catch::Contains("unit0.half0.input"));
}

TEST_CASE("a load overwriting a half still in use is caught", "[fault]") {
  // Tiny cache: several pieces per layer, so halves are reused.
  const RunOutcome o = run_edited(
      [](Program& p) {
        for (Instruction& in : p.instructions)
          if (in.op == Opcode::LoadInput)
            in.deps.erase(std::remove_if(in.deps.begin(), in.deps.end(),
                                         [](const Dependency& d) {
                                           return d.kind == DependencyKind::BufferSpace;
                                         }),
                          in.deps.end());
      },
      R"({"cache":{"size_kib":24}})");
  INFO(o.message);
  REQUIRE(o.status == RunOutcome::Status::Failed);
  CHECK_THAT(o.message, Catch::Contains("instruction #") && Catch::Contains("stage"));
}

TEST_CASE("a layer reading its input before the previous layer stored it is caught", "[fault]") {
  const RunOutcome o = run_edited([](Program& p) {
    for (Instruction& in : p.instructions)
      if (in.op == Opcode::LoadInput && in.layer == 1) in.deps.clear();
  });
  INFO(o.message);
  REQUIRE(o.status == RunOutcome::Status::Failed);
  CHECK_THAT(o.message, Catch::Contains("load_input") && Catch::Contains("layer a's output") &&
                            Catch::Contains("before it is in memory"));
}
