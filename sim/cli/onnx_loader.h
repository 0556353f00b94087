// Imports an ONNX model through the ONNX module, libnpusim_onnx.so beside the
// npusim executable, loaded on first use (sim/frontend/onnx_module.cpp). Runs
// of JSON and CSV workloads never load it, nor libonnx and libprotobuf.
#pragma once

#include <map>
#include <string>

#include "sim/frontend/onnx/onnx_import.h"

namespace npusim::cli {

// import_onnx() of the module. Throws std::runtime_error naming the module's
// path and the loader's message when it cannot be loaded.
OnnxModel import_onnx_model(const std::string& path,
                            const std::map<std::string, std::string>& inputs,
                            const OnnxImportOptions& options = {});

}  // namespace npusim::cli
