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
      return state.done_at;  // whole weight tile / parameters
    case DependencyKind::BufferSpace:
      // Rule 3: space a store reads from is free once its data has left for
      // the bus write buffer, before memory acknowledges it.
      if (producer.op == Opcode::Store) return state.released_at;
      return state.done_at;
    case DependencyKind::Memory: {
      // Overlapping regions: wait until the rows this load stage reads are in
      // memory, i.e. the producer's batches writing them are acknowledged.
      if (producer.op != Opcode::Store || consumer.op != Opcode::LoadInput) return state.done_at;
      const LayerDescriptor& L = program_.layers.at(consumer.layer);
      const RowRange need = input_rows_for(L, uint32_t(rows.begin), uint32_t(rows.end));
      uint64_t ready = 0;
      for (uint32_t s = 0; s < producer.stages; ++s)
        if (stage_rows(producer, s).begin < need.end) ready = std::max(ready, stage_done(state, s));
      return ready;
    }
  }
  return state.done_at;
}

}  // namespace npusim
