#include "sim/config/json_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "sim/config/config_error.h"

namespace npusim {

namespace {

using nlohmann::json;

std::string in_quotes(const std::string& text) { return "\"" + text + "\""; }

// A key as shown in a message: cut, so that one huge bad key cannot flood the terminal.
std::string short_key(const std::string& key) {
  return key.size() > 60 ? key.substr(0, 57) + "..." : key;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// A limit in a message: 100000 rather than json's 100000.0 for a whole number.
std::string number_text(double v) {
  if (std::fabs(v) < 9e15 && v == std::trunc(v)) return std::to_string(static_cast<int64_t>(v));
  return json(v).dump();
}

std::string uint_range_text(uint64_t min, uint64_t max) {
  if (max == std::numeric_limits<uint64_t>::max()) {
    return "integer >= " + std::to_string(min);
  }
  return "integer in " + std::to_string(min) + ".." + std::to_string(max);
}

std::string to_lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool is_decimal(const std::string& text) {
  return !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// RFC 6901: "~1" is "/", "~0" is "~" (a lone "~" is kept as is).
std::string unescape_pointer_token(const std::string& token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

}  // namespace

std::string json_pointer_append(const std::string& base, const std::string& token) {
  std::string escaped;
  for (char c : token) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped += c;
    }
  }
  return base + "/" + escaped;
}

std::string describe_json(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return std::string("boolean ") + (value.get<bool>() ? "true" : "false");
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "number " + value.dump();
    case json::value_t::number_float:
      return "floating-point number " + value.dump();
    case json::value_t::string: {
      // Long strings are cut so that one bad value cannot flood the terminal.
      std::string text = value.get<std::string>();
      if (text.size() > 40) text = text.substr(0, 37) + "...";
      return "string " + in_quotes(text);
    }
    case json::value_t::array:
      return value.empty() ? "empty array"
                           : "array of " + std::to_string(value.size()) +
                                 (value.size() == 1 ? " element" : " elements");
    case json::value_t::object:
      return "object";
    default:
      return "invalid value";
  }
}

bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t extra = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;  // cut short
    for (size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

std::string escaped_bytes(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < 80; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return s.size() > 80 ? out + "..." : out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: Levenshtein plus adjacent transposition ("arary" -> "array").
  // Three rolling rows: O(|b|) memory whatever the lengths (callers bound them too).
  std::vector<std::size_t> two_back(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], two_back[j - 2] + 1);
      }
    }
    std::swap(two_back, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest_key(const std::string& key, const std::vector<std::string>& candidates) {
  // Bounded work whatever the input: a 4 MiB bad key must not build a 4 MiB x n
  // table. A key far longer than every valid one is no typo of any of them.
  if (key.size() > kMaxSuggestedKeyLength) return {};
  // A different case is always a typo ("n" for "N", "Stride" for "stride").
  for (const auto& candidate : candidates) {
    if (candidate.size() == key.size() && to_lower(candidate) == to_lower(key)) return candidate;
  }
  // Otherwise allow about one edit per three characters; one-letter keys only
  // match by case, or every one-letter key would "suggest" every other one.
  if (key.size() <= 1) return {};
  const std::size_t allowed = key.size() <= 3 ? 1 : std::max<std::size_t>(2, key.size() / 3);
  std::string best;
  std::size_t best_distance = allowed + 1;
  for (const auto& candidate : candidates) {
    // The distance is at least the difference in length: skip hopeless (and long) candidates.
    const std::size_t gap = candidate.size() > key.size() ? candidate.size() - key.size()
                                                          : key.size() - candidate.size();
    if (gap > allowed) continue;
    const std::size_t distance = edit_distance(key, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

uint64_t expect_uint(const json& value, const std::string& file, const std::string& pointer,
                     uint64_t min, uint64_t max) {
  const std::string expected = uint_range_text(min, max);
  if (value.is_number_unsigned()) {
    const auto v = value.get<uint64_t>();
    if (v >= min && v <= max) return v;
  } else if (value.is_number_integer() && value.get<int64_t>() >= 0) {
    const auto v = static_cast<uint64_t>(value.get<int64_t>());
    if (v >= min && v <= max) return v;
  }
  throw ConfigError(file, pointer, expected, describe_json(value));
}

std::string expect_string(const json& value, const std::string& file, const std::string& pointer,
                          const std::string& expected) {
  if (!value.is_string()) throw ConfigError(file, pointer, expected, describe_json(value));
  return value.get<std::string>();
}

JsonReader::JsonReader(const json& object, std::string file, std::string pointer)
    : object_(object), file_(std::move(file)), pointer_(std::move(pointer)) {
  if (!object_.is_object()) {
    throw ConfigError(file_, pointer_, "object", describe_json(object_));
  }
}

std::string JsonReader::pointer_to(const std::string& key) const {
  return json_pointer_append(pointer_, key);
}

const json* JsonReader::find(const std::string& key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

bool JsonReader::has(const std::string& key) const { return object_.contains(key); }

void JsonReader::fail(const std::string& key, const std::string& expected,
                      const std::string& found) const {
  throw ConfigError(file_, key.empty() ? pointer_ : pointer_to(key), expected, found);
}

uint64_t JsonReader::get_uint(const std::string& key, uint64_t min, uint64_t max,
                              uint64_t fallback) {
  const json* value = find(key);
  return value ? expect_uint(*value, file_, pointer_to(key), min, max) : fallback;
}

uint64_t JsonReader::require_uint(const std::string& key, uint64_t min, uint64_t max) {
  const json* value = find(key);
  if (!value) fail(key, uint_range_text(min, max), "nothing (required key is missing)");
  return expect_uint(*value, file_, pointer_to(key), min, max);
}

double JsonReader::get_positive_number(const std::string& key, double max, double fallback) {
  const json* value = find(key);
  if (!value) return fallback;
  if (value->is_number()) {
    const auto v = value->get<double>();
    if (std::isnormal(v) && v > 0 && v <= max) return v;  // not a denormal
  }
  fail(key, "number > 0 and <= " + number_text(max), describe_json(*value));
}

double JsonReader::get_number(const std::string& key, double min, double max, double fallback) {
  const json* value = find(key);
  if (!value) return fallback;
  if (value->is_number()) {
    const auto v = value->get<double>();
    if (v >= min && v <= max) return v;
  }
  fail(key, "a number from " + number_text(min) + " to " + number_text(max), describe_json(*value));
}

bool JsonReader::get_bool(const std::string& key, bool fallback) {
  const json* value = find(key);
  if (!value) return fallback;
  if (!value->is_boolean()) fail(key, "boolean (true or false)", describe_json(*value));
  return value->get<bool>();
}

std::string JsonReader::get_string(const std::string& key, const std::string& fallback) {
  const json* value = find(key);
  return value ? expect_string(*value, file_, pointer_to(key)) : fallback;
}

std::string JsonReader::require_string(const std::string& key) {
  const json* value = find(key);
  if (!value) fail(key, "string", "nothing (required key is missing)");
  return expect_string(*value, file_, pointer_to(key));
}

std::size_t JsonReader::get_choice(const std::string& key, const std::vector<std::string>& choices,
                                   std::size_t fallback) {
  if (!has(key)) {
    find(key);  // still a known key
    return fallback;
  }
  return require_choice(key, choices);
}

std::size_t JsonReader::require_choice(const std::string& key,
                                       const std::vector<std::string>& choices) {
  // Written only for an error: a decoder's graph reads tens of thousands of choices.
  const auto expected = [&choices] {
    std::vector<std::string> quoted_choices;
    for (const auto& choice : choices) quoted_choices.push_back(in_quotes(choice));
    return "one of " + join(quoted_choices, ", ");
  };
  const json* value = find(key);
  if (!value) fail(key, expected(), "nothing (required key is missing)");
  if (value->is_string()) {
    const std::string& text = value->get_ref<const std::string&>();
    const auto it = std::find(choices.begin(), choices.end(), text);
    if (it != choices.end()) return static_cast<std::size_t>(it - choices.begin());
    throw ConfigError(file_, pointer_to(key), expected(), describe_json(*value),
                      nearest_key(text, choices));
  }
  fail(key, expected(), describe_json(*value));
}

void JsonReader::finish() const {
  for (const auto& item : object_.items()) {
    if (std::find(known_.begin(), known_.end(), item.key()) != known_.end()) continue;
    throw ConfigError(file_, pointer_to(item.key()), "one of the keys " + join(known_, ", "),
                      "unknown key " + in_quotes(short_key(item.key())),
                      nearest_key(item.key(), known_));
  }
}

namespace {

// A char iterator that records how far the parser has read, so that the
// parse callback can say where a key is (nlohmann's callback gets no position).
class TrackingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator() = default;
  TrackingIterator(const char* p, const char** seen) : p_(p), seen_(seen) {}
  reference operator*() const {
    *seen_ = p_;
    return *p_;
  }
  TrackingIterator& operator++() {
    ++p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator old = *this;
    ++p_;
    return old;
  }
  bool operator==(const TrackingIterator& other) const { return p_ == other.p_; }
  bool operator!=(const TrackingIterator& other) const { return p_ != other.p_; }

 private:
  const char* p_ = nullptr;
  const char** seen_ = nullptr;
};

// "line 3, column 12" of byte `offset` in `text` (both counted from 1, as
// nlohmann's syntax errors count them).
std::string line_column(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The open containers while parsing: per object its keys (with the byte
// offset where each was read) and the key being read; per array the index of
// the element being read.
struct Frame {
  bool is_object = false;
  std::unordered_map<std::string, std::size_t> keys;
  std::string key;
  std::size_t index = 0;
};

std::string frames_pointer(const std::vector<Frame>& frames, std::size_t count) {
  std::string pointer;
  for (std::size_t i = 0; i < count; ++i) {
    pointer = json_pointer_append(
        pointer, frames[i].is_object ? frames[i].key : std::to_string(frames[i].index));
  }
  return pointer;
}

// Builds the document with nlohmann's plain DOM builder, event by event, and checks
// each event first: nesting depth, and each key at most once per object. The
// callback parser (json::parse with a callback) would do the same checks but, after
// every object, scans the enclosing container for discarded values, which made
// reading N objects in one array take time in N^2 (400,000 took 25 s).
class CheckingSax {
 public:
  CheckingSax(json& result, const std::string& text, const std::string& origin, const char*& seen)
      : dom_(result), text_(text), origin_(origin), seen_(seen) {}

  bool null() { return value(dom_.null()); }
  bool boolean(bool v) { return value(dom_.boolean(v)); }
  bool number_integer(json::number_integer_t v) { return value(dom_.number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(dom_.number_unsigned(v)); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return value(dom_.number_float(v, s));
  }
  bool string(json::string_t& v) { return value(dom_.string(v)); }
  bool binary(json::binary_t& v) { return value(dom_.binary(v)); }
  bool start_object(std::size_t n) {
    open(true);
    return dom_.start_object(n);
  }
  bool start_array(std::size_t n) {
    open(false);
    return dom_.start_array(n);
  }
  bool end_object() { return close(dom_.end_object()); }
  bool end_array() { return close(dom_.end_array()); }
  bool key(json::string_t& k) {
    Frame& frame = frames_.back();
    frame.key = k;
    // The key's closing quote is the last character read; point at its opening one
    // (a key written with escapes keeps the closing quote's place).
    std::size_t at = offset();
    if (at >= frame.key.size() + 1 && text_[at - frame.key.size() - 1] == '"')
      at -= frame.key.size() + 1;
    const auto [it, inserted] = frame.keys.emplace(frame.key, at);
    if (!inserted) {
      throw ConfigError(
          origin_, frames_pointer(frames_, frames_.size()), "each key at most once in an object",
          "\"" + short_key(frame.key) + "\" twice: at " + line_column(text_, it->second) +
              " and again at " + line_column(text_, at) + " (the same pointer)");
    }
    return dom_.key(k);
  }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& e) {
    return dom_.parse_error(position, last_token, e);  // throws it
  }

 private:
  std::size_t offset() const { return static_cast<std::size_t>(seen_ - text_.data()); }
  // The value just completed is one more element of an enclosing array.
  bool value(bool ok) {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
    return ok;
  }
  void open(bool is_object) {
    if (frames_.size() >= kMaxJsonDepth) {
      throw ConfigError(origin_, frames_pointer(frames_, frames_.size()),
                        "JSON nested at most " + std::to_string(kMaxJsonDepth) + " levels deep",
                        "deeper nesting at " + line_column(text_, offset()));
    }
    frames_.emplace_back();
    frames_.back().is_object = is_object;
  }
  bool close(bool ok) {
    frames_.pop_back();
    return value(ok);
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const std::string& text_;
  const std::string& origin_;
  const char*& seen_;
  std::vector<Frame> frames_;
};

}  // namespace

json parse_json_text(const std::string& text, const std::string& origin) {
  const char* seen = text.data();
  const auto offset = [&] { return static_cast<std::size_t>(seen - text.data()); };
  json result;
  CheckingSax sax(result, text, origin, seen);
  try {
    json::sax_parse(TrackingIterator(text.data(), &seen),
                    TrackingIterator(text.data() + text.size(), &seen), &sax);
    return result;
  } catch (const json::exception& e) {
    // A syntax error (parse_error), or a number too large for a double
    // (out_of_range 406, found by fuzzing: "1e400" escaped as a raw json error).
    // e.what() is "[json.exception.parse_error.101] parse error at line 3, column 5: ...";
    // keep the part after the bracketed id, and say where when nlohmann does not.
    std::string message = e.what();
    const auto bracket = message.find("] ");
    if (bracket != std::string::npos) message = message.substr(bracket + 2);
    if (message.find("at line ") == std::string::npos)
      message += " at " + line_column(text, offset());
    throw ConfigError(origin, "", "valid JSON", message);
  }
}

void check_json_depth(const json& value, const std::string& file, const std::string& pointer) {
  // Depth-first with an explicit stack of (value, depth, pointer).
  struct Item {
    const json* value;
    std::size_t depth;
    std::string pointer;
  };
  std::vector<Item> stack{{&value, 0, pointer}};
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    if (!item.value->is_structured()) continue;
    if (item.depth >= kMaxJsonDepth) {
      throw ConfigError(file, item.pointer,
                        "JSON nested at most " + std::to_string(kMaxJsonDepth) + " levels deep",
                        "deeper nesting");
    }
    if (item.value->is_object()) {
      for (const auto& child : item.value->items()) {
        if (child.value().is_structured())
          stack.push_back(
              {&child.value(), item.depth + 1, json_pointer_append(item.pointer, child.key())});
      }
    } else {
      for (std::size_t i = 0; i < item.value->size(); ++i) {
        const json& child = (*item.value)[i];
        if (child.is_structured())
          stack.push_back(
              {&child, item.depth + 1, json_pointer_append(item.pointer, std::to_string(i))});
      }
    }
  }
}

std::string read_input_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
  if (path.empty()) throw ConfigError("<empty path>", "", what, "an empty file name");
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status)) {
    throw ConfigError(path, "", what, "a file that cannot be opened");
  }
  if (std::filesystem::is_directory(status)) throw ConfigError(path, "", what, "a directory");
  if (!std::filesystem::is_regular_file(status)) {
    throw ConfigError(path, "", what, "not a regular file");
  }
  const uint64_t size = std::filesystem::file_size(path, error);
  if (!error && size > max_bytes) {
    throw ConfigError(path, "", what + " of at most " + std::to_string(max_bytes) + " bytes",
                      std::to_string(size) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "", what, "a file that cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path, "", what, "a file that cannot be read");
  return text.str();
}

json load_json_file(const std::string& path) {
  return parse_json_text(read_input_file(path, "a readable JSON file"), path);
}

namespace {

// An override's path split into keys ("a.b.c" or "/a/b/c", RFC 6901 escapes
// allowed in the second); throws ConfigError from `file` on an empty key.
std::vector<std::string> override_tokens(const std::string& path, const std::string& file) {
  std::vector<std::string> tokens;
  const bool is_pointer = path[0] == '/';
  const char separator = is_pointer ? '/' : '.';
  std::size_t start = is_pointer ? 1 : 0;
  while (true) {
    const auto end = path.find(separator, start);
    std::string token = path.substr(start, end == std::string::npos ? end : end - start);
    if (token.empty()) {
      throw ConfigError(file, "", "an override path of non-empty keys separated by \".\" or \"/\"",
                        in_quotes(path));
    }
    if (is_pointer) token = unescape_pointer_token(token);
    tokens.push_back(std::move(token));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return tokens;
}

}  // namespace

std::string override_pointer(const std::string& assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) return "";
  std::string pointer;
  for (const std::string& token : override_tokens(assignment.substr(0, equals), ""))
    pointer = json_pointer_append(pointer, token);
  return pointer;
}

void apply_override(json& config, const std::string& assignment, const std::string& file) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw ConfigError(file, "", "an override path=value (e.g. compute.array_rows=16)",
                      in_quotes(assignment) + (equals == 0 ? " (empty path)" : " (no \"=\")"));
  }
  const std::string path = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  const std::vector<std::string> tokens = override_tokens(path, file);

  // The value is JSON when it parses as JSON, else a bare string (--set buffering=single).
  // JSON values go through the same depth and duplicate-key checks as files.
  json value =
      json::accept(text) ? parse_json_text(text, file + " (override " + path + ")") : json(text);

  json* node = &config;
  std::string pointer;
  for (const std::string& token : tokens) {
    if (node->is_null()) *node = json::object();
    json* child = nullptr;
    if (node->is_object()) {
      child = &(*node)[token];
    } else if (node->is_array()) {
      if (!is_decimal(token) || std::stoul(token) >= node->size()) {
        throw ConfigError(
            file, json_pointer_append(pointer, token),
            "an index of an existing element (the array has " + std::to_string(node->size()) + ")",
            in_quotes(token));
      }
      child = &(*node)[std::stoul(token)];
    } else {
      throw ConfigError(file, pointer, "an object to hold " + in_quotes(token) + " (override path)",
                        describe_json(*node));
    }
    pointer = json_pointer_append(pointer, token);
    node = child;
  }
  *node = std::move(value);
}

}  // namespace npusim
