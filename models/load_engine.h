// The load engine: DMA from DRAM into the internal cache (seed 004's "load").
// Loads layer parameters, weight tiles (a stage per group of array_rows
// kernels) and input pieces into a ping-pong half (a stage per compute stage's
// new input rows, seed 003), inserting padding rows and columns on the fly.
// Stages are pipelined: the next stage's bus request goes out as soon as the
// previous one's data has crossed the bus; DRAM latency overlaps.
#pragma once

#include "models/engine.h"

namespace npusim {

class LoadEngine : public Engine {
 public:
  SC_HAS_PROCESS(LoadEngine);
  LoadEngine(sc_core::sc_module_name name, const HardwareConfig& hw, EngineOptions options,
             StatsRegistry& stats);

 private:
  void run();
  // Each returns the cycle its last data is in the cache.
  uint64_t load_params(const Instruction& in);
  uint64_t load_weights(const Instruction& in);
  uint64_t load_input(const Instruction& in);
  // Moves one stage: bus transfer of `dram_bytes` (one segment), then a cache
  // write of `cache_bytes`. Returns the cycle the stage's data is in the cache.
  uint64_t transfer_stage(const Instruction& in, uint64_t dram_bytes, uint64_t cache_bytes);

  uint64_t standalone_ = 0;  // of the current instruction
  Counter& busy_;
  Counter& instructions_;
  Counter& standalone_cycles_;
};

}  // namespace npusim
