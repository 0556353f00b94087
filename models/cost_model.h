// Every cost formula of the timing model, one function each, in one place.
// Pure functions of the hardware config and a stage's shape (no SystemC), so
// unit tests check them against numbers worked by hand; docs/timing.md
// states each one.
#pragma once

#include <cstdint>

#include "sim/config/hardware_config.h"

namespace npusim::cost {

// Bus cycles to move `segments` contiguous pieces of `segment_bytes` each:
// every segment rounds up to whole bursts, the bus moves bytes_per_cycle.
//   ceil(segments * ceil(segment_bytes / burst) * burst / bytes_per_cycle)
uint64_t dram_data_cycles(const DramConfig& dram, uint64_t segments, uint64_t segment_bytes);

// Bytes actually carried on the bus (whole bursts) for the same request.
uint64_t dram_burst_bytes(const DramConfig& dram, uint64_t segments, uint64_t segment_bytes);

// Cycles one cache port needs to stream `bytes`: ceil(bytes / port_bytes_per_cycle).
uint64_t cache_access_cycles(const CacheConfig& cache, uint64_t bytes);

// How many accesses can stream at once: the ports, limited by what the banks
// sustain together: min(ports, max(1, banks * bank_bytes_per_cycle / port_bytes_per_cycle)).
uint32_t cache_parallel_accesses(const CacheConfig& cache);

// Dense array cycles for one compute stage: every coefficient (C*R*S per
// output channel) is applied to the stage's output pixels, array_cols pixels
// per cycle, array_rows output channels at once:
//   ceil(k_count / array_rows) * C*R*S * ceil(pixels / array_cols)
uint64_t compute_stage_cycles(const ComputeConfig& compute, uint64_t pixels, uint64_t k_count,
                              uint64_t coefficients_per_kernel);

// Zero-skip array cycles (seed 002): each array row works through its own
// kernel's non-zero coefficients; the rows of a group of array_rows kernels
// move in lockstep, so a group takes as long as its densest kernel:
//   sum over groups g of max_{Z in g} nonzeros[Z] * ceil(pixels / array_cols)
// With every coefficient non-zero this equals compute_stage_cycles.
uint64_t zero_skip_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                const uint32_t* nonzeros, uint32_t k_count);

// Binary array cycles for one compute stage (seed 000, docs/binary.md): each
// lane does one XOR + popcount of a b-bit word (b channels) per cycle, so a
// binary kernel is R*S*ceil(C/b) word steps and the stage costs what the
// dense int8 stage costs with C replaced by ceil(C/b):
//   ceil(k_count / array_rows) * R*S*ceil(C/b) * ceil(pixels / array_cols)
// No zero-skip: +-1 weights have no zero coefficient.
uint64_t binary_stage_cycles(const ComputeConfig& compute, uint64_t pixels, uint64_t k_count,
                             uint64_t taps, uint64_t words_per_tap);

// MACs the array performs in that stage (padding taps included).
inline uint64_t compute_stage_macs(uint64_t pixels, uint64_t k_count,
                                   uint64_t coefficients_per_kernel) {
  return pixels * k_count * coefficients_per_kernel;
}

inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace npusim::cost
