// The npusim executable's array new (sim/huge_page_arrays.cpp): 2 MiB and more on 2 MiB
// boundaries (where transparent huge pages can back them), any size usable and freed by
// delete[], and a request too large to round up refused rather than wrapped.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <new>

#include "sim/huge_page_arrays.h"

TEST_CASE(
    "array new of 2 MiB and more starts on a 2 MiB boundary, smaller arrays come from malloc, and "
    "every size is writable and freed by delete[]",
    "[huge_page_arrays]") {
  if (!npusim::huge_page_arrays_active()) {
    WARN("SKIPPED: sanitizer builds keep their runtime's operator new[]");
    return;
  }
  const uintptr_t two_mib = uintptr_t(2) << 20;
  for (const size_t bytes : {size_t(two_mib), size_t(0x300000), size_t(3 * two_mib + 1)}) {
    INFO("bytes " << bytes);
    char* p = new char[bytes];
    CHECK(reinterpret_cast<uintptr_t>(p) % two_mib == 0);
    std::memset(p, 0x5a, bytes);
    CHECK(p[bytes - 1] == 0x5a);
    delete[] p;
  }
  for (const size_t bytes : {size_t(0), size_t(1), size_t(100), size_t(two_mib - 1)}) {
    char* p = new char[bytes];
    REQUIRE(p != nullptr);
    if (bytes > 0) std::memset(p, 1, bytes);
    delete[] p;
  }
}

TEST_CASE("array new of a size within 2 MiB of the largest size_t throws bad_alloc",
          "[huge_page_arrays]") {
  if (!npusim::huge_page_arrays_active()) {
    WARN("SKIPPED: sanitizer builds keep their runtime's operator new[]");
    return;
  }
  // Through the replaceable function itself: a new-expression would check the size first.
  volatile size_t huge = SIZE_MAX - 1000;
  CHECK_THROWS_AS(operator new[](huge), std::bad_alloc);
  CHECK(operator new[](huge, std::nothrow) == nullptr);
}
