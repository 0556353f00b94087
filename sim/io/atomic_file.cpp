#include "sim/io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace npusim {
namespace {

[[noreturn]] void fail(const std::string& path, const char* what, int error,
                       const std::string& tmp) {
  if (!tmp.empty()) ::unlink(tmp.c_str());
  throw std::runtime_error(path + ": cannot " + what + ": " + std::strerror(error));
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes, bool durable) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail(path, "write", errno, "");
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      fail(path, "write", error, tmp);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (durable && ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    fail(path, "write", error, tmp);
  }
  // close() reports what a network or quota-limited file system defers to it.
  if (::close(fd) != 0) fail(path, "write", errno, tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(path, "replace", errno, tmp);
}

void refuse_to_overwrite(const std::string& option, const std::string& output,
                         const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!input.empty() && std::filesystem::equivalent(output, input, ec) && !ec)
      throw std::runtime_error(option + " " + output + ": refusing to overwrite " + input +
                               ", which this command reads; write the output elsewhere");
  }
}

}  // namespace npusim
