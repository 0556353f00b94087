#include "sim/workload/seeded_fill.h"

#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/workload/layer_data.h"
#include "sim/workload/seeded_draws.h"
#include "sim/workload/seeded_fill_x86.h"

namespace npusim {
namespace {
using namespace seeded_draws;

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
#if defined(__x86_64__) || defined(__i386__)
  l.push_back({"avx2", seeded_x86::fill_avx2, seeded_x86::count_avx2,
               bool(__builtin_cpu_supports("avx2"))});
  l.push_back({"avx512dq", seeded_x86::fill_avx512dq, seeded_x86::count_avx512dq,
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
