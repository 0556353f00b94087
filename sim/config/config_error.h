// Typed error for every bad input: names the file, the JSON pointer, what was
// expected and what was found, so a user can fix the config without guessing.
#pragma once

#include <stdexcept>
#include <string>

namespace npusim {

class ConfigError : public std::runtime_error {
 public:
  // `hint` is the nearest valid key (or enum value) for a likely typo, else empty;
  // what() reads `<file>: at <pointer>: expected <expected>, found <found>`
  // followed by ` (did you mean "<hint>"?)` when a hint is given.
  ConfigError(std::string file, std::string pointer, std::string expected, std::string found,
              std::string hint = {});

  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }
  const std::string& hint() const { return hint_; }

 private:
  std::string file_, pointer_, expected_, found_, hint_;
};

}  // namespace npusim
