// Array allocations of 2 MiB and more come from transparent huge pages (part of the npusim
// executable only).
//
// Why: the SystemC library allocates and zeroes a 3 MiB byte heap in a static initialiser (for
// temporaries of bit-vector concatenations, which npusim never uses) before main() runs. On
// 4 KiB pages that is 768 page faults, about 1.8 ms of every npusim process: a tenth of a
// ResNet-50 timing-only run, paid again by every sweep point and regression case. On huge pages
// it costs almost nothing. The library reaches operator new[] through the dynamic linker, so
// this replacement (a replaceable allocation function, [replacement.functions]) serves it.
//
// Every array new here comes from malloc or aligned_alloc and every array delete frees it, so
// the pair stays consistent for tools that check allocation kinds (valgrind). Sanitizer builds
// keep their runtime's operators, which also check that array new meets array delete.
#include "sim/huge_page_arrays.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__has_feature)  // clang names its sanitizers this way
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define NPUSIM_SANITIZED_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NPUSIM_SANITIZED_ALLOCATOR 1
#endif

#if defined(__linux__) && !defined(NPUSIM_SANITIZED_ALLOCATOR)
#define NPUSIM_HUGE_PAGE_ARRAYS 1
#include <sys/mman.h>

namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;

void* allocate_array(std::size_t bytes) {
  if (bytes > SIZE_MAX - kHugePage) throw std::bad_alloc();  // rounding up would wrap
  if (bytes >= kHugePage) {
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    if (void* p = std::aligned_alloc(kHugePage, rounded)) {
      madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without transparent huge pages, 4 KiB pages
      return p;
    }
  } else if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) {
    return p;
  }
  throw std::bad_alloc();
}

}  // namespace

void* operator new[](std::size_t bytes) { return allocate_array(bytes); }
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return allocate_array(bytes);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif

bool npusim::huge_page_arrays_active() {
#ifdef NPUSIM_HUGE_PAGE_ARRAYS
  return true;
#else
  return false;
#endif
}
