// SHA-256 digests (through the nettle library), for cache keys too long to keep whole: an
// entry keeps its key's digest and compares it on every read (sim/runner/trial_choice_cache.h).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace npusim {

// The SHA-256 of the concatenation of `parts`, as 64 lower-case hex digits.
std::string sha256_hex(std::initializer_list<std::string_view> parts);

}  // namespace npusim
