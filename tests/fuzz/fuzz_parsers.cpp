// libFuzzer targets for every input parser (docs/robustness.md#fuzzing). One
// source, one binary per target: NPUSIM_FUZZ_<TARGET> names which parser the
// bytes go to. A bad input must end in ConfigError (the parsers' only error
// for bad input; the .npy reader and `npusim diff`'s also use
// std::runtime_error); anything else escaping -- another exception (a raw
// library text such as nlohmann's or std::map::at's), a crash, a sanitizer
// report, a hang or a memory blow-up -- is a finding, and so is a result that
// breaks the property a target checks (abort()).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/json/decoder_workload.h"
#include "sim/frontend/load_workload.h"
#if defined(NPUSIM_FUZZ_ONNX)
#include "sim/frontend/onnx/onnx_import.h"
#endif
#include "sim/frontend/scalesim/scalesim_topology.h"
#include "sim/graph/workload.h"
#include "sim/program/trace_io.h"
#include "sim/regress/golden.h"
#include "sim/regress/manifest.h"
#include "sim/report/run_diff.h"
#include "sim/runner/kernel_summary_cache.h"
#include "sim/runner/trial_choice_cache.h"
#include "sim/sweep/sweep_spec.h"
#include "sim/sweep/sweep_store.h"
#include "sim/tensor/tensor.h"

namespace {

// Parsers that take a path or a folder (a run, a sweep point, the kernel cache) get the bytes
// through one scratch folder per process, removed when the fuzzer exits (libFuzzer ends with
// exit()).
struct ScratchFolder {
  std::string path;
  ScratchFolder()
      : path((std::filesystem::temp_directory_path() /
              ("npusim-fuzz-" + std::to_string(::getpid()) + ".d"))
                 .string()) {
    std::filesystem::create_directories(path);
  }
  ~ScratchFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
};

const std::string& scratch_folder() {
  static const ScratchFolder folder;
  return folder.path;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The input as a file named "input<suffix>" in the scratch folder; returns its path.
std::string scratch_file(const std::string& suffix, const uint8_t* data, size_t size) {
  const std::string path = scratch_folder() + "/input" + suffix;
  write_bytes(path, std::string(reinterpret_cast<const char*>(data), size));
  return path;
}

// Inputs that hold two files: the first, this line, the second (the corpus writes them so).
constexpr const char* kFileBreak = "\n--- next file ---\n";

std::pair<std::string, std::string> two_files(const std::string& text) {
  const size_t at = text.find(kFileBreak);
  if (at == std::string::npos) return {text, ""};
  return {text.substr(0, at), text.substr(at + std::string(kFileBreak).size())};
}

void run_one(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace npusim;
#if defined(NPUSIM_FUZZ_HARDWARE)
  parse_hardware_config(parse_json_text(text, "fuzz.json"), "fuzz.json");
#elif defined(NPUSIM_FUZZ_WORKLOAD)
  // Layers, layer lists and graphs; to_json and back as the runner's reports do.
  const NetworkConfig net = parse_workload(parse_json_text(text, "fuzz.json"), "fuzz.json");
  parse_workload(to_json(net), "fuzz-roundtrip.json");
#elif defined(NPUSIM_FUZZ_SWEEP)
  sweep::parse_sweep(parse_json_text(text, "fuzz.json"), "fuzz.json");
#elif defined(NPUSIM_FUZZ_OVERRIDE)
  // A --set assignment applied to the default hardware, then parsed.
  nlohmann::json hw = to_json(HardwareConfig{});
  apply_override(hw, text, "fuzz");
  parse_hardware_config(hw, "fuzz");
#elif defined(NPUSIM_FUZZ_PROGRAM)
  read_program_jsonl(scratch_file(".jsonl", data, size));
#elif defined(NPUSIM_FUZZ_SCALESIM)
  parse_scalesim_topology(text, "fuzz.csv");
#elif defined(NPUSIM_FUZZ_NPY)
  const std::string path = scratch_file(".npy", data, size);
  try {
    read_npy_int8(path);
  } catch (const std::runtime_error&) {
  }
  try {
    read_npy_int32(path);
  } catch (const std::runtime_error&) {
  }
  try {
    read_npy_float32(path);
  } catch (const std::runtime_error&) {
  }
  try {
    read_npy_descr(path);
  } catch (const std::runtime_error&) {
  }
  read_npy_uint8(path);
#elif defined(NPUSIM_FUZZ_MANIFEST)
  // A regression manifest, read as `npusim regress` reads it; then case selection.
  const regress::Suite suite = regress::load_suite(scratch_file(".manifest.json", data, size));
  regress::select_cases(suite, {suite.cases.front().name});
#elif defined(NPUSIM_FUZZ_GOLDEN)
  // A golden record: checked as regress checks it, then compared with itself (no field may
  // move when every layer name is unique) and with a fixed fresh record.
  const nlohmann::json golden = parse_json_text(text, "golden.json");
  regress::check_golden(golden, "golden.json");
  std::set<std::string> names;
  bool unique = true;
  for (const nlohmann::json& layer : golden.at("layers"))
    unique = names.insert(layer.at("name").get<std::string>()).second && unique;
  if (unique && !regress::compare_golden(golden, golden, {}).empty()) std::abort();
  static const nlohmann::json fresh = nlohmann::json::parse(
      R"({"case": "c", "counters": {"dram.read_bytes": 10}, "cycles": 100, "format": 1,)"
      R"( "timing_only": false, "layers": [{"name": "a", "cycles": 60, "digest": null,)"
      R"( "counters": {"dram.read_bytes": 6}}]})");
  for (const regress::FieldChange& c :
       regress::compare_golden(golden, fresh, {{"cycles", 0.5}, {"dram.read_bytes", 0.1}}))
    c.difference();
#elif defined(NPUSIM_FUZZ_DIFF)
  // A run folder as `npusim diff` reads it: report.json, then layers.csv.
  const auto [report, layers] = two_files(text);
  write_bytes(scratch_folder() + "/report.json", report);
  write_bytes(scratch_folder() + "/layers.csv", layers);
  const DiffRun run = load_run(scratch_folder());
  const RunDiff d = compare_runs(run, run);
  diff_warnings(run, run, d);
  std::ostringstream out;
  print_run_diff(out, run, run, d);
  write_run_diff_csv(out, d);
#elif defined(NPUSIM_FUZZ_SWEEPSTORE)
  // A sweep point's folder as a resumed sweep reads it: report.json, then status.json
  // (either may be absent). An unreadable point is pending, never an error.
  const auto [report, status] = two_files(text);
  const std::string point = scratch_folder() + "/point";
  std::filesystem::create_directories(point);
  std::filesystem::remove(point + "/report.json");
  if (!report.empty()) write_bytes(point + "/report.json", report);
  write_bytes(point + "/status.json", status);
  sweep::load_point_state(point);
#elif defined(NPUSIM_FUZZ_KERNELCACHE)
  // An entry of the kernel-summary cache (NPUSIM_KERNEL_CACHE) for a fixed seeded layer,
  // behind its own key line when the first byte is even: whatever the entry says, the
  // summary has one count per kernel and none above the kernel's taps (R * S * C).
  static const LayerConfig layer =
      parse_workload(nlohmann::json::parse(R"({"type": "conv2d", "name": "l", "C": 19, "H": 8,)"
                                           R"( "W": 8, "K": 7, "R": 3, "S": 3, "seed": 5})"),
                     "layer.json")
          .layers.at(0);
  const ComputeMode mode = size > 1 && (data[1] & 1) ? ComputeMode::Dense : ComputeMode::ZeroSkip;
  const std::string key = kernel_summary_key(layer, mode);
  const std::string entry = size > 0 && data[0] % 2 == 0 ? key + "\n" + text.substr(1) : text;
  write_bytes(scratch_folder() + "/" + digest_hex(key.data(), key.size()) + ".txt", entry);
  const KernelStream s = timing_kernel_summary(layer, mode, scratch_folder());
  if (s.nonzeros.size() != layer.K) std::abort();
  for (uint32_t n : s.nonzeros)
    if (n > layer.R * layer.S * layer.group_channels()) std::abort();
#elif defined(NPUSIM_FUZZ_TRIALCHOICE)
  // A kept compile-trial choice (the entry after its key line): read or refused; one read is
  // written back as text that reads again to the same text.
  CompileTrials choice;
  NetworkEstimate estimate;
  if (parse_trial_choice(text, choice, estimate)) {
    const std::string again = trial_choice_text(choice, estimate);
    CompileTrials c;
    NetworkEstimate e;
    if (!parse_trial_choice(again, c, e) || trial_choice_text(c, e) != again) std::abort();
    for (const auto& [signature, plan] : e.mappings)
      if (plan.loop_order == LoopOrder::Auto) std::abort();
  }
#elif defined(NPUSIM_FUZZ_DECODER)
  // A decoder workload ({"decoder": {...}}): its shape read, then expanded into a graph.
  const nlohmann::json j = parse_json_text(text, "decoder.json");
  if (is_decoder_workload(j)) read_decoder_shape(j, "decoder.json");
  parse_workload(j, "decoder.json");
#elif defined(NPUSIM_FUZZ_ONNX)
  // Mutated model bytes: the importer either reads a model or refuses it by name.
  try {
    import_onnx(scratch_file(".onnx", data, size), {});
  } catch (const ConfigError& e) {
    // import_onnx names the model even for another exception inside it: still a finding.
    if (e.found().rfind(kImportInternalError, 0) == 0) std::abort();
    throw;
  }
#else
#error "define one NPUSIM_FUZZ_<TARGET>"
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    run_one(data, size);
  } catch (const npusim::ConfigError&) {
    // The expected outcome for bad input.
#if defined(NPUSIM_FUZZ_NPY) || defined(NPUSIM_FUZZ_DIFF)
  } catch (const std::runtime_error&) {
    // The .npy reader and diff's report bad files as runtime_error naming the file.
#endif
  }
  return 0;
}
