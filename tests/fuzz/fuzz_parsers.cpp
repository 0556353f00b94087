// libFuzzer targets for every input parser (docs/robustness.md#fuzzing). One
// source, one binary per target: NPUSIM_FUZZ_TARGET names which parser the
// bytes go to. A bad input must end in ConfigError (the parsers' only error
// for bad input; the .npy reader also uses std::runtime_error); anything else
// escaping -- another exception, a crash, a sanitizer report, a hang or a
// memory blow-up -- is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/load_workload.h"
#if defined(NPUSIM_FUZZ_ONNX)
#include "sim/frontend/onnx/onnx_import.h"
#endif
#include "sim/frontend/scalesim/scalesim_topology.h"
#include "sim/graph/workload.h"
#include "sim/program/trace_io.h"
#include "sim/sweep/sweep_spec.h"
#include "sim/tensor/tensor.h"

namespace {

// Parsers that take a path get the bytes through one scratch file per process
// and suffix, removed when the fuzzer exits (libFuzzer ends with exit()).
struct ScratchFile {
  std::string path;
  explicit ScratchFile(const std::string& suffix)
      : path((std::filesystem::temp_directory_path() /
              ("npusim-fuzz-" + std::to_string(::getpid()) + suffix))
                 .string()) {}
  ~ScratchFile() { std::remove(path.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
};

std::string scratch_file(const std::string& suffix, const uint8_t* data, size_t size) {
  static const ScratchFile scratch(suffix);  // one suffix per target binary
  std::ofstream(scratch.path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return scratch.path;
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
  read_npy_uint8(path);
#elif defined(NPUSIM_FUZZ_ONNX)
  // Mutated model bytes: the importer either reads a model or refuses it by name.
  import_onnx(scratch_file(".onnx", data, size), {});
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
#if defined(NPUSIM_FUZZ_NPY)
  } catch (const std::runtime_error&) {
    // The .npy reader reports bad files as runtime_error naming the file.
#endif
  }
  return 0;
}
