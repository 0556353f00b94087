#include "sim/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
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

// Writes all of `bytes` to `fd`; on an error closes it and fails (removing `tmp`).
void write_all(int fd, std::string_view bytes, const std::string& path, const std::string& tmp) {
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
}

// The file a chain of symbolic links at `path` ends at (`path` itself when it is no link):
// the link stays and its target is replaced, as writing through the link would. A link of a
// link of ... 40 deep is an error, as the system's own lookup makes it.
std::string link_target(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(p, ec) || ec) return p.string();
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) return p.string();
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  fail(path, "write", ELOOP, "");
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes, bool durable) {
  // A device, pipe or socket (-o /dev/stdout, /dev/null, a FIFO) is written in place: it holds
  // no earlier file to keep, and a rename would put a plain file where it was.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail(path, "write", errno, "");
    write_all(fd, bytes, path, "");
    if (::close(fd) != 0) fail(path, "write", errno, "");
    return;
  }
  const std::string target = link_target(path);
  const std::string tmp = target + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail(path, "write", errno, "");
  write_all(fd, bytes, path, tmp);
  if (durable && ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    fail(path, "write", error, tmp);
  }
  // close() reports what a network or quota-limited file system defers to it.
  if (::close(fd) != 0) fail(path, "write", errno, tmp);
  if (std::rename(tmp.c_str(), target.c_str()) != 0) fail(path, "replace", errno, tmp);
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
