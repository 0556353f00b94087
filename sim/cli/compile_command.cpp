// `npusim compile`: write the program the compiler makes for a workload and a
// hardware config as JSON lines, to read, edit by hand, and replay with
// `npusim run --program FILE`.
#include <spdlog/spdlog.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "sim/cli/child_process.h"
#include "sim/cli/commands.h"
#include "sim/cli/workload_options.h"
#include "sim/compiler/tiler.h"
#include "sim/program/trace_io.h"
#include "sim/runner/runner.h"

namespace npusim::cli {
namespace {

struct CompileArguments {
  WorkloadOptions in;
  std::string output;
};

int compile(const CompileArguments& a) {
  const HardwareConfig hw = resolve_hardware(a.in);
  const NetworkConfig net = resolve_workload(a.in);
  if (net.is_graph()) {
    std::cerr << "error: " << net.name
              << ": program files do not carry graph workloads yet (docs/graphs.md#limits); "
                 "run the graph directly with npusim run\n";
    return kBadInput;
  }
  const Program program = compile_for_workload(net, hw);
  if (a.output.empty() || a.output == "-") {
    write_program_jsonl(std::cout, program, to_json(net), to_json(hw));
    return kOk;
  }
  refuse_to_overwrite("-o", a.output, input_files(a.in, net));
  make_parent_dirs(a.output);
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
  add_workload_options(cmd, args->in);
  cmd->add_option("-o,--output", args->output, "Output file (default: standard output)");
  cmd->callback([args, &action] { action = [args] { return compile(*args); }; });
}

}  // namespace npusim::cli
