// Importer methods that read one node's operands: its inputs as constants or
// activations, scales, zero points and attributes, and the quantisation every
// tensor must keep (onnx_importer.h).
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
#include "sim/graph/operator_checks.h"
#include "sim/graph/weight_nonzeros.h"
#include "sim/tensor/layout.h"
#include "sim/tensor/tensor.h"

namespace npusim::onnx_detail {

namespace {

// A timing-only import reads a weight tensor left in the file this many bytes at a
// time (kernel_counts): 1 MiB, a small part of any tensor left there.
constexpr uint64_t kCountChunkBytes = 1 << 20;

}  // namespace

const char* type_name(int t) {
  switch (t) {
    case onnx::TensorProto_DataType_FLOAT:
      return "float32";
    case onnx::TensorProto_DataType_UINT8:
      return "uint8";
    case onnx::TensorProto_DataType_INT8:
      return "int8";
    case onnx::TensorProto_DataType_INT32:
      return "int32";
    case onnx::TensorProto_DataType_INT64:
      return "int64";
    case onnx::TensorProto_DataType_INT16:
      return "int16";
    case onnx::TensorProto_DataType_UINT16:
      return "uint16";
    case onnx::TensorProto_DataType_UINT32:
      return "uint32";
    case onnx::TensorProto_DataType_UINT64:
      return "uint64";
    case onnx::TensorProto_DataType_FLOAT16:
      return "float16";
    case onnx::TensorProto_DataType_BFLOAT16:
      return "bfloat16";
    case onnx::TensorProto_DataType_DOUBLE:
      return "float64";
    case onnx::TensorProto_DataType_BOOL:
      return "bool";
    case onnx::TensorProto_DataType_STRING:
      return "string";
    default:
      return "another type";
  }
}

void Importer::fail(const onnx::NodeProto& n, const std::string& expected,
                    const std::string& found) const {
  throw ConfigError(path_, node_where(n), expected, found);
}

std::string Importer::node_where(const onnx::NodeProto& n) const {
  return "node '" + n.name() + "' (" + n.op_type() + ")";
}

const std::string& Importer::input(const onnx::NodeProto& n, int i, bool required) const {
  static const std::string kNone;
  if (i < n.input_size() && !n.input(i).empty()) return n.input(i);
  if (required) fail(n, "input " + std::to_string(i), "no such input");
  return kNone;
}

const Constant& Importer::constant(const onnx::NodeProto& n, int i) const {
  stated_constant(n, i);  // an error when there is none
  return *with_bytes(input(n, i), n);
}

Constant* Importer::with_bytes(const std::string& name, const onnx::NodeProto& n) const {
  const auto it = constants_.find(name);
  if (it == constants_.end()) return nullptr;
  const auto span = in_file_.find(name);
  if (span != in_file_.end()) {
    read_from_file(n, name, span->second,
                   [&] { it->second.bytes = read_file_span(path_, span->second); });
    in_file_.erase(span);
  }
  return &it->second;
}

void Importer::read_from_file(const onnx::NodeProto& n, const std::string& name, FileSpan span,
                              const std::function<void()>& read) const {
  try {
    read();
  } catch (const std::exception& e) {
    fail(n,
         "initialiser \"" + name + "\"'s " + std::to_string(span.size) + " bytes at offset " +
             std::to_string(span.offset) + " of the file",
         e.what());
  }
}

std::vector<int8_t> Importer::take_bytes(const onnx::NodeProto& n, int i) {
  const std::string& name = input(n, i);
  constant(n, i);  // an error when there is none; reads the bytes from the file
  Constant& c = constants_.at(name);
  const int reads = int(std::count(n.input().begin(), n.input().end(), name));
  if (unread_[name] == reads && !input_files_.count(name)) return std::move(c.bytes);
  return c.bytes;
}

const Constant& Importer::stated_constant(const onnx::NodeProto& n, int i) const {
  const std::string& name = input(n, i);
  const auto it = constants_.find(name);
  if (it == constants_.end())
    fail(n, "input " + std::to_string(i) + " (\"" + name + "\") as an initialiser",
         "no initialiser of that name (computed at run time, or missing)");
  return it->second;
}

std::vector<uint32_t> Importer::kernel_counts(const onnx::NodeProto& n, int i, uint32_t K,
                                              uint64_t taps, bool by_column,
                                              const std::vector<int8_t>& zeros) const {
  const std::string& name = input(n, i);
  const auto span = in_file_.find(name);
  const bool in_file = span != in_file_.end();
  const uint64_t expected = uint64_t(K) * taps;
  const Constant* held = in_file ? nullptr : &constant(n, i);  // an error when there is none
  const uint64_t found = in_file ? span->second.size : held->bytes.size();
  if (found != expected)
    fail(n, "input " + std::to_string(i) + " of " + std::to_string(expected) + " bytes",
         std::to_string(found) + " bytes");
  KernelNonzeroCounter counter(K, taps, by_column, zeros);
  if (in_file)
    read_from_file(n, name, span->second, [&] {
      read_file_span_in_chunks(path_, span->second, kCountChunkBytes,
                               [&](const int8_t* p, uint64_t size) { counter.add(p, size); });
    });
  else
    counter.add(held->bytes.data(), found);
  return counter.counts();
}

float Importer::scale_of(const onnx::NodeProto& n, int i) const {
  const Constant& c = constant(n, i);
  if (c.type != onnx::TensorProto_DataType_FLOAT || c.count() != 1)
    fail(n, "input " + std::to_string(i) + " a float32 scalar scale",
         std::string(type_name(c.type)) + " of " + std::to_string(c.count()) + " values");
  const float s = c.floats[0];
  if (!valid_scale(s)) fail(n, "input " + std::to_string(i) + " " + kValidScale, std::to_string(s));
  return s;
}

std::vector<float> Importer::scales_of(const onnx::NodeProto& n, int i,
                                       uint64_t per_channel) const {
  const Constant& c = constant(n, i);
  if (c.type != onnx::TensorProto_DataType_FLOAT || (c.count() != 1 && c.count() != per_channel))
    fail(n, "input " + std::to_string(i) + " float32 scales: 1 or " + std::to_string(per_channel),
         std::string(type_name(c.type)) + " of " + std::to_string(c.count()) + " values");
  for (float s : c.floats)
    if (!valid_scale(s))
      fail(n, "input " + std::to_string(i) + " float32 scales, each " + kValidScale,
           std::to_string(s));
  return c.floats;
}

std::vector<int32_t> Importer::zero_points_of(const onnx::NodeProto& n, int i, int want_type,
                                              uint64_t per_channel) const {
  if (i >= n.input_size() || n.input(i).empty()) return {0};
  const Constant& c = constant(n, i);
  if (c.type != onnx::TensorProto_DataType_UINT8 && c.type != onnx::TensorProto_DataType_INT8)
    fail(n, "input " + std::to_string(i) + " a uint8 or int8 zero point", type_name(c.type));
  if (c.type != want_type)
    fail(n, "input " + std::to_string(i) + " a " + type_name(want_type) + " zero point",
         type_name(c.type));
  if (c.count() != 1 && c.count() != per_channel)
    fail(n, "input " + std::to_string(i) + " 1 or " + std::to_string(per_channel) + " zero points",
         std::to_string(c.count()));
  std::vector<int32_t> zero_points(c.count());
  for (uint64_t k = 0; k < c.count(); ++k) zero_points[k] = int32_t(c.int_at(k));
  return zero_points;
}

const onnx::AttributeProto* Importer::typed_attr(const onnx::NodeProto& n, const char* name,
                                                 onnx::AttributeProto_AttributeType type) const {
  for (const auto& a : n.attribute()) {
    if (a.name() != name) continue;
    // A reader that took a.i() of a FLOAT attribute would use 0 in silence.
    if (a.type() != type)
      fail(n,
           std::string("attribute ") + name + " of type " +
               onnx::AttributeProto_AttributeType_Name(type),
           onnx::AttributeProto_AttributeType_Name(a.type()));
    return &a;
  }
  return nullptr;
}

int64_t Importer::int_attr(const onnx::NodeProto& n, const char* name, int64_t fallback) const {
  const auto* a = typed_attr(n, name, onnx::AttributeProto_AttributeType_INT);
  return a ? a->i() : fallback;
}

float Importer::float_attr(const onnx::NodeProto& n, const char* name, float fallback) const {
  const auto* a = typed_attr(n, name, onnx::AttributeProto_AttributeType_FLOAT);
  return a ? a->f() : fallback;
}

std::vector<int64_t> Importer::ints_attr(const onnx::NodeProto& n, const char* name) const {
  const auto* a = typed_attr(n, name, onnx::AttributeProto_AttributeType_INTS);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

void Importer::require_attr_absent_or(const onnx::NodeProto& n, const char* name,
                                      const std::string& ok) const {
  for (const auto& a : n.attribute())
    if (a.name() == name && a.s() != ok && !(a.s().empty() && ok == "NOTSET"))
      fail(n, std::string("attribute ") + name + " = " + ok, a.s());
}

Activation& Importer::activation(const onnx::NodeProto& n, int i) {
  const std::string& name = input(n, i);
  const auto it = activations_.find(name);
  if (it == activations_.end()) {
    if (constants_.count(name))
      fail(n, "input " + std::to_string(i) + " (\"" + name + "\") a tensor computed by the graph",
           "an initialiser (constant activations are not supported)");
    const auto producer = producers_.find(name);
    if (producer != producers_.end())
      fail(n,
           "input " + std::to_string(i) + " (\"" + name +
               "\") a tensor the simulator computes: in QDQ form a float tensor exists only "
               "between DequantizeLinear and a QuantizeLinear that an operator fuses "
               "(docs/onnx.md#qdq-form)",
           "the float output of " + producer->second + ", which no QDQ pattern covers");
    fail(n,
         "input " + std::to_string(i) + " (\"" + name +
             "\") produced by an earlier node or a graph input",
         "a tensor no earlier node produces");
  }
  if (it->second.shuffle_groups > 0 && n.op_type() != "Reshape" && n.op_type() != "Transpose")
    fail(n,
         "input " + std::to_string(i) + " (\"" + name +
             "\") a feature map; a 5-D view of one only as a channel shuffle: Reshape [N, g, C "
             "/ g, H, W], Transpose [0, 2, 1, 3, 4], Reshape [N, C, H, W]",
         "a 5-D view " + dims_text(onnx_dims(it->second)) + " read by " + n.op_type());
  static const std::set<std::string> matmuls = {"QLinearMatMul", "MatMulInteger", "QGemm",
                                                "DequantizeLinear"};
  if (it->second.flat_map && !matmuls.count(n.op_type()))
    fail(n,
         "input " + std::to_string(i) + " (\"" + name +
             "\") a feature map; a Flatten of an H x W map only as a matmul's input",
         "the flattened map " + dims_text(onnx_dims(it->second)) + " read by " + n.op_type());
  return it->second;
}

void Importer::settle_quant(const onnx::NodeProto& n, Activation& a, const std::string& name,
                            float scale, int32_t zp, int onnx_type) {
  const QuantType type =
      onnx_type == onnx::TensorProto_DataType_UINT8 ? QuantType::Uint8 : QuantType::Int8;
  if (!a.quant_known) {
    a.quant = {type, scale, zp};
    a.quant_known = true;
    if (a.graph_input >= 0) out_.network.graph_inputs[size_t(a.graph_input)].quant = a.quant;
    return;
  }
  if (a.quant.type != type || a.quant.scale != scale || a.quant.zero_point != zp)
    fail(n,
         "tensor \"" + name + "\" read with the quantisation its producer gave it (" +
             to_string(a.quant.type) + ", scale " + std::to_string(a.quant.scale) +
             ", zero point " + std::to_string(a.quant.zero_point) + ")",
         std::string(to_string(type)) + ", scale " + std::to_string(scale) + ", zero point " +
             std::to_string(zp));
}

int Importer::activation_type(const Activation& a) {
  return a.onnx_type == onnx::TensorProto_DataType_INT8 ? onnx::TensorProto_DataType_INT8
                                                        : onnx::TensorProto_DataType_UINT8;
}

int Importer::type_of_zero_point_or(const onnx::NodeProto& n, int i, int fallback) const {
  if (i >= n.input_size() || n.input(i).empty()) return fallback;
  return constant(n, i).type;
}

TensorQuant Importer::quantised_input(const onnx::NodeProto& n, int i) {
  Activation& a = activation(n, i);
  const int type = type_of_zero_point_or(n, i + 2, activation_type(a));
  if (type != onnx::TensorProto_DataType_UINT8 && type != onnx::TensorProto_DataType_INT8)
    fail(n, "a uint8 or int8 input", type_name(type));
  settle_quant(n, a, input(n, i), scale_of(n, i + 1), zero_points_of(n, i + 2, type, 1)[0], type);
  return a.quant;
}

TensorQuant Importer::output_quant(const onnx::NodeProto& n, int scale_at, int zp_at) {
  TensorQuant q;
  const int type = type_of_zero_point_or(n, zp_at, onnx::TensorProto_DataType_UINT8);
  if (type != onnx::TensorProto_DataType_UINT8 && type != onnx::TensorProto_DataType_INT8)
    fail(n, "a uint8 or int8 output", type_name(type));
  q.type = type == onnx::TensorProto_DataType_UINT8 ? QuantType::Uint8 : QuantType::Int8;
  q.scale = scale_of(n, scale_at);
  q.zero_point = zero_points_of(n, zp_at, type, 1)[0];
  return q;
}

LayerConfig Importer::base_layer(const onnx::NodeProto& n, int index, const Activation& x,
                                 OpKind op) {
  LayerConfig L;
  L.quantized = true;
  L.op = op;
  L.name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  if (!layer_names_.insert(L.name).second) L.name += "_" + std::to_string(index);
  L.source_op = n.op_type();
  for (const auto& a : n.attribute())
    if (a.name() == "npusim_qdq_op") L.source_op = a.s() + "(QDQ)";
  L.N = x.N, L.C = x.C, L.H = x.H, L.W = x.W;
  L.relu = false;
  L.general = LayerConfig::Geometry{};
  return L;
}

void Importer::add_layer(const onnx::NodeProto& n, LayerConfig L,
                         const std::vector<const Activation*>& inputs, bool flat_output,
                         int output) {
  std::vector<TensorSource> sources;
  std::vector<OperandShape> shapes;
  for (const Activation* a : inputs) {
    sources.push_back(a->source);
    shapes.push_back({a->N, a->C, a->H, a->W});
  }
  // A Relu / Clip the QDQ lowering folded in: the output range, as a fused activation.
  float lo = -INFINITY, hi = INFINITY;
  bool clipped = false;
  for (const auto& a : n.attribute()) {
    if (a.name() == "npusim_clip_min") lo = a.f(), clipped = true;
    if (a.name() == "npusim_clip_max") hi = a.f(), clipped = true;
  }
  if (clipped && L.quant.output.type != QuantType::Int32) {
    const TensorQuant& y = L.quant.output;
    const auto bound = [&](float v, int32_t fallback) {
      if (std::isinf(v)) return fallback;
      const double q = double(y.zero_point) + std::nearbyint(double(v) / double(y.scale));
      return int32_t(std::clamp<double>(q, quant_min(y.type), quant_max(y.type)));
    };
    L.quant.clamp_lo = bound(lo, quant_min(y.type));
    L.quant.clamp_hi = bound(hi, quant_max(y.type));
  }
  // The checks every front-end shares (sim/graph/operator_checks.h), at the node.
  if (const std::optional<OperatorProblem> p = check_operator(L, shapes))
    fail(n, p->expected,
         p->part == OperatorPart::Input ? "operand " + std::to_string(p->input) + " " + p->found
                                        : p->found);
  // A timing-only import keeps the weights' counts, not the values (the file holds them).
  if (!options_.weight_values) keep_only_weight_nonzeros(L);
  const std::string out = n.output(output);
  Activation a;
  a.source.op = int32_t(out_.network.layers.size());
  a.N = L.N, a.C = L.K, a.H = L.out_h(), a.W = L.out_w();
  a.flat = flat_output;
  a.quant = L.quant.output;
  a.quant_known = true;
  if (activations_.count(out)) fail(n, "an output name no other tensor has", "\"" + out + "\"");
  activations_[out] = a;
  out_.network.tensor_names.push_back(out);
  out_.network.sources.push_back(std::move(sources));
  out_.network.layers.push_back(std::move(L));
}

void Importer::conv_geometry(const onnx::NodeProto& n, LayerConfig& L, bool dilations_allowed) {
  require_attr_absent_or(n, "auto_pad", "NOTSET");
  const auto strides = ints_attr(n, "strides"), pads = ints_attr(n, "pads"),
             dil = ints_attr(n, "dilations");
  if (!strides.empty() && strides.size() != 2)
    fail(n, "2-D strides", std::to_string(strides.size()) + " values");
  if (!pads.empty() && pads.size() != 4) fail(n, "4 pads", std::to_string(pads.size()) + " values");
  if (!dil.empty() && dil.size() != 2)
    fail(n, "2-D dilations", std::to_string(dil.size()) + " values");
  if (!dil.empty() && !dilations_allowed && (dil[0] != 1 || dil[1] != 1))
    fail(n, "dilations 1", "other dilations");
  const auto positive = [&](int64_t v, const char* what) {
    if (v < 0 || v > 65535) fail(n, std::string(what) + " in 0..65535", std::to_string(v));
    return uint32_t(v);
  };
  L.stride = strides.empty() ? 1 : positive(strides[0], "strides");
  L.general->stride_w = strides.empty() ? 1 : positive(strides[1], "strides");
  if (L.stride == 0 || L.general->stride_w == 0) fail(n, "strides >= 1", "0");
  if (!pads.empty()) {
    L.padding = positive(pads[0], "pads");
    L.general->pad_left = positive(pads[1], "pads");
    L.general->pad_bottom = positive(pads[2], "pads");
    L.general->pad_right = positive(pads[3], "pads");
  }
  if (!dil.empty()) {
    L.general->dilation_h = positive(dil[0], "dilations");
    L.general->dilation_w = positive(dil[1], "dilations");
    if (L.general->dilation_h == 0 || L.general->dilation_w == 0) fail(n, "dilations >= 1", "0");
  }
}

void Importer::integer_operands(const onnx::NodeProto& n, Activation& xa, int x_type,
                                int weight_type, uint32_t K, OpQuant& q) {
  const int xt = type_of_zero_point_or(n, 2, x_type);
  settle_quant(n, xa, input(n, 0), xa.quant_known ? xa.quant.scale : 1.0f,
               zero_points_of(n, 2, xt, 1)[0], xt);
  q.inputs.push_back(xa.quant);
  q.weight_zero_point = zero_points_of(n, 3, weight_type, K);
  q.weight_scale = {1.0f};
  q.output.type = QuantType::Int32;
  q.bias = false;
}

bool Importer::int32_bias(const onnx::NodeProto& n, int at, uint32_t K, const std::string& expected,
                          std::vector<int32_t>& values) {
  if (n.input_size() <= at || n.input(at).empty()) return false;
  const Constant& b = constant(n, at);
  if (b.type != onnx::TensorProto_DataType_INT32 || b.count() != K)
    fail(n, expected, std::string(type_name(b.type)) + " of " + std::to_string(b.count()));
  values.assign(b.ints.begin(), b.ints.end());
  return true;
}

}  // namespace npusim::onnx_detail
