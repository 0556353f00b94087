#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "models/int8_kernels.h"
#include "sim/cli/commands.h"
#include "sim/compiler/tiler.h"
#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"
#include "sim/reference/gemm_s16.h"
#include "sim/workload/seeded_fill.h"

namespace npusim::cli {

int main(int argc, char** argv) {
  // Progress and diagnostics go to stderr; stdout carries only results.
  spdlog::set_default_logger(spdlog::stderr_color_st("npusim"));
  spdlog::set_pattern("npusim: %v");

  CLI::App app{
      "npusim: a cycle-approximate simulator of a DNN inference accelerator "
      "(SystemC), with bit-exact outputs checked against a reference."};
  app.require_subcommand(1);
  // The version, and the instruction-set levels this process's kernels run (each chosen from
  // the CPU, or capped by NPUSIM_ISA and NPUSIM_REFERENCE_ISA): what a timing was taken with.
  app.set_version_flag("--version", [] {
    return std::string("npusim ") + NPUSIM_VERSION + "\ninstruction sets: model " +
           int8_kernels::isa_name(int8_kernels::active().isa) + ", reference " +
           reference::to_string(reference::gemm_level()) + ", seeded data " + seeded_fill_level();
  });
  std::function<int()> action;
  add_run_command(app, action);
  add_compile_command(app, action);
  add_estimate_command(app, action);
  add_regress_command(app, action);
  add_sweep_command(app, action);
  add_gpu_command(app, action);
  add_diff_command(app, action);
  add_report_command(app, action);
  add_quantize_command(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A misspelt subcommand: say which one was meant rather than "not expected".
    std::vector<std::string> names;  // the commands --help lists, not the hidden ones
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known = known || (argc > 1 && sub->get_name() == argv[1]);
      if (!sub->get_group().empty()) names.push_back(sub->get_name());
    }
    if (argc > 1 && argv[1][0] != '-' && !known) {
      const std::string hint = nearest_key(argv[1], names);
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      std::cerr << "error: unknown command \"" << argv[1] << "\""
                << (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)")
                << "; commands: " << list << "\n";
      return kBadInput;
    }
    return app.exit(e) == 0 ? kOk : kBadInput;
  } catch (const std::exception& e) {  // e.g. --version under an unknown NPUSIM_ISA
    std::cerr << "error: " << e.what() << '\n';
    return kBadInput;
  }
  try {
    const int code = action ? action() : kOk;
    // Results that never reached stdout (a full disk, /dev/full) are a failure.
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "error: cannot write to standard output\n";
      return kBadInput;
    }
    return code;
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kBadInput;
  } catch (const CompileError& e) {
    std::cerr << "error: cannot compile: " << e.what() << '\n';
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kBadInput;
  }
}

}  // namespace npusim::cli
