#include "sim/graph/op_table.h"

namespace npusim {

const char* to_string(OpFamily f) {
  switch (f) {
    case OpFamily::Conv:
      return "conv";
    case OpFamily::Matmul:
      return "matmul";
    case OpFamily::Pool:
      return "pool";
    case OpFamily::Elementwise:
      return "elementwise";
    case OpFamily::Concat:
      return "concat";
    case OpFamily::Gather:
      return "gather";
    case OpFamily::Softmax:
      return "softmax";
    case OpFamily::Norm:
      return "norm";
    case OpFamily::Activation:
      return "activation";
    case OpFamily::Rope:
      break;
  }
  return "rope";
}

std::optional<OpKind> op_kind_named(const std::string& name) {
  for (const OpKind k : kOpKinds)
    if (name == op_info(k).name) return k;
  return std::nullopt;
}

std::optional<OpKind> op_kind_of_onnx_qdq(const std::string& onnx_op) {
  for (const OpKind k : kOpKinds)
    if (op_info(k).onnx_qdq != nullptr && onnx_op == op_info(k).onnx_qdq) return k;
  return std::nullopt;
}

std::string op_names_list() {
  std::string list;
  for (const OpKind k : kOpKinds) list += std::string(list.empty() ? "" : ", ") + op_info(k).name;
  return list;
}

}  // namespace npusim
