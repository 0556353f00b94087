#include "sim/io/keyed_file.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "sim/io/atomic_file.h"

namespace npusim {

std::optional<std::string> read_keyed_file(const std::string& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line) || line != key) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_keyed_file(const std::string& path, const std::string& key, std::string_view value) {
  std::string text;
  text.reserve(key.size() + 1 + value.size());
  text.append(key).append(1, '\n').append(value);
  try {
    write_file_atomically(path, text);
  } catch (const std::runtime_error&) {
    // A cache: the entry is worked out again next time.
  }
}

}  // namespace npusim
