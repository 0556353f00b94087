// `npusim run`: simulate a layer or network on a hardware config and report.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "sim/cli/commands.h"
#include "sim/config/json_reader.h"
#include "sim/runner/runner.h"
#include "sim/tensor/tensor.h"

namespace npusim::cli {
namespace {

struct RunArguments {
  std::string workload;
  std::string hw_file;
  std::string out_dir;
  std::vector<std::string> overrides;
  std::string policy;
  std::string buffering;
  bool timing_only = false;
  bool quiet = false;
  bool save_outputs = false;
};

HardwareConfig resolve_hardware(const RunArguments& a) {
  const std::string origin = a.hw_file.empty() ? "<default hardware>" : a.hw_file;
  nlohmann::json j = a.hw_file.empty() ? to_json(HardwareConfig{}) : load_json_file(a.hw_file);
  std::vector<std::string> sets = a.overrides;
  if (!a.policy.empty()) sets.push_back("scheduler.policy=\"" + a.policy + "\"");
  if (!a.buffering.empty()) sets.push_back("buffering=\"" + a.buffering + "\"");
  for (const std::string& s : sets) apply_override(j, s, origin);
  return parse_hardware_config(j, origin);
}

int run(const RunArguments& a) {
  if (a.quiet) spdlog::set_level(spdlog::level::warn);
  const HardwareConfig hw = resolve_hardware(a);
  const NetworkConfig net = a.workload.empty() ? default_network() : load_workload(a.workload);
  spdlog::info("running {} ({} layers) on hardware '{}'", net.name, net.layers.size(), hw.name);

  RunOptions options;
  options.timing_only = a.timing_only;
  options.keep_outputs = a.save_outputs;
  options.progress = !a.quiet;
  const std::unique_ptr<RunResult> result = run_network(net, hw, options);

  if (result->outcome.status != RunOutcome::Status::Completed) {
    std::cerr << "error: simulation "
              << (result->outcome.status == RunOutcome::Status::Deadlocked ? "deadlocked"
                                                                            : "failed")
              << ": " << result->outcome.message << '\n';
    return kSimulationFailed;
  }
  print_summary_table(std::cout, result->summary);
  if (!a.out_dir.empty()) {
    write_report_files(a.out_dir, result->summary);
    for (size_t l = 0; l < result->outputs.size(); ++l)
      write_npy(a.out_dir + "/" + result->network.layers[l].name + ".output.npy",
                result->outputs[l]);
    spdlog::info("wrote reports to {}", a.out_dir);
  }
  if (!result->ok()) {
    std::cerr << "error: output differs from the reference (see the table above)\n";
    return kSimulationFailed;
  }
  return kOk;
}

}  // namespace

void add_run_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<RunArguments>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Simulate a layer or network (JSON) on a hardware config; report cycles and check "
             "every output bit for bit against the reference convolution.");
  cmd->add_option("workload", args->workload,
                  "Layer or network JSON (default: the embedded ResNet-18 convolution layers)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--hw", args->hw_file, "Hardware JSON (default: the built-in defaults, "
                                         "identical to configs/hw/default.json)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", args->out_dir,
                  "Write report.json, layers.csv, stats.json, stats.txt and the resolved configs "
                  "into this folder");
  cmd->add_option("--set", args->overrides,
                  "Override one hardware field, e.g. --set compute.array_rows=16 (repeatable)");
  cmd->add_option("--policy", args->policy, "Dependency scheduler policy (overrides the config)")
      ->check(CLI::IsMember({"strict", "early"}));
  cmd->add_option("--buffering", args->buffering, "Input buffering (overrides the config)")
      ->check(CLI::IsMember({"pingpong", "single"}));
  cmd->add_flag("--timing-only", args->timing_only,
                "Skip the arithmetic and the reference check (same cycles, faster)");
  cmd->add_flag("--save-outputs", args->save_outputs,
                "With --out: also write each layer's output tensor as <layer>.output.npy");
  cmd->add_flag("-q,--quiet", args->quiet, "Only warnings and errors on stderr");
  cmd->callback([args, &action] { action = [args] { return run(*args); }; });
}

}  // namespace npusim::cli
