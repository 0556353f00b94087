// Each kernel's non-zero coefficient count (zero-skip, seed 002), held once and shared: the
// operators of one weight region (a decoder's prefill and every decode step of a layer) and
// the counting cache all point at one immutable array instead of a copy each. Reads as a
// const std::vector<uint32_t>; a new array replaces it whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

namespace npusim {

class KernelCounts {
 public:
  KernelCounts() = default;
  // Takes the counts (implicit, so that an array of counts assigns as before).
  KernelCounts(std::vector<uint32_t> counts)  // NOLINT(google-explicit-constructor)
      : counts_(counts.empty() ? nullptr
                               : std::make_shared<const std::vector<uint32_t>>(std::move(counts))) {
  }
  KernelCounts(std::initializer_list<uint32_t> counts)
      : KernelCounts(std::vector<uint32_t>(counts)) {}

  const std::vector<uint32_t>& values() const { return counts_ ? *counts_ : empty_array(); }
  size_t size() const { return values().size(); }
  bool empty() const { return size() == 0; }
  uint32_t operator[](size_t k) const { return values()[k]; }
  uint32_t at(size_t k) const { return values().at(k); }
  std::vector<uint32_t>::const_iterator begin() const { return values().begin(); }
  std::vector<uint32_t>::const_iterator end() const { return values().end(); }
  // Whether two holders share one array (for tests of the sharing).
  bool shares_with(const KernelCounts& other) const {
    return counts_ != nullptr && counts_ == other.counts_;
  }

  friend bool operator==(const KernelCounts& a, const KernelCounts& b) {
    return a.counts_ == b.counts_ || a.values() == b.values();
  }
  friend bool operator!=(const KernelCounts& a, const KernelCounts& b) { return !(a == b); }

 private:
  static const std::vector<uint32_t>& empty_array() {
    static const std::vector<uint32_t> none;
    return none;
  }
  std::shared_ptr<const std::vector<uint32_t>> counts_;
};

}  // namespace npusim
