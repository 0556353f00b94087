// The compute engine's kernel decompressor (seed 002): expands a kernel's
// stream, one (coefficient, kx, ky) entry at a time, into the coefficients the
// multiplier array applies. Format: WeightFormat in sim/program/program.h.
#pragma once

#include <cstdint>

#include "sim/program/program.h"

namespace npusim {

// Writes the kernel's R*S*C coefficients (R,S,C order, zeros where no entry)
// into `dense`. Reads exactly kernel_stream_bytes(...) bytes of `stream`.
// Throws SimulationError on a malformed stream (count or tap out of range).
void decompress_kernel(const int8_t* stream, WeightFormat format, uint32_t R, uint32_t S,
                       uint32_t C, uint64_t stream_bytes, int8_t* dense, int8_t zero = 0);

}  // namespace npusim
