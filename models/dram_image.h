// The functional DRAM image's storage: a byte vector whose pages the operating
// system zeroes on first touch. std::vector<int8_t>(n, 0) writes every byte up
// front, so a program's whole address space became resident before the run
// (issue 21, item 3); calloc hands out untouched zero pages instead, and
// default-initialising construct() keeps the vector from writing them.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>
#include <vector>

namespace npusim {

template <class T>
struct LazyZeroAllocator {
  using value_type = T;
  LazyZeroAllocator() = default;
  template <class U>
  LazyZeroAllocator(const LazyZeroAllocator<U>&) {}

  T* allocate(std::size_t n) {
    void* p = std::calloc(n, sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { std::free(p); }
  // Default-initialise: the memory is already zero (calloc), so leave it untouched.
  template <class U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const LazyZeroAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const LazyZeroAllocator<U>&) const {
    return false;
  }
};

using DramImage = std::vector<int8_t, LazyZeroAllocator<int8_t>>;

}  // namespace npusim
