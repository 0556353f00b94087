// `npusim compile`: write the program the compiler makes for a workload and a
// hardware config as JSON lines, to read, edit by hand, and replay with
// `npusim run --program FILE`.
#include <spdlog/spdlog.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "sim/cli/commands.h"
#include "sim/compiler/tiler.h"
#include "sim/config/json_reader.h"
#include "sim/program/trace_io.h"
#include "sim/runner/runner.h"

namespace npusim::cli {
namespace {

struct CompileArguments {
  std::string workload;
  std::string hw_file;
  std::vector<std::string> overrides;
  std::string output;
};

int compile(const CompileArguments& a) {
  const std::string origin = a.hw_file.empty() ? "<default hardware>" : a.hw_file;
  nlohmann::json hw_json =
      a.hw_file.empty() ? to_json(HardwareConfig{}) : load_json_file(a.hw_file);
  for (const std::string& s : a.overrides) apply_override(hw_json, s, origin);
  const HardwareConfig hw = parse_hardware_config(hw_json, origin);
  const NetworkConfig net = a.workload.empty() ? default_network() : load_workload(a.workload);
  const Program program = compile_for_workload(net, hw);
  if (a.output.empty() || a.output == "-") {
    write_program_jsonl(std::cout, program, to_json(net), to_json(hw));
    return kOk;
  }
  std::ofstream out(a.output);
  if (!out) throw std::runtime_error("cannot open " + a.output + " for writing");
  write_program_jsonl(out, program, to_json(net), to_json(hw));
  out.close();
  if (!out) throw std::runtime_error("error writing " + a.output);
  spdlog::info("wrote {} instructions for {} layers to {}", program.instructions.size(),
               program.layers.size(), a.output);
  return kOk;
}

}  // namespace

void add_compile_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<CompileArguments>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Compile a layer or network for a hardware config and write the program as JSON "
      "lines (one instruction per line, explicit dependencies).");
  cmd->add_option("workload", args->workload,
                  "Layer or network JSON (default: the embedded ResNet-18 convolution layers)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--hw", args->hw_file, "Hardware JSON (default: the built-in defaults)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", args->overrides,
                  "Override one hardware field, e.g. --set cache.size_kib=256 (repeatable)");
  cmd->add_option("-o,--output", args->output, "Output file (default: standard output)");
  cmd->callback([args, &action] { action = [args] { return compile(*args); }; });
}

}  // namespace npusim::cli
