// The options every simulating subcommand shares -- a workload file, a
// hardware file and --set overrides -- and how they resolve into configs.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "sim/graph/workload.h"
#include "sim/program/trace_io.h"

namespace npusim::cli {

struct WorkloadOptions {
  std::string workload;                // empty: the embedded ResNet-18
  std::string hw_file;                 // empty: the built-in defaults
  std::vector<std::string> overrides;  // --set path=value
  std::vector<std::string> inputs;     // --input NAME=FILE.npy (ONNX models)
  // --prefill / --decode / --batch: a decoder workload's tokens, steps and
  // sequences (-1: the file's).
  int64_t prefill = -1, decode = -1, batch = -1;
  // False: an ONNX model's array operators keep only their weights' non-zero counts (a
  // timing-only run: OnnxImportOptions::weight_values).
  bool weight_values = true;
};

// Adds the positional workload, --hw and --set to `cmd`.
void add_workload_options(CLI::App* cmd, WorkloadOptions& options);

// Hardware: --hw, else `fallback` (e.g. a replayed program's header, named
// `fallback_origin`), else the defaults; then --set and `extra_sets`, in order.
HardwareConfig resolve_hardware(const WorkloadOptions& options,
                                const std::vector<std::string>& extra_sets = {},
                                const nlohmann::json* fallback = nullptr,
                                const std::string& fallback_origin = {});

// The workload: a JSON or CSV file, an ONNX model (with --input files; its
// outputs' relation to the simulated tensors into `onnx_outputs` when given),
// or the embedded default.
NetworkConfig resolve_workload(const WorkloadOptions& options,
                               std::vector<OnnxOutput>* onnx_outputs = nullptr);

// The header "workload" of a program file written to `program_path` ("" or
// "-": standard output): the workload's JSON, or for an ONNX model a
// reference {"onnx": MODEL, "fnv1a64": HASH, "inputs": {NAME: FILE}} whose
// paths are relative to the program file's folder (to the working directory
// when it goes to standard output). docs/traces.md#graph-workloads.
nlohmann::json program_workload(const WorkloadOptions& options, const NetworkConfig& net,
                                const std::string& program_path);

// Resolves a program header's "workload" for read_program_jsonl: JSON
// workloads, and ONNX references (the model imported again and checked
// against its hash; `extra_inputs`, --input NAME=FILE, override the header's).
WorkloadResolver program_workload_resolver(const std::string& program_path,
                                           const std::vector<std::string>& extra_inputs,
                                           std::vector<OnnxOutput>* onnx_outputs);

// The files a run or a compile reads: the workload, --hw, a replayed program,
// --input files and every .npy the workload names (empty entries are skipped).
std::vector<std::string> input_files(const WorkloadOptions& options, const NetworkConfig& net,
                                     const std::string& program_file = {});

// Numeric option checks whose messages state the range in plain words (CLI11's
// PositiveNumber prints the whole double range, 300 digits).
CLI::Validator positive_number();
CLI::Validator non_negative_number();

}  // namespace npusim::cli
