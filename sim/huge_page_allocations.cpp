// Allocations of 2 MiB and more come from transparent huge pages (part of the npusim executable
// and the unit tests only).
//
// Why: every page of fresh memory costs a page fault when first touched, and npusim touches
// large buffers once: the SystemC library allocates and zeroes a 3 MiB byte heap in a static
// initialiser (for temporaries of bit-vector concatenations, which npusim never uses) before
// main() runs, 768 faults or about 1.8 ms of every process (a tenth of a ResNet-50 timing-only
// run, paid again by every sweep point); a functional ResNet-50 run allocates about 100 MiB of
// tensors and DRAM image. On 2 MiB pages each costs a few faults. The library and the C++
// runtime reach operator new and new[] through the dynamic linker, so these replacements (the
// replaceable allocation functions, [replacement.functions]) serve them too.
//
// A large block starts on a huge page. Its last partial huge page is taken whole only when the
// block fills at least half of it (SystemC's 3 MiB heap: two faults, not 1 + 256); a smaller
// tail stays on 4 KiB pages (at most 255 faults more). So a block faults in at most 1 MiB more
// than it asks for: rounding every block up to whole huge pages took up to 2 MiB more each, and
// an ONNX ResNet-50's import peaked 5.5 MiB higher. Every new here comes from malloc or
// posix_memalign and every delete frees it, so the pairs stay consistent for tools that check
// allocation kinds (valgrind). Sanitizer builds keep their runtime's operators, which also check
// that each new meets its own delete. The aligned (align_val_t) forms are left to the C++ runtime.
#include "sim/huge_page_allocations.h"

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
#define NPUSIM_HUGE_PAGE_ALLOCATIONS 1
#include <sys/mman.h>

namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;
// Blocks above 32 MiB get no huge pages. Where the kernel compacts memory for a huge page at the
// fault (transparent_hugepage/defrag "madvise", Debian's default), every advised page past what
// is free costs a direct compaction: the whole TinyLlama's gigabyte of instructions and scheduler
// state, in blocks of up to 370 MiB, took 7 s of system time advised and under 1 s not
// (docs/performance.md#large-allocations-on-huge-pages). The blocks the advice is for (SystemC's
// heap, a layer's tensors, a functional run's DRAM image) are below the limit.
constexpr std::size_t kLargestAdvised = std::size_t(32) << 20;

// malloc, or huge pages for a large block; nullptr when memory is exhausted.
void* try_allocate(std::size_t bytes) {
  if (bytes >= kHugePage) {
    if (bytes > SIZE_MAX - kHugePage) return nullptr;  // the aligned block would wrap
    const std::size_t tail = bytes % kHugePage;
    const std::size_t taken = tail >= kHugePage / 2 ? bytes - tail + kHugePage : bytes;
    void* p = nullptr;
    if (posix_memalign(&p, kHugePage, taken) != 0) return nullptr;
    // A hint for the whole huge pages taken: else 4 KiB pages.
    if (taken <= kLargestAdvised) madvise(p, taken / kHugePage * kHugePage, MADV_HUGEPAGE);
    return p;
  }
  return std::malloc(bytes == 0 ? 1 : bytes);
}

// As the standard's operator new: ask the new-handler until memory comes, or throw.
void* allocate(std::size_t bytes) {
  for (;;) {
    if (void* p = try_allocate(bytes)) return p;
    const std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void* allocate_or_null(std::size_t bytes) noexcept {
  try {
    return allocate(bytes);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

}  // namespace

void* operator new(std::size_t bytes) { return allocate(bytes); }
void* operator new[](std::size_t bytes) { return allocate(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  return allocate_or_null(bytes);
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  return allocate_or_null(bytes);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif

bool npusim::huge_page_allocations_active() {
#ifdef NPUSIM_HUGE_PAGE_ALLOCATIONS
  return true;
#else
  return false;
#endif
}
