#include "sim/program/line_fields.h"

#include <algorithm>

#include "sim/config/config_error.h"

namespace npusim {

using nlohmann::json;

// expect_uint with a reason appended to "expected" ("integer in 0..31 (K of layer conv1)").
uint64_t check_uint(const json& v, const std::string& file, const std::string& pointer,
                    uint64_t min, uint64_t max, const std::string& why) {
  try {
    return expect_uint(v, file, pointer, min, max);
  } catch (const ConfigError& e) {
    if (why.empty()) throw;
    throw ConfigError(e.file(), e.pointer(), e.expected() + " (" + why + ")", e.found());
  }
}

// A field in [min, max]; `fallback` (when given) makes it optional.
uint64_t field(JsonReader& r, const std::string& key, uint64_t min, uint64_t max,
               const std::string& why, std::optional<uint64_t> fallback) {
  const json* v = r.find(key);
  if (!v) {
    if (fallback) return *fallback;
    r.fail(key, "integer in " + std::to_string(min) + ".." + std::to_string(max), kMissing);
  }
  return check_uint(*v, r.file(), r.pointer_to(key), min, max, why);
}

// A field that must equal `want` (a sequence number or a derived value).
void field_equals(JsonReader& r, const std::string& key, uint64_t want, const std::string& why) {
  const json* v = r.find(key);
  const std::string expected = std::to_string(want) + " (" + why + ")";
  if (!v) r.fail(key, expected, kMissing);
  if ((!v->is_number_unsigned() && !v->is_number_integer()) || v->get<int64_t>() < 0 ||
      v->get<uint64_t>() != want)
    r.fail(key, expected, describe_json(*v));
}

// A half-open range [begin, end) with end <= limit; non-empty unless allow_empty.
std::pair<uint32_t, uint32_t> range_field(JsonReader& r, const std::string& key, uint64_t limit,
                                          bool allow_empty, const std::string& why,
                                          std::optional<std::pair<uint32_t, uint32_t>> fallback) {
  const json* v = r.find(key);
  const std::string expected = "array [begin, end] of two integers (" + why + ")";
  if (!v) {
    if (fallback) return *fallback;
    r.fail(key, expected, kMissing);
  }
  if (!v->is_array() || v->size() != 2) r.fail(key, expected, describe_json(*v));
  const std::string p = r.pointer_to(key);
  const uint64_t gap = allow_empty ? 0 : 1;
  const uint64_t b = check_uint((*v)[0], r.file(), p + "/0", 0, limit - gap, why);
  const uint64_t e = check_uint((*v)[1], r.file(), p + "/1", b + gap, limit, why);
  return {static_cast<uint32_t>(b), static_cast<uint32_t>(e)};
}

// Marks every documented key as known, then rejects the others before any
// value is checked, so a misspelt optional key is reported as such.
void reject_unknown_keys(JsonReader& r, const std::vector<std::string>& keys) {
  for (const auto& key : keys) r.find(key);
  r.finish();
}

namespace {

std::string address_reason(uint64_t bytes, uint64_t dram_bytes, const std::string& what) {
  return what + "a " + std::to_string(bytes) +
         "-byte tensor must end within dram_bytes = " + std::to_string(dram_bytes);
}

}  // namespace

uint64_t tensor_address_at(const json& v, const std::string& file, const std::string& pointer,
                           uint64_t bytes, uint64_t dram_bytes, uint64_t& tensors_end,
                           const std::string& what) {
  const std::string why = address_reason(bytes, dram_bytes, what);
  if (bytes > dram_bytes)
    throw ConfigError(file, pointer, "an address (" + why + ")", "a tensor larger than DRAM");
  const uint64_t at = check_uint(v, file, pointer, 0, dram_bytes - bytes, why);
  tensors_end = std::max(tensors_end, at + bytes);
  return at;
}

uint64_t tensor_address(JsonReader& r, const std::string& key, uint64_t bytes, uint64_t dram_bytes,
                        uint64_t& tensors_end) {
  const json* v = r.find(key);
  if (v == nullptr) {
    const std::string why = address_reason(bytes, dram_bytes, {});
    if (bytes > dram_bytes) r.fail(key, "an address (" + why + ")", "a tensor larger than DRAM");
    field(r, key, 0, dram_bytes - bytes, why);  // throws: the key is missing
  }
  return tensor_address_at(*v, r.file(), r.pointer_to(key), bytes, dram_bytes, tensors_end);
}

LoopOrder read_loop_order(JsonReader& r, LoopOrder fallback) {
  const size_t index = r.get_choice("loop_order", {"weight_stationary", "feature_stationary"},
                                    fallback == LoopOrder::FeatureStationary ? 1 : 0);
  return index == 1 ? LoopOrder::FeatureStationary : LoopOrder::WeightStationary;
}

}  // namespace npusim
