#include "sim/workload/seeded_fill.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace npusim {
namespace {

constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ULL;  // SeededRandom::next's increment

// Draw i (0-based) of SeededRandom(seed).next(): the state after i + 1 increments, mixed.
inline __attribute__((always_inline)) uint64_t draw(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * kGamma;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// lo + (r mod 256), as a byte: r mod 256 is r's low byte, and adding lo modulo 256 is a byte add.
inline __attribute__((always_inline)) void fill_body(int8_t* out, size_t n, uint64_t seed,
                                                     int64_t lo) {
  const uint8_t offset = uint8_t(uint64_t(lo));
  for (size_t i = 0; i < n; ++i) out[i] = int8_t(uint8_t(uint8_t(draw(seed, i)) + offset));
}

// The bytes of draws first .. first + n - 1 that differ from `value`, counted in a reduction.
inline __attribute__((always_inline)) uint64_t count_body(uint64_t seed, uint64_t first, uint64_t n,
                                                          int64_t lo, int8_t value) {
  const uint8_t offset = uint8_t(uint64_t(lo)), v = uint8_t(value);
  uint64_t count = 0;
  for (uint64_t i = first; i < first + n; ++i)
    count += uint8_t(uint8_t(draw(seed, i)) + offset) != v;
  return count;
}

void fill_baseline(int8_t* out, size_t n, uint64_t seed, int64_t lo) {
  fill_body(out, n, seed, lo);
}
uint64_t count_baseline(uint64_t seed, uint64_t first, uint64_t n, int64_t lo, int8_t value) {
  return count_body(seed, first, n, lo, value);
}

#if defined(__x86_64__) || defined(__i386__)
#define NPUSIM_FILL_X86 1
#define NPUSIM_AVX512DQ __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw")))
__attribute__((target("avx2"))) void fill_avx2(int8_t* out, size_t n, uint64_t seed, int64_t lo) {
  fill_body(out, n, seed, lo);
}
__attribute__((target("avx2"))) uint64_t count_avx2(uint64_t seed, uint64_t first, uint64_t n,
                                                    int64_t lo, int8_t value) {
  return count_body(seed, first, n, lo, value);
}
NPUSIM_AVX512DQ void fill_avx512dq(int8_t* out, size_t n, uint64_t seed, int64_t lo) {
  fill_body(out, n, seed, lo);
}
NPUSIM_AVX512DQ uint64_t count_avx512dq(uint64_t seed, uint64_t first, uint64_t n, int64_t lo,
                                        int8_t value) {
  return count_body(seed, first, n, lo, value);
}
#endif

using Fill = void (*)(int8_t*, size_t, uint64_t, int64_t);
using Count = uint64_t (*)(uint64_t, uint64_t, uint64_t, int64_t, int8_t);

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

// The highest level this CPU runs, chosen once.
const Level& best() {
  static const Level level = [] {
    std::vector<Level> all = levels();
    Level b = all.front();
    for (const Level& l : all)
      if (l.supported) b = l;
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

}  // namespace

void fill_uniform_bytes(int8_t* out, size_t n, uint64_t seed, int64_t lo) {
  best().fill(out, n, seed, lo);
}

uint64_t count_uniform_bytes_other_than(uint64_t seed, uint64_t first, uint64_t n, int64_t lo,
                                        int8_t value) {
  return best().count(seed, first, n, lo, value);
}

std::vector<const char*> seeded_fill_levels() {
  std::vector<const char*> names;
  for (const Level& l : levels())
    if (l.supported) names.push_back(l.name);
  return names;
}

void fill_uniform_bytes_at(const char* level, int8_t* out, size_t n, uint64_t seed, int64_t lo) {
  level_named(level).fill(out, n, seed, lo);
}

uint64_t count_uniform_bytes_other_than_at(const char* level, uint64_t seed, uint64_t first,
                                           uint64_t n, int64_t lo, int8_t value) {
  return level_named(level).count(seed, first, n, lo, value);
}

}  // namespace npusim
