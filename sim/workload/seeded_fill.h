// Bulk draws of SeededRandom (layer_data.h) for the common byte tensors: n successive
// uniform(lo, lo + 255) or uniform(lo, lo + 254) draws, computed from the draw index instead of the
// running state so that the compiler vectorises the loop (the same splitmix64 arithmetic, so the
// same values). Chosen at run time: the baseline target's loop, or the AVX2 or AVX-512 DQ
// bodies written with intrinsics (seeded_fill_x86.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace npusim {

// out[i] = the byte of draw i of SeededRandom(seed).uniform(lo, lo + span - 1), i < n, for a
// span of 256 (which never rejects a raw draw, so draw i is the generator's (i+1)-th output) or
// 255 (which rejects a raw draw of 0: then the values are drawn one at a time, as uniform()
// does). Throws std::invalid_argument for another span.
void fill_uniform_bytes(int8_t* out, size_t n, uint64_t seed, int64_t lo, uint32_t span = 256);

// How many of the values first .. first + n - 1 of the same sequence give a byte other than
// `value`: the non-zero count of a seeded kernel without storing it (value = its zero). Empty
// when a span-255 draw among them would have been rejected (the values no longer follow the
// draw index: count from the drawn tensor instead).
std::optional<uint64_t> count_uniform_bytes_other_than(uint64_t seed, uint64_t first, uint64_t n,
                                                       int64_t lo, int8_t value,
                                                       uint32_t span = 256);

// The level fill_uniform_bytes and count_uniform_bytes_other_than use: the highest this CPU
// runs, at most the one NPUSIM_ISA names (scalar, avx2, avx512vnni; std::runtime_error on the
// first call for another name).
const char* seeded_fill_level();

// For tests: the levels this CPU runs ("baseline", "avx2", "avx512dq"), and the two functions
// at one of them (std::invalid_argument if the CPU lacks it).
std::vector<const char*> seeded_fill_levels();
void fill_uniform_bytes_at(const char* level, int8_t* out, size_t n, uint64_t seed, int64_t lo,
                           uint32_t span = 256);
std::optional<uint64_t> count_uniform_bytes_other_than_at(const char* level, uint64_t seed,
                                                          uint64_t first, uint64_t n, int64_t lo,
                                                          int8_t value, uint32_t span = 256);

}  // namespace npusim
