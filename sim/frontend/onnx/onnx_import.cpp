// import_onnx and the Importer's driver: reading the model, its graph inputs (as
// activations or as constants from --input files), dispatching each node, and
// declaring the outputs (onnx_importer.h has the rest of the Importer).
#include "sim/frontend/onnx/onnx_import.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <system_error>

#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/onnx/exporter_idioms.h"
#include "sim/frontend/onnx/onnx_constants.h"
#include "sim/frontend/onnx/onnx_importer.h"
#include "sim/frontend/onnx/onnx_reader.h"
#include "sim/frontend/onnx/onnx_shapes.h"
#include "sim/frontend/onnx/qdq_lowering.h"
#include "sim/tensor/layout.h"
#include "sim/tensor/tensor.h"

namespace npusim {
namespace onnx_detail {
namespace {

// Names become layer names, report keys and file names, and reports are JSON: a name that is
// not UTF-8 is refused here, naming where it is, not when the first report is written.
void check_names_are_utf8(const onnx::GraphProto& g, const std::string& path) {
  const auto check = [&path](const std::string& name, const std::string& pointer) {
    if (!valid_utf8(name))
      throw ConfigError(path, pointer, "a name in UTF-8 (names become report keys and file names)",
                        "bytes that are not UTF-8: \"" + escaped_bytes(name) + "\"");
  };
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const std::string at = "/graph/node/" + std::to_string(i);
    check(n.name(), at + "/name");
    check(n.op_type(), at + "/op_type");
    for (int k = 0; k < n.input_size(); ++k) check(n.input(k), at + "/input/" + std::to_string(k));
    for (int k = 0; k < n.output_size(); ++k)
      check(n.output(k), at + "/output/" + std::to_string(k));
  }
  for (int i = 0; i < g.input_size(); ++i)
    check(g.input(i).name(), "/graph/input/" + std::to_string(i) + "/name");
  for (int i = 0; i < g.output_size(); ++i)
    check(g.output(i).name(), "/graph/output/" + std::to_string(i) + "/name");
  for (int i = 0; i < g.initializer_size(); ++i)
    check(g.initializer(i).name(), "/graph/initializer/" + std::to_string(i) + "/name");
}

}  // namespace

OnnxModel Importer::run() {
  read_model();
  check_names_are_utf8(model_.graph(), path_);
  run_onnx_checker();
  // Before anything copies nodes (stated_shapes does): a Constant node's megabytes move once.
  hoist_constant_nodes(*model_.mutable_graph());  // Constant / Identity -> initialisers
  const std::map<std::string, std::vector<int64_t>> stated = stated_shapes(model_);
  float_model_ = true;
  for (const onnx::NodeProto& n : model_.graph().node()) {
    for (const std::string& out : n.output())
      producers_[out] = "node '" + n.name() + "' (" + n.op_type() + ")";
    if (n.op_type().find("Quant") != std::string::npos ||
        n.op_type().find("QLinear") != std::string::npos ||
        n.op_type().find("Integer") != std::string::npos || n.op_type() == "QGemm")
      float_model_ = false;
  }
  rewrite_exporter_idioms(*model_.mutable_graph());  // identity Casts, ...
  lower_qdq(*model_.mutable_graph());  // QDQ patterns -> integer operators, as ORT fuses them
  // Each initialiser's values move into constants_; the model keeps only its
  // name, type and dims, so the weights are not held twice while operators
  // copy them into their own layout.
  for (int i = 0; i < model_.graph().initializer_size(); ++i) {
    onnx::TensorProto& t = *model_.mutable_graph()->mutable_initializer(i);
    const std::string pointer = "/graph/initializer/" + t.name();
    if (const std::optional<FileSpan> span = span_in_file(t)) {
      // An 8-bit one's bytes stay in the file until a node reads them.
      if (std::find(side_spans_.begin(), side_spans_.end(), *span) == side_spans_.end())
        throw ConfigError(path_, pointer + "/external_data",
                          "no npusim_file_offset or npusim_file_size entries (npusim's own "
                          "marks, which it sets while reading)",
                          "entries naming " + std::to_string(span->size) + " bytes at offset " +
                              std::to_string(span->offset) + " that the file does not hold there");
      constants_[t.name()] = constant_from_tensor(t, path_, pointer, span->size);
      in_file_[t.name()] = *span;
    } else {
      constants_[t.name()] = constant_from_tensor(t, path_, pointer);
    }
    std::string().swap(*t.mutable_raw_data());
    google::protobuf::RepeatedField<int32_t>().Swap(t.mutable_int32_data());
    google::protobuf::RepeatedField<int64_t>().Swap(t.mutable_int64_data());
    google::protobuf::RepeatedField<float>().Swap(t.mutable_float_data());
  }
  const onnx::GraphProto& g = model_.graph();
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
  // A constant no later node reads is dropped once its last reader is imported
  // (the operators hold their weights in their own layout by then).
  unread_ = readers_;
  for (int i = 0; i < g.node_size(); ++i) {
    import_node(g.node(i), i);
    for (const std::string& in : g.node(i).input())
      if (--unread_[in] == 0 && constants_.count(in) && !input_files_.count(in)) {
        constants_.erase(in);
        in_file_.erase(in);
      }
  }
  for (const auto& [name, file] : input_files_)
    if (!constant_uses.count(name)) load_input_file(name, file);
  check_stated_shapes(stated, producers_);
  for (const onnx::ValueInfoProto& v : g.output()) declare_output(v.name());
  out_.network.name = g.name().empty() ? "onnx_model" : g.name();
  out_.network.graph_json = nlohmann_placeholder();
  out_.network.chained.assign(out_.network.layers.size(), false);
  if (out_.network.layers.empty())
    throw ConfigError(path_, "/graph", "at least one operator the simulator runs", "none");
  return std::move(out_);
}

void Importer::read_model() {
  ReadModel read;
  try {
    if (!read_onnx_model(path_, read))
      throw ConfigError(path_, "", "an ONNX model (protobuf ModelProto)",
                        "bytes that do not parse as one (truncated or not ONNX)");
  } catch (const std::system_error& e) {
    throw ConfigError(path_, "", "a readable ONNX model file",
                      std::string("a file that cannot be opened (") + e.code().message() + ")");
  }
  model_.Swap(&read.model);
  side_spans_ = std::move(read.side_spans);
  if (!model_.has_graph()) throw ConfigError(path_, "", "a model with a graph", "no graph");
  bool default_domain = false;
  for (const onnx::OperatorSetIdProto& o : model_.opset_import()) {
    if (!o.domain().empty() && o.domain() != "ai.onnx") continue;
    default_domain = true;
    opset_ = o.version();
    // Below opset 10 (QuantizeLinear's) a model is a float one: npusim quantize converts it.
    if (o.version() < kMinOpset || o.version() > kMaxOpset)
      throw ConfigError(path_, "/opset_import",
                        "opset " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                            (o.version() >= kMinOpset
                                 ? ""
                                 : ". Quantise a float model of an older opset with `npusim "
                                   "quantize MODEL.onnx -o MODEL_QDQ.onnx`, which converts it to "
                                   "opset 13 and each Upsample to the Resize that computes it"),
                        "opset " + std::to_string(o.version()));
  }
  if (!default_domain)
    throw ConfigError(path_, "/opset_import", "an import of the default ONNX domain", "none");
  // Two initialisers of one name: which one a node reads would be a guess.
  std::set<std::string> names;
  for (const onnx::TensorProto& t : model_.graph().initializer())
    if (!names.insert(t.name()).second)
      throw ConfigError(path_, "/graph/initializer/" + t.name(), "each initialiser name once",
                        "\"" + t.name() + "\" twice");
}

// ONNX's own checker, on the model as read and before anything else reads it: each
// node's inputs, outputs and attributes against its operator's schema (counts, types,
// required ones), names defined before use, and the model's own fields. The importer
// and its QDQ lowering index what the schema promises (a node without an output
// stopped the lowering with a null access, found by fuzzing), and the checker refuses
// what the import would accept in silence (an extra node input, an attribute of the
// wrong type). Nodes of other domains (com.microsoft) have no schema here; the
// importer checks those itself.
void Importer::run_onnx_checker() {
  // Upsample (opsets 7 to 9) is deprecated from opset 10, the first this importer reads: the
  // checker refuses it ("deprecated") without saying what to do.
  for (const onnx::NodeProto& n : model_.graph().node()) {
    if (n.op_type() != "Upsample" || (!n.domain().empty() && n.domain() != "ai.onnx")) continue;
    const onnx::AttributeProto* mode =
        typed_attr(n, "mode", onnx::AttributeProto_AttributeType_STRING);
    fail(n,
         "a Resize: Upsample is not imported. `npusim quantize FLOAT_MODEL.onnx -o "
         "MODEL_QDQ.onnx` rewrites each Upsample of a float model as the Resize that computes it "
         "(asymmetric, nearest_mode floor) and quantises the model (docs/onnx.md#quantising-a-"
         "float-model); or export the model at opset 11 or later, where it is a Resize",
         "an Upsample (mode " + (mode ? mode->s() : std::string("nearest")) +
             "), deprecated since opset 10");
  }
  // This checker wants every graph input and output to state a shape; ONNX Runtime
  // and later checkers do not, and exporters may leave it out. Those without one get
  // an empty shape for the check only.
  std::vector<onnx::ValueInfoProto*> shapeless;
  for (auto* list :
       {model_.mutable_graph()->mutable_input(), model_.mutable_graph()->mutable_output(),
        model_.mutable_graph()->mutable_value_info()})
    for (onnx::ValueInfoProto& v : *list)
      if (v.type().has_tensor_type() && !v.type().tensor_type().has_shape()) {
        v.mutable_type()->mutable_tensor_type()->mutable_shape();
        shapeless.push_back(&v);
      }
  std::string message;
  try {
    onnx::checker::check_model(model_);
  } catch (const onnx::checker::ValidationError& e) {
    message = e.what();
  }
  for (onnx::ValueInfoProto* v : shapeless) v->mutable_type()->mutable_tensor_type()->clear_shape();
  if (!message.empty()) {
    // The node, as "... Name: conv OpType: QLinearConv" (in the context the checker
    // appends, or in the message itself: "input 'x' of node: \nname: conv OpType: ...").
    std::string where = "/graph";
    const auto op = message.find(" OpType: ");
    const auto name = op == std::string::npos ? op : message.rfind("ame: ", op);
    if (name != std::string::npos) {
      std::string type = message.substr(op + 9);
      type = type.substr(0, type.find_first_of(" \n"));
      where = "node '" + message.substr(name + 5, op - name - 5) + "' (" + type + ")";
    }
    const auto context = message.find("==> Context:");
    if (context != std::string::npos) message.resize(context);
    for (char& c : message)
      if (c == '\n') c = ' ';
    while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back())))
      message.pop_back();
    throw ConfigError(path_, where, "a model ONNX's checker accepts", message);
  }
}

std::vector<int> Importer::data_slots(const onnx::NodeProto& n) {
  if (n.op_type() == "QLinearAdd" || n.op_type() == "QLinearMul") return {0, 3};
  if (n.op_type() == "QLinearConcat") {
    std::vector<int> slots;
    for (int i = 2; i < n.input_size(); i += 3) slots.push_back(i);
    return slots;
  }
  return {0};
}

std::map<std::string, std::string> Importer::constant_slot_uses(const onnx::GraphProto& g) const {
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

Constant Importer::constant_from_input_file(const onnx::ValueInfoProto& v, const std::string& use) {
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

void Importer::declare_input(const onnx::ValueInfoProto& v) {
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
  if (dims.size() < 2 || dims.size() > 4)
    throw ConfigError(path_, where, "an [N, C, H, W], [N, C] or [1, T, F] input",
                      std::to_string(dims.size()) + "-D");
  if (dims.size() == 3 && dims[0] != 1)
    throw ConfigError(path_, where, "a sequence input [1, T, F] (one sequence)",
                      "a batch of " + std::to_string(dims[0]));
  Activation a;
  a.N = dims[0], a.C = dims[1];
  a.flat = dims.size() == 2;  // [N, C]: a matmul's rows of features
  a.sequence = dims.size() == 3;
  if (a.sequence) a.C = dims[2], a.H = dims[1];  // T rows of F features
  if (dims.size() == 4) a.H = dims[2], a.W = dims[3];
  a.onnx_type = tt.elem_type();
  GraphInput in;
  in.name = v.name();
  in.N = a.N, in.C = a.C, in.H = a.H, in.W = a.W;
  if (a.flat || a.sequence) in.onnx_shape = dims;
  in.onnx_nhwc = a.sequence;  // [1, T, F] is the DRAM order: T rows of F
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

namespace {

// QuantizeLinear of one float input value as ONNX Runtime computes it (MLAS's
// QuantizeLinear): x / scale in float32, clamped to the type's range less the
// zero point, rounded half to even, plus the zero point.
int32_t quantize_input(float x, const TensorQuant& q) {
  const float lo = float(quant_min(q.type) - q.zero_point);
  const float hi = float(quant_max(q.type) - q.zero_point);
  float v = x / q.scale;
  v = std::isnan(v) ? lo : std::min(std::max(v, lo), hi);  // MLAS's MAXPS takes lo for a NaN
  return int32_t(std::nearbyint(v)) + q.zero_point;        // half to even (the default mode)
}

}  // namespace

void Importer::load_input_file(const std::string& name, const std::string& file) {
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
  // A float input is simulated as what its QuantizeLinear makes of it: the file holds that.
  if (a.onnx_type == onnx::TensorProto_DataType_FLOAT && !in.quantized_from_float)
    throw ConfigError(file, "",
                      "the quantised input (" + std::string(to_string(in.quant.type)) +
                          ") of float input \"" + name + "\" as .npy",
                      "a float input (quantise it first: (x / scale) + zero point, rounded)");
  TensorI8 nchw;  // uint8 values held as their bytes
  if (in.quantized_from_float && read_npy_descr(file) == "<f4") {
    // The model's own float input, quantised by its QuantizeLinear as ONNX Runtime does.
    const Tensor<float> real = read_npy_float32(file);
    nchw.shape = real.shape;
    nchw.data.resize(real.data.size());
    for (size_t i = 0; i < real.data.size(); ++i)
      nchw.data[i] = int8_t(quantize_input(real.data[i], in.quant));
  } else if (in.quant.type == QuantType::Uint8) {
    const TensorU8 t = read_npy_uint8(file);
    nchw.shape = t.shape;
    nchw.data.assign(t.data.begin(), t.data.end());
  } else {
    nchw = read_npy_int8(file);
  }
  if (in.onnx_nhwc) {  // the file holds the DRAM order already
    if (nchw.shape != in.onnx_shape) {
      std::string dims;
      for (uint32_t d : in.onnx_shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
      throw ConfigError(
          file, "",
          "shape [" + dims + "] (as the model declares input \"" + name + "\", in DRAM order)",
          "another shape");
    }
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

void Importer::check_stated_shapes(const std::map<std::string, std::vector<int64_t>>& stated,
                                   const std::map<std::string, std::string>& producers) const {
  const auto text = [](const std::vector<int64_t>& dims) {
    std::string t;
    for (int64_t d : dims) t += (t.empty() ? "" : ", ") + std::to_string(d);
    return "[" + t + "]";
  };
  for (const auto& [name, a] : activations_) {
    const auto it = stated.find(name);
    if (it == stated.end() || a.source.op < 0) continue;
    const std::vector<int64_t> ours = onnx_dims(a);
    if (ours == it->second) continue;
    const auto producer = producers.find(name);
    const std::string node = producer == producers.end() ? "/graph" : producer->second;
    throw ConfigError(path_, node,
                      "output \"" + name + "\" of the shape the model states, " + text(it->second) +
                          " (declared or by ONNX shape inference)",
                      text(ours) + " from the node's attributes and inputs");
  }
}

bool Importer::fold_constant(const onnx::NodeProto& n) {
  try {
    const std::optional<Constant> folded = fold_constant_node(
        n, opset_, path_,
        [this, &n](const std::string& name) -> const Constant* { return with_bytes(name, n); },
        [this](const std::string& name) -> std::optional<std::vector<int64_t>> {
          const auto it = activations_.find(name);
          if (it == activations_.end()) return std::nullopt;
          return onnx_dims(it->second);
        });
    if (!folded) return false;
    constants_[n.output(0)] = *folded;
    return true;
  } catch (const FoldError& e) {
    fail(n, e.expected, e.found);
  }
}

void Importer::import_node(const onnx::NodeProto& n, int index) {
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
  if (contrib && op == "QLinearAdd") return import_elementwise(n, index, OpKind::Add, false);
  if (contrib && op == "QLinearConcat") return import_concat(n, index);
  if (contrib && op == "QLinearSoftmax") return import_softmax(n, index);
  if (op == "QLinearLayerNormalization") return import_layernorm(n, index);
  if (op.rfind("QLinear", 0) == 0)  // a table activation's (the QDQ lowering's; ORT's sigmoid)
    if (const std::optional<OpKind> kind = op_kind_of_onnx_qdq(op.substr(7)))
      return import_table_activation(n, index, *kind);
  if (contrib && op == "QLinearMul") return import_elementwise(n, index, OpKind::Mul, true);
  if ((op == "Reshape" || op == "Transpose") && import_shuffle_step(n, index)) return;
  if (op == "Slice") return import_slice(n, index);
  if (op == "Split") return import_split(n, index);
  if (op == "Resize" || op == "QLinearResize") return import_resize(n, index);
  if (op == "Flatten" || op == "Reshape") return import_flatten(n);
  if (op == "Transpose") return import_transpose(n);
  if (op == "Relu" || op == "Clip") return import_relu_clip(n);
  if (op == "QuantizeLinear") return import_quantize(n);
  if (op == "DequantizeLinear") return import_dequantize(n);
  if (float_model_)
    fail(n,
         "a quantised model (QDQ or QOperator form): npusim simulates 8-bit integer "
         "inference. Quantise the model first: `npusim quantize MODEL.onnx -o MODEL_QDQ.onnx` "
         "(docs/onnx.md#quantising-a-float-model), or PyTorch's post-training quantisation "
         "before torch.onnx.export (tools/gen-torch-zoo does this for torchvision models)",
         "a float model (no QuantizeLinear, DequantizeLinear or integer operator); its " + op +
             " is float");
  std::string table_activations;  // in QDQ form (the operator table's onnx_qdq)
  for (const OpKind k : kOpKinds)
    if (op_info(k).onnx_qdq != nullptr)
      table_activations += std::string(table_activations.empty() ? "" : ", ") + op_info(k).onnx_qdq;
  fail(n,
       "a supported operator: QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger, QGemm, "
       "MaxPool, QLinearAveragePool, QLinearGlobalAveragePool, QLinearAdd, QLinearMul, "
       "QLinearConcat, "
       "Relu, Clip, Flatten, Reshape, Transpose between NHWC and NCHW at a graph input or "
       "output, Slice and Split of channels, Resize (nearest, or linear or cubic in QDQ form), the "
       "channel shuffle (Reshape, Transpose [0, 2, 1, 3, 4], Reshape), QuantizeLinear of an input, "
       "DequantizeLinear of an output; in QDQ form also Softmax and LayerNormalization over the "
       "last axis, " +
           table_activations +
           " (QuickGelu: SiLU, x * Sigmoid(x)), Mul (one shape or a per-channel [N, C, 1, 1] "
           "operand), and the reshapes and transposes "
           "of attention heads (docs/onnx.md)",
       "an unsupported operator" +
           std::string(n.domain().empty() ? "" : " of domain " + n.domain()));
}

void Importer::declare_output(const std::string& name) {
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
  const std::optional<OnnxOutput> o = saved_output(name, it->second);
  if (!o)
    throw ConfigError(path_, "/graph/output/" + name,
                      "a sequence output in token order ([1, T, F] or [1, T, heads, dim])",
                      "a view with the heads before the tokens");
  out_.outputs.push_back(*o);
  out_.network.outputs.push_back(o->tensor);
}

std::optional<OnnxOutput> Importer::saved_output(const std::string& name,
                                                 const Activation& a) const {
  if (a.sequence && a.heads > 0 && (a.axes[1] != kToken || a.axes[2] != kHead))
    return std::nullopt;  // a head view with the heads first: no order the tensor lies in
  OnnxOutput o;
  o.name = name;
  // The operator's own tensor: a Flatten or Reshape view of it has another name.
  o.tensor = out_.network.tensor_names[size_t(a.source.op)];
  if (a.sequence) {  // saved as it lies, T rows of F
    o.nhwc = true;
    for (int64_t d : onnx_dims(a)) o.shape.push_back(uint32_t(d));
  } else if (a.flat) {  // [N, C]: with H = W = 1 both orders are one
    o.nhwc = true;
    o.shape = {a.N, a.C};
  } else if (a.flat_map) {  // the map in NCHW order
    o.shape = {a.N, a.C * a.H * a.W};
  }
  return o;
}

std::string Importer::nlohmann_placeholder() const {
  return nlohmann::json{{"onnx", path_}}.dump();
}

}  // namespace onnx_detail

OnnxModel import_onnx(const std::string& path, const std::map<std::string, std::string>& inputs,
                      const OnnxImportOptions& options) {
  try {
    return onnx_detail::Importer(path, inputs, options).run();
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    // A library's own text (protobuf's "CHECK failed", std::map::at) that a check of ours
    // should have caught first: still named with the model. fuzz_onnx counts it a finding.
    throw ConfigError(path, "", "a model npusim can import",
                      std::string(kImportInternalError) + e.what());
  }
}

}  // namespace npusim
