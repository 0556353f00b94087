// The npusim subcommands. Each registers its options on the CLI11 app and
// returns the process exit code when it runs: 0 success, 1 the simulation
// failed (mismatch, simulation error, deadlock), 2 bad input.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace npusim::cli {

enum ExitCode { kOk = 0, kSimulationFailed = 1, kBadInput = 2 };

// Registers `npusim run`; `action` is set to run it when chosen.
void add_run_command(CLI::App& app, std::function<int()>& action);
// Registers `npusim compile`.
void add_compile_command(CLI::App& app, std::function<int()>& action);
// Registers `npusim estimate`: the compiler's estimate without a simulation.
void add_estimate_command(CLI::App& app, std::function<int()>& action);
void add_regress_command(CLI::App& app, std::function<int()>& action);
void add_sweep_command(CLI::App& app, std::function<int()>& action);
void add_gpu_command(CLI::App& app, std::function<int()>& action);
// Registers `npusim diff`: two runs' --out folders side by side.
void add_diff_command(CLI::App& app, std::function<int()>& action);
// Registers `npusim report`: a run's or a sweep's folder as one HTML page.
void add_report_command(CLI::App& app, std::function<int()>& action);
// Registers `npusim quantize`: a float ONNX model to QDQ (runs tools/quantize).
void add_quantize_command(CLI::App& app, std::function<int()>& action);

// Runs the whole command line; maps every error to a message and exit code.
int main(int argc, char** argv);

}  // namespace npusim::cli
