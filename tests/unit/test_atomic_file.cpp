// Output files through links and into pipes (sim/io/atomic_file.h): a symbolic link the user
// points an output at stays a link, and a FIFO (what /dev/stdout leads to in a pipeline) is
// written in place rather than replaced by a plain file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "sim/io/atomic_file.h"
#include "tests/support/test_support.h"

using namespace npusim;
namespace fs = std::filesystem;

namespace {

// A fresh, empty folder under the test temp folder.
fs::path fresh_output_dir(const std::string& name) {
  const fs::path dir = fs::path(test::temp_dir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

size_t entries(const fs::path& dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE(
    "write_file_atomically: an output path that is a chain of symbolic links stays a chain and "
    "the file at its end, in another folder, gets the bytes",
    "[io]") {
  const fs::path dir = fresh_output_dir("atomic_links");
  fs::create_directories(dir / "real");
  std::ofstream(dir / "real" / "report.json") << "old";
  fs::create_symlink("real/report.json", dir / "inner");  // relative to the link's folder
  fs::create_symlink(dir / "inner", dir / "outer");       // absolute
  write_file_atomically((dir / "outer").string(), "new bytes");
  CHECK(fs::is_symlink(dir / "outer"));
  CHECK(fs::is_symlink(dir / "inner"));
  CHECK(test::read_text_file((dir / "real" / "report.json").string()) == "new bytes");
  // No temporary left behind, beside the links or the file.
  CHECK(entries(dir) == 3);
  CHECK(entries(dir / "real") == 1);
}

TEST_CASE(
    "write_file_atomically: a FIFO (what -o /dev/stdout leads to in a pipeline) is written in "
    "place and stays a FIFO",
    "[io]") {
  const fs::path dir = fresh_output_dir("atomic_fifo");
  const fs::path fifo = dir / "out.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The reading end first (not blocking), so that the writer's open finds a reader; the
  // bytes wait in the pipe's buffer. A writer that replaced the FIFO leaves it empty.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  write_file_atomically(fifo.string(), "through the pipe\n");
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  CHECK(std::string(buffer, size_t(std::max<ssize_t>(n, 0))) == "through the pipe\n");
  CHECK(fs::is_fifo(fifo));
  CHECK(entries(dir) == 1);
}

TEST_CASE(
    "AtomicFileWriter: a file streamed in pieces larger than its block replaces the old one "
    "only at commit, and one abandoned before commit leaves the old file and no temporary",
    "[io]") {
  const fs::path dir = fresh_output_dir("atomic_streamed");
  const fs::path path = dir / "report.json";
  std::ofstream(path) << "old";
  const std::string piece(100000, 'x');  // more than the 64 KiB the writer buffers
  {
    AtomicFileWriter file(path.string());
    file.stream() << piece << "|" << piece;
    CHECK(test::read_text_file(path.string()) == "old");  // not replaced before commit
    file.commit();
  }
  CHECK(test::read_text_file(path.string()) == piece + "|" + piece);
  CHECK(entries(dir) == 1);
  {
    AtomicFileWriter file(path.string());
    file.stream() << "half of a report";
    // destroyed without commit, as when the report's maker throws
  }
  CHECK(test::read_text_file(path.string()) == piece + "|" + piece);
  CHECK(entries(dir) == 1);
}
