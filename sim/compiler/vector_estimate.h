// The compiler's estimate of a vector operator (pooling, add, concat, the
// transformer operators on the vector unit) in a vector region of a given
// size: its instructions as the emitter cuts them (vector_tiling.h), one
// after another as the vector unit runs them, each reading its inputs over
// the bus, waiting out the DRAM latency, running its lanes and writing its
// output (docs/stage-timing.md, "Vector stages"). Dense and alone, as the mapper's
// estimate of an array layer (mapper.h); it lets the mapper weigh a smaller
// vector region against the room it gives the array layers.
#pragma once

#include <cstdint>

#include "sim/config/hardware_config.h"
#include "sim/program/program.h"

namespace npusim {

// Estimated cycles of vector operator `d` with `region` bytes of working
// region (0 when not even its smallest instruction fits):
//   sum over its instructions of (read bus + dram latency + lanes + write bus)
//   + dram latency (the last write reaching memory).
uint64_t estimate_vector_operator(const LayerDescriptor& d, const HardwareConfig& hw,
                                  uint64_t region);

}  // namespace npusim
