#include "sim/cli/saved_tensor_names.h"

#include <map>
#include <stdexcept>

#include "sim/config/content_hash.h"

namespace npusim::cli {

std::string file_safe(const std::string& name) {
  std::string out = name.empty() ? "_" : name;
  for (char& c : out)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '_';
  if (out[0] == '.') out[0] = '_';
  constexpr std::size_t kMaxBytes = 200, kKeep = 180;  // file systems allow 255
  if (out.size() > kMaxBytes) {
    std::string hash = fnv1a64_hex(name);  // the same name on every build and machine
    hash.insert(0, 16 - hash.size(), '0');
    out = out.substr(0, kKeep) + "~" + hash;
  }
  return out;
}

SavedTensorPaths saved_tensor_paths(const std::string& dir, const NetworkConfig& net,
                                    const std::vector<OnnxOutput>& model_outputs) {
  SavedTensorPaths paths;
  std::map<std::string, std::string> owner;  // file name -> the tensor that has it
  const auto claim = [&](const std::string& what, const std::string& name,
                         const std::string& suffix) {
    const std::string file = file_safe(name) + suffix;
    const std::string who = what + " \"" + name + "\"";
    const auto [it, inserted] = owner.emplace(file, who);
    if (!inserted)
      throw std::runtime_error("--save-outputs: " + it->second + " and " + who +
                               " would both be saved as " + dir + "/" + file +
                               "; rename one in the workload");
    return dir + "/" + file;
  };
  for (const LayerConfig& l : net.layers)
    paths.layers.push_back(claim("layer", l.name, ".output.npy"));
  if (model_outputs.empty()) return paths;
  for (const GraphInput& in : net.graph_inputs)
    paths.inputs.push_back(claim("graph input", in.name, ".input.npy"));
  for (const OnnxOutput& o : model_outputs)
    paths.outputs.push_back(claim("graph output", o.name, ".npy"));
  return paths;
}

}  // namespace npusim::cli
