// Bulk draws of SeededRandom (layer_data.h) for the common byte tensors: n successive
// uniform(lo, lo + 255) draws, computed from the draw index instead of the running state so that
// the compiler vectorises the loop (the same splitmix64 arithmetic, so the same values). Chosen
// at run time: a body compiled for AVX-512 DQ (64-bit multiplies in vector registers), AVX2, or
// the baseline target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npusim {

// out[i] = the byte of lo + draw i of SeededRandom(seed).uniform(lo, lo + 255), i < n. A span of
// 256 never rejects a draw, so draw i is the generator's (i+1)-th output.
void fill_uniform_bytes(int8_t* out, size_t n, uint64_t seed, int64_t lo);

// How many of the draws first .. first + n - 1 of the same sequence give a byte other than
// `value`: the non-zero count of a seeded kernel without storing it (value = its zero).
uint64_t count_uniform_bytes_other_than(uint64_t seed, uint64_t first, uint64_t n, int64_t lo,
                                        int8_t value);

// For tests: the levels this CPU runs ("baseline", "avx2", "avx512dq"), and fill_uniform_bytes
// at one of them (std::invalid_argument if the CPU lacks it).
std::vector<const char*> seeded_fill_levels();
void fill_uniform_bytes_at(const char* level, int8_t* out, size_t n, uint64_t seed, int64_t lo);
uint64_t count_uniform_bytes_other_than_at(const char* level, uint64_t seed, uint64_t first,
                                           uint64_t n, int64_t lo, int8_t value);

}  // namespace npusim
