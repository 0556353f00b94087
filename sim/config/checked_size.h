// Overflow-checked size arithmetic for numbers that come from users: a tensor
// of 65536^4 elements must read as "too large", never wrap around to 0
// (docs/robustness.md#limits).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

namespace npusim {

// Limits on workload numbers, shared by every workload parser: a typo must not
// become a multi-GiB allocation.
constexpr uint64_t kMaxDim = 65536;  // any one dimension
constexpr uint64_t kMaxSeed = std::numeric_limits<uint64_t>::max();

// The product of `factors`, or UINT64_MAX when it does not fit in 64 bits
// (so any limit check against it fails).
inline uint64_t saturating_product(std::initializer_list<uint64_t> factors) {
  uint64_t product = 1;
  for (uint64_t f : factors) {
    if (__builtin_mul_overflow(product, f, &product)) return std::numeric_limits<uint64_t>::max();
  }
  return product;
}

// a + b, or UINT64_MAX when the sum does not fit.
inline uint64_t saturating_sum(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<uint64_t>::max() : sum;
}

// "2*3*4 = 24", or "65536*65536*65536*65536 = more than 2^64 - 1" when it overflows.
inline std::string product_text(std::initializer_list<uint64_t> factors,
                                const std::string& unit = "") {
  std::string text;
  for (uint64_t f : factors) text += (text.empty() ? "" : "*") + std::to_string(f);
  const uint64_t product = saturating_product(factors);
  const bool overflow = product == std::numeric_limits<uint64_t>::max();
  return text + " = " + (overflow ? std::string("more than 2^64 - 1") : std::to_string(product)) +
         (unit.empty() ? "" : " " + unit);
}

}  // namespace npusim
