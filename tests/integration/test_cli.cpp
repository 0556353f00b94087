// The npusim command line as a user drives it: exit codes, error messages
// that name file and JSON pointer, and comparisons that need two runs (two
// processes, since SystemC elaborates once per process).
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/support/test_support.h"

using npusim::test::run_cli;
using npusim::test::run_report;
using npusim::test::write_temp_file;

namespace {

const char* kBalancedLayer =
    R"({"type":"conv2d","name":"balanced","C":64,"H":28,"W":28,"K":32,"R":1,"S":1})";

uint64_t total_cycles(const nlohmann::json& report) {
  return report.at("totals").at("cycles").get<uint64_t>();
}

}  // namespace

TEST_CASE("help explains every run option", "[cli]") {
  const auto top = run_cli("--help");
  CHECK(top.exit_code == 0);
  CHECK_THAT(top.out, Catch::Contains("run"));
  const auto run = run_cli("run --help");
  CHECK(run.exit_code == 0);
  for (const char* option : {"--hw", "--out", "--set", "--policy", "--buffering", "--timing-only",
                             "--save-outputs", "--quiet"})
    CHECK_THAT(run.out, Catch::Contains(option));
}

TEST_CASE("ping-pong buffering beats single buffering when load and compute balance", "[cli]") {
  const std::string layer = write_temp_file("balanced.json", kBalancedLayer);
  // A small cache cuts the layer into several pieces, so there is overlap to win.
  const std::string hw = "--set cache.size_kib=64 ";
  const uint64_t pingpong = total_cycles(run_report("run " + layer + " " + hw));
  const uint64_t single =
      total_cycles(run_report("run " + layer + " " + hw + "--buffering single"));
  INFO("pingpong " << pingpong << " single " << single);
  CHECK(pingpong < single);
}

TEST_CASE("timing-only mode gives the same cycles as the functional run", "[cli]") {
  const std::string net = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/tiny3.json";
  const auto functional = run_report("run " + net);
  const auto timing = run_report("run " + net + " --timing-only");
  CHECK(total_cycles(functional) == total_cycles(timing));
  CHECK(functional.at("layers").size() == timing.at("layers").size());
}

TEST_CASE("bad inputs give a clear error and exit code 2", "[cli]") {
  struct Case {
    const char* name;
    const char* json;
    const char* extra;     // more command-line arguments
    const char* expected;  // text the error must contain
  };
  const Case cases[] = {
      {"unknown_key", R"({"type":"conv2d","C":3,"H":8,"W":8,"K":4,"R":3,"S":3,"strde":2})", "",
       "/strde"},
      {"wrong_type", R"({"type":"conv2d","C":"three","H":8,"W":8,"K":4,"R":3,"S":3})", "", "/C"},
      {"negative", R"({"type":"conv2d","C":3,"H":-8,"W":8,"K":4,"R":3,"S":3})", "", "/H"},
      {"float_dim", R"({"type":"conv2d","C":3,"H":8.5,"W":8,"K":4,"R":3,"S":3})", "", "/H"},
      {"missing_dim", R"({"type":"conv2d","C":3,"H":8,"W":8,"R":3,"S":3})", "", "K"},
      {"kernel_too_big", R"({"type":"conv2d","C":3,"H":4,"W":4,"K":4,"R":7,"S":7})", "", "/R"},
      {"huge_tensor", R"({"type":"conv2d","C":4096,"H":65536,"W":65536,"K":4,"R":1,"S":1})", "",
       "/"},
      {"bad_dtype", R"({"type":"conv2d","C":3,"H":8,"W":8,"K":4,"R":3,"S":3,"dtype":"fp64"})", "",
       "/dtype"},
      {"empty_network", R"({"name":"n","layers":[]})", "", "/layers"},
      {"syntax", R"({"type":"conv2d", "C": 3,,})", "", "syntax.json"},
      {"bad_override", R"({"type":"conv2d","C":3,"H":8,"W":8,"K":4,"R":3,"S":3})",
       "--set compute.array_rows=0", "/compute/array_rows"},
      {"bad_hw_key", R"({"type":"conv2d","C":3,"H":8,"W":8,"K":4,"R":3,"S":3})",
       "--set cache.size_kb=4", "/cache/size_kb"},
      // 4 KiB: one 3x3x512 kernel (4608 B) exceeds the 2 KiB weight region, and in parts of
      // one channel an output row (3 input rows of 512 B, 510 int32 sums) a 960 B half.
      {"cache_too_small", R"({"type":"conv2d","C":512,"H":64,"W":512,"K":8,"R":3,"S":3})",
       "--set cache.size_kib=4", "in kernel parts of one channel, one output row"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      const std::string path = write_temp_file(std::string(c.name) + ".json", c.json);
      const auto r = run_cli("run -q " + path + " " + c.extra);
      INFO("stderr: " << r.err);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err, Catch::StartsWith("error:") && Catch::Contains(c.expected));
    }
  }
}

TEST_CASE("a missing config file is reported, not crashed on", "[cli]") {
  const auto r = run_cli("run -q does-not-exist.json");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("does-not-exist.json"));
}

TEST_CASE("comparing policies prints both and the gain", "[cli]") {
  const std::string net = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/tiny3.json";
  const std::string trace = npusim::test::temp_dir() + "/cmp.json";
  const auto r = run_cli("run -q " + net +
                         " --compare-policies --set compute.accumulator_kib=4 --trace " + trace);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("strict") && Catch::Contains("early") &&
                        Catch::Contains("gain") && Catch::Contains("total"));
  CHECK_THAT(r.out, !Catch::Contains("bit-exact"));  // the children's tables stay in their logs
  for (const char* policy : {"strict", "early"}) {
    std::ifstream in(npusim::test::temp_dir() + "/cmp." + policy + ".json");
    CHECK(in.good());
  }
}

TEST_CASE(
    "a JSON run does not load libonnx, and without the ONNX module an .onnx workload is a clear "
    "error",
    "[cli]") {
  // The dynamic loader lists every library it loads under LD_DEBUG=libs.
  const auto json_run = run_cli("run -q --timing-only configs/layers/conv1x1.json");
  REQUIRE(json_run.exit_code == 0);
  const std::string log = npusim::test::temp_dir() + "/ld.log";
  const std::string command = std::string("LD_DEBUG=libs LD_DEBUG_OUTPUT=") + log + " " +
                              NPUSIM_BINARY + " run -q --timing-only configs/layers/conv1x1.json" +
                              " > /dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  std::string loaded;
  for (const auto& entry : std::filesystem::directory_iterator(npusim::test::temp_dir()))
    if (entry.path().filename().string().rfind("ld.log", 0) == 0) {
      std::ifstream in(entry.path());
      loaded += std::string((std::istreambuf_iterator<char>(in)), {});
    }
  CHECK_THAT(loaded, Catch::Contains("libsystemc"));  // the log holds the loads
  CHECK_THAT(loaded, !Catch::Contains("libonnx") && !Catch::Contains("libprotobuf") &&
                         !Catch::Contains("libnpusim_onnx"));
  // The executable alone, away from the module it loads for ONNX models.
  const std::string alone = npusim::test::temp_dir() + "/alone";
  std::filesystem::create_directories(alone);
  std::ofstream(alone + "/model.onnx") << "never read: the module is missing";
  std::filesystem::copy_file(NPUSIM_BINARY, alone + "/npusim",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string run =
      alone + "/npusim run -q " + alone + "/model.onnx > " + alone + "/out 2> " + alone + "/err";
  const int status = std::system(run.c_str());
  CHECK(WEXITSTATUS(status) == 2);
  std::ifstream err(alone + "/err");
  const std::string text((std::istreambuf_iterator<char>(err)), {});
  CHECK_THAT(text, Catch::Contains("cannot load the ONNX module " + alone + "/libnpusim_onnx.so"));
}
