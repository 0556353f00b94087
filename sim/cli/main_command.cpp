#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <iostream>

#include "sim/cli/commands.h"
#include "sim/compiler/tiler.h"
#include "sim/config/config_error.h"

namespace npusim::cli {

int main(int argc, char** argv) {
  // Progress and diagnostics go to stderr; stdout carries only results.
  spdlog::set_default_logger(spdlog::stderr_color_st("npusim"));
  spdlog::set_pattern("npusim: %v");

  CLI::App app{
      "npusim: a cycle-approximate simulator of a DNN inference accelerator "
      "(SystemC), with bit-exact outputs checked against a reference."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "npusim 0.1.0");
  std::function<int()> action;
  add_run_command(app, action);
  add_compile_command(app, action);
  add_regress_command(app, action);
  add_sweep_command(app, action);
  add_gpu_command(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kBadInput;
  }
  try {
    return action ? action() : kOk;
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
