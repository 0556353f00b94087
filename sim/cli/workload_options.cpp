#include "sim/cli/workload_options.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <map>
#include <stdexcept>

#include "sim/cli/onnx_loader.h"
#include "sim/config/config_error.h"
#include "sim/config/content_hash.h"
#include "sim/config/json_reader.h"
#include "sim/config/resolve_hardware.h"
#include "sim/frontend/json/decoder_workload.h"
#include "sim/frontend/load_workload.h"

namespace npusim::cli {

namespace fs = std::filesystem;

void add_workload_options(CLI::App* cmd, WorkloadOptions& options) {
  cmd->add_option("workload", options.workload,
                  "Layer, network or graph JSON, a SCALE-Sim topology .csv, or a quantised ONNX "
                  "model (.onnx) (default: the embedded ResNet-18 convolution layers)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--hw", options.hw_file,
                  "Hardware JSON (default: the built-in defaults, identical to "
                  "configs/hw/default.json)")
      ->check(CLI::ExistingFile);
  // One value per --set: `--set k=v layer.json` must not take the workload as an override.
  cmd->add_option("--set", options.overrides,
                  "Override one hardware field, e.g. --set compute.array_rows=16 or "
                  "cache.size_kib=2MiB (repeatable; every key: docs/config.md)")
      ->allow_extra_args(false);
  cmd->add_option("--input", options.inputs,
                  "An ONNX model's graph input from a .npy file, NAME=FILE.npy, in the input's "
                  "dtype and NCHW shape (repeatable; inputs not given get seeded values)")
      ->allow_extra_args(false);
  cmd->add_option("--prefill", options.prefill,
                  "A decoder workload's prefill tokens, replacing its decoder.prefill "
                  "(docs/decoders.md#decoder-workloads)")
      ->check(CLI::Range(int64_t(1), int64_t(65536)));
  cmd->add_option("--decode", options.decode,
                  "A decoder workload's decode steps, replacing its decoder.decode")
      ->check(CLI::Range(int64_t(0), int64_t(4096)));
  cmd->add_option("--batch", options.batch,
                  "A decoder workload's sequences decoded together, replacing its "
                  "decoder.batch (default 1)")
      ->check(CLI::Range(int64_t(1), int64_t(1024)));
}

HardwareConfig resolve_hardware(const WorkloadOptions& options,
                                const std::vector<std::string>& extra_sets,
                                const nlohmann::json* fallback,
                                const std::string& fallback_origin) {
  std::string origin = "<default hardware>";
  // The defaults are the parser's: an override then reads as if written in
  // an empty file (a dram.preset then fills the device, docs/dram.md).
  nlohmann::json j = nlohmann::json::object();
  if (!options.hw_file.empty()) {
    origin = options.hw_file;
    j = load_json_file(options.hw_file);
  } else if (fallback != nullptr) {
    origin = fallback_origin;
    j = *fallback;
  }
  std::vector<std::string> sets = options.overrides;
  sets.insert(sets.end(), extra_sets.begin(), extra_sets.end());
  return resolve_hardware_json(std::move(j), origin, sets);
}

namespace {

// --input NAME=FILE.npy assignments as a map.
std::map<std::string, std::string> input_assignments(const std::vector<std::string>& inputs) {
  std::map<std::string, std::string> files;
  for (const std::string& assignment : inputs) {
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size())
      throw std::invalid_argument("--input " + assignment + ": expected NAME=FILE.npy");
    files[assignment.substr(0, eq)] = assignment.substr(eq + 1);
  }
  return files;
}

// The folder a program file's relative paths start from.
fs::path program_folder(const std::string& program_path) {
  if (program_path.empty() || program_path == "-") return fs::current_path();
  return fs::absolute(program_path).parent_path();
}

}  // namespace

NetworkConfig resolve_workload(const WorkloadOptions& options,
                               std::vector<OnnxOutput>* onnx_outputs) {
  if (!options.workload.empty() && is_onnx_model(options.workload)) {
    const std::map<std::string, std::string> inputs = input_assignments(options.inputs);
    OnnxModel model =
        cli::import_onnx_model(options.workload, inputs, OnnxImportOptions{options.weight_values});
    if (onnx_outputs != nullptr) *onnx_outputs = model.outputs;
    model.network.source_files = {{"onnx model", options.workload}};
    for (const auto& [name, file] : inputs)
      model.network.source_files.emplace_back("input " + name, file);
    return std::move(model.network);
  }
  if (!options.inputs.empty())
    throw std::invalid_argument(
        "--input is for ONNX models; a JSON workload names its data itself");
  NetworkConfig net;
  if (options.prefill >= 0 || options.decode >= 0 || options.batch >= 0) {
    // The decoder's shapes with the counts replaced, then expanded as usual.
    nlohmann::json j = options.workload.empty() || options.workload.size() < 5 ||
                               options.workload.substr(options.workload.size() - 5) != ".json"
                           ? nlohmann::json()
                           : load_json_file(options.workload);
    if (!is_decoder_workload(j) || !j.at("decoder").is_object())
      throw std::invalid_argument(
          "--prefill, --decode and --batch set a decoder workload's tokens, steps and "
          "sequences; " +
          (options.workload.empty() ? std::string("the embedded ResNet-18") : options.workload) +
          " is not one (a JSON file with a \"decoder\" object, docs/transformers.md)");
    // The file's own values are checked first: one the options replace is still an
    // error in the file (it ran silently, and failed when run without the options).
    read_decoder_shape(j, options.workload);
    if (options.prefill >= 0) j["decoder"]["prefill"] = options.prefill;
    if (options.decode >= 0) j["decoder"]["decode"] = options.decode;
    if (options.batch >= 0) j["decoder"]["batch"] = options.batch;
    net = parse_workload(j, options.workload);
  } else {
    net = options.workload.empty() ? default_network() : load_workload(options.workload);
  }
  for (const std::string& warning : net.warnings) spdlog::warn("warning: {}", warning);
  return net;
}

nlohmann::json program_workload(const WorkloadOptions& options, const NetworkConfig& net,
                                const std::string& program_path) {
  if (options.workload.empty() || !is_onnx_model(options.workload)) return to_json(net);
  const fs::path folder = program_folder(program_path);
  const auto relative = [&](const std::string& path) {
    return fs::absolute(path).lexically_normal().lexically_relative(folder).generic_string();
  };
  nlohmann::json inputs = nlohmann::json::object();
  for (const auto& [name, file] : input_assignments(options.inputs)) inputs[name] = relative(file);
  return {{"onnx", relative(options.workload)},
          {"fnv1a64", fnv1a64_hex(read_input_file(options.workload, "a readable ONNX model"))},
          {"inputs", inputs}};
}

WorkloadResolver program_workload_resolver(const std::string& program_path,
                                           const std::vector<std::string>& extra_inputs,
                                           std::vector<OnnxOutput>* onnx_outputs) {
  return [program_path, extra_inputs, onnx_outputs](const nlohmann::json& workload,
                                                    const std::string& origin) {
    if (!workload.is_object() || !workload.contains("onnx")) {
      if (!extra_inputs.empty())
        throw std::invalid_argument(
            "--input is for ONNX models; the program's workload names its data itself");
      return parse_workload(workload, origin);
    }
    JsonReader r(workload, origin);
    const fs::path folder = program_folder(program_path);
    const auto resolve = [&](const std::string& path) {
      const fs::path p(path);
      return (p.is_absolute() ? p : folder / p).lexically_normal().string();
    };
    const std::string model = resolve(r.require_string("onnx"));
    const std::string hash = r.require_string("fnv1a64");
    std::map<std::string, std::string> inputs;
    if (const nlohmann::json* v = r.find("inputs")) {
      if (!v->is_object())
        r.fail("inputs", "an object of graph input names and .npy files", describe_json(*v));
      JsonReader files(*v, origin, r.pointer_to("inputs"));
      for (const auto& item : v->items())
        inputs[item.key()] = resolve(files.require_string(item.key()));
    }
    r.finish();
    std::string bytes;
    try {
      bytes = read_input_file(model, "a readable ONNX model");
    } catch (const ConfigError& e) {
      r.fail("onnx", "the ONNX model the program was compiled from (relative to the program file)",
             "\"" + model + "\": " + e.found());
    }
    if (fnv1a64_hex(bytes) != hash)
      r.fail("fnv1a64",
             hash +
                 " (the hash of the model the program was compiled from; recompile it with "
                 "npusim compile)",
             fnv1a64_hex(bytes) + ", the hash of " + model + " now");
    for (const auto& [name, file] : input_assignments(extra_inputs)) inputs[name] = file;
    OnnxModel imported = cli::import_onnx_model(model, inputs);
    if (onnx_outputs != nullptr) *onnx_outputs = imported.outputs;
    return std::move(imported.network);
  };
}

std::vector<std::string> input_files(const WorkloadOptions& options, const NetworkConfig& net,
                                     const std::string& program_file) {
  std::vector<std::string> files = {options.workload, options.hw_file, program_file};
  for (const std::string& assignment : options.inputs)  // --input NAME=FILE.npy
    if (assignment.find('=') != std::string::npos)
      files.push_back(assignment.substr(assignment.find('=') + 1));
  for (const LayerConfig& l : net.layers)
    for (const std::string* npy : {&l.weights_npy, &l.input_npy, &l.bias_npy})
      files.push_back(*npy);
  return files;
}

namespace {

// A number parsed from `text`, or an error message for it.
CLI::Validator number_at_least(double min, bool inclusive, const std::string& name) {
  return CLI::Validator(
      [min, inclusive, name](std::string& text) -> std::string {
        double value = 0;
        std::size_t used = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || used == 0) return "expected a number, found \"" + text + "\"";
        if (inclusive ? value >= min : value > min) return {};
        return "expected " + name + ", found " + text;
      },
      inclusive ? "NUMBER >= 0" : "NUMBER > 0");
}

}  // namespace

CLI::Validator positive_number() { return number_at_least(0, false, "a number > 0"); }
CLI::Validator non_negative_number() { return number_at_least(0, true, "a number >= 0"); }

}  // namespace npusim::cli
