// Programs as JSON lines (traces/): a header line (format version, the
// resolved workload and hardware it was compiled from), one line per layer
// descriptor, then one line per instruction with explicit dependency fields.
// Hand-edited files are checked line by line; errors name file:line, the
// JSON pointer inside that line, what was expected and what was found.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "sim/program/program.h"

namespace npusim {

// 2: agu_init instructions (seed 001); format 1 files predate them.
inline constexpr int kProgramFormatVersion = 3;

struct ProgramFile {
  nlohmann::json workload;  // the header's: as written by to_json(NetworkConfig), or a reference
  nlohmann::json hardware;  // as written by to_json(HardwareConfig)
  NetworkConfig network;    // the header's workload, resolved
  Program program;
  std::vector<std::string> layer_lines;  // "path:line" of each layer line, for errors
};

// `graph`: the program's layers are graph operators (operator_lines.h).
void write_program_jsonl(std::ostream& out, const Program& program, const nlohmann::json& workload,
                         const nlohmann::json& hardware, bool graph);

// Turns the header's "workload" into a network (origin: "<path>:1 ...");
// throws ConfigError. The default (empty) is parse_workload: JSON workloads
// only; the CLI passes one that also opens ONNX model references.
using WorkloadResolver =
    std::function<NetworkConfig(const nlohmann::json& workload, const std::string& origin)>;

// Throws ConfigError (file "<path>:<line>") for malformed lines, unknown keys,
// bad values, and for dependencies on a later or missing instruction.
ProgramFile read_program_jsonl(const std::string& path, const WorkloadResolver& resolve = {});

}  // namespace npusim
