// The ONNX front-end (docs/onnx.md): reads a quantised ONNX model in the
// QOperator form (QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger,
// QGemm, QLinearAdd, QLinearMul, QLinearAveragePool, QLinearGlobalAveragePool,
// QLinearConcat, MaxPool, Flatten/Reshape to [N, C], Transpose between NHWC
// and NCHW at a graph input or output; QuantizeLinear of a graph input,
// DequantizeLinear of a graph output), and in QDQ form also transformer
// blocks (Softmax, LayerNormalization, MatMul of two activations, the
// Reshapes and Transposes of attention heads) and the table activations
// (the operator table's onnx_qdq), with Debian's libonnx
// protobuf definitions and turns it into a graph workload whose operators
// carry the model's own weights, biases, scales and zero points. Anything
// else is an error naming the node.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/graph/workload.h"

namespace npusim {

// How a graph output of the model relates to the simulated tensor it comes
// from: the same tensor, or its DequantizeLinear (float32) on the host.
struct OnnxOutput {
  std::string name;         // the model's output name
  std::string tensor;       // the quantised tensor the simulator computes
  bool dequantize = false;  // float32 = (q - zero_point) * scale
  float scale = 1.0f;
  int32_t zero_point = 0;
  bool nhwc = false;  // a Transpose to [N, H, W, C]: the simulator's own order, saved as is
  // The model's shape when not [N, H, W, C] (nhwc) or [N, C, H, W]: a sequence
  // tensor [1, T, F] lies as T rows of F features, the order it is saved in; a
  // Flatten of a map, [N, C * H * W], is saved in NCHW order.
  std::vector<uint32_t> shape;
};

struct OnnxModel {
  NetworkConfig network;
  std::vector<OnnxOutput> outputs;
};

// How ConfigError::found() starts when the import stopped on another exception than
// ConfigError (a library's text, a check missing): the model file is still named.
inline constexpr const char* kImportInternalError = "an error inside the importer: ";

// What an import keeps of the model.
struct OnnxImportOptions {
  // False (a timing-only run): an array operator keeps only its weights' non-zero counts per
  // kernel (LayerConfig::weight_nonzeros, all that zero-skip timing needs), counted as the
  // operator is imported; large initialisers are read from the file one at a time, so the
  // model's weights are never all in memory (docs/onnx.md#memory).
  bool weight_values = true;
};

// `inputs`: graph input name -> .npy file (--input NAME=FILE.npy), in the
// input's dtype and ONNX shape; inputs not named get seeded values. Throws
// ConfigError naming the file and the node (its name and op type).
OnnxModel import_onnx(const std::string& path, const std::map<std::string, std::string>& inputs,
                      const OnnxImportOptions& options = {});

// What the npusim executable finds in the ONNX module (libnpusim_onnx.so,
// sim/frontend/onnx_module.cpp) through `npusim_onnx_frontend`: the module
// holds the front-end and libonnx, so that runs of other workloads do not
// load them (sim/cli/onnx_loader.h).
struct OnnxFrontend {
  OnnxModel (*import)(const std::string& path, const std::map<std::string, std::string>& inputs,
                      const OnnxImportOptions& options);
};

// A workload path ending in ".onnx" (inline: the executable needs it without the module).
inline bool is_onnx_model(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

}  // namespace npusim
