#include "sim/workload/seeded_fill.h"

#include <cstdlib>
#include <cstring>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/workload/layer_data.h"

namespace npusim {
namespace {

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

// Fills out[0, n) with draws 0 .. n-1; false when a span-255 draw would have been rejected.
inline __attribute__((always_inline)) bool fill_body(int8_t* out, size_t n, uint64_t seed,
                                                     int64_t lo, uint32_t span) {
  // The state advances by an addition (an induction variable the compiler vectorises), not
  // a multiply per draw.
  const uint8_t offset = uint8_t(uint64_t(lo));
  uint64_t zero = 0, state = seed + kGamma;
  if (span == 256)
    for (size_t i = 0; i < n; ++i, state += kGamma)
      out[i] = int8_t(value_byte<256>(mix(state), offset, zero));
  else
    for (size_t i = 0; i < n; ++i, state += kGamma)
      out[i] = int8_t(value_byte<255>(mix(state), offset, zero));
  return zero == 0;
}

// The bytes of draws first .. first + n - 1 that differ from `value`, counted in a reduction;
// false when a span-255 draw would have been rejected.
inline __attribute__((always_inline)) bool count_body(uint64_t seed, uint64_t first, uint64_t n,
                                                      int64_t lo, int8_t value, uint32_t span,
                                                      uint64_t& count) {
  const uint8_t offset = uint8_t(uint64_t(lo)), v = uint8_t(value);
  uint64_t c = 0, zero = 0, state = seed + (first + 1) * kGamma;
  if (span == 256)
    for (uint64_t i = 0; i < n; ++i, state += kGamma)
      c += value_byte<256>(mix(state), offset, zero) != v;
  else
    for (uint64_t i = 0; i < n; ++i, state += kGamma)
      c += value_byte<255>(mix(state), offset, zero) != v;
  count = c;
  return zero == 0;
}

bool fill_baseline(int8_t* out, size_t n, uint64_t seed, int64_t lo, uint32_t span) {
  return fill_body(out, n, seed, lo, span);
}
bool count_baseline(uint64_t seed, uint64_t first, uint64_t n, int64_t lo, int8_t value,
                    uint32_t span, uint64_t& count) {
  return count_body(seed, first, n, lo, value, span, count);
}

#if defined(__x86_64__) || defined(__i386__)
#define NPUSIM_FILL_X86 1
#define NPUSIM_AVX2 __attribute__((target("avx2")))
#define NPUSIM_AVX512DQ __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
NPUSIM_AVX2 bool fill_avx2(int8_t* out, size_t n, uint64_t seed, int64_t lo, uint32_t span) {
  return fill_body(out, n, seed, lo, span);
}
NPUSIM_AVX2 bool count_avx2(uint64_t seed, uint64_t first, uint64_t n, int64_t lo, int8_t value,
                            uint32_t span, uint64_t& count) {
  return count_body(seed, first, n, lo, value, span, count);
}
// AVX-512 by hand: the compiler's loop above multiplies (i + 1) * gamma in every lane, a third
// 64-bit multiply per draw; here each lane's state advances by an addition of 8 * gamma. A count
// tests each draw's value byte with one mask test and adds the mask's population: about twice
// the compiler's rate for the same values (the two multiplies of the mixer remain, and bound it).
// The zero-masked shift with a full mask: GCC 12's unmasked one trips -Wmaybe-uninitialized.
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

// mod255 above, lane by lane; min(s, s - 255) is s - 255 exactly when s >= 255 (else it wraps).
// (Masked forms with a full mask throughout, for the warning above.)
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
#endif

using Fill = bool (*)(int8_t*, size_t, uint64_t, int64_t, uint32_t);
using Count = bool (*)(uint64_t, uint64_t, uint64_t, int64_t, int8_t, uint32_t, uint64_t&);

struct Level {
  const char* name;
  Fill fill;
  Count count;
  bool supported;
};

std::vector<Level> levels() {
  std::vector<Level> l{{"baseline", fill_baseline, count_baseline, true}};
#ifdef NPUSIM_FILL_X86
  l.push_back({"avx2", fill_avx2, count_avx2, bool(__builtin_cpu_supports("avx2"))});
  l.push_back({"avx512dq", fill_avx512dq, count_avx512dq,
               __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")});
#endif
  return l;
}

// The highest level this CPU runs, chosen once, at most the one NPUSIM_ISA names for the
// model's kernels (scalar, avx2, avx512vnni: models/int8_kernels.h), so that one variable
// times a smaller CPU's simulator on this one.
const Level& best() {
  static const Level level = [] {
    std::vector<Level> all = levels();
    size_t cap = all.size() - 1;
    if (const char* named = std::getenv("NPUSIM_ISA"); named != nullptr && *named != '\0') {
      const std::string isa = named;
      if (isa == "scalar")
        cap = 0;
      else if (isa == "avx2" && all.size() > 1)
        cap = 1;
      else if (isa != "avx512vnni" || all.size() < 3)
        throw std::runtime_error("NPUSIM_ISA='" + isa +
                                 "' is not an ISA level for seeded data "
                                 "(scalar, avx2, avx512vnni)");
    }
    Level b = all.front();
    for (size_t i = 0; i <= cap; ++i)
      if (all[i].supported) b = all[i];
    return b;
  }();
  return level;
}

Level level_named(const char* name) {
  for (const Level& l : levels())
    if (l.supported && std::strcmp(l.name, name) == 0) return l;
  throw std::invalid_argument(std::string("seeded fill level ") + name +
                              " is unknown or not supported by this CPU");
}

void check_span(uint32_t span) {
  if (span != 255 && span != 256)
    throw std::invalid_argument("seeded fill: span must be 255 or 256, got " +
                                std::to_string(span));
}

void fill(const Level& level, int8_t* out, size_t n, uint64_t seed, int64_t lo, uint32_t span) {
  check_span(span);
  if (level.fill(out, n, seed, lo, span)) return;
  SeededRandom rng(seed);  // a draw was rejected: one at a time, as uniform() does
  for (size_t i = 0; i < n; ++i) out[i] = int8_t(rng.uniform(lo, lo + span - 1));
}

std::optional<uint64_t> count(const Level& level, uint64_t seed, uint64_t first, uint64_t n,
                              int64_t lo, int8_t value, uint32_t span) {
  check_span(span);
  uint64_t c = 0;
  if (!level.count(seed, first, n, lo, value, span, c)) return std::nullopt;
  return c;
}

}  // namespace

void fill_uniform_bytes(int8_t* out, size_t n, uint64_t seed, int64_t lo, uint32_t span) {
  fill(best(), out, n, seed, lo, span);
}

std::optional<uint64_t> count_uniform_bytes_other_than(uint64_t seed, uint64_t first, uint64_t n,
                                                       int64_t lo, int8_t value, uint32_t span) {
  return count(best(), seed, first, n, lo, value, span);
}

const char* seeded_fill_level() { return best().name; }

std::vector<const char*> seeded_fill_levels() {
  std::vector<const char*> names;
  for (const Level& l : levels())
    if (l.supported) names.push_back(l.name);
  return names;
}

void fill_uniform_bytes_at(const char* level, int8_t* out, size_t n, uint64_t seed, int64_t lo,
                           uint32_t span) {
  fill(level_named(level), out, n, seed, lo, span);
}

std::optional<uint64_t> count_uniform_bytes_other_than_at(const char* level, uint64_t seed,
                                                          uint64_t first, uint64_t n, int64_t lo,
                                                          int8_t value, uint32_t span) {
  return count(level_named(level), seed, first, n, lo, value, span);
}

}  // namespace npusim
