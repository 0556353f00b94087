// A digest of files' bytes, for cache keys that stand for the files (an ONNX model and its
// --input files: sim/runner/trial_choice_cache.h). XXH3's 128-bit hash (the xxHash library,
// header only): a model of 90 MB is read and digested in about a third of the time SHA-256
// takes, and an entry is told from another by its key, not by its digest being secret.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace npusim {

// The digest of the files `labelled` (label, path), each digested as its label, its size and
// its bytes (read 1 MiB at a time), so that no two lists of files run together into the same
// bytes, as 32 lower-case hex digits; "" when one cannot be read.
std::string files_digest_hex(const std::vector<std::pair<std::string, std::string>>& labelled);

}  // namespace npusim
