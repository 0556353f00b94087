// The operator table: every graph operator declared once, as one row of
// op_info() (docs/architecture.md, adding an operator). The row drives the
// parsers (names, input counts, which keys an operator takes), the
// array/vector split, the kernels', references' and cost lines' dispatch, the
// reports and the ONNX front-end's table activations; code that must treat
// operators differently switches on the row's family, then on that family's
// sub-kind, with no `default:`, so the compiler names every place a new
// operator has to be handled. No behaviour depends on the order of the
// enumerators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace npusim {

// Each with the semantics of its ONNX counterpart (docs/graphs.md,
// docs/transformers.md).
enum class OpKind : uint8_t {
  Conv,
  MatMul,
  MaxPool,
  AveragePool,
  GlobalAveragePool,
  Add,
  Concat,
  BatchMatMul,
  Softmax,
  LayerNorm,
  RmsNorm,
  Gelu,
  Silu,
  Mul,
  Rope,
  Sigmoid,
  HardSigmoid,
  HardSwish,
  Gather,
  Resize,
  Tanh,
  LeakyRelu
};

// Every operator, in enumerator order: what parsers and tests iterate.
inline constexpr OpKind kOpKinds[] = {OpKind::Conv,
                                      OpKind::MatMul,
                                      OpKind::MaxPool,
                                      OpKind::AveragePool,
                                      OpKind::GlobalAveragePool,
                                      OpKind::Add,
                                      OpKind::Concat,
                                      OpKind::BatchMatMul,
                                      OpKind::Softmax,
                                      OpKind::LayerNorm,
                                      OpKind::RmsNorm,
                                      OpKind::Gelu,
                                      OpKind::Silu,
                                      OpKind::Mul,
                                      OpKind::Rope,
                                      OpKind::Sigmoid,
                                      OpKind::HardSigmoid,
                                      OpKind::HardSwish,
                                      OpKind::Gather,
                                      OpKind::Resize,
                                      OpKind::Tanh,
                                      OpKind::LeakyRelu};
inline constexpr std::size_t kOpKindCount = sizeof(kOpKinds) / sizeof(kOpKinds[0]);

// Where an operator runs: the MAC array (conv, matmul, batch_matmul) or the
// vector unit.
enum class OpUnit { Array, Vector };

// What an operator computes; kernels, references and cost lines are grouped
// by family on every floor.
enum class OpFamily {
  Conv,
  Matmul,
  Pool,
  Elementwise,
  Concat,
  Gather,
  Softmax,
  Norm,
  Activation,
  Rope
};

// Each family's members, by what tells them apart: a row carries the sub-kind
// of its own family (the others keep their first value and mean nothing).
// Code that treats a family's members differently switches on its sub-kind
// with no `default:`; a new member of a family is named to the compiler
// there, and nowhere else.
enum class MatmulKind : uint8_t {
  Weights,  // matmul: the second operand is a constant weight tensor
  Produced  // batch_matmul: both operands are produced (attention)
};
enum class PoolKind : uint8_t { Max, Average, GlobalAverage };
enum class ElementwiseKind : uint8_t {
  Add,  // two maps of one shape
  Mul   // one shape, or a per-channel [N, C, 1, 1] second operand
};
enum class GatherKind : uint8_t {
  Channels,  // gather: output channel k is input channel channels[k]
  Resize     // resize: pixels picked or interpolated by coordinates
};
enum class NormKind : uint8_t { Layer, Rms };
// Whether a norm adds its per-channel beta unless a workload says otherwise
// (docs/transformers.md): LayerNorm's definition has one, RMSNorm's none.
constexpr bool norm_beta_by_default(NormKind k) {
  switch (k) {
    case NormKind::Layer:
      return true;
    case NormKind::Rms:
      return false;
  }
  return false;
}
// The activation's function of one dequantised value (docs/transformers.md).
enum class ActivationFn : uint8_t { Gelu, Silu, Sigmoid, HardSigmoid, HardSwish, Tanh, LeakyRelu };

// The tensors an operator reads: feature maps [N, C, H, W] (NHWC in DRAM,
// the CNN operators) or sequences [N, C = heads * dim, H = tokens, W = 1]
// (the transformer operators; docs/transformers.md). The elementwise
// activations are sequence operators that take any [N, C, H, W] as NHWC
// values (the transformer kernels and references run them).
enum class OpOperands { Maps, Sequences };

// An operator's inputs: at least `min`, at most `max`; kManyInputs: as many
// as the graph's block limit allows (concat's inputs, batch_matmul's KV blocks).
inline constexpr uint32_t kManyInputs = 0;

struct OpInfo {
  OpKind kind = OpKind::Conv;
  const char* name = nullptr;  // the graph JSON's "op" and every report
  OpUnit unit = OpUnit::Vector;
  OpFamily family = OpFamily::Elementwise;
  OpOperands operands = OpOperands::Maps;
  uint32_t min_inputs = 1;
  uint32_t max_inputs = 1;        // or kManyInputs
  bool window = false;            // kernel, strides and pads over H x W
  bool dilation = false;          // ... and dilations
  bool weights = false;           // a constant weight tensor (and bias) from the workload
  bool norm_params = false;       // per-channel gamma (int8) and beta (int32) in DRAM
  bool fused_activation = false;  // the graph key "activation" (relu, clip)
  // ONNX Runtime's contrib operator reads and writes one 8-bit type.
  bool one_8bit_type = false;
  // The output keeps the first input's quantisation (no "out" key).
  bool keeps_input_quant = false;
  // Output channel c reads only channel c of each input, so one vector
  // instruction may cover some of the channels (pools, add).
  bool splits_channels = false;
  // The activation's keys "alpha" and "beta", where it has them, and their
  // defaults (ONNX's: HardSigmoid's 0.2 and 0.5, LeakyRelu's alpha 0.01).
  bool has_alpha = false, has_beta = false;
  float alpha_default = 0.0f, beta_default = 0.0f;
  // The float ONNX operator whose QDQ form (DequantizeLinear -> op ->
  // QuantizeLinear) this operator computes, for the ONNX front-end's table
  // activations; null: none.
  const char* onnx_qdq = nullptr;
  // The family's sub-kind (its own family's field only).
  MatmulKind matmul = MatmulKind::Weights;
  PoolKind pool = PoolKind::Max;
  ElementwiseKind elementwise = ElementwiseKind::Add;
  GatherKind gather = GatherKind::Channels;
  NormKind norm = NormKind::Layer;
  ActivationFn activation = ActivationFn::Gelu;
};

namespace op_table_detail {
// The row of `k`: an exhaustive switch, so a new enumerator fails to compile
// until its row is written. Past the last row (an enumerator missing from
// kOpKinds) it gives a row with no name, which the static_assert below catches.
constexpr OpInfo row(OpKind k) {
  OpInfo i;
  i.kind = k;
  switch (k) {
    case OpKind::Conv:
      i.name = "conv", i.unit = OpUnit::Array, i.family = OpFamily::Conv;
      i.window = i.dilation = i.weights = i.fused_activation = true;
      return i;
    case OpKind::MatMul:
      i.name = "matmul", i.unit = OpUnit::Array, i.family = OpFamily::Matmul;
      i.weights = i.fused_activation = true;
      i.matmul = MatmulKind::Weights;
      return i;
    case OpKind::MaxPool:
      i.name = "maxpool", i.family = OpFamily::Pool, i.pool = PoolKind::Max;
      i.window = i.dilation = i.keeps_input_quant = i.splits_channels = true;
      return i;
    case OpKind::AveragePool:
      i.name = "averagepool", i.family = OpFamily::Pool, i.pool = PoolKind::Average;
      i.window = i.one_8bit_type = i.splits_channels = true;
      return i;
    case OpKind::GlobalAveragePool:
      i.name = "globalaveragepool", i.family = OpFamily::Pool;
      i.pool = PoolKind::GlobalAverage;
      i.one_8bit_type = i.splits_channels = true;
      return i;
    case OpKind::Add:
      i.name = "add", i.family = OpFamily::Elementwise, i.elementwise = ElementwiseKind::Add;
      i.min_inputs = i.max_inputs = 2;
      i.fused_activation = i.one_8bit_type = i.splits_channels = true;
      return i;
    case OpKind::Concat:
      i.name = "concat", i.family = OpFamily::Concat;
      i.min_inputs = 2, i.max_inputs = kManyInputs;
      i.one_8bit_type = true;
      return i;
    case OpKind::BatchMatMul:
      // The second operand is produced, not constant: a matmul of two activations.
      i.name = "batch_matmul", i.unit = OpUnit::Array, i.family = OpFamily::Matmul;
      i.operands = OpOperands::Sequences, i.matmul = MatmulKind::Produced;
      i.min_inputs = 2, i.max_inputs = kManyInputs;
      return i;
    case OpKind::Softmax:
      i.name = "softmax", i.family = OpFamily::Softmax, i.operands = OpOperands::Sequences;
      return i;
    case OpKind::LayerNorm:
      i.name = "layernorm", i.family = OpFamily::Norm, i.operands = OpOperands::Sequences;
      i.norm_params = true, i.norm = NormKind::Layer;
      return i;
    case OpKind::RmsNorm:
      i.name = "rmsnorm", i.family = OpFamily::Norm, i.operands = OpOperands::Sequences;
      i.norm_params = true, i.norm = NormKind::Rms;
      return i;
    case OpKind::Gelu:
      i.name = "gelu", i.family = OpFamily::Activation, i.operands = OpOperands::Sequences;
      i.activation = ActivationFn::Gelu, i.onnx_qdq = "Gelu";  // erf form (ORT's contrib, ONNX 20)
      return i;
    case OpKind::Silu:
      i.name = "silu", i.family = OpFamily::Activation, i.operands = OpOperands::Sequences;
      i.activation = ActivationFn::Silu;
      i.onnx_qdq = "QuickGelu";  // x * Sigmoid(x), as the exporter idioms fuse it
      return i;
    case OpKind::Mul:
      i.name = "mul", i.family = OpFamily::Elementwise, i.operands = OpOperands::Sequences;
      i.elementwise = ElementwiseKind::Mul;
      i.min_inputs = i.max_inputs = 2;
      return i;
    case OpKind::Rope:
      i.name = "rope", i.family = OpFamily::Rope, i.operands = OpOperands::Sequences;
      return i;
    case OpKind::Sigmoid:
      i.name = "sigmoid", i.family = OpFamily::Activation, i.operands = OpOperands::Sequences;
      i.activation = ActivationFn::Sigmoid, i.onnx_qdq = "Sigmoid";
      return i;
    case OpKind::HardSigmoid:
      i.name = "hardsigmoid", i.family = OpFamily::Activation, i.operands = OpOperands::Sequences;
      i.activation = ActivationFn::HardSigmoid;
      i.has_alpha = i.has_beta = true, i.alpha_default = 0.2f, i.beta_default = 0.5f;
      i.onnx_qdq = "HardSigmoid";
      return i;
    case OpKind::HardSwish:
      i.name = "hardswish", i.family = OpFamily::Activation, i.operands = OpOperands::Sequences;
      i.activation = ActivationFn::HardSwish, i.onnx_qdq = "HardSwish";
      return i;
    case OpKind::Gather:
      // ONNX Gather on axis 1 with constant indices: output channel k is input
      // channel channels[k] (a channel Slice or Split, a channel shuffle).
      i.name = "gather", i.family = OpFamily::Gather, i.gather = GatherKind::Channels;
      i.keeps_input_quant = true;
      return i;
    case OpKind::Resize:
      // ONNX Resize to any size: mode nearest copies the input pixel its
      // coordinates pick (FPN and YOLO necks); mode linear, bilinear between
      // its four neighbours, quantised again (segmentation heads;
      // sim/program/resize_taps.h).
      i.name = "resize", i.family = OpFamily::Gather, i.gather = GatherKind::Resize;
      i.keeps_input_quant = i.splits_channels = true;
      return i;
    case OpKind::Tanh:
      i.name = "tanh", i.family = OpFamily::Activation, i.operands = OpOperands::Sequences;
      i.activation = ActivationFn::Tanh, i.onnx_qdq = "Tanh";
      return i;
    case OpKind::LeakyRelu:
      i.name = "leakyrelu", i.family = OpFamily::Activation, i.operands = OpOperands::Sequences;
      i.activation = ActivationFn::LeakyRelu, i.onnx_qdq = "LeakyRelu";
      i.has_alpha = true, i.alpha_default = 0.01f;
      return i;
  }
  return OpInfo{};  // not an operator: no name
}

constexpr bool rows_in_order() {
  for (std::size_t i = 0; i < kOpKindCount; ++i)
    if (static_cast<std::size_t>(kOpKinds[i]) != i || row(kOpKinds[i]).name == nullptr)
      return false;
  return true;
}
static_assert(rows_in_order(),
              "kOpKinds lists every OpKind in enumerator order, each with a row in op_info");
static_assert(row(static_cast<OpKind>(kOpKindCount)).name == nullptr,
              "an OpKind has a row in op_info but is missing from kOpKinds");

// The rows as a table built at compile time, so a lookup is an index at any
// optimisation level (the sanitizer build's -O1 too).
struct Table {
  OpInfo rows[kOpKindCount];
};
constexpr Table make_table() {
  Table t{};
  for (std::size_t i = 0; i < kOpKindCount; ++i) t.rows[i] = row(kOpKinds[i]);
  return t;
}
inline constexpr Table kTable = make_table();
}  // namespace op_table_detail

// The row of operator `k`.
constexpr const OpInfo& op_info(OpKind k) {
  return op_table_detail::kTable.rows[static_cast<std::size_t>(k)];
}

inline const char* to_string(OpKind k) { return op_info(k).name; }
inline bool runs_on_array(OpKind k) { return op_info(k).unit == OpUnit::Array; }
// Operators with per-channel parameters the host lays into DRAM beside them:
// the norms' gamma (int8 weights) and beta (int32 bias).
inline bool has_norm_params(OpKind k) { return op_info(k).norm_params; }
const char* to_string(OpFamily f);

// The operator a graph names ("conv", "batch_matmul", ...); nullopt for none.
std::optional<OpKind> op_kind_named(const std::string& name);
// The table activation whose QDQ form has the float ONNX operator `onnx_op`
// (OpInfo::onnx_qdq); nullopt for none.
std::optional<OpKind> op_kind_of_onnx_qdq(const std::string& onnx_op);
// Every operator name, comma-separated in table order (for error messages).
std::string op_names_list();

}  // namespace npusim
