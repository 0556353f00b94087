// The build ID the kernel-count cache is named by (sim/io/build_id.h) is the one the linker
// wrote into this test binary, as readelf reads it from the file.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "sim/io/build_id.h"

namespace {

// "Build ID: <hex>" from `readelf -n FILE`, or "" when readelf gives none.
std::string readelf_build_id(const std::string& file) {
  FILE* pipe = ::popen(("readelf -n '" + file + "' 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return "";
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  ::pclose(pipe);
  const std::string label = "Build ID: ";
  const size_t at = text.find(label);
  if (at == std::string::npos) return "";
  const size_t begin = at + label.size();
  return text.substr(begin, text.find_first_of(" \r\n", begin) - begin);
}

}  // namespace

TEST_CASE("the build ID read from the loaded binary's notes is the one readelf reads from its file",
          "[build_id]") {
  char exe[4096] = {};
  REQUIRE(::readlink("/proc/self/exe", exe, sizeof exe - 1) > 0);
  const std::string expected = readelf_build_id(exe);
  if (expected.empty()) {
    WARN("SKIPPED: readelf -n gives no build ID for " << exe);
    return;
  }
  CHECK(npusim::build_id_hex() == expected);
  CHECK(&npusim::build_id_hex() == &npusim::build_id_hex());  // read once, kept
}
