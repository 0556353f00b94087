// Figures the docs quote from commands stay true: each case runs the command
// a doc prints and requires the doc to hold the summary lines it gives now,
// verbatim (docs/guide.md, docs/dram.md). A change that moves a quoted figure
// fails here until the doc says the new one.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/test_support.h"

namespace {

const std::string kDocsSource = NPUSIM_SOURCE_DIR;

// The lines of `out` that start with one of `prefixes`.
std::vector<std::string> lines_starting(const std::string& out,
                                        const std::vector<std::string>& prefixes) {
  std::vector<std::string> found;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    for (const std::string& p : prefixes)
      if (line.rfind(p, 0) == 0) found.push_back(line);
  return found;
}

// Runs `args` and requires `doc` to hold each of its lines that start with `prefixes`.
void check_quoted(const std::string& doc, const std::string& args,
                  const std::vector<std::string>& prefixes) {
  const npusim::test::CliResult r = npusim::test::run_cli(args);
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = npusim::test::read_text_file(kDocsSource + "/" + doc);
  const std::vector<std::string> lines = lines_starting(r.out, prefixes);
  REQUIRE(lines.size() == prefixes.size());
  for (const std::string& line : lines) {
    INFO(doc << " should quote: " << line);
    CHECK(text.find(line) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("docs/guide.md quotes the TPU v1-shaped design's run as it is now", "[docs][slow]") {
  check_quoted("docs/guide.md",
               "run " + kDocsSource + "/configs/networks/resnet18_full.json --hw " + kDocsSource +
                   "/configs/hw/tpu_v1_like.json --timing-only",
               {"total cycles", "bounds", "MAC utilisation", "DRAM   ", "cache    "});
}

TEST_CASE("docs/guide.md quotes the edge design's run as it is now", "[docs][slow]") {
  check_quoted("docs/guide.md",
               "run " + kDocsSource + "/configs/networks/resnet18_full.json --hw " + kDocsSource +
                   "/configs/hw/edge_npu.json --timing-only",
               {"total cycles", "bounds", "MAC utilisation", "DRAM banks", "DRAM channels"});
}

TEST_CASE("docs/dram.md quotes ResNet-18 on LPDDR5-6400 as it is now", "[docs][slow]") {
  check_quoted("docs/dram.md",
               "run " + kDocsSource +
                   "/configs/networks/resnet18.json --timing-only --set dram.preset=lpddr5_6400",
               {"DRAM banks", "DRAM channels"});
}

TEST_CASE("docs/dram.md quotes ResNet-18's channels on HBM3 as they are now", "[docs][slow]") {
  check_quoted("docs/dram.md",
               "run " + kDocsSource +
                   "/configs/networks/resnet18.json --timing-only --wide --set dram.preset=hbm3",
               {"DRAM channels", "channel  "});
}

TEST_CASE(
    "README and docs/energy.md quote the summary of `make run` (the default run) as it is now",
    "[docs][slow]") {
  check_quoted("README.md", "run",
               {"total cycles", "bounds", "MAC utilisation", "DRAM   ", "cache    ", "energy  ",
                "leakage ", "area    ", "outputs:"});
  check_quoted("docs/energy.md", "run --timing-only", {"energy  ", "leakage "});
}

TEST_CASE("README's tutorial quotes the diff of the 32x32 and 64x64 designs as it is now",
          "[docs][slow]") {
  const std::string dir = npusim::test::temp_dir() + "/readme_diff";
  for (const auto& [name, rows, kib] : {std::tuple<const char*, int, int>{"r32", 32, 512},
                                        std::tuple<const char*, int, int>{"r64", 64, 256}}) {
    const npusim::test::CliResult r = npusim::test::run_cli(
        "run -q --timing-only --set compute.array_rows=" + std::to_string(rows) +
        " --set compute.array_cols=" + std::to_string(rows) +
        " --set cache.size_kib=" + std::to_string(kib) + " --out " + dir + "/" + name);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  check_quoted("README.md", "diff " + dir + "/r32 " + dir + "/r64 --labels 32x32,64x64",
               {"conv1 ", "layer4.1.conv2 ", "total "});
}

TEST_CASE(
    "docs/decoders.md quotes the test decoder's and one TinyLlama layer's figures as they are now",
    "[docs][slow]") {
  const std::vector<std::string> lines = {"first token", "decode per token", "tokens per second"};
  check_quoted("docs/decoders.md",
               "run " + kDocsSource + "/tests/data/transformer/decode_p32_d4.json --timing-only",
               lines);
  check_quoted("docs/decoders.md",
               "run " + kDocsSource + "/configs/networks/tinyllama_layer.json --timing-only",
               lines);
}
