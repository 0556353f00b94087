// The options every simulating subcommand shares -- a workload file, a
// hardware file and --set overrides -- and how they resolve into configs.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/config/workload_config.h"

namespace npusim::cli {

struct WorkloadOptions {
  std::string workload;                // empty: the embedded ResNet-18
  std::string hw_file;                 // empty: the built-in defaults
  std::vector<std::string> overrides;  // --set path=value
};

// Adds the positional workload, --hw and --set to `cmd`.
void add_workload_options(CLI::App* cmd, WorkloadOptions& options);

// Hardware: --hw, else `fallback` (e.g. a replayed program's header, named
// `fallback_origin`), else the defaults; then --set and `extra_sets`, in order.
HardwareConfig resolve_hardware(const WorkloadOptions& options,
                                const std::vector<std::string>& extra_sets = {},
                                const nlohmann::json* fallback = nullptr,
                                const std::string& fallback_origin = {});

NetworkConfig resolve_workload(const WorkloadOptions& options);

}  // namespace npusim::cli
