// The memory planner (docs/memory-plan.md): with compiler.residency auto it
// keeps operator outputs in the cache from their producer to their last
// reader instead of storing them to DRAM and reading them back. It reads each
// output's lifetime and each operator's buffer bytes from the compiled
// program (sim/program/residency.h), and places outputs in program order,
// each at the lowest offset below the top of the cache where it fits beside
// the buffers of every operator of its guarded span and shares no byte with
// an output placed earlier whose span overlaps (first fit: holes left by
// outputs that died are reused; fragmentation is real). Outputs that do not
// fit stay in DRAM. Graph outputs, and outputs a reader takes only through
// DRAM, always do. A layer's weight block that some load would bring over the
// bus twice (another pass of its tiles, decode steps sharing a prefill's
// weights) is a candidate too, live from its first to its last user, placed
// by the same rule in the same order (at one operator, its weights before its
// output).
#pragma once

#include <cstdint>

#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"

namespace npusim {

struct MemoryPlan {
  uint32_t resident = 0;        // outputs kept in the cache
  uint64_t resident_bytes = 0;  // their bytes, each counted once
  uint32_t weight_blocks = 0;   // weight blocks kept in the cache
  uint64_t weight_bytes = 0;    // their bytes
  uint64_t peak_bytes = 0;      // the most kept bytes live at one operator
};

// Sets output_resident and resident_offset, weights_resident and
// weights_offset on the program's operators.
MemoryPlan plan_residency(Program& program, const NetworkConfig& net, const HardwareConfig& hw);

}  // namespace npusim
