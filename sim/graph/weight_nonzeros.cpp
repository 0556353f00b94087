#include "sim/graph/weight_nonzeros.h"

#include <algorithm>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "sim/graph/op_table.h"

namespace npusim {

namespace {

// How many of `n` coefficients differ from `zero`: the baseline loop, and where the CPU has
// AVX2 one compare of 32 coefficients, its mask's population counted (the compiler's own
// vectorisation of the loop widens every comparison to 32 bits: over twice the instructions).
inline __attribute__((always_inline)) uint32_t count_unequal_body(const int8_t* p, uint64_t n,
                                                                  int8_t zero) {
  uint32_t count = 0;
  for (uint64_t i = 0; i < n; ++i) count += p[i] != zero;
  return count;
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,popcnt"))) uint32_t count_unequal_avx2(const int8_t* p, uint64_t n,
                                                                   int8_t zero) {
  const __m256i z = _mm256_set1_epi8(zero);
  uint64_t equal = 0, i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    equal += uint32_t(__builtin_popcount(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, z)))));
  }
  if (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    equal += uint32_t(__builtin_popcount(
        uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm256_castsi256_si128(z))))));
    i += 16;
  }
  return uint32_t(i - equal) + count_unequal_body(p + i, n - i, zero);
}
#endif

uint32_t count_unequal(const int8_t* p, uint64_t n, int8_t zero) {
#if defined(__x86_64__) || defined(__i386__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return count_unequal_avx2(p, n, zero);
#endif
  return count_unequal_body(p, n, zero);
}

}  // namespace

KernelNonzeroCounter::KernelNonzeroCounter(uint32_t K, uint64_t taps, bool by_column,
                                           const std::vector<int8_t>& zero_of_kernel)
    : K_(K), taps_(taps), by_column_(by_column), zeros_(zero_of_kernel), counts_(K, 0) {
  // A kernel's "zero" is its weight zero point (0 for plain int8 layers):
  // coefficients equal to it contribute (w - zp) = 0 and are skipped.
  zeros_.resize(K, 0);
}

void KernelNonzeroCounter::add(const int8_t* coefficients, uint64_t size) {
  if (K_ == 0 || taps_ == 0) return;
  const int8_t* p = coefficients;
  const int8_t* end = coefficients + size;
  if (!by_column_) {
    while (p < end) {  // the rest of kernel seen_ / taps, or as much of it as is here
      const uint64_t k = seen_ / taps_;
      const uint64_t n = std::min<uint64_t>(uint64_t(end - p), taps_ - seen_ % taps_);
      if (k >= K_) return;  // past the last kernel: not counted
      counts_[k] += count_unequal(p, n, zeros_[k]);
      p += n;
      seen_ += n;
    }
    return;
  }
  while (p < end) {  // the rest of the current row, from column seen_ % K
    const uint64_t from = seen_ % K_;
    const uint64_t n = std::min<uint64_t>(uint64_t(end - p), K_ - from);
    if (seen_ / K_ >= taps_) return;
    uint32_t* counts = counts_.data() + from;
    const int8_t* zeros = zeros_.data() + from;
    for (uint64_t f = 0; f < n; ++f) counts[f] += p[f] != zeros[f];
    p += n;
    seen_ += n;
  }
}

std::vector<uint32_t> count_kernel_nonzeros(const int8_t* weights, uint32_t K, uint64_t taps,
                                            const std::vector<int8_t>& zero_of_kernel) {
  KernelNonzeroCounter counter(K, taps, false, zero_of_kernel);
  counter.add(weights, uint64_t(K) * taps);
  return counter.counts();
}

std::vector<int8_t> kernel_zeros(const LayerConfig& layer) {
  std::vector<int8_t> zeros;
  if (layer.quantized)
    for (uint32_t k = 0; k < layer.K; ++k)
      zeros.push_back(int8_t(layer.quant.weight_zero_point_of(k)));
  return zeros;
}

SharedValues<uint32_t> model_weight_nonzeros(const LayerConfig& layer) {
  if (!runs_on_array(layer.op) || layer.is_binary() || layer.op == OpKind::BatchMatMul) return {};
  if (!layer.weight_nonzeros.empty())
    return layer.weight_nonzeros.size() == layer.K ? layer.weight_nonzeros
                                                   : SharedValues<uint32_t>{};
  const uint64_t taps = uint64_t(layer.R) * layer.S * layer.group_channels();
  if (layer.weight_values.empty() || layer.weight_values.size() != taps * layer.K) return {};
  return count_kernel_nonzeros(layer.weight_values.values().data(), layer.K, taps,
                               kernel_zeros(layer));
}

void keep_only_weight_nonzeros(LayerConfig& layer) {
  if (layer.weight_values.empty()) return;
  SharedValues<uint32_t> counts = model_weight_nonzeros(layer);
  if (counts.empty()) return;
  layer.weight_nonzeros = std::move(counts);
  layer.weight_values = {};
}

}  // namespace npusim
