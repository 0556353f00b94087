// The npusim executable's operator new and new[] (sim/huge_page_allocations.cpp): 2 MiB and
// more on 2 MiB boundaries (where transparent huge pages can back them), any size usable and
// freed by the matching delete, a request too large to align refused rather than wrapped, and
// the huge-page advice on a block's whole huge pages (its last partial one only when the block
// fills half of it).
#include <malloc.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "sim/huge_page_allocations.h"

namespace {
const uintptr_t kTwoMib = uintptr_t(2) << 20;
bool on_huge_page_boundary(const void* p) { return reinterpret_cast<uintptr_t>(p) % kTwoMib == 0; }

// Whether the mapping holding `p` is advised MADV_HUGEPAGE: its VmFlags in /proc/self/smaps
// name "hg".
bool advised_huge(const void* p) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-' && line.find(':') > 8) {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return (line + " ").find(" hg ") != std::string::npos;
    }
  }
  return false;
}

// Whether this build replaces operator new (else the test is skipped, saying why).
bool operators_replaced() {
  if (npusim::huge_page_allocations_active()) return true;
  WARN("SKIPPED: sanitizer builds keep their runtime's operator new");
  return false;
}
}  // namespace

TEST_CASE(
    "new and new[] of 2 MiB and more start on a 2 MiB boundary, smaller blocks come from "
    "malloc, and every size is writable and freed by its delete",
    "[huge_page_allocations]") {
  if (!operators_replaced()) return;
  for (const size_t bytes : {size_t(kTwoMib), size_t(0x300000), size_t(3 * kTwoMib + 1)}) {
    INFO("bytes " << bytes);
    char* array = new char[bytes];
    CHECK(on_huge_page_boundary(array));
    std::memset(array, 0x5a, bytes);
    CHECK(array[bytes - 1] == 0x5a);
    delete[] array;
    std::vector<uint8_t> tensor(bytes, 7);  // std::allocator: operator new
    CHECK(on_huge_page_boundary(tensor.data()));
    CHECK(tensor[bytes - 1] == 7);
  }
  for (const size_t bytes : {size_t(0), size_t(1), size_t(100), size_t(kTwoMib - 1)}) {
    char* array = new char[bytes];
    REQUIRE(array != nullptr);
    if (bytes > 0) std::memset(array, 1, bytes);
    delete[] array;
    auto single = std::make_unique<std::vector<char>>(bytes, char(2));
    CHECK(single->size() == bytes);
  }
}

TEST_CASE("new and new[] of a size within 2 MiB of the largest size_t throw bad_alloc",
          "[huge_page_allocations]") {
  if (!operators_replaced()) return;
  // Through the replaceable functions themselves: a new-expression would check the size first.
  volatile size_t huge = SIZE_MAX - 1000;
  CHECK_THROWS_AS(operator new(huge), std::bad_alloc);
  CHECK_THROWS_AS(operator new[](huge), std::bad_alloc);
  CHECK(operator new(huge, std::nothrow) == nullptr);
  CHECK(operator new[](huge, std::nothrow) == nullptr);
}

TEST_CASE(
    "a block of up to 32 MiB is advised onto huge pages and a larger one (a whole decoder's "
    "instructions) is not",
    "[huge_page_allocations]") {
  if (!operators_replaced()) return;
  const std::unique_ptr<char[]> small(new char[size_t(32) << 20]);
  const std::unique_ptr<char[]> large(new char[size_t(34) << 20]);
  CHECK(advised_huge(small.get()));
  CHECK(advised_huge(small.get() + (size_t(32) << 20) - 1));
  CHECK_FALSE(advised_huge(large.get()));
  CHECK_FALSE(advised_huge(large.get() + (size_t(34) << 20) - 1));
}

TEST_CASE(
    "a block's last partial huge page is advised only when the block fills half of it or more, "
    "so the last 0.5 MiB of a 2.5 MiB block and the last byte of a block one byte over 4 MiB stay "
    "on 4 KiB pages and a 3 MiB and a 3.5 MiB block are advised to their ends",
    "[huge_page_allocations]") {
  if (!operators_replaced()) return;
  // Each block a fresh mapping: a heap range advised for a block freed earlier in the process
  // keeps its advice, and malloc would serve large blocks from the heap once one was freed.
  // (The fixed threshold holds for the rest of the process: it only makes blocks mappings.)
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  const size_t quarter = kTwoMib / 4;  // 0.5 MiB
  const size_t short_bytes = kTwoMib + quarter;
  const std::unique_ptr<char[]> short_tail(new char[short_bytes]);
  CHECK(advised_huge(short_tail.get()));
  CHECK(advised_huge(short_tail.get() + kTwoMib - 1));
  CHECK_FALSE(advised_huge(short_tail.get() + kTwoMib));
  CHECK_FALSE(advised_huge(short_tail.get() + short_bytes - 1));
  const size_t over = 2 * kTwoMib + 1;
  const std::unique_ptr<char[]> odd(new char[over]);
  CHECK(advised_huge(odd.get() + 2 * kTwoMib - 1));
  CHECK_FALSE(advised_huge(odd.get() + over - 1));
  for (const size_t bytes : {kTwoMib + 2 * quarter, kTwoMib + 3 * quarter}) {
    INFO("bytes " << bytes);
    const std::unique_ptr<char[]> long_tail(new char[bytes]);
    CHECK(advised_huge(long_tail.get() + kTwoMib));
    CHECK(advised_huge(long_tail.get() + bytes - 1));
  }
}
