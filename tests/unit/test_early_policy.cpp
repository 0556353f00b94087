// Seed 004's early-completion rules in the policy alone (models/early_policy.h):
// when may a consumer stage start, given what the controller knows of its
// producer? Hand-built instructions and producer states, numbers chosen so
// each rule gives a different answer from the strict one.
#include <catch2/catch.hpp>

#include "models/early_policy.h"

using namespace npusim;

namespace {

// Layer 0 writes 8 output rows; layer 1, a 3x3 convolution with padding 1,
// reads them (input rows [r0 - 1, r1 + 1) for output rows [r0, r1)).
Program two_layers() {
  Program p;
  LayerDescriptor a;
  a.name = "a", a.N = 1, a.C = 8, a.H = 8, a.W = 8, a.K = 8, a.R = 1, a.S = 1;
  a.out_h = 8, a.out_w = 8;
  LayerDescriptor b = a;
  b.name = "b", b.R = 3, b.S = 3, b.padding = 1;
  b.input_from_layer = 0;
  p.layers = {a, b};
  return p;
}

Instruction instruction(uint32_t id, Opcode op, uint32_t layer, uint32_t r0, uint32_t r1,
                        uint32_t stages) {
  Instruction in;
  in.id = id, in.op = op, in.layer = layer;
  in.k_begin = 0, in.k_end = 8;
  in.out_row_begin = r0, in.out_row_end = r1, in.stages = stages;
  return in;
}

// A store of layer 0's rows [0, 4) in two batches ([0, 2), [2, 4)): batch 0
// reached memory at 300, batch 1 at 420; its data was all in the bus write
// buffer at 320 (released), acknowledged at 420 (done).
InstructionState store_state() {
  InstructionState s;
  s.started_at = 100;
  s.released_at = 320;
  s.done_at = 420;
  static uint64_t times[2];
  times[0] = 300, times[1] = 420;
  s.stage_done_at = StageTimes(times, 2);
  return s;
}

}  // namespace

TEST_CASE(
    "seed 004 rule 3: a load that does not overlap the stored data starts when the data "
    "is in the bus write buffer, not when memory acknowledges it",
    "[scheduler][seed004]") {
  const Program p = two_layers();
  const EarlyPolicy early(p);
  const StrictPolicy strict;
  const Instruction store = instruction(0, Opcode::Store, 0, 0, 4, 2);
  const InstructionState state = store_state();
  const Dependency dep{0, DependencyKind::Memory};
  // Layer 1's rows [6, 8) read layer 0's rows [5, 9): none of the stored rows.
  const Instruction far = instruction(1, Opcode::LoadInput, 1, 6, 8, 1);
  CHECK(early.satisfied_from(far, 0, dep, store, state) == 320);
  CHECK(strict.satisfied_from(far, 0, dep, store, state) == 420);
  // A weight load never reads an output: no overlap either.
  const Instruction weights = instruction(2, Opcode::LoadWeights, 1, 0, 1, 1);
  CHECK(early.satisfied_from(weights, 0, dep, store, state) == 320);
  // Another image's rows do not overlap this image's.
  Instruction other_image = instruction(3, Opcode::LoadInput, 1, 0, 2, 1);
  other_image.batch = 1;
  CHECK(early.satisfied_from(other_image, 0, dep, store, state) == 320);
}

TEST_CASE(
    "seed 004 rule 3: a load reading stored rows waits until the batches holding them are "
    "in memory",
    "[scheduler][seed004]") {
  const Program p = two_layers();
  const EarlyPolicy early(p);
  const Instruction store = instruction(0, Opcode::Store, 0, 0, 4, 2);
  const InstructionState state = store_state();
  const Dependency dep{0, DependencyKind::Memory};
  // Rows [0, 1) read input rows [-1, 2): batch 0 only, acknowledged at 300.
  CHECK(early.satisfied_from(instruction(1, Opcode::LoadInput, 1, 0, 1, 1), 0, dep, store, state) ==
        300);
  // Rows [2, 4) read [1, 5): both batches, the later acknowledged at 420.
  CHECK(early.satisfied_from(instruction(1, Opcode::LoadInput, 1, 2, 4, 1), 0, dep, store, state) ==
        420);
  // Stage by stage: a load of rows [0, 6) in three stages; stage 2 (rows [4, 6))
  // reads [3, 7): batch 1 (rows [2, 4)) only -> 420; stage 0 ([0, 2) reads
  // [-1, 3)): both batches -> 420; a 2-stage load's stage 1 ([3, 6) reads
  // [2, 7)) -> batch 1 -> 420.
  const Instruction three = instruction(1, Opcode::LoadInput, 1, 0, 6, 3);
  CHECK(early.satisfied_from(three, 2, dep, store, state) == 420);
  // A load of rows [5, 8) in three stages: stage 0 (rows [5, 6) reads [4, 7))
  // overlaps nothing stored: the write buffer, 320.
  const Instruction late = instruction(1, Opcode::LoadInput, 1, 5, 8, 3);
  CHECK(early.satisfied_from(late, 0, dep, store, state) == 320);
}

TEST_CASE(
    "seed 004 rule 1: a compute starts with the first compute unit's weights, or with the "
    "whole tile when scheduler.compute_start is tile",
    "[scheduler][seed004]") {
  const Program p = two_layers();
  // A weight load of three stages (three groups of array_rows kernels) whose
  // groups land at 150, 182 and 214.
  const Instruction weights = instruction(0, Opcode::LoadWeights, 0, 0, 1, 3);
  InstructionState state;
  state.started_at = 0;
  uint64_t times[] = {kNotYet, kNotYet, kNotYet};
  state.stage_done_at = StageTimes(times, 3);
  const Instruction compute = instruction(1, Opcode::Compute, 0, 0, 8, 1);
  const Dependency dep{0, DependencyKind::Data};
  const EarlyPolicy unit(p, ComputeStart::Unit);
  const EarlyPolicy tile(p, ComputeStart::Tile);
  // Until the first group's arrival is known, the compute waits; then it may
  // start when that group lands (the engine waits for the later ones).
  CHECK(unit.satisfied_from(compute, 0, dep, weights, state) == kNotYet);
  state.stage_done_at[0] = 150;
  CHECK(unit.satisfied_from(compute, 0, dep, weights, state) == 150);
  state.stage_done_at[1] = 182;
  state.stage_done_at[2] = 214;
  CHECK(unit.satisfied_from(compute, 0, dep, weights, state) == 150);
  // The whole tile: its completion (not known until the load is done).
  CHECK(tile.satisfied_from(compute, 0, dep, weights, state) == kNotYet);
  state.done_at = 214;
  CHECK(tile.satisfied_from(compute, 0, dep, weights, state) == 214);
  CHECK(unit.satisfied_from(compute, 0, dep, weights, state) == 150);
}

TEST_CASE(
    "seed 004 dependent phase: cache space a store reads is free once its data is in the "
    "bus write buffer",
    "[scheduler][seed004]") {
  // A compute reusing the result half a store reads (buffer_space): the
  // store's dependent phase, reading the cache, is over at its release.
  const Program p = two_layers();
  const EarlyPolicy early(p);
  const StrictPolicy strict;
  const Instruction store = instruction(0, Opcode::Store, 0, 0, 4, 2);
  const InstructionState state = store_state();
  const Dependency dep{0, DependencyKind::BufferSpace};
  const Instruction compute = instruction(1, Opcode::Compute, 0, 4, 8, 1);
  CHECK(early.satisfied_from(compute, 0, dep, store, state) == 320);
  CHECK(strict.satisfied_from(compute, 0, dep, store, state) == 420);
  // A parameter load reusing the bank the store reads: the same.
  const Instruction params = instruction(2, Opcode::LoadParams, 1, 0, 1, 1);
  CHECK(early.satisfied_from(params, 0, dep, store, state) == 320);
}

TEST_CASE(
    "seed 004 rule 2: a store batch starts when the compute stages holding its rows are done, "
    "rows aligned with the stages or not",
    "[scheduler][seed004]") {
  const Program p = two_layers();
  const EarlyPolicy early(p);
  const StrictPolicy strict;
  // A compute of output rows [4, 10) in 3 stages of 2 rows: [4, 6) done at 200, [6, 8) at 260,
  // [8, 10) at 330.
  const Instruction compute = instruction(0, Opcode::Compute, 0, 4, 10, 3);
  InstructionState state;
  state.started_at = 100;
  uint64_t times[] = {200, 260, 330};
  state.stage_done_at = StageTimes(times, 3);
  state.done_at = 330;
  const Dependency dep{0, DependencyKind::Data};
  // Three batches of 2 rows, aligned with the stages: batch b needs stage b.
  const Instruction aligned = instruction(1, Opcode::Store, 0, 4, 10, 3);
  CHECK(early.satisfied_from(aligned, 0, dep, compute, state) == 200);
  CHECK(early.satisfied_from(aligned, 1, dep, compute, state) == 260);
  CHECK(early.satisfied_from(aligned, 2, dep, compute, state) == 330);
  // Two batches of 3 rows: [4, 7) ends inside the second stage, [7, 10) in the third.
  const Instruction uneven = instruction(2, Opcode::Store, 0, 4, 10, 2);
  CHECK(early.satisfied_from(uneven, 0, dep, compute, state) == 260);
  CHECK(early.satisfied_from(uneven, 1, dep, compute, state) == 330);
  // The strict policy waits for the whole compute; so does a store of another piece
  // (other output-row numbering), which the rule does not refine.
  CHECK(strict.satisfied_from(aligned, 0, dep, compute, state) == 330);
  const Instruction other_piece = instruction(3, Opcode::Store, 0, 0, 4, 2);
  CHECK(early.satisfied_from(other_piece, 0, dep, compute, state) == 330);
}

TEST_CASE(
    "seed 004 rule 1: a compute stage starts when the input load's stages covering its output "
    "rows are done",
    "[scheduler][seed004]") {
  const Program p = two_layers();
  const EarlyPolicy early(p);
  const StrictPolicy strict;
  // An input load for output rows [0, 8) in 4 stages of 2 rows, done at 50, 90, 130, 170.
  const Instruction load = instruction(0, Opcode::LoadInput, 1, 0, 8, 4);
  InstructionState state;
  state.started_at = 10;
  uint64_t times[] = {50, 90, 130, 170};
  state.stage_done_at = StageTimes(times, 4);
  state.done_at = 170;
  const Dependency dep{0, DependencyKind::Data};
  // A compute in 2 stages of 4 rows: [0, 4) needs load stages 0-1, [4, 8) stages 2-3.
  const Instruction compute = instruction(1, Opcode::Compute, 1, 0, 8, 2);
  CHECK(early.satisfied_from(compute, 0, dep, load, state) == 90);
  CHECK(early.satisfied_from(compute, 1, dep, load, state) == 170);
  CHECK(strict.satisfied_from(compute, 0, dep, load, state) == 170);
  // producer_stage_covering itself: the first stage whose rows reach row_end.
  CHECK(producer_stage_covering(load, 1) == 0);
  CHECK(producer_stage_covering(load, 2) == 0);
  CHECK(producer_stage_covering(load, 3) == 1);
  CHECK(producer_stage_covering(load, 8) == 3);
}
