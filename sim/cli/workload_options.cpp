#include "sim/cli/workload_options.h"

#include "sim/config/json_reader.h"

namespace npusim::cli {

void add_workload_options(CLI::App* cmd, WorkloadOptions& options) {
  cmd->add_option("workload", options.workload,
                  "Layer or network JSON, or a SCALE-Sim topology .csv (default: the embedded "
                  "ResNet-18 convolution layers)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--hw", options.hw_file,
                  "Hardware JSON (default: the built-in defaults, identical to "
                  "configs/hw/default.json)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", options.overrides,
                  "Override one hardware field, e.g. --set compute.array_rows=16 (repeatable)");
}

HardwareConfig resolve_hardware(const WorkloadOptions& options,
                                const std::vector<std::string>& extra_sets,
                                const nlohmann::json* fallback,
                                const std::string& fallback_origin) {
  std::string origin = "<default hardware>";
  nlohmann::json j = to_json(HardwareConfig{});
  if (!options.hw_file.empty()) {
    origin = options.hw_file;
    j = load_json_file(options.hw_file);
  } else if (fallback != nullptr) {
    origin = fallback_origin;
    j = *fallback;
  }
  for (const std::string& s : options.overrides) apply_override(j, s, origin);
  for (const std::string& s : extra_sets) apply_override(j, s, origin);
  return parse_hardware_config(j, origin);
}

NetworkConfig resolve_workload(const WorkloadOptions& options) {
  return options.workload.empty() ? default_network() : load_workload(options.workload);
}

}  // namespace npusim::cli
