// Where `run --out DIR --save-outputs` writes tensors: one file per operator
// output (<layer>.output.npy) and, for an ONNX model, per graph input
// (<name>.input.npy) and graph output (<name>.npy). The names come from the
// workload, so each is made one safe file name inside DIR (no folder separator,
// no leading dot, no control character, at most 200 bytes) and two tensors that
// would share a file are refused before the run, naming both.
#pragma once

#include <string>
#include <vector>

#include "sim/frontend/onnx/onnx_import.h"
#include "sim/graph/workload.h"

namespace npusim::cli {

// `name` as one file name: '/', '\\' and control characters become '_', a
// leading '.' becomes '_', an empty name "_", and a name over 200 bytes keeps its
// first 180 and a hash of the whole.
std::string file_safe(const std::string& name);

struct SavedTensorPaths {
  std::vector<std::string> layers;   // per layer of the network
  std::vector<std::string> inputs;   // per graph input (ONNX models)
  std::vector<std::string> outputs;  // per model output (ONNX models)
};

// The paths under `dir`; std::runtime_error when two tensors map to one file.
SavedTensorPaths saved_tensor_paths(const std::string& dir, const NetworkConfig& net,
                                    const std::vector<OnnxOutput>& model_outputs);

}  // namespace npusim::cli
