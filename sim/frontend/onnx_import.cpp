#include "sim/frontend/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sim/config/config_error.h"
#include "sim/frontend/onnx_constants.h"
#include "sim/frontend/onnx_shapes.h"
#include "sim/frontend/qdq_lowering.h"
#include "sim/tensor/layout.h"
#include "sim/tensor/tensor.h"

namespace npusim {
namespace {

constexpr int64_t kMinOpset = 10, kMaxOpset = 19;

// An activation tensor the simulator computes (or a graph input).
struct Activation {
  TensorSource source;
  uint32_t N = 1, C = 0, H = 1, W = 1;
  bool flat = false;  // [N, C] (after Flatten/Reshape or a matmul)
  bool quant_known = false;
  TensorQuant quant;
  int32_t graph_input = -1;  // its GraphInput, until first quantised by a consumer
  int onnx_type = 0;
};

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
    default:
      return "another type";
  }
}

class Importer {
 public:
  Importer(std::string path, const std::map<std::string, std::string>& inputs)
      : path_(std::move(path)), input_files_(inputs) {}

  OnnxModel run() {
    read_model();
    const std::map<std::string, std::vector<int64_t>> stated = stated_shapes(model_);
    // Each tensor's producer as the model names it, for messages (the QDQ
    // lowering renames nodes).
    std::map<std::string, std::string> producers;
    for (const onnx::NodeProto& n : model_.graph().node())
      for (const std::string& out : n.output())
        producers[out] = "node '" + n.name() + "' (" + n.op_type() + ")";
    hoist_constant_nodes(*model_.mutable_graph());  // Constant / Identity -> initialisers
    lower_qdq(*model_.mutable_graph());  // QDQ patterns -> integer operators, as ORT fuses them
    const onnx::GraphProto& g = model_.graph();
    for (const onnx::TensorProto& t : g.initializer())
      constants_[t.name()] = constant_from_tensor(t, path_, "/graph/initializer/" + t.name());
    const std::map<std::string, std::string> constant_uses = constant_slot_uses(g);
    for (const onnx::NodeProto& n : g.node())
      for (const std::string& in : n.input()) ++readers_[in];
    for (const onnx::ValueInfoProto& v : g.output()) ++readers_[v.name()];
    for (const onnx::ValueInfoProto& v : g.input()) {
      if (constants_.count(v.name())) continue;
      const auto use = constant_uses.find(v.name());
      if (use != constant_uses.end())
        constants_[v.name()] = constant_from_input_file(v, use->second);
      else
        declare_input(v);
    }
    for (int i = 0; i < g.node_size(); ++i) import_node(g.node(i), i);
    for (const auto& [name, file] : input_files_)
      if (!constant_uses.count(name)) load_input_file(name, file);
    check_stated_shapes(stated, producers);
    for (const onnx::ValueInfoProto& v : g.output()) declare_output(v.name());
    out_.network.name = g.name().empty() ? "onnx_model" : g.name();
    out_.network.graph_json = nlohmann_placeholder();
    out_.network.chained.assign(out_.network.layers.size(), false);
    if (out_.network.layers.empty())
      throw ConfigError(path_, "/graph", "at least one operator the simulator runs", "none");
    return std::move(out_);
  }

 private:
  // ---- reading ------------------------------------------------------------
  void read_model() {
    std::ifstream in(path_, std::ios::binary);
    if (!in)
      throw ConfigError(path_, "", "a readable ONNX model file", "a file that cannot be opened");
    if (!model_.ParseFromIstream(&in))
      throw ConfigError(path_, "", "an ONNX model (protobuf ModelProto)",
                        "bytes that do not parse as one (truncated or not ONNX)");
    if (!model_.has_graph()) throw ConfigError(path_, "", "a model with a graph", "no graph");
    bool default_domain = false;
    for (const onnx::OperatorSetIdProto& o : model_.opset_import()) {
      if (!o.domain().empty() && o.domain() != "ai.onnx") continue;
      default_domain = true;
      opset_ = o.version();
      if (o.version() < kMinOpset || o.version() > kMaxOpset)
        throw ConfigError(path_, "/opset_import",
                          "opset " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset),
                          "opset " + std::to_string(o.version()));
    }
    if (!default_domain)
      throw ConfigError(path_, "/opset_import", "an import of the default ONNX domain", "none");
  }

  // ---- graph inputs read as constants --------------------------------------
  // The inputs of a node that carry activations; every other input is a
  // constant operand (weights, bias, scales, zero points, a Reshape's shape).
  static std::vector<int> data_slots(const onnx::NodeProto& n) {
    if (n.op_type() == "QLinearAdd") return {0, 3};
    if (n.op_type() == "QLinearConcat") {
      std::vector<int> slots;
      for (int i = 2; i < n.input_size(); i += 3) slots.push_back(i);
      return slots;
    }
    return {0};
  }

  // Graph inputs some node reads in a constant slot, with the first such use
  // ("node 'c' (QLinearConv) input 3") for messages. ONNX's node tests feed
  // weights, scales and zero points this way: they come from --input files.
  std::map<std::string, std::string> constant_slot_uses(const onnx::GraphProto& g) const {
    std::map<std::string, std::string> uses;
    for (const onnx::NodeProto& n : g.node()) {
      const std::vector<int> data = data_slots(n);
      for (int i = 0; i < n.input_size(); ++i) {
        if (n.input(i).empty() || std::find(data.begin(), data.end(), i) != data.end()) continue;
        uses.emplace(n.input(i),
                     "node '" + n.name() + "' (" + n.op_type() + ") input " + std::to_string(i));
      }
    }
    return uses;
  }

  // A graph input read as a constant takes its values from its --input file,
  // in the input's declared dtype and shape.
  Constant constant_from_input_file(const onnx::ValueInfoProto& v, const std::string& use) {
    const std::string where = "/graph/input/" + v.name();
    const auto file = input_files_.find(v.name());
    if (file == input_files_.end())
      throw ConfigError(path_, where,
                        "its values from --input " + v.name() +
                            "=FILE.npy (it is a constant "
                            "operand: " +
                            use + ")",
                        "no --input for it");
    Constant c;
    c.type = v.type().tensor_type().elem_type();
    std::vector<uint32_t> shape;
    switch (c.type) {
      case onnx::TensorProto_DataType_INT8: {
        const TensorI8 t = read_npy_int8(file->second);
        shape = t.shape;
        c.bytes = t.data;
        break;
      }
      case onnx::TensorProto_DataType_UINT8: {
        const TensorU8 t = read_npy_uint8(file->second);
        shape = t.shape;
        c.bytes.assign(t.data.begin(), t.data.end());
        break;
      }
      case onnx::TensorProto_DataType_INT32: {
        const TensorI32 t = read_npy_int32(file->second);
        shape = t.shape;
        c.ints.assign(t.data.begin(), t.data.end());
        break;
      }
      case onnx::TensorProto_DataType_FLOAT: {
        const Tensor<float> t = read_npy_float32(file->second);
        shape = t.shape;
        c.floats = t.data;
        break;
      }
      default:
        throw ConfigError(path_, where, "an int8, uint8, int32 or float32 constant operand",
                          type_name(c.type));
    }
    std::string declared, found;
    for (const auto& d : v.type().tensor_type().shape().dim())
      declared += (declared.empty() ? "" : ", ") + std::to_string(d.dim_value());
    for (uint32_t d : shape) found += (found.empty() ? "" : ", ") + std::to_string(d);
    if (declared != found)
      throw ConfigError(file->second, "", "shape [" + declared + "] (graph input " + v.name() + ")",
                        "shape [" + found + "]");
    for (uint32_t d : shape) c.dims.push_back(int64_t(d));
    return c;
  }

  void declare_input(const onnx::ValueInfoProto& v) {
    const std::string where = "/graph/input/" + v.name();
    if (!v.type().has_tensor_type())
      throw ConfigError(path_, where, "a tensor input", "another kind of input");
    const auto& tt = v.type().tensor_type();
    std::vector<uint32_t> dims;
    for (const auto& d : tt.shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() <= 0)
        throw ConfigError(path_, where, "a static shape (every dimension a positive number)",
                          "a dynamic dimension \"" + d.dim_param() + "\"");
      dims.push_back(uint32_t(d.dim_value()));
    }
    if (dims.size() != 4 && dims.size() != 2)
      throw ConfigError(path_, where, "an [N, C, H, W] or [N, C] input",
                        std::to_string(dims.size()) + "-D");
    Activation a;
    a.N = dims[0], a.C = dims[1];
    a.flat = dims.size() == 2;  // [N, C]: a matmul's rows of features
    if (!a.flat) a.H = dims[2], a.W = dims[3];
    a.onnx_type = tt.elem_type();
    GraphInput in;
    in.name = v.name();
    in.N = a.N, in.C = a.C, in.H = a.H, in.W = a.W;
    if (a.flat) in.onnx_shape = dims;
    in.seed = 1000003 + out_.network.graph_inputs.size();
    a.graph_input = int32_t(out_.network.graph_inputs.size());
    a.source.graph_input = a.graph_input;
    if (a.onnx_type == onnx::TensorProto_DataType_UINT8 ||
        a.onnx_type == onnx::TensorProto_DataType_INT8) {
      in.quant.type =
          a.onnx_type == onnx::TensorProto_DataType_UINT8 ? QuantType::Uint8 : QuantType::Int8;
    } else if (a.onnx_type != onnx::TensorProto_DataType_FLOAT) {
      throw ConfigError(path_, where,
                        "a uint8, int8 or float32 (quantised by a QuantizeLinear) input",
                        type_name(a.onnx_type));
    }
    out_.network.graph_inputs.push_back(in);
    activations_[v.name()] = a;
  }

  // --input NAME=FILE.npy: the input's values in its type and ONNX shape.
  void load_input_file(const std::string& name, const std::string& file) {
    int32_t index = -1;
    for (size_t i = 0; i < out_.network.graph_inputs.size(); ++i)
      if (out_.network.graph_inputs[i].name == name) index = int32_t(i);
    if (index < 0) {
      std::string names;
      for (const GraphInput& g : out_.network.graph_inputs)
        names += (names.empty() ? "" : ", ") + g.name;
      throw ConfigError(path_, "--input " + name, "the name of a graph input (" + names + ")",
                        "\"" + name + "\"");
    }
    GraphInput& in = out_.network.graph_inputs[size_t(index)];
    const Activation& a = activations_.at(name);
    if (a.onnx_type == onnx::TensorProto_DataType_FLOAT)
      throw ConfigError(file, "",
                        "the quantised input (" + std::string(to_string(in.quant.type)) +
                            ") of float input \"" + name + "\" as .npy",
                        "a float input (quantise it first: (x / scale) + zero point, rounded)");
    TensorI8 nchw;  // uint8 values held as their bytes
    if (in.quant.type == QuantType::Uint8) {
      const TensorU8 t = read_npy_uint8(file);
      nchw.shape = t.shape;
      nchw.data.assign(t.data.begin(), t.data.end());
    } else {
      nchw = read_npy_int8(file);
    }
    if (in.onnx_nhwc) {  // the file holds the DRAM order already
      if (nchw.shape != std::vector<uint32_t>{in.N, in.H, in.W, in.C})
        throw ConfigError(file, "",
                          "shape [" + std::to_string(in.N) + ", " + std::to_string(in.H) + ", " +
                              std::to_string(in.W) + ", " + std::to_string(in.C) +
                              "] (NHWC, as the model declares input \"" + name + "\")",
                          "another shape");
      in.values = std::move(nchw.data);
      return;
    }
    if (a.flat && nchw.shape == std::vector<uint32_t>{in.N, in.C}) nchw.shape = {in.N, in.C, 1, 1};
    if (nchw.shape != std::vector<uint32_t>{in.N, in.C, in.H, in.W})
      throw ConfigError(file, "",
                        "shape [" + std::to_string(in.N) + ", " + std::to_string(in.C) + ", " +
                            std::to_string(in.H) + ", " + std::to_string(in.W) + "] (NCHW)",
                        "another shape");
    in.values = nchw_to_nhwc(nchw).data;
  }

  // ---- nodes ---------------------------------------------------------------
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& expected,
                         const std::string& found) const {
    throw ConfigError(path_, node_where(n), expected, found);
  }
  std::string node_where(const onnx::NodeProto& n) const {
    return "node '" + n.name() + "' (" + n.op_type() + ")";
  }

  const std::string& input(const onnx::NodeProto& n, int i, bool required = true) const {
    static const std::string kNone;
    if (i < n.input_size() && !n.input(i).empty()) return n.input(i);
    if (required) fail(n, "input " + std::to_string(i), "no such input");
    return kNone;
  }

  const Constant& constant(const onnx::NodeProto& n, int i) const {
    const std::string& name = input(n, i);
    const auto it = constants_.find(name);
    if (it == constants_.end())
      fail(n, "input " + std::to_string(i) + " (\"" + name + "\") as an initialiser",
           "no initialiser of that name (computed at run time, or missing)");
    return it->second;
  }

  float scale_of(const onnx::NodeProto& n, int i) const {
    const Constant& c = constant(n, i);
    if (c.type != onnx::TensorProto_DataType_FLOAT || c.count() != 1)
      fail(n, "input " + std::to_string(i) + " a float32 scalar scale",
           std::string(type_name(c.type)) + " of " + std::to_string(c.count()) + " values");
    const float s = c.floats[0];
    if (!std::isfinite(s) || s <= 0.0f)
      fail(n, "input " + std::to_string(i) + " a positive finite scale", std::to_string(s));
    return s;
  }
  std::vector<float> scales_of(const onnx::NodeProto& n, int i, uint64_t per_channel) const {
    const Constant& c = constant(n, i);
    if (c.type != onnx::TensorProto_DataType_FLOAT || (c.count() != 1 && c.count() != per_channel))
      fail(n, "input " + std::to_string(i) + " float32 scales: 1 or " + std::to_string(per_channel),
           std::string(type_name(c.type)) + " of " + std::to_string(c.count()) + " values");
    for (float s : c.floats)
      if (!std::isfinite(s) || s <= 0.0f)
        fail(n, "input " + std::to_string(i) + " positive finite scales", std::to_string(s));
    return c.floats;
  }
  // Zero points must have the type of the tensor they belong to.
  std::vector<int32_t> zero_points_of(const onnx::NodeProto& n, int i, int want_type,
                                      uint64_t per_channel) const {
    if (i >= n.input_size() || n.input(i).empty()) return {0};
    const Constant& c = constant(n, i);
    if (c.type != want_type)
      fail(n, "input " + std::to_string(i) + " a " + type_name(want_type) + " zero point",
           type_name(c.type));
    if (c.count() != 1 && c.count() != per_channel)
      fail(n,
           "input " + std::to_string(i) + " 1 or " + std::to_string(per_channel) + " zero points",
           std::to_string(c.count()));
    std::vector<int32_t> zero_points(c.count());
    for (uint64_t k = 0; k < c.count(); ++k) zero_points[k] = int32_t(c.int_at(k));
    return zero_points;
  }

  int64_t int_attr(const onnx::NodeProto& n, const char* name, int64_t fallback) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return a.i();
    return fallback;
  }
  float float_attr(const onnx::NodeProto& n, const char* name, float fallback) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return a.f();
    return fallback;
  }
  std::vector<int64_t> ints_attr(const onnx::NodeProto& n, const char* name) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return {a.ints().begin(), a.ints().end()};
    return {};
  }
  void require_attr_absent_or(const onnx::NodeProto& n, const char* name,
                              const std::string& ok) const {
    for (const auto& a : n.attribute())
      if (a.name() == name && a.s() != ok && !(a.s().empty() && ok == "NOTSET"))
        fail(n, std::string("attribute ") + name + " = " + ok, a.s());
  }

  Activation& activation(const onnx::NodeProto& n, int i) {
    const std::string& name = input(n, i);
    const auto it = activations_.find(name);
    if (it == activations_.end()) {
      if (constants_.count(name))
        fail(n, "input " + std::to_string(i) + " (\"" + name + "\") a tensor computed by the graph",
             "an initialiser (constant activations are not supported)");
      fail(n,
           "input " + std::to_string(i) + " (\"" + name +
               "\") produced by an earlier node or a graph input",
           "a tensor no earlier node produces");
    }
    return it->second;
  }

  // The quantisation a consumer states for its input: the tensor's own, set
  // now if this is its first quantised reader (a graph input).
  void settle_quant(const onnx::NodeProto& n, Activation& a, const std::string& name, float scale,
                    int32_t zp, int onnx_type) {
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

  // The element type an absent zero point takes: the activation's own (ONNX:
  // "default 0 of the input's type"), uint8 where nothing says otherwise.
  static int activation_type(const Activation& a) {
    return a.onnx_type == onnx::TensorProto_DataType_INT8 ? onnx::TensorProto_DataType_INT8
                                                          : onnx::TensorProto_DataType_UINT8;
  }

  int type_of_zero_point_or(const onnx::NodeProto& n, int i, int fallback) const {
    if (i >= n.input_size() || n.input(i).empty()) return fallback;
    return constant(n, i).type;
  }

  // Reads activation input (x, scale, zp) at positions i, i+1, i+2.
  TensorQuant quantised_input(const onnx::NodeProto& n, int i) {
    Activation& a = activation(n, i);
    const int type = type_of_zero_point_or(n, i + 2, activation_type(a));
    if (type != onnx::TensorProto_DataType_UINT8 && type != onnx::TensorProto_DataType_INT8)
      fail(n, "a uint8 or int8 input", type_name(type));
    settle_quant(n, a, input(n, i), scale_of(n, i + 1), zero_points_of(n, i + 2, type, 1)[0], type);
    return a.quant;
  }

  TensorQuant output_quant(const onnx::NodeProto& n, int scale_at, int zp_at) {
    TensorQuant q;
    const int type = type_of_zero_point_or(n, zp_at, onnx::TensorProto_DataType_UINT8);
    if (type != onnx::TensorProto_DataType_UINT8 && type != onnx::TensorProto_DataType_INT8)
      fail(n, "a uint8 or int8 output", type_name(type));
    q.type = type == onnx::TensorProto_DataType_UINT8 ? QuantType::Uint8 : QuantType::Int8;
    q.scale = scale_of(n, scale_at);
    q.zero_point = zero_points_of(n, zp_at, type, 1)[0];
    return q;
  }

  LayerConfig base_layer(const onnx::NodeProto& n, int index, const Activation& x, OpKind op) {
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

  void add_layer(const onnx::NodeProto& n, LayerConfig L, std::vector<TensorSource> sources,
                 bool flat_output = false) {
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
    if (L.out_h() == 0 || L.out_w() == 0)
      fail(n, "a window that fits the padded input", "an empty output");
    const std::string out = n.output(0);
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

  // Convolution geometry from ONNX attributes.
  void conv_geometry(const onnx::NodeProto& n, LayerConfig& L, bool dilations_allowed = true) {
    require_attr_absent_or(n, "auto_pad", "NOTSET");
    const auto strides = ints_attr(n, "strides"), pads = ints_attr(n, "pads"),
               dil = ints_attr(n, "dilations");
    if (!strides.empty() && strides.size() != 2)
      fail(n, "2-D strides", std::to_string(strides.size()) + " values");
    if (!pads.empty() && pads.size() != 4)
      fail(n, "4 pads", std::to_string(pads.size()) + " values");
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
    }
  }

  // ConvInteger / MatMulInteger: the input's zero point (input 2, `x_type`
  // when absent), the weights' (input 3), no scales, raw int32 sums.
  void integer_operands(const onnx::NodeProto& n, Activation& xa, int x_type, int weight_type,
                        uint32_t K, OpQuant& q) {
    const int xt = type_of_zero_point_or(n, 2, x_type);
    settle_quant(n, xa, input(n, 0), xa.quant_known ? xa.quant.scale : 1.0f,
                 zero_points_of(n, 2, xt, 1)[0], xt);
    q.inputs.push_back(xa.quant);
    q.weight_zero_point = zero_points_of(n, 3, weight_type, K);
    q.weight_scale = {1.0f};
    q.output.type = QuantType::Int32;
    q.bias = false;
  }

  // An optional int32 bias of K values at input `at` into `values`; false when absent.
  bool int32_bias(const onnx::NodeProto& n, int at, uint32_t K, const std::string& expected,
                  std::vector<int32_t>& values) {
    if (n.input_size() <= at || n.input(at).empty()) return false;
    const Constant& b = constant(n, at);
    if (b.type != onnx::TensorProto_DataType_INT32 || b.count() != K)
      fail(n, expected, std::string(type_name(b.type)) + " of " + std::to_string(b.count()));
    values.assign(b.ints.begin(), b.ints.end());
    return true;
  }

  void import_conv(const onnx::NodeProto& n, int index, bool integer) {
    Activation& xa = activation(n, 0);
    if (xa.flat) fail(n, "a 4-D input", "a flattened tensor");
    LayerConfig L = base_layer(n, index, xa, OpKind::Conv);
    OpQuant& q = L.quant;
    const int w_at = integer ? 1 : 3;
    const Constant& w = constant(n, w_at);
    if (w.dims.size() != 4)
      fail(n, "4-D weights [K, C/group, R, S]", std::to_string(w.dims.size()) + "-D");
    if (w.type != onnx::TensorProto_DataType_INT8 && w.type != onnx::TensorProto_DataType_UINT8)
      fail(n, "int8 or uint8 weights", type_name(w.type));
    L.K = uint32_t(w.dims[0]);
    L.R = uint32_t(w.dims[2]), L.S = uint32_t(w.dims[3]);
    L.groups = uint32_t(int_attr(n, "group", 1));
    if (L.groups == 0 || L.C % L.groups != 0 || L.K % L.groups != 0 || w.dims[1] != L.C / L.groups)
      fail(n,
           "weights [K, C/group, R, S] with group dividing C = " + std::to_string(L.C) + " and K",
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
    // OIHW -> K, R, S, C/group bytes: the channels-last move, K as the outer axis.
    TensorI8 oihw({L.K, L.C / L.groups, L.R, L.S});
    for (uint64_t i = 0; i < oihw.size(); ++i) oihw.data[i] = int8_t(w.int_at(i));
    L.weight_values = nchw_to_nhwc(oihw).data;
    add_layer(n, std::move(L), {xa.source});
  }

  // QLinearMatMul, MatMulInteger, QGemm: a [M, K] activation times constant b.
  void import_matmul(const onnx::NodeProto& n, int index, const std::string& kind) {
    Activation& xa = activation(n, 0);
    if (!xa.flat && (xa.H != 1 || xa.W != 1))
      fail(n, "a [N, C] input (flattened)",
           "a 4-D tensor with H x W = " + std::to_string(xa.H) + "x" + std::to_string(xa.W));
    LayerConfig L = base_layer(n, index, xa, OpKind::MatMul);
    OpQuant& q = L.quant;
    const bool integer = kind == "MatMulInteger";
    const int b_at = integer ? 1 : 3;
    const Constant& b = constant(n, b_at);
    if (b.dims.size() != 2) fail(n, "a 2-D constant B", std::to_string(b.dims.size()) + "-D");
    if (b.type != onnx::TensorProto_DataType_INT8 && b.type != onnx::TensorProto_DataType_UINT8)
      fail(n, "int8 or uint8 B", type_name(b.type));
    const bool trans_b = kind == "QGemm" && int_attr(n, "transB", 0) != 0;
    if (kind == "QGemm" && (int_attr(n, "transA", 0) != 0 || float_attr(n, "alpha", 1.0f) != 1.0f))
      fail(n, "transA 0 and alpha 1", "another transA or alpha");
    const uint32_t Kin = uint32_t(trans_b ? b.dims[1] : b.dims[0]);
    L.K = uint32_t(trans_b ? b.dims[0] : b.dims[1]);
    if (Kin != xa.C)
      fail(n, "B with " + std::to_string(xa.C) + " rows (the input's features)",
           std::to_string(Kin));
    L.R = L.S = 1;
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
      q.bias =
          kind == "QGemm" &&
          int32_bias(n, 6, L.K, "an int32 C of " + std::to_string(L.K) + " values", L.bias_values);
    }
    L.weight_values.resize(uint64_t(L.K) * Kin);
    for (uint32_t f = 0; f < L.K; ++f)
      for (uint32_t c = 0; c < Kin; ++c)
        L.weight_values[uint64_t(f) * Kin + c] =
            int8_t(trans_b ? b.int_at(uint64_t(f) * Kin + c) : b.int_at(uint64_t(c) * L.K + f));
    add_layer(n, std::move(L), {xa.source}, /*flat_output=*/true);
  }

  void import_pool(const onnx::NodeProto& n, int index, OpKind op) {
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
    add_layer(n, std::move(L), {xa.source});
  }

  void import_add(const onnx::NodeProto& n, int index) {
    Activation& a = activation(n, 0);
    Activation& b = activation(n, 3);
    if (a.N != b.N || a.C != b.C || a.H != b.H || a.W != b.W)
      fail(n, "two inputs of one shape (no broadcasting)", "different shapes");
    LayerConfig L = base_layer(n, index, a, OpKind::Add);
    L.K = L.C, L.R = L.S = 1;
    L.quant.inputs.push_back(quantised_input(n, 0));
    L.quant.inputs.push_back(quantised_input(n, 3));
    L.quant.output = output_quant(n, 6, 7);
    if (L.quant.inputs[0].type != L.quant.output.type ||
        L.quant.inputs[1].type != L.quant.output.type)
      fail(n, "inputs and output of one type", "mixed types");
    add_layer(n, std::move(L), {a.source, b.source}, a.flat);
  }

  void import_concat(const onnx::NodeProto& n, int index) {
    if (int_attr(n, "axis", 1) != 1)
      fail(n, "axis 1 (channels)", "axis " + std::to_string(int_attr(n, "axis", 1)));
    if (n.input_size() < 5 || (n.input_size() - 2) % 3 != 0)
      fail(n, "Y_scale, Y_zero_point and (X, X_scale, X_zero_point) triples",
           std::to_string(n.input_size()) + " inputs");
    Activation& first = activation(n, 2);
    LayerConfig L = base_layer(n, index, first, OpKind::Concat);
    std::vector<TensorSource> sources;
    L.K = 0, L.R = L.S = 1;
    for (int i = 2; i < n.input_size(); i += 3) {
      Activation& x = activation(n, i);
      if (x.N != first.N || x.H != first.H || x.W != first.W || x.flat)
        fail(n, "4-D inputs with one N, H, W", "input " + std::to_string(i) + " differs");
      L.quant.inputs.push_back(quantised_input(n, i));
      L.K += x.C;
      sources.push_back(x.source);
    }
    L.quant.output = output_quant(n, 0, 1);
    for (const TensorQuant& t : L.quant.inputs)
      if (t.type != L.quant.output.type) fail(n, "inputs and output of one type", "mixed types");
    add_layer(n, std::move(L), std::move(sources));
  }

  // Flatten / Reshape of [N, C, 1, 1] to [N, C]: the same bytes.
  void import_flatten(const onnx::NodeProto& n) {
    Activation a = activation(n, 0);
    if (a.H != 1 || a.W != 1)
      fail(n, "a [N, C, 1, 1] input (the only reshape the simulator expresses)",
           "[" + std::to_string(a.N) + ", " + std::to_string(a.C) + ", " + std::to_string(a.H) +
               ", " + std::to_string(a.W) + "]");
    if (n.op_type() == "Flatten" && int_attr(n, "axis", 1) != 1) fail(n, "axis 1", "another axis");
    if (n.op_type() == "Reshape") {
      const Constant& shape = constant(n, 1);
      const bool ok = shape.ints.size() == 2 &&
                      (shape.ints[0] == a.N || shape.ints[0] == -1 || shape.ints[0] == 0) &&
                      (shape.ints[1] == a.C || shape.ints[1] == -1);
      if (!ok) fail(n, "a reshape to [N, C]", "another shape");
    }
    a.flat = true;
    activations_[n.output(0)] = a;
  }

  // Transpose where it is a change of layout the simulator expresses, since
  // every tensor lies NHWC in its DRAM: perm [0, 3, 1, 2] of a 4-D graph input
  // (the model's input is NHWC, which is the DRAM order), perm [0, 2, 3, 1]
  // of a computed tensor to a graph output (saved NHWC as it lies), and the
  // identity. Anything else would move data and is refused.
  void import_transpose(const onnx::NodeProto& n) {
    const std::string& name = input(n, 0);
    Activation a = activation(n, 0);
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

  // QuantizeLinear of a float graph input: the simulator's input is the uint8
  // or int8 tensor it makes (seeded, or from --input in that type).
  void import_quantize(const onnx::NodeProto& n) {
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

  void import_dequantize(const onnx::NodeProto& n) {
    Activation& a = activation(n, 0);
    if (a.source.op < 0) fail(n, "a DequantizeLinear of a computed tensor", "one of a graph input");
    OnnxOutput o;
    o.name = n.output(0);
    o.tensor = input(n, 0);
    o.dequantize = true;
    o.scale = scale_of(n, 1);
    o.zero_point = zero_points_of(
        n, 2, n.input_size() > 2 ? constant(n, 2).type : onnx::TensorProto_DataType_UINT8, 1)[0];
    dequantized_[o.name] = o;
  }

  // Relu / Clip on a quantised tensor work on its integers (max(x, 0); clamp
  // to the min and max inputs, given in the tensor's type). Fused into the
  // output range of the conv, matmul or add that computes the tensor, which
  // then clamps as it requantises: exact, as the clamp follows the rounding.
  void import_relu_clip(const onnx::NodeProto& n) {
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
      if (opset_ < 11)
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

  // Every tensor the simulator computes has the shape the model states for it
  // (declared or inferred by ONNX): else the model and its nodes disagree.
  void check_stated_shapes(const std::map<std::string, std::vector<int64_t>>& stated,
                           const std::map<std::string, std::string>& producers) const {
    const auto text = [](const std::vector<int64_t>& dims) {
      std::string t;
      for (int64_t d : dims) t += (t.empty() ? "" : ", ") + std::to_string(d);
      return "[" + t + "]";
    };
    for (const auto& [name, a] : activations_) {
      const auto it = stated.find(name);
      if (it == stated.end() || a.source.op < 0) continue;
      const std::vector<int64_t> ours =
          a.flat ? std::vector<int64_t>{a.N, a.C} : std::vector<int64_t>{a.N, a.C, a.H, a.W};
      if (ours == it->second) continue;
      const auto producer = producers.find(name);
      const std::string node = producer == producers.end() ? "/graph" : producer->second;
      throw ConfigError(path_, node,
                        "output \"" + name + "\" of the shape the model states, " +
                            text(it->second) + " (declared or by ONNX shape inference)",
                        text(ours) + " from the node's attributes and inputs");
    }
  }

  // A node of a constant subgraph (a Reshape's shape, as exporters compute
  // it) evaluated now: its output becomes a constant (onnx_constants.h).
  bool fold_constant(const onnx::NodeProto& n) {
    try {
      const std::optional<Constant> folded = fold_constant_node(
          n, opset_, path_,
          [this](const std::string& name) -> const Constant* {
            const auto it = constants_.find(name);
            return it == constants_.end() ? nullptr : &it->second;
          },
          [this](const std::string& name) -> std::optional<std::vector<int64_t>> {
            const auto it = activations_.find(name);
            if (it == activations_.end()) return std::nullopt;
            const Activation& a = it->second;
            if (a.flat) return std::vector<int64_t>{a.N, a.C};
            return std::vector<int64_t>{a.N, a.C, a.H, a.W};
          });
      if (!folded) return false;
      constants_[n.output(0)] = *folded;
      return true;
    } catch (const FoldError& e) {
      fail(n, e.expected, e.found);
    }
  }

  void import_node(const onnx::NodeProto& n, int index) {
    const std::string& op = n.op_type();
    const bool contrib = n.domain() == "com.microsoft";
    if (!n.domain().empty() && n.domain() != "ai.onnx" && !contrib)
      fail(n, "an operator of the ONNX or com.microsoft domain", "domain " + n.domain());
    if (n.output_size() < 1 || n.output(0).empty()) fail(n, "an output", "none");
    if (fold_constant(n)) return;
    if (op == "QLinearConv") return import_conv(n, index, false);
    if (op == "ConvInteger") return import_conv(n, index, true);
    if (op == "QLinearMatMul" || op == "MatMulInteger" || (contrib && op == "QGemm"))
      return import_matmul(n, index, op);
    if (op == "MaxPool") return import_pool(n, index, OpKind::MaxPool);
    if (contrib && op == "QLinearAveragePool") return import_pool(n, index, OpKind::AveragePool);
    if (contrib && op == "QLinearGlobalAveragePool")
      return import_pool(n, index, OpKind::GlobalAveragePool);
    if (contrib && op == "QLinearAdd") return import_add(n, index);
    if (contrib && op == "QLinearConcat") return import_concat(n, index);
    if (op == "Flatten" || op == "Reshape") return import_flatten(n);
    if (op == "Transpose") return import_transpose(n);
    if (op == "Relu" || op == "Clip") return import_relu_clip(n);
    if (op == "QuantizeLinear") return import_quantize(n);
    if (op == "DequantizeLinear") return import_dequantize(n);
    fail(n,
         "a supported operator: QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger, QGemm, "
         "MaxPool, QLinearAveragePool, QLinearGlobalAveragePool, QLinearAdd, QLinearConcat, "
         "Relu, Clip, Flatten, Reshape, Transpose between NHWC and NCHW at a graph input or "
         "output, QuantizeLinear of an input, DequantizeLinear of an output "
         "(docs/onnx.md)",
         "an unsupported operator" +
             std::string(n.domain().empty() ? "" : " of domain " + n.domain()));
  }

  void declare_output(const std::string& name) {
    for (const auto* special : {&dequantized_, &transposed_}) {
      const auto it = special->find(name);
      if (it == special->end()) continue;
      out_.outputs.push_back(it->second);
      out_.network.outputs.push_back(it->second.tensor);
      return;
    }
    const auto it = activations_.find(name);
    if (it == activations_.end() || it->second.source.op < 0)
      throw ConfigError(path_, "/graph/output/" + name, "a tensor a supported node computes",
                        "no such tensor");
    OnnxOutput o;
    o.name = name;
    o.tensor = out_.network.tensor_names[size_t(it->second.source.op)];
    out_.outputs.push_back(o);
    out_.network.outputs.push_back(o.tensor);
  }

  // What to_json writes for the workload: the model file it came from.
  std::string nlohmann_placeholder() const { return nlohmann::json{{"onnx", path_}}.dump(); }

  std::string path_;
  std::map<std::string, std::string> input_files_;
  onnx::ModelProto model_;
  std::map<std::string, Constant> constants_;
  std::map<std::string, Activation> activations_;
  std::map<std::string, int> readers_;  // per tensor: node inputs and graph outputs reading it
  int64_t opset_ = 0;                   // of the default domain
  std::map<std::string, OnnxOutput> dequantized_;
  std::map<std::string, OnnxOutput> transposed_;  // graph outputs transposed to NHWC
  std::set<std::string> layer_names_;
  OnnxModel out_;
};

}  // namespace

bool is_onnx_model(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

OnnxModel import_onnx(const std::string& path, const std::map<std::string, std::string>& inputs) {
  return Importer(path, inputs).run();
}

}  // namespace npusim
