// The one workload dispatcher: a SCALE-Sim topology CSV (a path ending in
// .csv, sim/frontend/scalesim) or a JSON workload (sim/frontend/json). ONNX
// models come through the ONNX module (sim/cli/onnx_loader.h), which the
// executable loads only for an .onnx path.
#pragma once

#include <string>

#include "sim/frontend/json/workload_json.h"

namespace npusim {

// Reads the workload at `path`. Throws ConfigError naming the file.
NetworkConfig load_workload(const std::string& path);

}  // namespace npusim
