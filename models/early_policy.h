// Seed 004's early-completion policy: a dependent instruction starts before
// its producer has finished, stage by stage, following the patent's rules:
//  1. load -> compute: a compute stage starts once the input rows it reads
//     (and the whole weight tile) are in the cache;
//  2. compute -> store: a store batch starts once the compute stages that
//     produce its rows have final sums;
//  3. store -> load/compute reusing the space a store reads: once the store's
//     data is in the bus write buffer; a load reading rows a store writes
//     (overlapping regions) waits until those rows are in memory.
// Dependencies it does not refine (write-after-read on a half still being
// computed from, on the weight region or a parameter bank) stay strict.
#pragma once

#include "models/dependency_policy.h"

namespace npusim {

class EarlyPolicy : public DependencyPolicy {
 public:
  explicit EarlyPolicy(const Program& program) : program_(program) {}
  const char* name() const override { return "early"; }
  uint64_t satisfied_from(const Instruction& consumer, uint32_t consumer_stage,
                          const Dependency& dep, const Instruction& producer,
                          const InstructionState& producer_state) const override;

 private:
  const Program& program_;
};

// The first stage of `producer` after which output rows up to `row_end`
// (exclusive, in the producer's output-row numbering) are all covered.
uint32_t producer_stage_covering(const Instruction& producer, int64_t row_end);

}  // namespace npusim
