// Helpers shared by the test tiers: build workloads from inline JSON, run the
// npusim binary as a child process, and check the timing invariants.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/graph/workload.h"
#include "sim/runner/runner.h"

namespace npusim::test {

// Parses a layer or network given as JSON text (as if read from "<test>").
NetworkConfig workload(const std::string& json_text);

// The ConfigError `parse` throws; the test fails when it throws none.
template <class F>
ConfigError config_error_from(F&& parse) {
  try {
    parse();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected a ConfigError");
  throw std::logic_error("unreachable");
}

// The ConfigError parse_workload throws on `j` read as "net.json".
ConfigError workload_error(const nlohmann::json& j);

// The header row of a SCALE-Sim convolution topology CSV.
inline const char* kScaleSimHeader =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
    "Strides,\n";

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};
// Runs a shell command line (quoted by the caller) with no input: its exit status (-1
// when a signal ended it) and what it printed on each stream.
CliResult run_command(const std::string& command);
// Runs the built npusim binary with `args` (shell-quoted by the caller).
CliResult run_cli(const std::string& args);

// Writes `text` to a fresh file under the test temp folder; returns its path.
std::string write_temp_file(const std::string& name, const std::string& text);
std::string temp_dir();
// The whole of a text file ("" when it cannot be read).
std::string read_text_file(const std::string& path);

// A JSON-lines file (a program) as one value per line, and back into a fresh temp file.
std::vector<nlohmann::json> read_json_lines(const std::string& path);
std::string write_json_lines(const std::string& name, const std::vector<nlohmann::json>& lines);

// tools/gen-onnx-models OUT NAMES into a fresh folder under the test temp folder;
// returns the folder, or "" when /usr/bin/python3 lacks python3-onnx or numpy (the
// caller skips). The generator failing is a test failure.
std::string generate_onnx_models(const std::string& names);

// Whether ONNX Runtime (onnxruntime-node in tools/ort, and node) is installed
// (tools/install-deps --onnx).
bool have_onnx_runtime();
// Whether /usr/bin/python3 imports onnx and numpy (python3-onnx: the model generators).
bool have_python_onnx();

// tools/ort-compare MODEL ARGS with this build's npusim: its exit status (as
// std::system returns it) and everything it printed.
struct OrtComparison {
  int status = 0;
  std::string text;
};
OrtComparison ort_compare(const std::string& model, const std::string& args);
// Whether a comparison failed on a CPU without VNNI, where ONNX Runtime's uint8 x int8 kernels
// saturate pairs of products at 16 bits (tools/ort-compare's note; docs/quantization.md): the
// difference may be ONNX Runtime's own. Then it warns, naming the model, and returns true; the
// caller skips that comparison's checks, and the case's other checks still decide it.
bool skipped_for_want_of_vnni(const OrtComparison& c, const std::string& model);
// Whether /proc/cpuinfo lists avx512_vnni or avx_vnni (true when it cannot be read), the rule
// of tools/ort-compare's note.
bool cpu_has_vnni();
// Checks that `output` ("logits float32 [1, 10]") is bit-exact in a comparison run with
// `--levels all,disabled`: at level [all], ONNX Runtime's optimised kernels; on a CPU without
// VNNI, where those kernels saturate (tools/ort-compare's note), at level [disabled], its
// unoptimised ones, instead. Also the comparison's exit status, which [all] decides.
void check_ort_bit_exact(const OrtComparison& c, const std::string& output);

// Runs the CLI with --out into a temp folder and returns report.json.
nlohmann::json run_report(const std::string& args);

// In a report.json's `compile_trials`: the trial of `units` in `cache_kib` on
// an `array_rows` x `array_cols` part of the array (0 x 0: the whole array,
// the first trial's), and the trial the run chose; null when absent.
const nlohmann::json* compile_trial(const nlohmann::json& trials, uint32_t units,
                                    uint32_t cache_kib, uint32_t array_rows = 0,
                                    uint32_t array_cols = 0);
const nlohmann::json* chosen_compile_trial(const nlohmann::json& trials);

// DESIGN.md invariants on a completed run (Catch2 CHECKs):
// every layer: cycles >= compute and memory lower bounds; total: cycles >=
// max(sum of compute bounds, sum of memory bounds) and <= serial sum.
void check_invariants(const RunResult& r);

// The built-in hardware with compiler.residency `residency` and the compile
// trials off (one program, the estimate's): the memory plan's tests.
HardwareConfig residency_hw(Residency residency);

// Runs `net` in full (no progress line) and requires the run to complete,
// every operator to match the independent reference, and the invariants.
std::unique_ptr<RunResult> run_bit_exact(const NetworkConfig& net, const HardwareConfig& hw);

}  // namespace npusim::test
