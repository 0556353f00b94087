// `npusim quantize MODEL.onnx -o MODEL_QDQ.onnx [options]`: static post-training
// quantisation of a float ONNX model to the QDQ form npusim runs
// (docs/onnx.md#quantising-a-float-model). The quantiser calibrates with ONNX
// Runtime, so it is the source tree's tools/quantize (Python, onnx, numpy and
// the pinned onnxruntime-node), which this command runs with every argument.
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/child_process.h"
#include "sim/cli/commands.h"

namespace npusim::cli {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

int quantize(const std::vector<std::string>& args) {
  const std::string tool = std::string(NPUSIM_TOOLS_DIR) + "/quantize";
  if (!executable(kPython) || !executable(tool)) {
    std::cerr << "error: npusim quantize: expected " << kPython << " and the quantiser " << tool
              << " (npusim's source tree; tools/install-deps --onnx installs what it "
              << "needs), found " << (executable(kPython) ? "no quantiser" : "no python3") << "\n";
    return kBadInput;
  }
  std::string command = shell_quote(kPython) + " " + shell_quote(tool);
  for (const std::string& a : args) command += " " + shell_quote(a);
  const int code = run_child(command);
  // The quantiser's own messages name the file and what was wrong; any failure is the input's
  // (or a missing dependency), never a simulation's.
  return code == 0 ? kOk : kBadInput;
}

}  // namespace

void add_quantize_command(CLI::App& app, std::function<int()>& action) {
  CLI::App* cmd = app.add_subcommand(
      "quantize",
      "Quantise a float ONNX model to QDQ for npusim: int8 per-channel weights, uint8 or int8 "
      "activations calibrated with ONNX Runtime on seeded or given inputs (`npusim quantize "
      "--help` for the options).");
  cmd->prefix_command();  // every argument, --help included, goes to the quantiser
  cmd->set_help_flag();
  cmd->callback([&action, cmd] {
    const std::vector<std::string> args = cmd->remaining();
    action = [args] { return quantize(args); };
  });
}

}  // namespace npusim::cli
