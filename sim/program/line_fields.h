// Reading numbers and ranges from one line of a program file (trace_io.h):
// each helper checks a key of a JSON object against its allowed range and
// throws ConfigError at "<file>:<line>" and the key's JSON pointer, saying
// what was expected and what was found.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"

namespace npusim {

inline const std::string kMissing = "nothing (the key is missing)";

// expect_uint with a reason appended to "expected" ("integer in 0..31 (K of layer conv1)").
uint64_t check_uint(const nlohmann::json& v, const std::string& file, const std::string& pointer,
                    uint64_t min, uint64_t max, const std::string& why);

// A field in [min, max]; `fallback` (when given) makes it optional.
uint64_t field(JsonReader& r, const std::string& key, uint64_t min, uint64_t max,
               const std::string& why = {}, std::optional<uint64_t> fallback = std::nullopt);

// A field that must equal `want` (a sequence number or a derived value).
void field_equals(JsonReader& r, const std::string& key, uint64_t want, const std::string& why);

// A half-open range [begin, end) with end <= limit; non-empty unless allow_empty.
std::pair<uint32_t, uint32_t> range_field(JsonReader& r, const std::string& key, uint64_t limit,
                                          bool allow_empty, const std::string& why,
                                          std::optional<std::pair<uint32_t, uint32_t>> fallback);

// The DRAM address of a `bytes`-byte tensor that must end within
// `dram_bytes`: value `v` at `pointer` (`what` prefixes the reason, e.g.
// "input \"x\": "). Raises `tensors_end` to the tensor's end.
uint64_t tensor_address_at(const nlohmann::json& v, const std::string& file,
                           const std::string& pointer, uint64_t bytes, uint64_t dram_bytes,
                           uint64_t& tensors_end, const std::string& what = {});
// The same for key `key` of `r` (required).
uint64_t tensor_address(JsonReader& r, const std::string& key, uint64_t bytes, uint64_t dram_bytes,
                        uint64_t& tensors_end);

// A layer line's optional "loop_order" (weight_stationary or
// feature_stationary; `auto` is a compiler setting, not a layer's order).
LoopOrder read_loop_order(JsonReader& r, LoopOrder fallback);

// Marks every documented key as known, then rejects the others before any
// value is checked, so a misspelt optional key is reported as such.
void reject_unknown_keys(JsonReader& r, const std::vector<std::string>& keys);

}  // namespace npusim
