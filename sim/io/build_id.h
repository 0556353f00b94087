// The build ID the linker wrote into the npusim binary (or library) this code was linked
// into: the GNU build-id note, unique to each build. A cache of what one build computed is
// named by it, so another build never reads it (sim/runner/kernel_summary_cache.h).
#pragma once

#include <string>

namespace npusim {

// The note's bytes as lower-case hex ("6958b26e..."), or "" when the object has none (a linker
// run without --build-id). Read once, from the loaded object's own program headers.
const std::string& build_id_hex();

}  // namespace npusim
