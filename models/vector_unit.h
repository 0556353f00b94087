// The vector unit: runs a graph's non-array operators (max and average
// pooling, global average pooling, quantised add, concat) as VECTOR
// instructions, each a range of output rows of one image. An instruction
// reads the input rows its outputs need from DRAM over the shared bus into
// its working region of the internal cache, combines them on `lanes` lanes
// (cost::vector_stage_cycles, models/vector/ for the arithmetic) and
// writes its output rows back to DRAM (docs/timing.md#vector-unit).
#pragma once

#include "models/engine.h"

namespace npusim {

class VectorUnit : public Engine {
 public:
  SC_HAS_PROCESS(VectorUnit);
  VectorUnit(sc_core::sc_module_name name, const HardwareConfig& hw, EngineOptions options,
             StatsRegistry& stats);

 private:
  void run();
  // Returns the cycle its output rows reach memory.
  uint64_t execute(const Instruction& in);

  Counter& busy_;
  Counter& instructions_;
  Counter& work_cycles_;
  Counter& standalone_cycles_;
  Counter& resident_read_bytes_;
  Counter& resident_write_bytes_;
};

}  // namespace npusim
