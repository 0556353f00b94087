// --save-outputs for ONNX models: each graph input the run used as
// <name>.input.npy and each graph output as <name>.npy, in the model's dtype
// and shape (NCHW, NHWC where the model transposes to or from it, or [N, F]
// after a matmul; float32 for a DequantizeLinear
// output), so another runtime's outputs compare directly (tools/ort-compare).
#pragma once

#include <string>
#include <vector>

#include "sim/cli/saved_tensor_names.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "sim/graph/workload.h"
#include "sim/tensor/tensor.h"

namespace npusim::cli {

// `inputs`: each graph input's N,H,W,C bytes the run used
// (RunResult::graph_inputs); `values`: each operator's output values, N,H,W,K
// (RunResult::operator_outputs). `paths`: where each goes (saved_tensor_paths).
void write_model_tensors(const SavedTensorPaths& paths, const NetworkConfig& net,
                         const std::vector<OnnxOutput>& outputs,
                         const std::vector<TensorI8>& inputs, const std::vector<TensorI32>& values);

}  // namespace npusim::cli
