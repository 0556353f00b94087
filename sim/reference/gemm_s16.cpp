// The reference GEMM (gemm_s16.h). One generic body, blocked 2 rows of L by 4 rows of W:
// eight int32 sums share each pass over j, so every loaded L value serves four products and
// every W value two. The j loop is the innermost and plain, so GCC vectorises it as a dot
// product reduction (pmaddwd on SSE2 and AVX2, vpdpwssd with AVX-512 VNNI). The body is
// always inlined into one function per level, each compiled with its own `target` attribute;
// the rest of the build keeps the baseline target, so the binary runs on any x86-64 CPU.
//
// Loop order: W blocks outside, L blocks inside. A caller keeps its L panel small enough to
// stay in the L2 cache (qconv.cpp, reference_conv.cpp: about 128 KiB), so the panel is read
// from cache K / 4 times while each block of four W rows is read from memory once per panel.
#include "sim/reference/gemm_s16.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace npusim::reference {
namespace {

#define NPUSIM_ALWAYS_INLINE inline __attribute__((always_inline))

template <int PB, int KB>
NPUSIM_ALWAYS_INLINE void block(const GemmS16& g, size_t p, size_t k) {
  int32_t acc[PB][KB] = {};
  const int16_t* l[PB];
  const int16_t* w[KB];
  for (int i = 0; i < PB; ++i) l[i] = g.L + (p + i) * g.ld_l;
  for (int i = 0; i < KB; ++i) w[i] = g.W + (k + i) * g.ld_w;
  for (size_t j = 0; j < g.J; ++j)
    for (int a = 0; a < PB; ++a)
      for (int b = 0; b < KB; ++b) acc[a][b] += int32_t(l[a][j]) * int32_t(w[b][j]);
  for (int a = 0; a < PB; ++a)
    for (int b = 0; b < KB; ++b) g.out[(p + a) * g.out_p + (k + b) * g.out_k] = acc[a][b];
}

template <int KB>
NPUSIM_ALWAYS_INLINE void row_of_blocks(const GemmS16& g, size_t k) {
  size_t p = 0;
  for (; p + 2 <= g.P; p += 2) block<2, KB>(g, p, k);
  if (p < g.P) block<1, KB>(g, p, k);
}

NPUSIM_ALWAYS_INLINE void gemm_body(const GemmS16& g) {
  size_t k = 0;
  for (; k + 4 <= g.K; k += 4) row_of_blocks<4>(g, k);
  for (; k < g.K; ++k) row_of_blocks<1>(g, k);
}

void gemm_baseline(const GemmS16& g) { gemm_body(g); }

#if defined(__x86_64__) || defined(__i386__)
#define NPUSIM_GEMM_X86 1
__attribute__((target("avx2"))) void gemm_avx2(const GemmS16& g) { gemm_body(g); }
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) void gemm_avx512vnni(
    const GemmS16& g) {
  gemm_body(g);
}
#endif

bool supported(GemmLevel level) {
  switch (level) {
    case GemmLevel::Baseline:
      return true;
#ifdef NPUSIM_GEMM_X86
    case GemmLevel::Avx2:
      return __builtin_cpu_supports("avx2");
    case GemmLevel::Avx512Vnni:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
#else
    default:
      return false;
#endif
  }
  return false;
}

// NPUSIM_REFERENCE_ISA names a level (to time a smaller CPU's reference on this one); it is
// read here, apart from the model's NPUSIM_ISA, so the two stay independent.
GemmLevel level_from_environment() {
  const std::vector<GemmLevel> levels = supported_gemm_levels();
  const char* named = std::getenv("NPUSIM_REFERENCE_ISA");
  if (named == nullptr || *named == '\0') return levels.back();
  std::string list;
  for (GemmLevel l : levels) {
    if (named == std::string(to_string(l))) return l;
    list += (list.empty() ? "" : ", ") + std::string(to_string(l));
  }
  throw std::runtime_error(std::string("NPUSIM_REFERENCE_ISA='") + named +
                           "' is not a reference GEMM level this CPU supports (supported: " + list +
                           ")");
}

GemmLevel& active_level() {
  static GemmLevel level = level_from_environment();
  return level;
}

}  // namespace

const char* to_string(GemmLevel level) {
  switch (level) {
    case GemmLevel::Baseline:
      return "baseline";
    case GemmLevel::Avx2:
      return "avx2";
    case GemmLevel::Avx512Vnni:
      return "avx512vnni";
  }
  return "?";
}

std::vector<GemmLevel> supported_gemm_levels() {
  std::vector<GemmLevel> levels;
  for (GemmLevel l : {GemmLevel::Baseline, GemmLevel::Avx2, GemmLevel::Avx512Vnni})
    if (supported(l)) levels.push_back(l);
  return levels;
}

GemmLevel gemm_level() { return active_level(); }

void set_gemm_level(GemmLevel level) {
  if (!supported(level))
    throw std::invalid_argument(std::string("reference GEMM level ") + to_string(level) +
                                " is not supported by this CPU");
  active_level() = level;
}

void gemm_s16(const GemmS16& g) {
  switch (active_level()) {
#ifdef NPUSIM_GEMM_X86
    case GemmLevel::Avx2:
      return gemm_avx2(g);
    case GemmLevel::Avx512Vnni:
      return gemm_avx512vnni(g);
#endif
    default:
      return gemm_baseline(g);
  }
}

}  // namespace npusim::reference
