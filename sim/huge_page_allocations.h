// new and new[] of 2 MiB and more from transparent huge pages (sim/huge_page_allocations.cpp):
// why, and when it is compiled in.
#pragma once

namespace npusim {

// True where this build replaces operator new / delete (Linux, no sanitizer runtime).
bool huge_page_allocations_active();

}  // namespace npusim
