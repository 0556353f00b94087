// The seeded fill's and count's vector bodies for x86 (seeded_fill.h chooses among them at run
// time): AVX2 and AVX-512 DQ, each walking the draws several lanes at a time with each lane's
// splitmix64 state advanced by an addition, written with intrinsics under per-function target
// attributes so that the rest of the build stays baseline x86-64.
#pragma once

#include <cstddef>
#include <cstdint>

namespace npusim::seeded_x86 {

// As seeded_fill.cpp's baseline bodies: false when a span-255 draw would have been rejected.
bool fill_avx2(int8_t* out, size_t n, uint64_t seed, int64_t lo, uint32_t span);
bool count_avx2(uint64_t seed, uint64_t first, uint64_t n, int64_t lo, int8_t value, uint32_t span,
                uint64_t& count);
bool fill_avx512dq(int8_t* out, size_t n, uint64_t seed, int64_t lo, uint32_t span);
bool count_avx512dq(uint64_t seed, uint64_t first, uint64_t n, int64_t lo, int8_t value,
                    uint32_t span, uint64_t& count);

}  // namespace npusim::seeded_x86
