// ONNX constants as numbers: initialisers, and the small constant subgraphs
// framework exporters emit to compute a Reshape's target shape (torch.onnx
// writes Shape -> Gather -> Unsqueeze -> Concat, Constant and Cast nodes).
// Such nodes are evaluated at import ("folded"); they never reach the
// simulator. docs/onnx.md lists the nodes folded.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace npusim {

// A constant tensor as numbers, whatever its ONNX storage.
struct Constant {
  int type = 0;  // onnx::TensorProto_DataType
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;  // int32 and int64
  std::vector<int8_t> bytes;  // int8 and uint8 as stored: weights take 1 byte, not 8
  std::vector<float> floats;  // float
  bool is_8bit() const {
    return type == onnx::TensorProto_DataType_INT8 || type == onnx::TensorProto_DataType_UINT8;
  }
  // Value i of an integer constant, whatever its storage.
  int64_t int_at(uint64_t i) const {
    if (!is_8bit()) return ints[i];
    return type == onnx::TensorProto_DataType_UINT8 ? int64_t(uint8_t(bytes[i])) : bytes[i];
  }
  uint64_t count() const {
    uint64_t n = 1;
    for (int64_t d : dims) n *= uint64_t(d);
    return n;
  }
};

// A TensorProto's values; throws ConfigError at `file` and `pointer` for
// negative dims, external data or a value count that does not match the dims.
// Types other than float, (u)int8, int32 and int64 keep no values (an error
// only when a node reads them). `bytes_in_file`: the size of an 8-bit tensor's values
// left in the model file (onnx_reader.h), checked against the dims; its `bytes` stay
// empty for the importer to read.
Constant constant_from_tensor(const onnx::TensorProto& t, const std::string& file,
                              const std::string& pointer,
                              std::optional<uint64_t> bytes_in_file = std::nullopt);

// The same for a reader that only looks (the graph rewrites before import):
// nullopt where constant_from_tensor throws, which the import then reports.
std::optional<Constant> constant_if_readable(const onnx::TensorProto& t);

// Why a node that looks foldable cannot be folded, in the terms of an error.
struct FoldError {
  std::string expected, found;
};

// Evaluates a Shape, Gather, Unsqueeze, Squeeze, Concat, Cast, ConstantOfShape
// node, or an integer Add, Sub, Mul or Div (ONNX's truncating division), whose inputs are all known
// (Constant nodes are hoisted to initialisers first; one in another form than a "value" tensor
// throws): `constant` finds a constant by name (nullptr if none) and `shape` an activation's shape
// (nullopt if none; Shape reads only that). Returns nullopt for any other node, or when an input is
// not constant (Concat of activations is the quantised kind's, not this). Throws FoldError for a
// foldable node with inputs it cannot take.
std::optional<Constant> fold_constant_node(
    const onnx::NodeProto& n, int64_t opset, const std::string& file,
    const std::function<const Constant*(const std::string&)>& constant,
    const std::function<std::optional<std::vector<int64_t>>(const std::string&)>& shape);

// Node n's attribute `name`, or nullptr when it has none (any type).
const onnx::AttributeProto* find_attribute(const onnx::NodeProto& n, const std::string& name);

// Framework exporters write weights and small constants as Constant nodes and
// Identity copies of initialisers (torch.onnx does both). Before anything
// reads the graph, these become plain initialisers, so that every later step
// (the QDQ lowering included) finds constants in one place. Returns how many
// nodes were removed.
int hoist_constant_nodes(onnx::GraphProto& g);

}  // namespace npusim
