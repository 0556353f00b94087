// Cache entries on disk: a file whose first line is its key, then its value. A reader compares
// the key line whole, so a file named by a hash of the key is never taken for another key's.
// Written whole or not at all (atomic_file.h). The kernel-count cache and the compile trials'
// kept choices keep their entries so (sim/runner/kernel_summary_cache.h, trial_choice_cache.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace npusim {

// The value of the entry at `path` when the file is there and its first line is `key`;
// nullopt otherwise.
std::optional<std::string> read_keyed_file(const std::string& path, const std::string& key);

// Writes `key`, a newline and `value` to `path` through a temporary renamed over it. A cache's
// entry: a folder that cannot be written only costs the saving, so nothing is thrown.
void write_keyed_file(const std::string& path, const std::string& key, std::string_view value);

}  // namespace npusim
