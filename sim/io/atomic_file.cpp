#include "sim/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <streambuf>

namespace npusim {
namespace {

[[noreturn]] void fail(const std::string& path, const char* what, int error,
                       const std::string& tmp) {
  if (!tmp.empty()) ::unlink(tmp.c_str());
  throw std::runtime_error(path + ": cannot " + what + ": " + std::strerror(error));
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

// Collects what the stream writes and hands it to the file a block at a time; the
// first error is kept for commit() to report.
class AtomicFileWriter::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), block_(1 << 16) {
    setp(block_.data(), block_.data() + block_.size());
  }
  int error() const { return error_; }
  // Writes what is buffered; false (the error kept) when the file refuses it.
  bool drain() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        error_ = n < 0 ? errno : EIO;
      else
        p += n, left -= static_cast<std::size_t>(n);
    }
    setp(block_.data(), block_.data() + block_.size());
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  int fd_;
  std::vector<char> block_;
  int error_ = 0;
};

AtomicFileWriter::AtomicFileWriter(const std::string& path, bool durable)
    : path_(path), durable_(durable) {
  // A device, pipe or socket (-o /dev/stdout, /dev/null, a FIFO) is written in place: it holds
  // no earlier file to keep, and a rename would put a plain file where it was.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) fail(path, "write", errno, "");
  } else {
    target_ = link_target(path);
    tmp_ = target_ + ".tmp." + std::to_string(::getpid());
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) fail(path, "write", errno, "");
  }
  buffer_ = std::make_unique<Buffer>(fd_);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ < 0) return;
  ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

std::ostream& AtomicFileWriter::stream() { return *stream_; }

void AtomicFileWriter::commit() {
  const int fd = fd_;
  fd_ = -1;  // from here every way out closes it once
  const std::string tmp = tmp_;
  if (!buffer_->drain()) {
    ::close(fd);
    fail(path_, "write", buffer_->error(), tmp);
  }
  if (durable_ && !tmp.empty() && ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    fail(path_, "write", error, tmp);
  }
  // close() reports what a network or quota-limited file system defers to it.
  if (::close(fd) != 0) fail(path_, "write", errno, tmp);
  if (tmp.empty()) return;
  if (std::rename(tmp.c_str(), target_.c_str()) != 0) fail(path_, "replace", errno, tmp);
}

void write_file_atomically(const std::string& path, std::string_view bytes, bool durable) {
  AtomicFileWriter file(path, durable);
  file.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.commit();
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
