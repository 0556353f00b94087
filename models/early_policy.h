// Seed 004's early-completion policy: a dependent instruction starts before
// its producer has finished, stage by stage, following the patent's rules:
//  1. load -> compute: a compute stage starts once the input rows it reads
//     and the weights of one complete compute unit (the first array_rows
//     kernels, scheduler.compute_start = unit) are in the cache; the compute
//     engine then takes each later kernel group as its weights arrive. With
//     `tile` it waits for the whole weight tile.
//  2. compute -> store: a store batch starts once the compute stages that
//     produce its rows have final sums;
//  3. store -> load: a load stage whose rows do not overlap the stored data
//     starts once that data is in the bus write buffer; one reading rows the
//     store writes waits until those rows are in memory (acknowledged).
// A store's consumers reusing the cache space it reads from (the result
// half, a parameter bank) start once its data has left for the bus write
// buffer: the store's dependent phase is over (the seed's split into a
// dependent and an independent phase). Dependencies it does not refine
// (write-after-read on a half still being computed from, the weight region)
// stay strict. docs/scheduler.md names the test that catches each rule.
#pragma once

#include "models/dependency_policy.h"

namespace npusim {

class EarlyPolicy : public DependencyPolicy {
 public:
  EarlyPolicy(const Program& program, ComputeStart compute_start = ComputeStart::Unit)
      : program_(program), compute_start_(compute_start) {}
  const char* name() const override { return "early"; }
  uint64_t satisfied_from(const Instruction& consumer, uint32_t consumer_stage,
                          const Dependency& dep, const Instruction& producer,
                          const InstructionState& producer_state) const override;

 private:
  const Program& program_;
  ComputeStart compute_start_;
};

// The first stage of `producer` after which output rows up to `row_end`
// (exclusive, in the producer's output-row numbering) are all covered.
uint32_t producer_stage_covering(const Instruction& producer, int64_t row_end);

}  // namespace npusim
