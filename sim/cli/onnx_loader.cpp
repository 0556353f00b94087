#include "sim/cli/onnx_loader.h"

#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>

namespace npusim::cli {
namespace {

// The module sits beside the executable (the build puts both in one folder).
std::string module_path() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::string name = "libnpusim_onnx.so";
  return error ? name : (self.parent_path() / name).string();
}

const OnnxFrontend& frontend() {
  static const OnnxFrontend* loaded = [] {
    const std::string path = module_path();
    // RTLD_LOCAL: the module's copies of npusim's libraries stay its own.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
      throw std::runtime_error("cannot load the ONNX module " + path +
                               " that reads .onnx workloads (build it with the npusim "
                               "executable): " +
                               dlerror());
    using Entry = const OnnxFrontend* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, "npusim_onnx_frontend"));
    if (entry == nullptr)
      throw std::runtime_error("the ONNX module " + path +
                               " lacks npusim_onnx_frontend: " + dlerror());
    return entry();
  }();
  return *loaded;
}

}  // namespace

OnnxModel import_onnx_model(const std::string& path,
                            const std::map<std::string, std::string>& inputs,
                            const OnnxImportOptions& options) {
  return frontend().import(path, inputs, options);
}

}  // namespace npusim::cli
