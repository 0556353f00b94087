#include "sim/config/config_error.h"

#include <utility>

namespace npusim {

namespace {

// At most 200 bytes of a text for a message, cut with "..." and the full length.
std::string cut(const std::string& text) {
  constexpr std::size_t kShown = 200;
  if (text.size() <= kShown) return text;
  return text.substr(0, kShown - 3) + "... (" + std::to_string(text.size()) + " bytes)";
}

std::string format_message(const std::string& file, const std::string& pointer,
                           const std::string& expected, const std::string& found,
                           const std::string& hint) {
  // The root's JSON pointer is the empty string; "(root)" reads better than "at :".
  // A pointer through a huge bad key is cut for the message (pointer() keeps it whole).
  // So is a "found" that quotes a huge value (a 1 MiB CSV cell or manifest string):
  // found() keeps it whole.
  const std::string shown = cut(pointer);
  std::string text = (file.empty() ? std::string("<config>") : file) + ": at " +
                     (shown.empty() ? std::string("(root)") : shown) + ": expected " + expected +
                     ", found " + cut(found);
  if (!hint.empty()) text += " (did you mean \"" + hint + "\"?)";
  return text;
}

}  // namespace

ConfigError::ConfigError(std::string file, std::string pointer, std::string expected,
                         std::string found, std::string hint)
    : std::runtime_error(format_message(file, pointer, expected, found, hint)),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      expected_(std::move(expected)),
      found_(std::move(found)),
      hint_(std::move(hint)) {}

}  // namespace npusim
