#include "sim/workload/seeded_fill_x86.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <cstring>

#include "sim/workload/seeded_draws.h"

namespace npusim::seeded_x86 {
using namespace seeded_draws;
namespace {

#define NPUSIM_AVX2 __attribute__((target("avx2")))
#define NPUSIM_AVX512DQ __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))

// AVX2, four draws per register. The compiler's vectorised loop of seeded_fill.cpp's baseline
// body multiplies (i + 1) * gamma in every lane, a third 64-bit multiply per draw, and AVX2 has
// no 64-bit multiply: each takes three 32-bit ones. Here each lane's state advances by an
// addition, two registers of draws go per turn, and a multiply takes one 32-bit low multiply
// for both cross terms: about 6.5 instructions per draw counted, where the compiler's took 9.

// a * c mod 2^64 per lane, `swapped` holding c's halves exchanged: the cross terms
// a_lo * c_hi + a_hi * c_lo come from one vpmulld in the high half, the rest from vpmuludq.
NPUSIM_AVX2 inline __m256i mul64_lanes(__m256i a, __m256i c, __m256i swapped) {
  const __m256i cross = _mm256_mullo_epi32(a, swapped);
  const __m256i high = _mm256_and_si256(_mm256_add_epi64(cross, _mm256_slli_epi64(cross, 32)),
                                        _mm256_set1_epi64x(int64_t(0xFFFFFFFF00000000ULL)));
  return _mm256_add_epi64(_mm256_mul_epu32(a, c), high);
}

NPUSIM_AVX2 inline __m256i mix_lanes_avx2(__m256i z) {
  constexpr uint64_t k1 = 0xbf58476d1ce4e5b9ULL, k2 = 0x94d049bb133111ebULL;
  const auto swap = [](uint64_t k) { return int64_t((k << 32) | (k >> 32)); };
  z = mul64_lanes(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), _mm256_set1_epi64x(int64_t(k1)),
                  _mm256_set1_epi64x(swap(k1)));
  z = mul64_lanes(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), _mm256_set1_epi64x(int64_t(k2)),
                  _mm256_set1_epi64x(swap(k2)));
  return _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
}

// seeded_draws.h's mod255, lane by lane (the folded sum is small, so a signed compare picks s >=
// 255).
NPUSIM_AVX2 inline __m256i mod255_lanes_avx2(__m256i r) {
  const __m256i bytes = _mm256_set1_epi64x(0x00FF00FF00FF00FFLL);
  const __m256i words = _mm256_set1_epi64x(0x0000FFFF0000FFFFLL);
  __m256i s = _mm256_add_epi64(_mm256_and_si256(r, bytes),
                               _mm256_and_si256(_mm256_srli_epi64(r, 8), bytes));
  s = _mm256_add_epi64(_mm256_and_si256(s, words),
                       _mm256_and_si256(_mm256_srli_epi64(s, 16), words));
  s = _mm256_add_epi64(_mm256_and_si256(s, _mm256_set1_epi64x(0xFFFFFFFFLL)),
                       _mm256_srli_epi64(s, 32));
  s = _mm256_add_epi64(_mm256_and_si256(s, _mm256_set1_epi64x(0xFF)), _mm256_srli_epi64(s, 8));
  const __m256i big = _mm256_cmpgt_epi64(s, _mm256_set1_epi64x(254));
  return _mm256_sub_epi64(s, _mm256_and_si256(big, _mm256_set1_epi64x(255)));
}

// Draws first .. first + n - 1, four at a time, the rest one by one: `take` gets each group's
// value residues (r mod Span, in each lane's low byte) as four lanes, then each remaining
// draw's value byte. False when a span-255 draw would have been rejected.
template <uint32_t Span, typename Consumer>
NPUSIM_AVX2 bool walk_avx2(uint64_t seed, uint64_t first, uint64_t n, Consumer& take) {
  const __m256i four = _mm256_set1_epi64x(int64_t(4 * kGamma));
  const __m256i eight = _mm256_set1_epi64x(int64_t(8 * kGamma));
  const uint64_t s0 = seed + (first + 1) * kGamma;
  __m256i state = _mm256_set_epi64x(int64_t(s0 + 3 * kGamma), int64_t(s0 + 2 * kGamma),
                                    int64_t(s0 + kGamma), int64_t(s0));
  __m256i zero_lanes = _mm256_setzero_si256();
  const auto group = [&](uint64_t i, __m256i lanes) NPUSIM_AVX2 {
    const __m256i r = mix_lanes_avx2(lanes);
    if (Span == 256) {
      take(i, r);
    } else {
      zero_lanes = _mm256_or_si256(zero_lanes, _mm256_cmpeq_epi64(r, _mm256_setzero_si256()));
      take(i, mod255_lanes_avx2(r));
    }
  };
  uint64_t i = 0;
  // Two groups per turn, independent of each other (the multiplies overlap).
  for (; i + 8 <= n; i += 8) {
    group(i, state);
    group(i + 4, _mm256_add_epi64(state, four));
    state = _mm256_add_epi64(state, eight);
  }
  if (i + 4 <= n) {
    group(i, state);
    i += 4;
  }
  uint64_t zero = !_mm256_testz_si256(zero_lanes, zero_lanes);
  for (; i < n; ++i) take(i, value_byte<Span>(draw(seed, first + i), 0, zero));
  return zero == 0;
}

// The two consumers of walk_avx2 (lambdas would not inherit the target attribute).
struct StoreBytesAvx2 {
  int8_t* out;
  uint8_t offset;
  NPUSIM_AVX2 void operator()(uint64_t i, __m256i residues) const {
    // Each lane's low byte to bytes 0..3 of the low 128 bits.
    const __m256i low = _mm256_shuffle_epi8(
        residues, _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0,
                                   8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
    const __m128i four =
        _mm_unpacklo_epi16(_mm256_castsi256_si128(low), _mm256_extracti128_si256(low, 1));
    const int32_t bytes = _mm_cvtsi128_si32(_mm_add_epi8(four, _mm_set1_epi8(char(offset))));
    std::memcpy(out + i, &bytes, 4);
  }
  void operator()(uint64_t i, uint8_t byte) const { out[i] = int8_t(uint8_t(byte + offset)); }
};

// Counts the draws whose residue equals value - lo (as a byte): n less that is the count.
struct CountMatchesAvx2 {
  __m256i residue;
  __m256i matches = _mm256_setzero_si256();  // minus the matches, per lane
  uint8_t residue_byte;
  uint64_t tail = 0;
  NPUSIM_AVX2 void operator()(uint64_t, __m256i residues) {
    const __m256i low =
        _mm256_and_si256(_mm256_xor_si256(residues, residue), _mm256_set1_epi64x(0xFF));
    matches = _mm256_add_epi64(matches, _mm256_cmpeq_epi64(low, _mm256_setzero_si256()));
  }
  void operator()(uint64_t, uint8_t byte) { tail += byte == residue_byte; }
  NPUSIM_AVX2 uint64_t total() const {
    alignas(32) uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), matches);
    return tail - (lanes[0] + lanes[1] + lanes[2] + lanes[3]);
  }
};

}  // namespace

NPUSIM_AVX2 bool fill_avx2(int8_t* out, size_t n, uint64_t seed, int64_t lo, uint32_t span) {
  StoreBytesAvx2 store{out, uint8_t(uint64_t(lo))};
  return span == 256 ? walk_avx2<256>(seed, 0, n, store) : walk_avx2<255>(seed, 0, n, store);
}
NPUSIM_AVX2 bool count_avx2(uint64_t seed, uint64_t first, uint64_t n, int64_t lo, int8_t value,
                            uint32_t span, uint64_t& count) {
  const uint8_t residue = uint8_t(uint8_t(value) - uint8_t(uint64_t(lo)));
  CountMatchesAvx2 matches{_mm256_set1_epi64x(residue), _mm256_setzero_si256(), residue};
  const bool ok = span == 256 ? walk_avx2<256>(seed, first, n, matches)
                              : walk_avx2<255>(seed, first, n, matches);
  count = n - matches.total();
  return ok;
}

namespace {
// AVX-512: the baseline body's loop, as the compiler vectorises it, multiplies (i + 1) * gamma
// in every lane, a third 64-bit multiply per draw; here each lane's state advances by an addition
// of 8 * gamma. A count tests each draw's value byte with one mask test and adds the mask's
// population: about twice the compiler's rate for the same values (the two multiplies of the
// mixer remain, and bound it). The zero-masked shift with a full mask: GCC 12's unmasked one
// trips -Wmaybe-uninitialized.
NPUSIM_AVX512DQ inline __m512i shift_right(__m512i z, unsigned bits) {
  return _mm512_maskz_srli_epi64(0xFF, z, bits);
}

NPUSIM_AVX512DQ inline __m512i mix_lanes(__m512i z) {
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, shift_right(z, 30)),
                         _mm512_set1_epi64(int64_t(0xbf58476d1ce4e5b9ULL)));
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, shift_right(z, 27)),
                         _mm512_set1_epi64(int64_t(0x94d049bb133111ebULL)));
  return _mm512_xor_si512(z, shift_right(z, 31));
}

// seeded_draws.h's mod255, lane by lane; min(s, s - 255) is s - 255 exactly when s >= 255 (else it
// wraps). (Masked forms with a full mask throughout, for the warning above.)
NPUSIM_AVX512DQ inline __m512i mod255_lanes(__m512i r) {
  const __m512i bytes = _mm512_set1_epi64(0x00FF00FF00FF00FFLL);
  const __m512i words = _mm512_set1_epi64(0x0000FFFF0000FFFFLL);
  __m512i s =
      _mm512_add_epi64(_mm512_and_si512(r, bytes), _mm512_and_si512(shift_right(r, 8), bytes));
  s = _mm512_add_epi64(_mm512_and_si512(s, words), _mm512_and_si512(shift_right(s, 16), words));
  s = _mm512_add_epi64(_mm512_and_si512(s, _mm512_set1_epi64(0xFFFFFFFFLL)), shift_right(s, 32));
  s = _mm512_add_epi64(_mm512_and_si512(s, _mm512_set1_epi64(0xFF)), shift_right(s, 8));
  return _mm512_maskz_min_epu64(0xFF, s, _mm512_sub_epi64(s, _mm512_set1_epi64(255)));
}

// The states of draws first .. first + 7, one per lane.
NPUSIM_AVX512DQ inline __m512i first_states(uint64_t seed, uint64_t first) {
  const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  return _mm512_add_epi64(_mm512_set1_epi64(int64_t(seed + (first + 1) * kGamma)),
                          _mm512_mullo_epi64(lane, _mm512_set1_epi64(int64_t(kGamma))));
}

// Draws first .. first + n - 1, eight at a time, the rest one by one: `take` gets each group's
// value residues (r mod Span) as eight lanes, then each remaining draw's value byte.
// False when a span-255 draw would have been rejected.
template <uint32_t Span, typename Consumer>
NPUSIM_AVX512DQ bool walk_avx512(uint64_t seed, uint64_t first, uint64_t n, Consumer& take) {
  const __m512i step = _mm512_set1_epi64(int64_t(8 * kGamma));
  __m512i state = first_states(seed, first);
  __mmask8 zero_lanes = 0;
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512i r = mix_lanes(state);
    state = _mm512_add_epi64(state, step);
    if (Span == 256) {
      take(i, r);
    } else {
      zero_lanes |= _mm512_cmpeq_epi64_mask(r, _mm512_setzero_si512());
      take(i, mod255_lanes(r));
    }
  }
  uint64_t zero = zero_lanes != 0;
  for (; i < n; ++i) take(i, value_byte<Span>(draw(seed, first + i), 0, zero));
  return zero == 0;
}

// The two consumers of walk_avx512 (lambdas would not inherit the target attribute).
struct StoreBytes {
  int8_t* out;
  uint8_t offset;
  NPUSIM_AVX512DQ void operator()(uint64_t i, __m512i residues) const {
    _mm_storel_epi64(
        reinterpret_cast<__m128i*>(out + i),
        _mm_add_epi8(_mm512_maskz_cvtepi64_epi8(0xFF, residues), _mm_set1_epi8(char(offset))));
  }
  void operator()(uint64_t i, uint8_t byte) const { out[i] = int8_t(uint8_t(byte + offset)); }
};

// A byte lo + residue differs from `value` when the residue differs from value - lo (as a byte).
struct CountOthers {
  uint8_t residue;
  uint64_t count = 0;
  NPUSIM_AVX512DQ void operator()(uint64_t, __m512i residues) {
    count += uint64_t(__builtin_popcount(_mm512_test_epi64_mask(
        _mm512_xor_si512(residues, _mm512_set1_epi64(residue)), _mm512_set1_epi64(0xFF))));
  }
  void operator()(uint64_t, uint8_t byte) { count += byte != residue; }
};

}  // namespace

NPUSIM_AVX512DQ bool fill_avx512dq(int8_t* out, size_t n, uint64_t seed, int64_t lo,
                                   uint32_t span) {
  StoreBytes store{out, uint8_t(uint64_t(lo))};
  return span == 256 ? walk_avx512<256>(seed, 0, n, store) : walk_avx512<255>(seed, 0, n, store);
}
NPUSIM_AVX512DQ bool count_avx512dq(uint64_t seed, uint64_t first, uint64_t n, int64_t lo,
                                    int8_t value, uint32_t span, uint64_t& count) {
  CountOthers others{uint8_t(uint8_t(value) - uint8_t(uint64_t(lo)))};
  const bool ok = span == 256 ? walk_avx512<256>(seed, first, n, others)
                              : walk_avx512<255>(seed, first, n, others);
  count = others.count;
  return ok;
}

}  // namespace npusim::seeded_x86
#endif
