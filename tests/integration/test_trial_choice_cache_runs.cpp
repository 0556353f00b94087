// Runs that take the compile trials' choice from an earlier run (sim/runner/trial_choice_cache.h,
// kept in the kernel-count cache's folder): they simulate no trial and report what the run that
// simulated them reported (or, with no trial to simulate, compile the program from the mapping an
// earlier run chose), and a run of other hardware, another decoder length or another ONNX
// model's bytes or input does not take an entry that is not its own.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/test_support.h"

using npusim::test::read_text_file;
using npusim::test::run_cli;
using npusim::test::temp_dir;

namespace {

const std::string kNetworks = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/";
constexpr const char* kSimulated = "compile trials: simulating";
constexpr const char* kKept = "compile trials: the choice of an earlier run";
constexpr const char* kKeptMapping = "compile trials: none to simulate; the mapping an earlier run";

struct Run {
  std::string err;
  nlohmann::json report;
  std::string stats, layers;
};

// `args` run with --out; the report without the fields that name the run.
Run run_kept(const std::string& args) {
  static int counter = 0;
  const std::string dir = temp_dir() + "/trial-choice-run" + std::to_string(counter++);
  const auto r = run_cli(args + " --out " + dir);
  INFO("npusim " << args << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  Run out;
  out.err = r.err;
  out.report = nlohmann::json::parse(read_text_file(dir + "/report.json"));
  for (const char* key : {"wall_seconds", "command_line"}) out.report.erase(key);
  out.stats = read_text_file(dir + "/stats.json");
  out.layers = read_text_file(dir + "/layers.csv");
  return out;
}

// While alive, NPUSIM_KERNEL_CACHE names a new empty folder; then it is empty again (the tests'
// setting: no cache).
class CacheIn {
 public:
  explicit CacheIn(const std::string& name) : dir_(temp_dir() + "/" + name) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ::setenv("NPUSIM_KERNEL_CACHE", dir_.c_str(), 1);
  }
  CacheIn(const CacheIn&) = delete;
  CacheIn& operator=(const CacheIn&) = delete;
  ~CacheIn() { ::setenv("NPUSIM_KERNEL_CACHE", "", 1); }

 private:
  std::string dir_;
};

}  // namespace

TEST_CASE(
    "a run whose compile trials an earlier run of the same network and hardware settled "
    "simulates none and writes the same report, stats and layers, timing-only and functional",
    "[trial_choice_cache]") {
  const std::string workload = kNetworks + "resnet18.json";
  // ResNet-18 at 2 units on a 24 x 16 array: unit counts, parts of the array and cache budgets.
  const std::string hw =
      " --set compute.units=2 --set compute.array_rows=24 "
      "--set compute.array_cols=16";
  const Run uncached = run_kept("run --timing-only " + workload + hw);
  REQUIRE(uncached.err.find(kSimulated) != std::string::npos);
  CacheIn cache("trial-choice-runs");
  const Run first = run_kept("run --timing-only " + workload + hw);
  CHECK(first.err.find(kSimulated) != std::string::npos);
  const Run second = run_kept("run --timing-only " + workload + hw);
  CHECK(second.err.find(kSimulated) == std::string::npos);
  CHECK(second.err.find(kKept) != std::string::npos);
  CHECK(first.report == uncached.report);
  CHECK(second.report == uncached.report);
  CHECK(second.stats == uncached.stats);
  CHECK(second.layers == uncached.layers);
  // A functional run of the same network and hardware takes the same choice, and checks its
  // outputs bit for bit.
  const Run functional = run_kept("run " + workload + hw);
  CHECK(functional.err.find(kKept) != std::string::npos);
  CHECK(functional.report["compile_trials"] == uncached.report["compile_trials"]);
  CHECK(functional.report["totals"]["cycles"] == uncached.report["totals"]["cycles"]);
}

TEST_CASE(
    "a run with no compile trial to simulate keeps the mapping it compiled and a later run "
    "compiles that program from it, timing-only and functional, with the cycles of trials off",
    "[trial_choice_cache]") {
  // tiny3 on 16 x 24 of the 32 x 32 array: every cache budget compiles one program.
  const std::string workload =
      kNetworks + "tiny3.json --set compiler.array_rows=16 " + "--set compiler.array_cols=24";
  const Run off = run_kept("run --timing-only " + workload + " --set compiler.trials=off");
  const Run off_functional = run_kept("run " + workload + " --set compiler.trials=off");
  CacheIn cache("trial-choice-single");
  const Run first = run_kept("run --timing-only " + workload);
  CHECK(first.err.find(kSimulated) == std::string::npos);
  CHECK(first.err.find(kKeptMapping) == std::string::npos);
  const Run second = run_kept("run --timing-only " + workload);
  CHECK(second.err.find(kKeptMapping) != std::string::npos);
  CHECK(second.report == first.report);
  CHECK(second.stats == first.stats);
  CHECK(second.layers == first.layers);
  // The program compile_network chooses with no trials at all.
  CHECK(second.layers == off.layers);
  CHECK(second.report["totals"] == off.report["totals"]);
  // A functional run takes the kept mapping too and checks its outputs bit for bit.
  const Run functional = run_kept("run " + workload);
  CHECK(functional.err.find(kKeptMapping) != std::string::npos);
  CHECK(functional.layers == off_functional.layers);
  CHECK(functional.report["totals"] == off_functional.report["totals"]);
}

TEST_CASE(
    "a run of other hardware or of another decoder length does not take the trial choice an "
    "earlier run kept",
    "[trial_choice_cache]") {
  CacheIn cache("trial-choice-keys");
  const std::string workload = kNetworks + "resnet18.json --set compute.units=2";
  run_kept("run --timing-only " + workload);
  const Run wider = run_kept("run --timing-only " + workload + " --set dram.bytes_per_cycle=64");
  CHECK(wider.err.find(kSimulated) != std::string::npos);
  CHECK(wider.err.find(kKept) == std::string::npos);

  const std::string decoder =
      kNetworks + "tinyllama_2layer.json --prefill 8 --set compute.units=2 --decode ";
  const Run one = run_kept("run --timing-only " + decoder + "1");
  CHECK(one.err.find(kSimulated) != std::string::npos);
  const Run two = run_kept("run --timing-only " + decoder + "2");
  CHECK(two.err.find(kSimulated) != std::string::npos);
  CHECK(two.err.find(kKept) == std::string::npos);
  CHECK(run_kept("run --timing-only " + decoder + "2").err.find(kKept) != std::string::npos);
}

TEST_CASE(
    "an ONNX model's run takes the trial choice an earlier run of the same model bytes and "
    "hardware kept, from a copy of the file elsewhere too, and a run with an input file or a "
    "byte more in the model simulates the trials again",
    "[trial_choice_cache][onnx]") {
  const std::string dir = npusim::test::generate_onnx_models("ops");
  if (dir.empty()) {
    WARN("SKIPPED: /usr/bin/python3 lacks python3-onnx (tools/install-deps --onnx)");
    return;
  }
  const std::string model = dir + "/ops.onnx";  // two programs to simulate on the default array
  const Run uncached = run_kept("run --timing-only " + model);
  REQUIRE(uncached.err.find(kSimulated) != std::string::npos);
  // The seeded input, saved by a functional run, for --input below.
  const std::string saved = temp_dir() + "/trial-choice-onnx-input";
  REQUIRE(run_cli("run -q " + model + " --out " + saved + " --save-outputs").exit_code == 0);
  CacheIn cache("trial-choice-onnx");
  const Run first = run_kept("run --timing-only " + model);
  CHECK(first.err.find(kSimulated) != std::string::npos);
  const Run second = run_kept("run --timing-only " + model);
  CHECK(second.err.find(kSimulated) == std::string::npos);
  CHECK(second.err.find(kKept) != std::string::npos);
  CHECK(second.report == uncached.report);
  CHECK(second.stats == uncached.stats);
  CHECK(second.layers == uncached.layers);
  // A functional run takes it too, and checks its outputs bit for bit.
  const Run functional = run_kept("run " + model);
  CHECK(functional.err.find(kKept) != std::string::npos);
  CHECK(functional.report["totals"]["cycles"] == uncached.report["totals"]["cycles"]);
  // The key is the file's bytes, not its name.
  const std::string elsewhere = temp_dir() + "/trial-choice-onnx-copy.onnx";
  std::filesystem::copy_file(model, elsewhere, std::filesystem::copy_options::overwrite_existing);
  CHECK(run_kept("run --timing-only " + elsewhere).err.find(kKept) != std::string::npos);
  // One byte more: a model doc string appended (protobuf field 6, length 1), the same graph.
  std::ofstream(elsewhere, std::ios::binary | std::ios::app) << std::string("\x32\x01x", 3);
  const Run longer = run_kept("run --timing-only " + elsewhere);
  CHECK(longer.err.find(kSimulated) != std::string::npos);
  CHECK(longer.report["totals"] == uncached.report["totals"]);
  // An input file is part of the key: its values could be weights.
  const std::string input = " --input x=" + saved + "/x.input.npy";
  const Run with_input = run_kept("run --timing-only " + model + input);
  CHECK(with_input.err.find(kSimulated) != std::string::npos);
  CHECK(run_kept("run --timing-only " + model + input).err.find(kKept) != std::string::npos);
}
