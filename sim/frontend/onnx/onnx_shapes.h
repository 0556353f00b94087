// The shapes a model states for its tensors: its value_info and graph outputs,
// completed by ONNX's own shape inference (libonnx) for the nodes of the
// default domain. The importer computes every shape itself from the nodes'
// attributes and weights, and checks it against these: a model whose stated
// shapes disagree with what its nodes compute is refused, naming the node.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npusim {

// Tensor name -> dims, for every tensor whose shape is fully known (every
// dimension a positive number). Inference errors are not raised here (the
// importer reports what it cannot read, with the node); com.microsoft nodes
// have no schema in libonnx, so their outputs are known only if declared.
std::map<std::string, std::vector<int64_t>> stated_shapes(const onnx::ModelProto& model);

// "[1, 64, 7, 7]": dims as error messages print them.
std::string dims_text(const std::vector<int64_t>& dims);

}  // namespace npusim
