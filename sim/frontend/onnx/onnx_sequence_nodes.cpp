// Importer methods for transformer blocks in QDQ form (docs/onnx.md#transformer-blocks):
// projections of [1, T, F] sequences, attention heads as views of the same
// bytes, batch_matmul, softmax and layernorm (docs/transformers.md).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/frontend/onnx/onnx_importer.h"
#include "sim/frontend/onnx/onnx_shapes.h"

namespace npusim::onnx_detail {
namespace {

using Axes = std::array<SeqAxis, 4>;
// [1, heads, T, dim]: what batch_matmul's A and a context's values are.
constexpr Axes kPerHead{kBatch, kHead, kToken, kFeature};
// [1, heads, dim, T]: keys transposed for the scores.
constexpr Axes kPerHeadTransposed{kBatch, kHead, kFeature, kToken};
// [1, T, heads, dim]: the sequence's own order, split.
constexpr Axes kTokenMajor{kBatch, kToken, kHead, kFeature};

}  // namespace

std::vector<int64_t> Importer::onnx_dims(const Activation& a) {
  if (a.heads > 0) {
    const std::array<int64_t, 4> size{a.N, a.H, a.heads, a.C / a.heads};
    return {size[a.axes[0]], size[a.axes[1]], size[a.axes[2]], size[a.axes[3]]};
  }
  if (a.sequence) return {a.N, a.H, a.C};
  if (a.flat) return {a.N, a.C};
  if (a.flat_map) return {a.N, int64_t(a.C) * a.H * a.W};
  if (a.shuffle_groups > 0) {
    const int64_t g = a.shuffle_groups, per = a.C / a.shuffle_groups;
    return {a.N, a.shuffle_transposed ? per : g, a.shuffle_transposed ? g : per, a.H, a.W};
  }
  return {a.N, a.C, a.H, a.W};
}

void Importer::import_batch_matmul(const onnx::NodeProto& n, int index) {
  Activation& a = activation(n, 0);
  Activation& b = activation(n, 3);
  const auto described = [&](const Activation& t, const std::string& name) {
    return "\"" + name + "\" of shape " + dims_text(onnx_dims(t)) +
           (t.heads > 0 ? " (a head view)" : " (not split into heads)");
  };
  if (!a.sequence || a.heads == 0 || a.axes != kPerHead)
    fail(n,
         "A split into heads, [1, heads, T_q, dim] (Reshape [1, T, heads, dim], Transpose "
         "[0, 2, 1, 3])",
         described(a, input(n, 0)));
  const bool transpose_b = b.sequence && b.heads > 0 && b.axes == kPerHeadTransposed;
  if (!transpose_b && (!b.sequence || b.heads == 0 || b.axes != kPerHead))
    fail(n,
         "B split into heads: keys [1, heads, dim, T_k] (Transpose [0, 2, 3, 1] of [1, T, "
         "heads, dim]) or values [1, heads, T_k, dim]",
         described(b, input(n, 3)));
  if (b.heads != a.heads && b.heads != 1)
    fail(n, "B with A's " + std::to_string(a.heads) + " heads, or 1 (broadcast)",
         std::to_string(b.heads) + " heads");
  const std::vector<int64_t> da = onnx_dims(a), db = onnx_dims(b);
  if (da[3] != db[2])
    fail(n, "B with " + std::to_string(da[3]) + " rows per head (A's last dimension)",
         described(b, input(n, 3)));
  if (n.input_size() > 8 && !n.input(8).empty())
    fail(n, "a MatMul of two activations without a bias", "a bias Add after it");
  LayerConfig L = base_layer(n, index, a, OpKind::BatchMatMul);
  L.R = L.S = 1;
  L.seq.heads = a.heads;
  L.seq.kv_heads = b.heads;
  L.seq.transpose_b = transpose_b;
  L.groups = a.heads;
  L.K = a.heads * uint32_t(db[3]);  // scores: heads x keys; context: heads x dim
  OpQuant& q = L.quant;
  q.inputs.push_back(quantised_input(n, 0));
  q.inputs.push_back(quantised_input(n, 3));
  q.weight_type = q.inputs[1].type;
  q.weight_scale = {q.inputs[1].scale};
  q.weight_zero_point = {q.inputs[1].zero_point};
  q.bias = false;
  q.output = output_quant(n, 6, 7);
  const uint32_t heads = a.heads;
  add_layer(n, std::move(L), {&a, &b});
  Activation& y = activations_.at(n.output(0));  // [1, heads * K', T_q, 1]
  y.sequence = true, y.heads = heads, y.axes = kPerHead;
}

void Importer::import_softmax(const onnx::NodeProto& n, int index) {
  Activation& x = activation(n, 0);
  const std::vector<int64_t> dims = onnx_dims(x);
  const int64_t rank = int64_t(dims.size());
  int64_t axis = int_attr(n, "axis", opset_ >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  // Over the features of a token (per head in a head view): a row of channels.
  const bool last_axis_is_channels =
      axis == rank - 1 && (x.heads > 0 ? x.axes[3] == kFeature : x.sequence || x.flat);
  if (!last_axis_is_channels)
    fail(n,
         "a softmax over the last axis (" + std::to_string(rank - 1) +
             " or -1) of [1, heads, T_q, T_k] scores, a [1, T, F] sequence or [N, C]",
         "axis " + std::to_string(int_attr(n, "axis", opset_ >= 13 ? -1 : 1)) + " of shape " +
             dims_text(dims));
  LayerConfig L = base_layer(n, index, x, OpKind::Softmax);
  L.K = L.C, L.R = L.S = 1;
  L.seq.heads = std::max<uint32_t>(x.heads, 1);
  L.quant.inputs.push_back(quantised_input(n, 0));
  L.quant.output = output_quant(n, 3, 4);
  const Activation view = x;
  add_layer(n, std::move(L), {&x}, view.flat);
  Activation& y = activations_.at(n.output(0));
  y.sequence = view.sequence, y.heads = view.heads, y.axes = view.axes;
}

void Importer::import_table_activation(const onnx::NodeProto& n, int index, OpKind kind) {
  Activation& x = activation(n, 0);
  LayerConfig L = base_layer(n, index, x, kind);
  L.K = L.C, L.R = L.S = 1;
  const OpInfo& info = op_info(kind);
  if (info.has_alpha) L.seq.alpha = float_attr(n, "alpha", info.alpha_default);
  if (info.has_beta) L.seq.beta = float_attr(n, "beta", info.beta_default);
  if (!std::isfinite(L.seq.alpha) || !std::isfinite(L.seq.beta))
    fail(n, info.has_beta ? "finite alpha and beta" : "a finite alpha",
         "alpha " + std::to_string(L.seq.alpha) +
             (info.has_beta ? ", beta " + std::to_string(L.seq.beta) : ""));
  L.quant.inputs.push_back(quantised_input(n, 0));
  L.quant.output = output_quant(n, 3, 4);
  const Activation view = x;
  add_layer(n, std::move(L), {&x}, view.flat);
  // Elementwise: the output is the input's tensor in every respect but its values.
  Activation& y = activations_.at(n.output(0));
  y.sequence = view.sequence, y.heads = view.heads, y.axes = view.axes;
}

void Importer::import_layernorm(const onnx::NodeProto& n, int index) {
  Activation& x = activation(n, 0);
  const std::vector<int64_t> dims = onnx_dims(x);
  const int64_t rank = int64_t(dims.size());
  int64_t axis = int_attr(n, "axis", -1);
  if (axis < 0) axis += rank;
  if (x.heads > 0 || !(x.sequence || x.flat) || axis != rank - 1)
    fail(n, "a normalisation over the last axis of a [1, T, F] sequence or [N, C]",
         "axis " + std::to_string(int_attr(n, "axis", -1)) + " of shape " + dims_text(dims) +
             (x.heads > 0 ? " (a head view)" : ""));
  const float epsilon = float_attr(n, "epsilon", 1e-5f);
  if (!std::isfinite(epsilon) || epsilon <= 0.0f)
    fail(n, "a positive finite epsilon", std::to_string(epsilon));
  const auto float_vector = [&](int at, const char* what) {
    const Constant& c = constant(n, at);
    if (c.type != onnx::TensorProto_DataType_FLOAT || c.count() != x.C)
      fail(n, std::string(what) + ": float32 of " + std::to_string(x.C) + " values",
           std::string(type_name(c.type)) + " of " + std::to_string(c.count()) + " values");
    for (float v : c.floats)
      if (!std::isfinite(v)) fail(n, std::string(what) + ": finite values", std::to_string(v));
    return c.floats;
  };
  LayerConfig L = base_layer(n, index, x, OpKind::LayerNorm);
  L.K = L.C, L.R = L.S = 1;
  L.seq.epsilon = double(epsilon);  // the float the model states
  OpQuant& q = L.quant;
  q.inputs.push_back(quantised_input(n, 0));
  q.output = output_quant(n, 5, 6);
  // gamma: int8, symmetric, one scale max|gamma| / 127, rounded half to even.
  const std::vector<float> gamma = float_vector(3, "gamma (input Scale)");
  float largest = 0.0f;
  for (float g : gamma) largest = std::max(largest, std::fabs(g));
  const float gamma_scale = largest > 0.0f ? largest / 127.0f : 1.0f;
  q.weight_type = QuantType::Int8;
  q.weight_scale = {gamma_scale};
  q.weight_zero_point = {0};
  std::vector<int8_t> gamma_q;
  for (float g : gamma)
    gamma_q.push_back(int8_t(std::clamp(std::nearbyint(g / gamma_scale), -127.0f, 127.0f)));
  L.weight_values = std::move(gamma_q);
  // beta: int32 at gamma's scale / 2^12, the scale of the accumulator it joins.
  q.bias = n.input_size() > 4 && !n.input(4).empty();
  if (q.bias)
    for (float b : float_vector(4, "beta (input B)")) {
      const double steps = std::nearbyint(double(b) * 4096.0 / double(gamma_scale));
      L.bias_values.push_back(int32_t(std::clamp<double>(steps, std::numeric_limits<int32_t>::min(),
                                                         std::numeric_limits<int32_t>::max())));
    }
  const Activation view = x;
  add_layer(n, std::move(L), {&x}, view.flat);
  activations_.at(n.output(0)).sequence = view.sequence;
}

void Importer::import_sequence_reshape(const onnx::NodeProto& n) {
  Activation a = activation(n, 0);
  const std::vector<int64_t> in = onnx_dims(a);
  const std::string expected =
      "a Reshape between [1, T, F] and [1, T, heads, F / heads] (a head split or merge: the "
      "bytes stay where they are)";
  if (n.op_type() != "Reshape") fail(n, expected, n.op_type() + " of shape " + dims_text(in));
  const Constant& shape = constant(n, 1);
  std::vector<int64_t> out = shape.ints;
  int64_t known = 1, infer_at = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && int_attr(n, "allowzero", 0) == 0 && i < in.size()) out[i] = in[i];
    if (out[i] == -1)
      infer_at = int64_t(i);
    else
      known *= out[i];
  }
  int64_t total = 1;
  for (int64_t d : in) total *= d;
  if (infer_at >= 0 && known > 0) out[size_t(infer_at)] = total / known;
  const bool token_order = a.heads == 0 || a.axes == kTokenMajor;
  const std::string found = "shape " + dims_text(out) + " of " + dims_text(in) +
                            (token_order ? "" : " (a head view not in token order)");
  if (out == in) {
    activations_[n.output(0)] = a;
    return;
  }
  if (!token_order) fail(n, expected, found);
  if (out == std::vector<int64_t>{1, a.H, a.C}) {  // merge the heads
    a.heads = 0, a.axes = kTokenMajor;
  } else if (out.size() == 4 && out[0] == 1 && out[1] == a.H && out[2] > 0 && out[3] > 0 &&
             out[2] * out[3] == a.C) {  // split into heads
    a.heads = uint32_t(out[2]), a.axes = kTokenMajor;
  } else {
    fail(n, expected, found);
  }
  activations_[n.output(0)] = a;
}

void Importer::import_sequence_transpose(const onnx::NodeProto& n) {
  Activation a = activation(n, 0);
  const std::vector<int64_t> in = onnx_dims(a);
  std::vector<int64_t> perm = ints_attr(n, "perm");
  if (perm.empty())  // ONNX's default: reverse the axes
    for (size_t i = in.size(); i-- > 0;) perm.push_back(int64_t(i));
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool identity = sorted.size() == in.size();
  for (size_t i = 0; identity && i < sorted.size(); ++i)
    identity = sorted[i] == int64_t(i) && perm[i] == int64_t(i);
  if (identity) {
    activations_[n.output(0)] = a;
    return;
  }
  if (a.heads == 0 || perm.size() != 4 || sorted != std::vector<int64_t>{0, 1, 2, 3})
    fail(n,
         "a Transpose of a sequence split into heads ([1, T, heads, dim] after a Reshape): "
         "a view of the same bytes",
         "perm " + dims_text(perm) + " of shape " + dims_text(in) +
             (a.heads == 0 ? " (not split into heads)" : ""));
  const Axes from = a.axes;
  for (size_t i = 0; i < 4; ++i) a.axes[i] = from[size_t(perm[i])];
  activations_[n.output(0)] = a;
}

}  // namespace npusim::onnx_detail
