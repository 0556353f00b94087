// Program file lines of graph operators (docs/traces.md#graph-workloads).
// A graph operator's registers -- shape, geometry, quantisation, formats,
// which operators feed it -- follow from the header's workload
// (describe_operator), so its line carries what a compiler chooses: where its
// tensors lie in DRAM, its tiling and the cache partition. The shape keys are
// written for readers and must match the workload when read back.
#pragma once

#include <cstdint>
#include <ostream>

#include "sim/config/json_reader.h"
#include "sim/program/program.h"

namespace npusim {

void write_operator_line(std::ostream& out, size_t index, const LayerDescriptor& d);

// What an operator line's values must stay within.
struct OperatorLineLimits {
  uint64_t dram_bytes = 0;   // every tensor must end within it
  uint64_t cache_bytes = 0;  // regions and halves
  uint32_t units = 1;        // the hardware's compute units
};

// Reads operator line `r` on top of `derived` (describe_operator of the
// header's workload for this index). Raises `tensors_end` to the end of every
// tensor the line places. Throws ConfigError at the offending key.
LayerDescriptor read_operator_line(JsonReader& r, LayerDescriptor derived,
                                   const OperatorLineLimits& limits, uint64_t& tensors_end);

}  // namespace npusim
