// `npusim compile`: write the program the compiler makes for a workload and a
// hardware config as JSON lines, to read, edit by hand, and replay with
// `npusim run --program FILE`; or, with --explain-mapping or --explain-layer,
// say which mappings the compiler chooses and why (explain_mapping.h).
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <sstream>

#include "sim/cli/child_process.h"
#include "sim/cli/commands.h"
#include "sim/cli/explain_mapping.h"
#include "sim/cli/workload_options.h"
#include "sim/io/atomic_file.h"
#include "sim/program/trace_io.h"
#include "sim/report/report.h"
#include "sim/runner/compile_trials.h"
#include "sim/runner/runner.h"

namespace npusim::cli {
namespace {

CompileTrials compile_trials(const NetworkConfig& net, const HardwareConfig& hw,
                             NetworkEstimate& chosen_estimate) {
  if (!runs_compile_trials(hw)) return {};
  CompileTrials c = run_compile_trials(net, hw, true, 0, &chosen_estimate);
  if (!c.trials.empty()) {
    std::string text;
    for (const std::string& item : compile_trials_summary(c))
      text += (text.empty() ? "" : ", ") + item;
    spdlog::info("compile trials: {}", text);
  }
  return c;
}

struct CompileArguments {
  WorkloadOptions in;
  std::string output;
  bool explain_mapping = false;
  std::string explain_layer;  // --explain-layer NAME
  size_t candidates = 10;     // --candidates N (0: all)
};

int compile(const CompileArguments& a) {
  const HardwareConfig given = resolve_hardware(a.in);
  const NetworkConfig net = resolve_workload(a.in);
  // The units and cache as `run`'s compile trials settle them, so the program
  // written (and the mapping explained) is the one `run` would simulate; the
  // header records them as compiler.units, compiler.cache_kib and
  // compiler.array_rows/cols.
  // The chosen trial's estimate (or compile_network's partition): the program is built from it.
  NetworkEstimate chosen_estimate;
  const CompileTrials trials = compile_trials(net, given, chosen_estimate);
  const HardwareConfig hw = compile_target(given, trials);
  if (!a.explain_layer.empty()) return explain_layer(net, hw, a.explain_layer, a.candidates);
  if (a.explain_mapping) return explain_mapping(net, hw);
  const Program program = compile_for_workload(
      net, hw, chosen_estimate.partition.units != 0 ? &chosen_estimate : nullptr);
  const nlohmann::json workload = program_workload(a.in, net, a.output);
  if (a.output.empty() || a.output == "-") {
    write_program_jsonl(std::cout, program, workload, to_json(hw), net.is_graph());
    return kOk;
  }
  refuse_to_overwrite("-o", a.output, input_files(a.in, net));
  make_parent_dirs(a.output);
  std::ostringstream out;
  write_program_jsonl(out, program, workload, to_json(hw), net.is_graph());
  write_file_atomically(a.output, out.str());
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
  cmd->add_flag("--explain-mapping", args->explain_mapping,
                "Print each array layer's chosen mapping, its estimated cycles and the greedy "
                "mapping's, instead of the program (docs/mapping.md)");
  CLI::Option* layer = cmd->add_option(
      "--explain-layer", args->explain_layer,
      "Print one array layer's candidate mappings ranked by estimated cycles, with the "
      "estimate's terms, the greedy mapping's rank and what set the winner apart, instead of "
      "the program");
  cmd->add_option("--candidates", args->candidates,
                  "With --explain-layer: how many of the cheapest candidates to list (0: all; "
                  "default 10)")
      ->needs(layer);
  cmd->callback([args, &action] { action = [args] { return compile(*args); }; });
}

}  // namespace npusim::cli
