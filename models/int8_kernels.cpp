#include "models/int8_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <cstdlib>
#include <stdexcept>

namespace npusim::int8_kernels {
namespace {

// Sums wrap in uint32: the same bits as int32 wrap-around, without the
// undefined behaviour of signed overflow.
template <typename T>
uint32_t scalar_dot(const T* x, const T* w, uint64_t n) {
  uint32_t acc = 0;
  for (uint64_t i = 0; i < n; ++i) acc += uint32_t(int32_t(x[i]) * int32_t(w[i]));
  return acc;
}

template <typename T>
void dots_scalar(const T* x, const T* w, uint64_t w_stride, uint64_t n, uint32_t count,
                 int32_t* out) {
  for (uint32_t j = 0; j < count; ++j)
    out[j] = int32_t(uint32_t(out[j]) + scalar_dot(x, w + j * w_stride, n));
}

#if defined(__x86_64__) || defined(__i386__)
#define NPUSIM_X86_KERNELS 1

#define TARGET_AVX2 __attribute__((target("avx2")))
#define TARGET_VNNI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

TARGET_AVX2 inline uint32_t hsum256(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return uint32_t(_mm_cvtsi128_si32(s));
}

// Folded in registers. The masked forms with a full mask: GCC 12's unmasked
// shuffles and 512-to-256 extracts trip -Wmaybe-uninitialized.
TARGET_VNNI inline uint32_t hsum512(__m512i v) {
  v = _mm512_add_epi32(v, _mm512_mask_shuffle_i64x2(v, 0xFF, v, v, 0x4E));  // 256-bit halves
  v = _mm512_add_epi32(v, _mm512_mask_shuffle_i64x2(v, 0xFF, v, v, 0xB1));  // 128-bit quarters
  v = _mm512_add_epi32(v, _mm512_mask_shuffle_epi32(v, 0xFFFF, v, _MM_PERM_BADC));
  v = _mm512_add_epi32(v, _mm512_mask_shuffle_epi32(v, 0xFFFF, v, _MM_PERM_CDAB));
  return uint32_t(_mm512_cvtsi512_si32(v));
}

// B kernels at a time share each load of x. AVX2 int8: sign-extend to int16
// and vpmaddwd (exact; vpmaddubsw would saturate its int16 pair sums).
template <int B>
TARGET_AVX2 void block_s8_avx2(const int8_t* x, const int8_t* w, uint64_t ws, uint64_t n,
                               int32_t* out) {
  __m256i acc[B];
  for (int j = 0; j < B; ++j) acc[j] = _mm256_setzero_si256();
  uint64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i xv =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
    for (int j = 0; j < B; ++j) {
      const __m256i wv =
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + j * ws + i)));
      acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(xv, wv));
    }
  }
  for (int j = 0; j < B; ++j)
    out[j] = int32_t(uint32_t(out[j]) + hsum256(acc[j]) + scalar_dot(x + i, w + j * ws + i, n - i));
}

template <int B>
TARGET_AVX2 void block_s16_avx2(const int16_t* x, const int16_t* w, uint64_t ws, uint64_t n,
                                int32_t* out) {
  __m256i acc[B];
  for (int j = 0; j < B; ++j) acc[j] = _mm256_setzero_si256();
  uint64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    for (int j = 0; j < B; ++j) {
      const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + j * ws + i));
      // Pair sums wrap only for -32768^2 * 2, as the int32 scalar sum does.
      acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(xv, wv));
    }
  }
  for (int j = 0; j < B; ++j)
    out[j] = int32_t(uint32_t(out[j]) + hsum256(acc[j]) + scalar_dot(x + i, w + j * ws + i, n - i));
}

// VNNI int8: vpdpbusd multiplies u8 by s8, so the weights go in offset by
// +128 (w ^ 0x80) and 128 * sum(x), shared by the B kernels, comes off:
// sum((w + 128) * x) - 128 * sum(x) = sum(w * x), all modulo 2^32.
template <int B>
TARGET_VNNI void block_s8_vnni(const int8_t* x, const int8_t* w, uint64_t ws, uint64_t n,
                               int32_t* out) {
  const __m512i bias = _mm512_set1_epi8(char(0x80));
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i acc[B];
  for (int j = 0; j < B; ++j) acc[j] = _mm512_setzero_si512();
  __m512i x_sum = _mm512_setzero_si512();
  uint64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i xv = _mm512_loadu_si512(x + i);
    x_sum = _mm512_dpbusd_epi32(x_sum, ones, xv);
    for (int j = 0; j < B; ++j) {
      const __m512i wv = _mm512_xor_si512(_mm512_loadu_si512(w + j * ws + i), bias);
      acc[j] = _mm512_dpbusd_epi32(acc[j], wv, xv);
    }
  }
  // Reductions and the tail only where there is something to add: most
  // calls are whole multiples of 64 (S x C runs), and an empty tail call cost
  // about a tenth of a functional ResNet-50 run.
  if (i > 0) {
    const uint32_t correction = hsum512(x_sum) * 128u;
    for (int j = 0; j < B; ++j) out[j] = int32_t(uint32_t(out[j]) + hsum512(acc[j]) - correction);
  }
  if (i < n) block_s8_avx2<B>(x + i, w + i, ws, n - i, out);  // 16 at a time, then scalar
}

// VNNI int16: vpdpwssd (the non-saturating form) is vpmaddwd plus the add.
template <int B>
TARGET_VNNI void block_s16_vnni(const int16_t* x, const int16_t* w, uint64_t ws, uint64_t n,
                                int32_t* out) {
  __m512i acc[B];
  for (int j = 0; j < B; ++j) acc[j] = _mm512_setzero_si512();
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512i xv = _mm512_loadu_si512(x + i);
    for (int j = 0; j < B; ++j)
      acc[j] = _mm512_dpwssd_epi32(acc[j], xv, _mm512_loadu_si512(w + j * ws + i));
  }
  if (i > 0)
    for (int j = 0; j < B; ++j) out[j] = int32_t(uint32_t(out[j]) + hsum512(acc[j]));
  if (i < n) block_s16_avx2<B>(x + i, w + i, ws, n - i, out);  // 16 at a time, then scalar
}

#define NPUSIM_DOTS(name, T, block, target)                                         \
  target void name(const T* x, const T* w, uint64_t ws, uint64_t n, uint32_t count, \
                   int32_t* out) {                                                  \
    uint32_t j = 0;                                                                 \
    for (; j + 4 <= count; j += 4) block<4>(x, w + j * ws, ws, n, out + j);         \
    for (; j < count; ++j) block<1>(x, w + j * ws, ws, n, out + j);                 \
  }
// AVX2 int8 takes eight kernels a block where it can: each shared x costs a sign-extension,
// and eight accumulators still fit the 16 registers (44 against 38 G MAC/s on the benchmark
// below the tests, 3x3 x 64 channels; the other levels measured slower with eight).
TARGET_AVX2 void dots_s8_avx2(const int8_t* x, const int8_t* w, uint64_t ws, uint64_t n,
                              uint32_t count, int32_t* out) {
  uint32_t j = 0;
  for (; j + 8 <= count; j += 8) block_s8_avx2<8>(x, w + j * ws, ws, n, out + j);
  for (; j + 4 <= count; j += 4) block_s8_avx2<4>(x, w + j * ws, ws, n, out + j);
  for (; j < count; ++j) block_s8_avx2<1>(x, w + j * ws, ws, n, out + j);
}
NPUSIM_DOTS(dots_s16_avx2, int16_t, block_s16_avx2, TARGET_AVX2)
NPUSIM_DOTS(dots_s8_vnni, int8_t, block_s8_vnni, TARGET_VNNI)
NPUSIM_DOTS(dots_s16_vnni, int16_t, block_s16_vnni, TARGET_VNNI)
#undef NPUSIM_DOTS
#endif

const Kernels scalar_kernels{Isa::Scalar, dots_scalar<int8_t>, dots_scalar<int16_t>};
#ifdef NPUSIM_X86_KERNELS
const Kernels avx2_kernels{Isa::Avx2, dots_s8_avx2, dots_s16_avx2};
const Kernels vnni_kernels{Isa::Avx512Vnni, dots_s8_vnni, dots_s16_vnni};
#endif

bool cpu_supports(Isa isa) {
#ifdef NPUSIM_X86_KERNELS
  __builtin_cpu_init();
  switch (isa) {
    case Isa::Scalar:
      return true;
    case Isa::Avx2:
      return __builtin_cpu_supports("avx2");
    case Isa::Avx512Vnni:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512vnni");
  }
  return false;
#else
  return isa == Isa::Scalar;
#endif
}

std::string supported_list() {
  std::string list;
  for (Isa isa : supported_isas()) list += std::string(list.empty() ? "" : ", ") + isa_name(isa);
  return list;
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Scalar:
      return "scalar";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512Vnni:
      return "avx512vnni";
  }
  return "?";
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512Vnni})
    if (cpu_supports(isa)) isas.push_back(isa);
  return isas;
}

const Kernels& kernels_for(Isa isa) {
  if (!cpu_supports(isa))
    throw std::runtime_error(std::string("this CPU does not support ISA level '") + isa_name(isa) +
                             "' (supported: " + supported_list() + ")");
#ifdef NPUSIM_X86_KERNELS
  if (isa == Isa::Avx2) return avx2_kernels;
  if (isa == Isa::Avx512Vnni) return vnni_kernels;
#endif
  return scalar_kernels;
}

Isa parse_isa(const std::string& name) {
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512Vnni}) {
    if (name != isa_name(isa)) continue;
    if (!cpu_supports(isa)) break;
    return isa;
  }
  throw std::runtime_error(
      "NPUSIM_ISA='" + name +
      "' is not an ISA level this CPU supports (supported: " + supported_list() + ")");
}

const Kernels& active() {
  static const Kernels& chosen = []() -> const Kernels& {
    const char* forced = std::getenv("NPUSIM_ISA");
    if (forced && *forced) return kernels_for(parse_isa(forced));
    return kernels_for(supported_isas().back());
  }();
  return chosen;
}

}  // namespace npusim::int8_kernels
