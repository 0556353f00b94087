// Files written whole or not at all, and never over an input. Every file npusim
// writes for a user (reports, .npy tensors, programs, traces, CSV and JUnit files)
// goes through here, so that a full disk, a size limit or a crash never leaves a
// torn or empty file where an earlier good one was: the bytes go to a temporary file
// beside the target, which is renamed over it only once it is complete and closed.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace npusim {

// Writes `bytes` to `path` (a file in an existing folder) through the temporary
// `path.tmp.<pid>`. On failure the temporary is removed, `path` keeps what it held
// before, and the std::runtime_error names `path` and the system's reason
// ("No space left on device", "File too large", "Permission denied", ...).
// A symbolic link stays a link: the file it leads to is replaced (through a temporary
// beside that file). A device, pipe or socket (/dev/stdout, /dev/null, a FIFO) is
// written in place, not replaced.
// `durable`: the bytes reach the disk (fsync) before the rename, for files a later
// process trusts after a power loss (a sweep's results and point records).
void write_file_atomically(const std::string& path, std::string_view bytes, bool durable = false);

// The same for a file written piece by piece through stream() (a report too large to
// hold as one string): the target keeps what it held until commit() renames the
// complete temporary over it; destroyed before commit() (an exception on the way),
// the temporary is removed. A write error surfaces at commit(), naming `path`.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path, bool durable = false);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  std::ostream& stream();
  void commit();

 private:
  class Buffer;
  std::string path_, target_, tmp_;  // tmp_ empty: written in place
  bool durable_;
  int fd_ = -1;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// Throws std::runtime_error when writing `output` (from option `option`, e.g.
// "--trace") would replace one of `inputs` (the same file, or a link to it). An
// empty `output` or "-" (standard output) and empty inputs are skipped.
void refuse_to_overwrite(const std::string& option, const std::string& output,
                         const std::vector<std::string>& inputs);

}  // namespace npusim
