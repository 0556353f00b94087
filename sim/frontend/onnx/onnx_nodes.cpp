// Importer methods, one per kind of ONNX node the simulator runs or folds
// into a layout (docs/onnx.md#supported-nodes-qoperator-form; onnx_importer.h).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sim/config/config_error.h"
#include "sim/frontend/onnx/onnx_constants.h"
#include "sim/frontend/onnx/onnx_importer.h"
#include "sim/frontend/onnx/onnx_shapes.h"
#include "sim/frontend/onnx/qdq_lowering.h"
#include "sim/graph/weight_nonzeros.h"
#include "sim/tensor/layout.h"
#include "sim/tensor/tensor.h"

namespace npusim::onnx_detail {

void Importer::import_conv(const onnx::NodeProto& n, int index, bool integer) {
  Activation& xa = activation(n, 0);
  if (xa.flat) fail(n, "a 4-D input", "a flattened tensor");
  LayerConfig L = base_layer(n, index, xa, OpKind::Conv);
  OpQuant& q = L.quant;
  const int w_at = integer ? 1 : 3;
  // Its bytes only when the values are kept: a timing-only import counts them in the file.
  const Constant& w = options_.weight_values ? constant(n, w_at) : stated_constant(n, w_at);
  if (w.dims.size() != 4)
    fail(n, "4-D weights [K, C/group, R, S]", std::to_string(w.dims.size()) + "-D");
  if (w.type != onnx::TensorProto_DataType_INT8 && w.type != onnx::TensorProto_DataType_UINT8)
    fail(n, "int8 or uint8 weights", type_name(w.type));
  L.K = uint32_t(w.dims[0]);
  L.R = uint32_t(w.dims[2]), L.S = uint32_t(w.dims[3]);
  L.groups = uint32_t(int_attr(n, "group", 1));
  if (L.groups == 0 || L.C % L.groups != 0 || L.K % L.groups != 0 || w.dims[1] != L.C / L.groups)
    fail(n, "weights [K, C/group, R, S] with group dividing C = " + std::to_string(L.C) + " and K",
         "group " + std::to_string(L.groups) + ", weights [" + std::to_string(w.dims[0]) + ", " +
             std::to_string(w.dims[1]) + ", ...]");
  const auto kernel = ints_attr(n, "kernel_shape");
  if (!kernel.empty() && (kernel.size() != 2 || kernel[0] != L.R || kernel[1] != L.S))
    fail(n, "kernel_shape equal to the weights' R x S", "another kernel_shape");
  conv_geometry(n, L);
  q.weight_type = w.type == onnx::TensorProto_DataType_UINT8 ? QuantType::Uint8 : QuantType::Int8;
  if (integer) {
    integer_operands(n, xa, activation_type(xa), w.type, L.K, q);
  } else {
    q.inputs.push_back(quantised_input(n, 0));
    q.weight_scale = scales_of(n, 4, L.K);
    q.weight_zero_point = zero_points_of(n, 5, w.type, L.K);
    q.output = output_quant(n, 6, 7);
    q.bias = int32_bias(n, 8, L.K, "an int32 bias of K = " + std::to_string(L.K) + " values",
                        L.bias_values);
  }
  const uint32_t Cg = L.C / L.groups, RS = L.R * L.S;
  if (!options_.weight_values) {  // timing only: each kernel's count, in any order
    L.weight_nonzeros =
        kernel_counts(n, w_at, L.K, uint64_t(Cg) * RS, /*by_column=*/false, kernel_zeros(L));
    add_layer(n, std::move(L), {&xa});
    return;
  }
  // OIHW -> K, R, S, C/group bytes: the channels-last move within each output
  // channel's block, in place (uint8 weights keep their bytes). A kernel's block is
  // the same bytes in either order, so a 1x1 or depthwise kernel needs no move.
  std::vector<int8_t> weights = take_bytes(n, w_at);
  if (RS > 1 && Cg > 1) {
    std::vector<int8_t> block(uint64_t(Cg) * RS);
    for (uint32_t k = 0; k < L.K; ++k) {
      int8_t* kernel = weights.data() + uint64_t(k) * block.size();
      std::copy(kernel, kernel + block.size(), block.begin());
      for (uint32_t rs = 0; rs < RS; ++rs) {
        int8_t* to = kernel + uint64_t(rs) * Cg;
        for (uint32_t c = 0; c < Cg; ++c) to[c] = block[c * RS + rs];
      }
    }
  }
  L.weight_values = std::move(weights);
  add_layer(n, std::move(L), {&xa});
}

void Importer::import_matmul(const onnx::NodeProto& n, int index, const std::string& kind) {
  if (kind == "QLinearMatMul" && !constants_.count(input(n, 3)) && activations_.count(input(n, 3)))
    return import_batch_matmul(n, index);  // B is an activation: attention
  Activation& xa = activation(n, 0);
  if (xa.heads > 0)
    fail(n, "a [N, C] or [1, T, F] input (a projection reads whole tokens)",
         "a tensor split into " + std::to_string(xa.heads) + " heads");
  if (!xa.flat && !xa.flat_map && !xa.sequence && (xa.H != 1 || xa.W != 1))
    fail(n, "a [N, C] input (flattened) or a sequence [1, T, F]",
         "a 4-D tensor with H x W = " + std::to_string(xa.H) + "x" + std::to_string(xa.W));
  // A Flatten of an H x W map: the matmul is the convolution whose kernel covers
  // the map (no padding, one output pixel), B's rows the kernel in NCHW order.
  LayerConfig L = base_layer(n, index, xa, xa.flat_map ? OpKind::Conv : OpKind::MatMul);
  const uint32_t features = xa.flat_map ? xa.C * xa.H * xa.W : xa.C;
  OpQuant& q = L.quant;
  const bool integer = kind == "MatMulInteger";
  const int b_at = integer ? 1 : 3;
  const Constant& b = options_.weight_values ? constant(n, b_at) : stated_constant(n, b_at);
  if (b.dims.size() != 2) fail(n, "a 2-D constant B", std::to_string(b.dims.size()) + "-D");
  if (b.type != onnx::TensorProto_DataType_INT8 && b.type != onnx::TensorProto_DataType_UINT8)
    fail(n, "int8 or uint8 B", type_name(b.type));
  const bool trans_b = kind == "QGemm" && int_attr(n, "transB", 0) != 0;
  if (kind == "QGemm" && (int_attr(n, "transA", 0) != 0 || float_attr(n, "alpha", 1.0f) != 1.0f))
    fail(n, "transA 0 and alpha 1", "another transA or alpha");
  const uint32_t Kin = uint32_t(trans_b ? b.dims[1] : b.dims[0]);
  L.K = uint32_t(trans_b ? b.dims[0] : b.dims[1]);
  if (Kin != features)
    fail(n, "B with " + std::to_string(features) + " rows (the input's features)",
         std::to_string(Kin));
  L.R = xa.flat_map ? xa.H : 1;
  L.S = xa.flat_map ? xa.W : 1;
  q.weight_type = b.type == onnx::TensorProto_DataType_UINT8 ? QuantType::Uint8 : QuantType::Int8;
  if (integer) {
    integer_operands(n, xa, activation_type(xa), b.type, L.K, q);
  } else {
    q.inputs.push_back(quantised_input(n, 0));
    q.weight_scale = scales_of(n, 4, L.K);
    q.weight_zero_point = zero_points_of(n, 5, b.type, L.K);
    const int out_scale_at = kind == "QGemm" ? 7 : 6;
    if (kind == "QGemm" && (n.input_size() <= 7 || n.input(7).empty()))
      fail(n, "a quantised output (y_scale)", "a float output");
    q.output = output_quant(n, out_scale_at, out_scale_at + 1);
    // QGemm's C; a QDQ MatMul's bias Add, which the lowering appends as input 8.
    q.bias = int32_bias(n, kind == "QGemm" ? 6 : 8, L.K,
                        std::string(kind == "QGemm" ? "an int32 C of " : "an int32 bias of ") +
                            std::to_string(L.K) + " values",
                        L.bias_values);
  }
  // K rows of Kin bytes (uint8 weights keep their bytes): B as stored with transB,
  // else transposed. A timing-only import counts each output's kernel (a row of B
  // with transB, else a column) where B lies, in any order within the kernel.
  std::vector<int8_t> weights;
  if (!options_.weight_values) {
    L.weight_nonzeros = kernel_counts(n, b_at, L.K, Kin, /*by_column=*/!trans_b, kernel_zeros(L));
  } else if (trans_b) {
    weights = take_bytes(n, b_at);
  } else {
    weights.resize(uint64_t(L.K) * Kin);
    for (uint32_t f = 0; f < L.K; ++f)
      for (uint32_t i = 0; i < Kin; ++i)
        weights[uint64_t(f) * Kin + i] = b.bytes[uint64_t(i) * L.K + f];
  }
  if (xa.flat_map && options_.weight_values) {
    // K, R, S, C, in place: feature i of a row is (c * R + y) * S + x
    const uint32_t C = L.C, RS = L.R * L.S;
    std::vector<int8_t> row(Kin);
    for (uint32_t f = 0; f < L.K; ++f) {
      int8_t* w = weights.data() + uint64_t(f) * Kin;
      std::copy(w, w + Kin, row.begin());
      for (uint32_t c = 0; c < C; ++c)
        for (uint32_t rs = 0; rs < RS; ++rs) w[uint64_t(rs) * C + c] = row[c * RS + rs];
    }
  }
  L.weight_values = std::move(weights);
  const bool sequence = xa.sequence;  // [1, T, F] rows of tokens stay a sequence
  add_layer(n, std::move(L), {&xa}, /*flat_output=*/!sequence);
  activations_.at(n.output(0)).sequence = sequence;
}

void Importer::import_pool(const onnx::NodeProto& n, int index, OpKind op) {
  Activation& xa = activation(n, 0);
  if (xa.flat) fail(n, "a 4-D input", "a flattened tensor");
  LayerConfig L = base_layer(n, index, xa, op);
  if (int_attr(n, "channels_last", 0) != 0) fail(n, "channels_last 0", "1");
  if (op == OpKind::GlobalAveragePool) {
    L.R = L.H, L.S = L.W;
  } else {
    const auto kernel = ints_attr(n, "kernel_shape");
    if (kernel.size() != 2 || kernel[0] <= 0 || kernel[1] <= 0)
      fail(n, "a 2-D kernel_shape", std::to_string(kernel.size()) + " values");
    L.R = uint32_t(kernel[0]), L.S = uint32_t(kernel[1]);
    conv_geometry(n, L, op == OpKind::MaxPool);
    L.ceil_mode = int_attr(n, "ceil_mode", 0) != 0;
    L.count_include_pad = int_attr(n, "count_include_pad", 0) != 0;
    if (op == OpKind::MaxPool && (int_attr(n, "storage_order", 0) != 0 || n.output_size() > 1))
      fail(n, "one output, storage_order 0", "indices or column-major storage");
  }
  L.K = L.C;
  if (op == OpKind::MaxPool) {
    // Max is the same on any scale: a uint8/int8 graph input read first by
    // MaxPool takes scale 1, zero point 0 (a later reader must state those).
    if (!xa.quant_known && xa.graph_input >= 0 &&
        (xa.onnx_type == onnx::TensorProto_DataType_UINT8 ||
         xa.onnx_type == onnx::TensorProto_DataType_INT8))
      settle_quant(n, xa, input(n, 0), 1.0f, 0, xa.onnx_type);
    if (!xa.quant_known)
      fail(n, "an input whose quantisation an earlier quantised node states",
           "a tensor with no stated scale (a float graph input read first by MaxPool)");
    L.quant.inputs.push_back(xa.quant);
    L.quant.output = xa.quant;
  } else {
    L.quant.inputs.push_back(quantised_input(n, 0));
    L.quant.output = output_quant(n, 3, 4);
    if (L.quant.output.type != L.quant.inputs[0].type)
      fail(n, "an output of the input's type", to_string(L.quant.output.type));
  }
  add_layer(n, std::move(L), {&xa});
}

void Importer::import_elementwise(const onnx::NodeProto& n, int index, OpKind kind,
                                  bool per_channel_operand) {
  // The map first, a per-channel scale second (Mul commutes; ORT's QLinearMul
  // broadcasts either operand).
  int map = 0, other = 3;
  if (per_channel_operand &&
      activation(n, 0).H * activation(n, 0).W < activation(n, 3).H * activation(n, 3).W)
    std::swap(map, other);
  Activation& a = activation(n, map);
  Activation& b = activation(n, other);
  // The views must agree here (and a per-channel operand needs plain maps);
  // check_operator then holds the shapes to an add's or a mul's rule.
  const bool same_view = a.sequence == b.sequence && a.heads == b.heads && a.axes == b.axes;
  const bool same = same_view && a.N == b.N && a.C == b.C && a.H == b.H && a.W == b.W;
  if (!per_channel_operand && !same_view)
    fail(n, "two inputs of one shape (no broadcasting)", "different shapes");
  const bool per_channel_view =
      !b.flat && !b.sequence && b.heads == 0 && !a.flat && !a.sequence && a.heads == 0;
  if (!same && !per_channel_view)
    fail(n, "two inputs of one shape, or a [N, C, H, W] map and a per-channel [N, C, 1, 1] scale",
         dims_text(onnx_dims(a)) + " and " + dims_text(onnx_dims(b)));
  const Activation view = a;
  LayerConfig L = base_layer(n, index, a, kind);
  L.K = L.C, L.R = L.S = 1;
  L.quant.inputs.push_back(quantised_input(n, map));
  L.quant.inputs.push_back(quantised_input(n, other));
  L.quant.output = output_quant(n, 6, 7);
  if (L.quant.inputs[0].type != L.quant.output.type ||
      L.quant.inputs[1].type != L.quant.output.type)
    fail(n, "inputs and output of one type", "mixed types");
  add_layer(n, std::move(L), {&a, &b}, view.flat);
  Activation& y = activations_.at(n.output(0));
  y.sequence = view.sequence, y.heads = view.heads, y.axes = view.axes;
}

void Importer::import_concat(const onnx::NodeProto& n, int index) {
  if (int_attr(n, "axis", 1) != 1)
    fail(n, "axis 1 (channels)", "axis " + std::to_string(int_attr(n, "axis", 1)));
  if (n.input_size() < 5 || (n.input_size() - 2) % 3 != 0)
    fail(n, "Y_scale, Y_zero_point and (X, X_scale, X_zero_point) triples",
         std::to_string(n.input_size()) + " inputs");
  // One input: a requantisation (the QDQ lowering's and the exporter idioms'), which keeps
  // its input's layout: rows of a matmul, a sequence [1, T, F]. Several: a channel concat of
  // 4-D maps (ONNX's axis 1 of a sequence is its tokens, which the simulator does not join).
  const bool requantise = n.input_size() == 5;
  const Activation first = activation(n, 2);
  if (first.heads > 0)
    fail(n, "an input that is not split into heads",
         "a tensor split into " + std::to_string(first.heads) + " heads");
  LayerConfig L = base_layer(n, index, first, OpKind::Concat);
  std::vector<const Activation*> inputs;  // one N, H, W: checked with the operator
  L.K = 0, L.R = L.S = 1;
  for (int i = 2; i < n.input_size(); i += 3) {
    Activation& x = activation(n, i);
    if (!requantise && (x.sequence || x.flat))
      fail(n, "4-D inputs [N, C, H, W] (a concat along channels)",
           "input " + std::to_string(i) + " " + dims_text(onnx_dims(x)));
    L.quant.inputs.push_back(quantised_input(n, i));
    L.K += x.C;
    inputs.push_back(&x);
  }
  L.quant.output = output_quant(n, 0, 1);
  for (const TensorQuant& t : L.quant.inputs)
    if (t.type != L.quant.output.type) fail(n, "inputs and output of one type", "mixed types");
  add_layer(n, std::move(L), inputs, requantise && first.flat);
  if (requantise) {
    Activation& y = activations_.at(n.output(0));
    y.sequence = first.sequence, y.flat_map = first.flat_map;
  }
}

void Importer::import_flatten(const onnx::NodeProto& n) {
  Activation a = activation(n, 0);
  if (a.sequence && n.op_type() == "Reshape") return import_sequence_reshape(n);
  if (a.sequence || a.heads > 0)
    fail(n, "a [N, C, H, W] map or [N, C] rows (the only flattens the simulator expresses)",
         dims_text(onnx_dims(a)));
  if (n.op_type() == "Flatten" && int_attr(n, "axis", 1) != 1) fail(n, "axis 1", "another axis");
  const int64_t features = int64_t(a.C) * a.H * a.W;
  if (n.op_type() == "Reshape") {
    const Constant& shape = constant(n, 1);
    const bool ok = shape.ints.size() == 2 &&
                    (shape.ints[0] == a.N || shape.ints[0] == -1 || shape.ints[0] == 0) &&
                    (shape.ints[1] == features || shape.ints[1] == -1);
    if (!ok) fail(n, "a reshape to [N, " + std::to_string(features) + "]", "another shape");
  }
  // [N, C, 1, 1] is a matmul's rows as they lie; [N, C * H * W] a view only a
  // matmul reads (import_matmul).
  (a.H == 1 && a.W == 1 ? a.flat : a.flat_map) = true;
  activations_[n.output(0)] = a;
}

void Importer::import_transpose(const onnx::NodeProto& n) {
  const std::string& name = input(n, 0);
  Activation a = activation(n, 0);
  if (a.sequence) return import_sequence_transpose(n);
  std::vector<int64_t> perm = ints_attr(n, "perm");
  const size_t rank = a.flat ? 2 : 4;
  if (perm.empty())  // ONNX's default: reverse the axes
    for (size_t i = rank; i-- > 0;) perm.push_back(int64_t(i));
  const auto text = [](const std::vector<int64_t>& v) {
    std::string t;
    for (int64_t x : v) t += (t.empty() ? "" : ", ") + std::to_string(x);
    return "[" + t + "]";
  };
  const std::string expected =
      "a Transpose the simulator expresses as a layout: perm [0, 3, 1, 2] of an NHWC graph "
      "input read by nothing else, perm [0, 2, 3, 1] to a graph output read by nothing else, "
      "or the identity";
  bool identity = perm.size() == rank;
  for (size_t i = 0; identity && i < rank; ++i) identity = perm[i] == int64_t(i);
  if (identity) {
    activations_[n.output(0)] = a;
    return;
  }
  const std::string found = "perm " + text(perm) + " of " +
                            (a.source.op < 0 ? "graph input" : "computed tensor") + " \"" + name +
                            "\"";
  if (a.flat) fail(n, expected, found + " ([N, C])");
  if (perm == std::vector<int64_t>{0, 3, 1, 2} && a.source.op < 0 && readers_[name] == 1 &&
      a.graph_input >= 0) {
    // Declared [N, H, W, C]: what declare_input took as C, H, W are H, W, C.
    GraphInput& in = out_.network.graph_inputs[size_t(a.graph_input)];
    const uint32_t h = a.C, w = a.H, c = a.W;
    a.C = c, a.H = h, a.W = w;
    in.C = c, in.H = h, in.W = w;
    in.onnx_nhwc = true;
    in.onnx_shape = {a.N, h, w, c};
    activations_[n.output(0)] = a;
    return;
  }
  const std::string& out = n.output(0);
  bool graph_output = false;
  for (const onnx::ValueInfoProto& v : model_.graph().output()) graph_output |= v.name() == out;
  if (perm == std::vector<int64_t>{0, 2, 3, 1} && a.source.op >= 0 && graph_output &&
      readers_[out] == 1) {
    OnnxOutput o;
    o.name = out;
    o.tensor = out_.network.tensor_names[size_t(a.source.op)];
    o.nhwc = true;
    transposed_[out] = o;
    return;
  }
  fail(n, expected, found);
}

void Importer::import_quantize(const onnx::NodeProto& n) {
  Activation& a = activation(n, 0);
  if (a.graph_input < 0 || a.onnx_type != onnx::TensorProto_DataType_FLOAT)
    fail(n, "a QuantizeLinear of a float32 graph input",
         "a QuantizeLinear inside the graph (QDQ form, not supported)");
  const int type = type_of_zero_point_or(n, 2, onnx::TensorProto_DataType_UINT8);
  Activation q = a;
  q.onnx_type = type;
  q.quant = {type == onnx::TensorProto_DataType_UINT8 ? QuantType::Uint8 : QuantType::Int8,
             scale_of(n, 1), zero_points_of(n, 2, type, 1)[0]};
  q.quant_known = true;
  out_.network.graph_inputs[size_t(a.graph_input)].quant = q.quant;
  out_.network.graph_inputs[size_t(a.graph_input)].quantized_from_float = true;
  activations_[n.output(0)] = q;
}

void Importer::import_dequantize(const onnx::NodeProto& n) {
  Activation& a = activation(n, 0);
  if (a.source.op < 0) fail(n, "a DequantizeLinear of a computed tensor", "one of a graph input");
  const std::optional<OnnxOutput> saved = saved_output(n.output(0), a);
  if (!saved)
    fail(n, "a sequence in token order ([1, T, F] or [1, T, heads, dim])",
         "a view with the heads before the tokens");
  OnnxOutput o = *saved;
  o.dequantize = true;
  o.scale = scale_of(n, 1);
  o.zero_point = zero_points_of(
      n, 2, n.input_size() > 2 ? constant(n, 2).type : onnx::TensorProto_DataType_UINT8, 1)[0];
  dequantized_[o.name] = o;
}

void Importer::import_relu_clip(const onnx::NodeProto& n) {
  // A Relu or Clip between DequantizeLinear and QuantizeLinear that the QDQ lowering
  // could not write as a clamp of the quantised tensor says why.
  const onnx::AttributeProto* expected = find_attribute(n, "npusim_refused_expected");
  const onnx::AttributeProto* found = find_attribute(n, "npusim_refused_found");
  if (expected != nullptr && found != nullptr) fail(n, expected->s(), found->s());
  const std::string& name = input(n, 0);
  const Activation x = activation(n, 0);
  if (x.source.op < 0) fail(n, "an input computed by a conv, matmul or add", "a graph input");
  LayerConfig& producer = out_.network.layers[size_t(x.source.op)];
  if (producer.op != OpKind::Conv && producer.op != OpKind::MatMul && producer.op != OpKind::Add)
    fail(n, "an input computed by a conv, matmul or add (whose output range takes the clamp)",
         "the output of a " + std::string(to_string(producer.op)));
  if (x.quant.type == QuantType::Int32) fail(n, "a uint8 or int8 input", "an int32 input");
  if (readers_[name] != 1)
    fail(n, "an input only this node reads (the clamp is fused into its producer)",
         "\"" + name + "\", read " + std::to_string(readers_[name]) + " times");
  int32_t lo = INT32_MIN, hi = INT32_MAX;
  if (n.op_type() == "Relu") {
    lo = 0;
  } else {
    if (opset_ < 11 && find_attribute(n, "npusim_qdq_op") == nullptr)
      fail(n, "Clip of opset 11 or later (min and max as inputs)",
           "opset " + std::to_string(opset_));
    const int type = x.quant.type == QuantType::Uint8 ? onnx::TensorProto_DataType_UINT8
                                                      : onnx::TensorProto_DataType_INT8;
    for (int i : {1, 2}) {
      if (i >= n.input_size() || n.input(i).empty()) continue;
      const Constant& c = constant(n, i);
      if (c.type != type || c.count() != 1)
        fail(n,
             "a scalar " + std::string(i == 1 ? "min" : "max") + " of the input's type (" +
                 to_string(x.quant.type) + ")",
             std::string(type_name(c.type)) + " with " + std::to_string(c.count()) + " values");
      (i == 1 ? lo : hi) = int32_t(c.int_at(0));
    }
  }
  producer.quant.clamp_lo = std::max(producer.quant.clamp_lo, lo);
  producer.quant.clamp_hi = std::min(producer.quant.clamp_hi, hi);
  if (producer.quant.clamp_lo > producer.quant.clamp_hi)
    fail(n, "min <= max", std::to_string(lo) + " > " + std::to_string(hi));
  if (activations_.count(n.output(0)))
    fail(n, "an output name no other tensor has", "\"" + n.output(0) + "\"");
  activations_[n.output(0)] = x;  // the same values: the producer's output, clamped
}

}  // namespace npusim::onnx_detail
