// Reads one JSON object field by field with pointer-precise errors: every read
// checks type and range, remembers the key as known, and finish() rejects any
// key nobody asked for, suggesting the nearest known one. Every failure throws
// ConfigError(file, JSON pointer, expected, found[, nearest key]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace npusim {

// `base` + "/" + `token`, escaping "~" and "/" as RFC 6901 requires.
std::string json_pointer_append(const std::string& base, const std::string& token);

// A short human description of a JSON value for the "found" part of an error:
// `number 5`, `floating-point number 2.5`, `string "abc"`, `array of 3 elements`.
std::string describe_json(const nlohmann::json& value);

// Damerau-Levenshtein distance (adjacent transpositions cost 1).
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `key`, or "" when none is close enough to be a typo.
std::string nearest_key(const std::string& key, const std::vector<std::string>& candidates);

// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or code points > U+10FFFF),
// as every text that reaches a JSON report must be.
bool valid_utf8(const std::string& s);

// `s` for a message: printable ASCII as is, any other byte as \xHH, at most 80 bytes shown.
std::string escaped_bytes(const std::string& s);

// Value-level checks, for array elements and values that are not object fields.
uint64_t expect_uint(const nlohmann::json& value, const std::string& file,
                     const std::string& pointer, uint64_t min, uint64_t max);
std::string expect_string(const nlohmann::json& value, const std::string& file,
                          const std::string& pointer, const std::string& expected = "string");

class JsonReader {
 public:
  // Throws ConfigError unless `object` is a JSON object. `object` must outlive the reader.
  JsonReader(const nlohmann::json& object, std::string file, std::string pointer = {});

  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  // The pointer of one of this object's fields.
  std::string pointer_to(const std::string& key) const;

  // Marks `key` as known and returns its value, or nullptr when absent.
  const nlohmann::json* find(const std::string& key);
  bool has(const std::string& key) const;

  // Typed reads. `get_*` return `fallback` when the key is absent; `require_*`
  // fail when it is absent. Integers reject floats, strings and values outside
  // [min, max] (so negatives are rejected wherever min >= 0).
  uint64_t get_uint(const std::string& key, uint64_t min, uint64_t max, uint64_t fallback);
  uint64_t require_uint(const std::string& key, uint64_t min, uint64_t max);
  // A number (integer or floating-point) with min < value <= max.
  double get_positive_number(const std::string& key, double max, double fallback);
  // A number (integer or floating-point) with min <= value <= max.
  double get_number(const std::string& key, double min, double max, double fallback);
  bool get_bool(const std::string& key, bool fallback);
  std::string get_string(const std::string& key, const std::string& fallback);
  std::string require_string(const std::string& key);
  // One of `choices`; returns its index.
  std::size_t get_choice(const std::string& key, const std::vector<std::string>& choices,
                         std::size_t fallback);
  std::size_t require_choice(const std::string& key, const std::vector<std::string>& choices);

  // Throws ConfigError at this object's `key` (or at the object itself when `key` is empty).
  [[noreturn]] void fail(const std::string& key, const std::string& expected,
                         const std::string& found) const;

  // Rejects every key that no read or find() asked for.
  void finish() const;

 private:
  const nlohmann::json& object_;
  std::string file_;
  std::string pointer_;
  std::vector<std::string> known_;  // in the order asked for, which is the documented order
};

// Limits on JSON input (docs/robustness.md#limits). Parsing is iterative, but
// copying, comparing, dumping and destroying a JSON value recurse once per
// level, so nesting is capped wherever JSON enters: 128 levels is far more
// than any npusim file uses (a graph workload needs 5).
constexpr std::size_t kMaxJsonDepth = 128;
// A key longer than this gets no "did you mean" (edit distance is quadratic).
constexpr std::size_t kMaxSuggestedKeyLength = 64;

// Parses JSON text read from `origin` (a file name, "file:line", ...). Beyond
// plain JSON it rejects, as a ConfigError naming `origin`, the JSON pointer,
// and the line and column: a syntax error; nesting deeper than kMaxJsonDepth;
// and an object that holds a key twice (the pointer of the key, and the lines
// and columns of both occurrences), which would otherwise silently keep the
// last value.
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);

// Throws ConfigError(file, pointer of the first too-deep value, ...) when
// `value` nests deeper than kMaxJsonDepth (containers count one level each).
// Iterative: safe on any depth. For JSON that did not come from
// parse_json_text (built in memory, or handed over by a caller).
void check_json_depth(const nlohmann::json& value, const std::string& file,
                      const std::string& pointer = {});

// The bytes of an input file. A missing or unreadable path, a directory or
// another non-regular file, or a file larger than `max_bytes` becomes a
// ConfigError naming `path`; `what` says what the file should be ("a readable
// JSON file").
std::string read_input_file(const std::string& path, const std::string& what,
                            uint64_t max_bytes = uint64_t(1) << 30);

// Reads and parses a JSON file with parse_json_text; a missing file, a syntax
// error (with its line and column), a duplicate key or too deep nesting
// becomes a ConfigError naming `path`.
nlohmann::json load_json_file(const std::string& path);

// Applies one command-line override `path=value` to a config before parsing.
// `path` is dotted ("compute.array_rows", "layers.3.stride") or a JSON pointer
// ("/compute/array_rows"). `value` is parsed as JSON when it is valid JSON
// (16, true, "x", [1,2]) and taken as a plain string otherwise (pingpong).
// Missing objects along the path are created; array indices must exist.
// Throws ConfigError(file, pointer, ...) for a malformed assignment.
void apply_override(nlohmann::json& config, const std::string& assignment, const std::string& file);
// The JSON pointer an override "path=value" sets ("/compute/array_rows"); "" when
// it has no path.
std::string override_pointer(const std::string& assignment);

}  // namespace npusim
