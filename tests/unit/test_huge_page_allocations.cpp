// The npusim executable's operator new and new[] (sim/huge_page_allocations.cpp): 2 MiB and
// more on 2 MiB boundaries (where transparent huge pages can back them), any size usable and
// freed by the matching delete, and a request too large to round up refused rather than
// wrapped.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "sim/huge_page_allocations.h"

namespace {
const uintptr_t kTwoMib = uintptr_t(2) << 20;
bool on_huge_page_boundary(const void* p) { return reinterpret_cast<uintptr_t>(p) % kTwoMib == 0; }
}  // namespace

TEST_CASE(
    "new and new[] of 2 MiB and more start on a 2 MiB boundary, smaller blocks come from "
    "malloc, and every size is writable and freed by its delete",
    "[huge_page_allocations]") {
  if (!npusim::huge_page_allocations_active()) {
    WARN("SKIPPED: sanitizer builds keep their runtime's operator new");
    return;
  }
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
  if (!npusim::huge_page_allocations_active()) {
    WARN("SKIPPED: sanitizer builds keep their runtime's operator new");
    return;
  }
  // Through the replaceable functions themselves: a new-expression would check the size first.
  volatile size_t huge = SIZE_MAX - 1000;
  CHECK_THROWS_AS(operator new(huge), std::bad_alloc);
  CHECK_THROWS_AS(operator new[](huge), std::bad_alloc);
  CHECK(operator new(huge, std::nothrow) == nullptr);
  CHECK(operator new[](huge, std::nothrow) == nullptr);
}
