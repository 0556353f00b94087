#include "models/early_policy.h"

#include <algorithm>

namespace npusim {

uint32_t producer_stage_covering(const Instruction& producer, int64_t row_end) {
  for (uint32_t s = 0; s < producer.stages; ++s)
    if (stage_rows(producer, s).end >= row_end) return s;
  return producer.stages - 1;
}

namespace {

uint64_t stage_done(const InstructionState& state, uint32_t stage) {
  return state.stage_done_at.at(stage);
}

bool is_load(Opcode op) {
  return op == Opcode::LoadInput || op == Opcode::LoadWeights || op == Opcode::LoadParams;
}

// Whether layer L reads `layer`'s output (its first input or another one).
bool reads_output_of(const LayerDescriptor& L, uint32_t layer) {
  if (L.input_from_layer == int32_t(layer)) return true;
  for (const auto& m : L.more_inputs)
    if (m.from_layer == int32_t(layer)) return true;
  return false;
}

}  // namespace

uint64_t EarlyPolicy::satisfied_from(const Instruction& consumer, uint32_t consumer_stage,
                                     const Dependency& dep, const Instruction& producer,
                                     const InstructionState& state) const {
  const RowRange rows = stage_rows(consumer, consumer_stage);
  switch (dep.kind) {
    case DependencyKind::Data:
      // Rule 1: a compute stage needs only the input rows of its own output
      // rows (same piece, so the same output-row numbering as the load).
      if (producer.op == Opcode::LoadInput && consumer.op == Opcode::Compute &&
          producer.out_row_begin == consumer.out_row_begin)
        return stage_done(state, producer_stage_covering(producer, rows.end));
      // Rule 2: a store batch needs the compute stages holding its rows.
      if (producer.op == Opcode::Compute && consumer.op == Opcode::Store &&
          producer.out_row_begin == consumer.out_row_begin)
        return stage_done(state, producer_stage_covering(producer, rows.end));
      // Rule 1: one complete compute unit's weights, the first array_rows
      // kernels (the weight load's first stage); the compute engine takes
      // each later group as it arrives.
      if (producer.op == Opcode::LoadWeights && consumer.op == Opcode::Compute &&
          compute_start_ == ComputeStart::Unit)
        return stage_done(state, 0);
      return state.done_at;  // whole weight tile / parameters
    case DependencyKind::BufferSpace:
      // The space a store reads from is free once its data has left for the
      // bus write buffer, before memory acknowledges it.
      if (producer.op == Opcode::Store) return state.released_at;
      return state.done_at;
    case DependencyKind::Memory: {
      if (producer.op != Opcode::Store || !is_load(consumer.op)) return state.done_at;
      // Rule 3, overlapping: wait until the rows this load stage reads are in
      // memory, i.e. the producer's batches writing them are acknowledged.
      uint64_t ready = 0;
      bool overlaps = false;
      // Rows counted across images: the two may view the tensor as other images.
      if (consumer.op == Opcode::LoadInput &&
          reads_output_of(program_.layers.at(consumer.layer), producer.layer)) {
        const LayerDescriptor& L = program_.layers.at(consumer.layer);
        const GlobalRows need = global_rows(
            consumer.batch, L.H, input_rows_for(L, uint32_t(rows.begin), uint32_t(rows.end)));
        const uint32_t per_image = program_.layers.at(producer.layer).out_h;
        for (uint32_t s = 0; s < producer.stages; ++s) {
          if (global_rows(producer.batch, per_image, stage_rows(producer, s)).overlaps(need)) {
            overlaps = true;
            ready = std::max(ready, stage_done(state, s));
          }
        }
      }
      // Rule 3, no overlap: once the stored data is in the bus write buffer.
      return overlaps ? ready : state.released_at;
    }
  }
  return state.done_at;
}

}  // namespace npusim
