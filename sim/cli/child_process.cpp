#include "sim/cli/child_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace npusim::cli {

std::string self_path() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string line, word;
  while (std::getline(in, word, '\0')) {
    const bool plain = !word.empty() && word.find_first_not_of(
                                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-+=./,:@%") == std::string::npos;
    if (line.empty()) word = std::filesystem::path(word).filename().string();  // no host path
    line += (line.empty() ? "" : " ") + (plain ? word : shell_quote(word));
  }
  return line;
}

int run_child(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status == -1) throw std::runtime_error("cannot start: " + command);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "npusim-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary folder " + pattern);
  return pattern;
}

void make_parent_dirs(const std::string& file) {
  const std::filesystem::path parent = std::filesystem::path(file).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
}

void remove_dir(const std::string& dir) {
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace npusim::cli
