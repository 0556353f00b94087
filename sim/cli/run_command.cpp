// `npusim run`: simulate a layer or network on a hardware config and report.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/child_process.h"
#include "sim/cli/commands.h"
#include "sim/cli/model_tensors.h"
#include "sim/cli/saved_tensor_names.h"
#include "sim/cli/workload_options.h"
#include "sim/config/json_reader.h"
#include "sim/io/atomic_file.h"
#include "sim/program/trace_io.h"
#include "sim/report/chrome_trace.h"
#include "sim/report/policy_comparison.h"
#include "sim/runner/runner.h"
#include "sim/tensor/tensor.h"

namespace npusim::cli {
namespace {

struct RunArguments {
  WorkloadOptions in;
  std::string out_dir;
  std::string policy;
  std::string buffering;
  bool timing_only = false;
  bool quiet = false;
  bool save_outputs = false;
  std::string program_file;
  std::string trace_file;
  bool compare_policies = false;
  uint64_t max_workload_mib = kDefaultMaxWorkloadBytes >> 20;
  bool wide = false;
};

// Hardware: --hw, else the hardware a replayed program was compiled for,
// else the defaults; then every --set / --policy / --buffering override.
HardwareConfig run_hardware(const RunArguments& a, const nlohmann::json* program_hw) {
  std::vector<std::string> sets;
  if (!a.policy.empty()) sets.push_back("scheduler.policy=\"" + a.policy + "\"");
  if (!a.buffering.empty()) sets.push_back("buffering=\"" + a.buffering + "\"");
  return resolve_hardware(a.in, sets, program_hw, a.program_file + " (header)");
}

int compare_policies(const RunArguments& a);

// A layer name as a file name: path separators and control characters become
// '_', and a leading '.' is kept from hiding the file (SCALE-Sim topologies
// have names such as "Embedding/Pooling").
// --save-outputs needs somewhere to write and outputs to write (issue 21, item 12).
void check_save_outputs(const RunArguments& a) {
  if (!a.save_outputs) return;
  if (a.out_dir.empty()) throw std::runtime_error("--save-outputs needs --out DIR to write into");
  if (a.timing_only)
    throw std::runtime_error(
        "--save-outputs with --timing-only: a timing-only run computes no "
        "outputs; drop one of the two");
  if (a.compare_policies)
    throw std::runtime_error(
        "--save-outputs with --compare-policies is not supported: save "
        "each policy's outputs with its own run --policy P --out DIR");
}

int run(const RunArguments& a) {
  if (a.quiet) spdlog::set_level(spdlog::level::warn);
  if (a.max_workload_mib < 1 || a.max_workload_mib > (uint64_t(1) << 30))
    throw std::invalid_argument("--max-workload-mib: expected a number in 1..1073741824, found " +
                                std::to_string(a.max_workload_mib));
  check_save_outputs(a);
  if (a.compare_policies) return compare_policies(a);
  std::unique_ptr<ProgramFile> replay;
  if (!a.program_file.empty()) {
    if (!a.in.workload.empty())
      throw std::runtime_error(
          "give either a workload or --program, not both (the program "
          "file carries its workload)");
  }
  std::vector<OnnxOutput> model_outputs;  // an ONNX model's graph outputs
  if (!a.program_file.empty())
    replay = std::make_unique<ProgramFile>(read_program_jsonl(
        a.program_file, program_workload_resolver(a.program_file, a.in.inputs, &model_outputs)));
  const HardwareConfig hw = run_hardware(a, replay ? &replay->hardware : nullptr);
  WorkloadOptions workload = a.in;
  workload.weight_values = !a.timing_only;  // a timing-only run counts a model's weights only
  NetworkConfig net = replay ? replay->network : resolve_workload(workload, &model_outputs);
  spdlog::info("running {} ({} layers) on hardware '{}'", net.name, net.layers.size(), hw.name);
  // An ONNX model's inputs not given with --input are seeded (docs/onnx.md#inputs-and-outputs).
  for (const GraphInput& g : net.graph_inputs)
    if (!model_outputs.empty() && !a.timing_only && g.values.empty())
      spdlog::info("input {}: seeded values over the {} range (--input {}=FILE.npy gives your own)",
                   g.name, to_string(g.quant.type), g.name);
  // No output may replace a file this run reads (issue 21, item 13).
  const std::vector<std::string> inputs = input_files(a.in, net, a.program_file);
  refuse_to_overwrite("--trace", a.trace_file, inputs);
  if (!a.out_dir.empty())
    for (const char* name : {"report.json", "layers.csv", "stats.json", "stats.txt",
                             "hw.resolved.json", "workload.resolved.json"})
      refuse_to_overwrite("--out", a.out_dir + "/" + name, inputs);
  SavedTensorPaths saved;  // refused here, before the run, when two tensors share a file
  if (a.save_outputs) {
    saved = saved_tensor_paths(a.out_dir, net, model_outputs);
    for (const auto* list : {&saved.layers, &saved.inputs, &saved.outputs})
      for (const std::string& path : *list) refuse_to_overwrite("--save-outputs", path, inputs);
  }

  RunOptions options;
  options.timing_only = a.timing_only;
  options.keep_outputs = a.save_outputs;
  options.progress = !a.quiet;
  options.program = replay ? &replay->program : nullptr;
  if (replay) options.program_layer_lines = replay->layer_lines;
  options.record_timeline = !a.trace_file.empty();
  options.max_workload_bytes = a.max_workload_mib << 20;
  // `net` moves into the result; what follows reads result->network.
  const std::unique_ptr<RunResult> result = run_network(std::move(net), hw, options);
  if (!a.trace_file.empty()) {
    make_parent_dirs(a.trace_file);
    write_chrome_trace_file(a.trace_file, result->timeline, hw.clock_mhz);
    spdlog::info("wrote timeline to {} (open it in Perfetto or chrome://tracing)", a.trace_file);
  }

  if (result->outcome.status != RunOutcome::Status::Completed) {
    std::cerr << "error: simulation "
              << (result->outcome.status == RunOutcome::Status::Deadlocked ? "deadlocked"
                                                                           : "failed")
              << ": " << result->outcome.message << '\n';
    return kSimulationFailed;
  }
  RunProvenance& provenance = result->summary.provenance;
  provenance.command_line = own_command_line();
  provenance.hardware_source = !a.in.hw_file.empty() ? a.in.hw_file
                               : replay              ? a.program_file + " (header)"
                                                     : "";
  provenance.workload_source = replay ? a.program_file + " (header)" : a.in.workload;
  provenance.overrides = a.in.overrides;
  if (!a.policy.empty()) provenance.overrides.push_back("scheduler.policy=" + a.policy);
  if (!a.buffering.empty()) provenance.overrides.push_back("buffering=" + a.buffering);
  print_summary_table(std::cout, result->summary, a.wide ? TableWidth::Wide : TableWidth::Compact);
  if (!a.out_dir.empty()) {
    write_report_files(a.out_dir, result->summary);
    for (size_t l = 0; l < result->outputs.size(); ++l)
      write_npy(saved.layers.at(l), result->outputs[l]);
    if (!model_outputs.empty() && !result->operator_outputs.empty())
      write_model_tensors(saved, result->network, model_outputs, result->graph_inputs,
                          result->operator_outputs);
    // Graph operators: int32 values whatever the tensor's type (uint8 does not fit int8).
    for (size_t l = 0; l < result->operator_outputs.size(); ++l)
      write_npy(saved.layers.at(l), result->operator_outputs[l]);
    spdlog::info("wrote reports to {}", a.out_dir);
  }
  if (!result->ok()) {
    std::cerr << "error: output differs from the reference (see the table above)\n";
    return kSimulationFailed;
  }
  return kOk;
}

std::string policy_trace_path(const std::string& trace, const std::string& policy) {
  const size_t dot = trace.rfind('.');
  const size_t slash = trace.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return trace + "." + policy;
  return trace.substr(0, dot) + "." + policy + trace.substr(dot);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Each policy needs its own process (SystemC elaborates once per process):
// re-run this binary with --policy and compare the two reports.
int compare_policies(const RunArguments& a) {
  std::string base = shell_quote(self_path()) + " run -q";
  if (!a.in.workload.empty()) base += " " + shell_quote(a.in.workload);
  if (!a.in.hw_file.empty()) base += " --hw " + shell_quote(a.in.hw_file);
  if (!a.program_file.empty()) base += " --program " + shell_quote(a.program_file);
  for (const std::string& s : a.in.overrides) base += " --set " + shell_quote(s);
  if (!a.buffering.empty()) base += " --buffering " + shell_quote(a.buffering);
  if (a.timing_only) base += " --timing-only";
  base += " --max-workload-mib " + std::to_string(a.max_workload_mib);
  const std::string dir = a.out_dir.empty() ? make_temp_dir() : a.out_dir;
  std::filesystem::create_directories(dir);  // --out creates its folder in every mode
  nlohmann::json reports;
  for (const char* policy : {"strict", "early"}) {
    const std::string out = dir + "/" + policy;
    std::string command = base + " --policy " + policy + " --out " + shell_quote(out);
    if (!a.trace_file.empty())  // one timeline per policy: name.strict.json, name.early.json
      command += " --trace " + shell_quote(policy_trace_path(a.trace_file, policy));
    // Each child's own table goes to its folder; only the comparison is printed.
    const int status = run_child(command + " > " + shell_quote(out + ".log") + " 2>&1");
    if (status != 0) {
      std::cerr << "error: the " << policy << " run failed (exit " << status << "); its output:\n"
                << read_text_file(out + ".log");
      return status == kBadInput ? kBadInput : kSimulationFailed;
    }
    reports[policy] = read_json_file(out + "/report.json");
  }
  print_policy_comparison(std::cout, reports["strict"], reports["early"]);
  if (a.out_dir.empty()) remove_dir(dir);
  return kOk;
}

}  // namespace

void add_run_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<RunArguments>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Simulate a layer or network (JSON) on a hardware config; report cycles and check "
      "every output bit for bit against the reference convolution.");
  add_workload_options(cmd, args->in);
  cmd->add_option("--out", args->out_dir,
                  "Write report.json, layers.csv, stats.json, stats.txt and the resolved configs "
                  "into this folder");
  cmd->add_option("--policy", args->policy, "Dependency scheduler policy (overrides the config)")
      ->check(CLI::IsMember({"strict", "early"}));
  cmd->add_option("--buffering", args->buffering, "Input buffering (overrides the config)")
      ->check(CLI::IsMember({"pingpong", "single"}));
  cmd->add_flag("--timing-only", args->timing_only,
                "Skip the arithmetic and the reference check (same cycles, faster)");
  cmd->add_flag("--save-outputs", args->save_outputs,
                "With --out: also write each layer's output tensor as <layer>.output.npy");
  cmd->add_option("--program", args->program_file,
                  "Replay a compiled program (JSON lines from `npusim compile`) instead of "
                  "compiling the workload")
      ->check(CLI::ExistingFile);
  cmd->add_option("--trace", args->trace_file,
                  "Write a Chrome trace-event timeline (one track per engine, a slice per "
                  "instruction and stage, counters for cache occupancy and DRAM bandwidth)");
  cmd->add_flag("--compare-policies", args->compare_policies,
                "Run under both dependency policies (strict, early) and print both and the gain; "
                "with --trace, writes NAME.strict.json and NAME.early.json");
  cmd->add_option("--max-workload-mib", args->max_workload_mib,
                  "Refuse a workload whose tensors (every layer's input, weights and output, "
                  "counted once) exceed this many MiB, before allocating them (default 4096)");
  cmd->add_flag("--wide", args->wide,
                "Print every column of the per-layer table (stalls by cause, busy shares, "
                "tiling) and the input-reads table; the default fits 100 columns");
  cmd->add_flag("-q,--quiet", args->quiet, "Only warnings and errors on stderr");
  cmd->callback([args, &action] { action = [args] { return run(*args); }; });
}

}  // namespace npusim::cli
