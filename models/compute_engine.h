// The compute engine: `units` compute units, each an array of
// array_rows x array_cols int8 MACs with int32 accumulation, working from its
// own ping-pong pair (seed 003) and the shared weight tile. A stage computes a
// group of output rows whose int32 sums fit the accumulator; the cost formula
// is cost::compute_stage_cycles (docs/timing.md). This is the dense mode; the
// zero-skip array of seed 002 will be a second variant behind this engine.
#pragma once

#include "models/engine.h"

namespace npusim {

class ComputeEngine : public Engine {
 public:
  ComputeEngine(sc_core::sc_module_name name, const HardwareConfig& hw, EngineOptions options,
                StatsRegistry& stats);

 private:
  void run_unit(uint32_t unit);
  void compute(const Instruction& in);
  // The arithmetic of one stage: int8 x int8 -> int32 sums for output rows
  // [row_begin, row_end) of the piece, written into the result half.
  void compute_rows(const LayerDescriptor& L, const Instruction& in, const ByteTile& input,
                    const ByteTile& weights, SumTile& results, uint32_t row_begin,
                    uint32_t row_end);

  Counter& busy_;
  Counter& instructions_;
  Counter& work_cycles_;
  Counter& macs_performed_;
  Counter& macs_useful_;
  Counter& standalone_cycles_;
};

}  // namespace npusim
