// The compile trials' program fingerprint (sim/runner/compile_trials.h): two
// budgets' programs that differ only in their regions' sizes compare equal
// (the smaller budget is not simulated), and any difference in a layer or in
// an instruction's fields or dependencies tells them apart.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/compiler/program_emitter.h"
#include "sim/config/hardware_config.h"
#include "sim/frontend/load_workload.h"
#include "sim/graph/workload.h"
#include "sim/runner/compile_trials.h"

using namespace npusim;

namespace {

// ResNet-18's convolutions compiled for the default machine: thousands of
// instructions with dependencies of every kind and one AGU_INIT per layer.
Program fingerprinted_program() {
  const NetworkConfig net =
      load_workload(std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/resnet18.json");
  HardwareConfig hw;
  hw.trial_mode = TrialMode::Off;
  return compile_network(net, hw);
}

}  // namespace

TEST_CASE(
    "a program's fingerprint ignores its regions' sizes and changes with any layer field, "
    "instruction field or dependency",
    "[trials]") {
  const Program p = fingerprinted_program();
  REQUIRE(p.instructions.size() > 1000);
  const std::string base = program_fingerprint(p, false);

  Program regions = p;
  for (LayerDescriptor& d : regions.layers) {
    d.half_bytes /= 2;
    d.weight_region_bytes /= 2;
    d.params_region_bytes += 64;
    d.vector_region_bytes += 1024;
  }
  CHECK(program_fingerprint(regions, false) == base);

  Program layer = p;
  layer.layers[3].k_tile /= 2;
  CHECK(program_fingerprint(layer, false) != base);

  // Each instruction field, on an instruction in the middle of the program.
  const size_t mid = p.instructions.size() / 2;
  const auto differs = [&](auto&& change) {
    Program q = p;
    change(q.instructions[mid]);
    return program_fingerprint(q, false) != base;
  };
  CHECK(differs(
      [](Instruction& in) { in.op = in.op == Opcode::Store ? Opcode::Compute : Opcode::Store; }));
  CHECK(differs([](Instruction& in) { ++in.layer; }));
  CHECK(differs([](Instruction& in) { ++in.unit; }));
  CHECK(differs([](Instruction& in) { in.half ^= 1; }));
  CHECK(differs([](Instruction& in) { ++in.batch; }));
  CHECK(differs([](Instruction& in) { ++in.k_begin; }));
  CHECK(differs([](Instruction& in) { ++in.k_end; }));
  CHECK(differs([](Instruction& in) { ++in.out_row_begin; }));
  CHECK(differs([](Instruction& in) { ++in.out_row_end; }));
  CHECK(differs([](Instruction& in) { in.out_col_begin = 1, in.out_col_end = 7; }));
  CHECK(differs([](Instruction& in) { ++in.stages; }));
  CHECK(differs([](Instruction& in) { in.channel_begin = 0, in.channel_end = 16; }));
  CHECK(differs([](Instruction& in) { in.deps.push_back({0, DependencyKind::Memory}); }));
  REQUIRE_FALSE(p.instructions[mid].deps.empty());
  CHECK(differs([](Instruction& in) { ++in.deps.front().producer; }));
  CHECK(differs([](Instruction& in) {
    in.deps.front().kind = in.deps.front().kind == DependencyKind::Data
                               ? DependencyKind::BufferSpace
                               : DependencyKind::Data;
  }));
  // The same dependencies in another order: the program file writes them so.
  size_t several = 0;
  while (several < p.instructions.size() && p.instructions[several].deps.size() < 2) ++several;
  REQUIRE(several < p.instructions.size());
  Program moved = p;
  auto& deps = moved.instructions[several].deps;
  std::swap(deps.front(), deps.back());
  CHECK(program_fingerprint(moved, false) != base);

  // Instructions moved between two neighbours: same fields, other order.
  Program swapped = p;
  std::swap(swapped.instructions[mid], swapped.instructions[mid + 1]);
  CHECK(program_fingerprint(swapped, false) != base);
}
