// The command line under misuse (issue 21, docs/robustness.md): absurd
// layers, clashing options and outputs that would replace inputs are exit 2
// with a clear message; no option is silently ignored.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/test_support.h"

using npusim::test::read_text_file;
using npusim::test::run_cli;
using npusim::test::temp_dir;
using npusim::test::write_temp_file;

namespace {

const char* kSmallLayer =
    R"({"type":"conv2d","name":"small","C":8,"H":8,"W":8,"K":8,"R":3,"S":3,"padding":1})";

}  // namespace

TEST_CASE("the issue's 65536^4 layer exits 2 with a size error instead of crashing",
          "[robustness][cli]") {
  const std::string path = write_temp_file(
      "absurd.json",
      R"({"type":"conv2d","N":65536,"C":65536,"H":65536,"W":65536,"K":65536,"R":65536,)"
      R"("S":65536,"stride":2,"padding":65535})");
  const auto r = run_cli("run -q --timing-only " + path);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::StartsWith("error: " + path) && Catch::Contains("more than 2^64 - 1 elements"));
}

TEST_CASE("saving outputs is an error where --save-outputs would be ignored", "[robustness][cli]") {
  const std::string layer = write_temp_file("save_layer.json", kSmallLayer);
  const std::string out = temp_dir() + "/save_out";
  struct Case {
    std::string args, expected;
  };
  for (const Case& c :
       {Case{"--save-outputs", "needs --out"},
        Case{"--save-outputs --timing-only --out " + out, "--timing-only"},
        Case{"--save-outputs --compare-policies --out " + out, "--compare-policies"}}) {
    const auto r = run_cli("run -q " + layer + " " + c.args);
    INFO(c.args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("error: --save-outputs") && Catch::Contains(c.expected));
  }
}

TEST_CASE("an output file that is also an input is refused, and the input is kept",
          "[robustness][cli]") {
  const std::string layer = write_temp_file("own_layer.json", kSmallLayer);
  const std::string hw = write_temp_file("own_hw.json", R"({"name": "mine"})");
  SECTION("run --trace onto the workload") {
    const auto r = run_cli("run -q " + layer + " --trace " + layer);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--trace " + layer + ": refusing to overwrite"));
  }
  SECTION("run --trace onto --hw through another spelling of the path") {
    const auto r =
        run_cli("run -q " + layer + " --hw " + hw + " --trace " + temp_dir() + "/./own_hw.json");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("refusing to overwrite " + hw));
  }
  SECTION("compile -o onto the workload") {
    const auto r = run_cli("compile " + layer + " -o " + layer);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("-o " + layer + ": refusing to overwrite"));
  }
  SECTION("run --out into the folder of an input named like a report file") {
    const std::string dir = temp_dir() + "/outdir";
    std::filesystem::create_directories(dir);
    const std::string hw_in_out = dir + "/hw.resolved.json";
    std::ofstream(hw_in_out) << R"({"name": "mine"})";
    const auto r = run_cli("run -q " + layer + " --hw " + hw_in_out + " --out " + dir);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--out"));
  }
  CHECK(read_text_file(layer) == kSmallLayer);
  CHECK(read_text_file(hw) == R"({"name": "mine"})");
}

TEST_CASE("each --set takes one value and leaves the workload positional", "[robustness][cli]") {
  const std::string layer = write_temp_file("set_layer.json", kSmallLayer);
  const auto r = run_cli("run -q --timing-only --set compute.array_rows=16 " + layer +
                         " --set buffering=single");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("small"));  // the layer ran, not the default ResNet-18
  CHECK_THAT(r.out, !Catch::Contains("conv1"));
}

TEST_CASE("run --compare-policies --out creates a new output folder", "[robustness][cli]") {
  const std::string layer = write_temp_file("cmp_layer.json", kSmallLayer);
  const std::string out = temp_dir() + "/cmp_new/deeper";
  std::filesystem::remove_all(temp_dir() + "/cmp_new");
  const auto r = run_cli("run -q --timing-only " + layer + " --compare-policies --out " + out);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(out + "/strict/report.json"));
  CHECK(std::filesystem::exists(out + "/early/report.json"));
}

TEST_CASE("numeric options and subcommands fail with short, helpful messages",
          "[robustness][cli]") {
  SECTION("gpu --repeats 0 states the range in words") {
    const auto r = run_cli("gpu --repeats 0");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("a number > 0, found 0"));
    CHECK(r.err.size() < 400);  // not the 300-digit double range
  }
  SECTION("sweep --timeout-s -1") {
    const std::string sweep = write_temp_file("neg_timeout_sweep.json", "{}");
    const auto r = run_cli("sweep " + sweep + " --out " + temp_dir() + "/o --timeout-s -1");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--timeout-s: expected a number >= 0, found -1"));
    CHECK(r.err.size() < 400);
  }
  SECTION("a misspelt subcommand gets a suggestion") {
    const auto r = run_cli("rnu");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("unknown command \"rnu\" (did you mean \"run\"?)"));
    CHECK(run_cli("complie").err.find("did you mean \"compile\"") != std::string::npos);
    // The list names the commands --help lists, not the internal sweep-point.
    CHECK_THAT(r.err, Catch::Contains("; commands: run, compile, estimate, regress, sweep, gpu, "
                                      "diff, report, quantize\n"));
  }
  SECTION("compile into a full device is an error, not exit 0") {
    const std::string layer = write_temp_file("full_layer.json", kSmallLayer);
    const std::string command =
        std::string(NPUSIM_BINARY) + " compile " + layer + " > /dev/full 2>/dev/null";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
  }
}

TEST_CASE("a regress case with an empty \"hw\" is rejected instead of running the defaults",
          "[robustness][cli]") {
  const std::string dir = temp_dir() + "/empty-hw-suite";
  std::filesystem::create_directories(dir);
  const std::string layer = write_temp_file("empty_hw_layer.json", kSmallLayer);
  std::ofstream(dir + "/manifest.json")
      << R"({"cases": [{"name": "x", "workload": ")" + layer + R"(", "hw": ""}]})";
  const auto r = run_cli("regress " + dir);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("manifest.json: at /cases/0/hw") &&
                        Catch::Contains("leave \"hw\" out for the default hardware"));
}

TEST_CASE("a workload above --max-workload-mib is refused before its tensors are allocated",
          "[robustness][cli]") {
  // 64 x 64 x 64 input and output (1x1, K 64): 0.5 MiB of tensors, and 4 KiB of weights.
  const std::string path =
      write_temp_file("big_tensors.json",
                      R"({"type":"conv2d","name":"big","C":64,"H":64,"W":64,"K":64,"R":1,"S":1})");
  const auto fits = run_cli("run -q --max-workload-mib 1 " + path);
  CHECK(fits.exit_code == 0);  // 0.5 MiB fits in 1 MiB
  const std::string twice = write_temp_file(
      "bigger_tensors.json",
      R"({"type":"conv2d","name":"bigger","C":64,"H":128,"W":128,"K":64,"R":1,"S":1})");
  const auto r = run_cli("run -q --max-workload-mib 1 " + twice);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("error: workload bigger holds 2.0 MiB of tensors") &&
                        Catch::Contains("limit of 1 MiB") && Catch::Contains("--max-workload-mib"));
  const auto zero = run_cli("run -q --max-workload-mib 0 " + twice);
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("--max-workload-mib: expected a number in 1.."));
}

TEST_CASE("a timing-only run is limited by its weights alone since it allocates no activations",
          "[robustness][cli]") {
  // 2 MiB of activations and 4 KiB of weights: refused functional, runs timing-only.
  const std::string activations = write_temp_file(
      "activation_heavy.json",
      R"({"type":"conv2d","name":"bigger","C":64,"H":128,"W":128,"K":64,"R":1,"S":1})");
  const auto timing = run_cli("run -q --timing-only --max-workload-mib 1 " + activations);
  INFO(timing.err);
  CHECK(timing.exit_code == 0);
  // 512 x 512 x 3 x 3 int8 weights: 2.25 MiB on a 3 x 3 input.
  const std::string weights = write_temp_file(
      "weight_heavy.json",
      R"({"type":"conv2d","name":"wide","C":512,"H":3,"W":3,"K":512,"R":3,"S":3,"padding":1})");
  const auto r = run_cli("run -q --timing-only --max-workload-mib 1 " + weights);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("error: workload wide holds 2.2 MiB of weights") &&
                        Catch::Contains("limit of 1 MiB"));
}

TEST_CASE("a layer that does not chain is warned about and report.json says where inputs come from",
          "[robustness][cli]") {
  // a writes 4 channels, b reads 16 (yolo_tiny's mistake): b reads seeded random data.
  const std::string path =
      write_temp_file("unchained.json",
                      R"({"layers":[{"name":"a","C":3,"H":8,"W":8,"K":4,"R":3,"S":3,"padding":1},)"
                      R"({"name":"b","C":16,"H":8,"W":8,"K":8,"R":3,"S":3,"padding":1},)"
                      R"({"name":"c","C":8,"H":8,"W":8,"K":8,"R":3,"S":3,"padding":1}]})");
  const std::string out = temp_dir() + "/unchained_out";
  const auto r = run_cli("run -q --timing-only " + path + " --out " + out);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("layer b reads N,H,W,C = 1x8x8x16 but the layer before it, a, "
                                    "writes 1x8x8x4") &&
                        Catch::Contains("b reads seeded random input"));
  const std::string report = read_text_file(out + "/report.json");
  CHECK_THAT(report, Catch::Contains("\"input\": \"random\"") &&
                         Catch::Contains("\"input\": \"chained from b\""));
}
