// SeededRandom's draws (layer_data.h) computed from the draw index, for the bulk fills and counts
// of seeded_fill.cpp and their vector bodies (seeded_fill_x86.cpp): the same splitmix64
// arithmetic, so the same values.
#pragma once

#include <cstdint>

namespace npusim::seeded_draws {

constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ULL;  // SeededRandom::next's increment

// splitmix64's output for a state.
inline __attribute__((always_inline)) uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Draw i (0-based) of SeededRandom(seed).next(): the state after i + 1 increments, mixed.
inline __attribute__((always_inline)) uint64_t draw(uint64_t seed, uint64_t i) {
  return mix(seed + (i + 1) * kGamma);
}

// r mod 255, without a division (which does not vectorise): 256 = 1 (mod 255), so r is
// congruent to the sum of its bytes; the sum (at most 2040) is folded once more and a last
// subtraction brings it into [0, 254].
inline __attribute__((always_inline)) uint64_t mod255(uint64_t r) {
  uint64_t s = (r & 0x00FF00FF00FF00FFULL) + ((r >> 8) & 0x00FF00FF00FF00FFULL);
  s = (s & 0x0000FFFF0000FFFFULL) + ((s >> 16) & 0x0000FFFF0000FFFFULL);
  s = (s & 0xFFFFFFFFULL) + (s >> 32);
  s = (s & 0xFF) + (s >> 8);
  return s >= 255 ? s - 255 : s;
}

// The byte of draw i's value lo + (r mod span). Span 256: r's low byte plus lo, as a byte add.
// Span 255: uniform() rejects r < 2^64 mod 255 = 1, so a draw of 0 would shift the sequence;
// `zero` records one (the caller then draws one value at a time).
template <uint32_t Span>
inline __attribute__((always_inline)) uint8_t value_byte(uint64_t r, uint8_t offset,
                                                         uint64_t& zero) {
  if (Span == 256) return uint8_t(uint8_t(r) + offset);
  zero |= r == 0;
  return uint8_t(uint8_t(mod255(r)) + offset);
}

}  // namespace npusim::seeded_draws
