#include "sim/graph/tensor_graph.h"

#include <algorithm>
#include <map>

namespace npusim {

const char* to_string(TensorRole r) {
  switch (r) {
    case TensorRole::Input:
      return "input";
    case TensorRole::Weights:
      return "weights";
    case TensorRole::Params:
      return "params";
    case TensorRole::Activation:
      break;
  }
  return "activation";
}

namespace {

class Builder {
 public:
  explicit Builder(const NetworkConfig& net) : net_(net) {}

  TensorGraph run() {
    for (const GraphInput& in : net_.graph_inputs) {
      GraphTensor t = activation(in.name, TensorRole::Input, in.N, in.C, in.H, in.W, in.quant);
      t.bytes = uint64_t(in.N) * in.C * in.H * in.W * element_bytes(in.quant.type);
      graph_inputs_.push_back(add(std::move(t)));
    }
    for (size_t l = 0; l < net_.layers.size(); ++l) add_operator(l);
    mark_outputs();
    set_lifetimes();
    return std::move(g_);
  }

 private:
  static uint64_t element_bytes(QuantType t) { return t == QuantType::Int32 ? 4 : 1; }

  static GraphTensor activation(const std::string& name, TensorRole role, uint32_t N, uint32_t C,
                                uint32_t H, uint32_t W, const TensorQuant& q) {
    GraphTensor t;
    t.name = name, t.role = role;
    t.N = N, t.C = C, t.H = H, t.W = W;
    t.element = q.type;
    t.scale = {q.scale};
    t.zero_point = {q.zero_point};
    return t;
  }

  int32_t add(GraphTensor t) {
    g_.tensors.push_back(std::move(t));
    return int32_t(g_.tensors.size() - 1);
  }

  // Layer l's first input in a layer list: the previous layer's output when
  // chained, else its own input tensor.
  int32_t layer_list_input(size_t l) {
    if (l > 0 && l < net_.chained.size() && net_.chained[l]) return g_.operators[l - 1].output;
    const LayerConfig& L = net_.layers[l];
    GraphTensor t = activation(L.name + ".input", TensorRole::Input, L.N, L.C, L.H, L.W, {});
    t.dtype = L.dtype;
    t.layout = L.is_binary() ? TensorLayout::Nhwc : L.input_layout;
    t.bytes = L.input_bytes();
    return add(std::move(t));
  }

  void add_operator(size_t l) {
    const LayerConfig& L = net_.layers[l];
    const OpInfo info = op_info(L.op);
    GraphOperator op;
    op.kind = L.op, op.name = L.name;
    const int32_t self = int32_t(l);
    if (net_.is_graph()) {
      for (const TensorSource& s : net_.sources[l])
        op.inputs.push_back(s.op >= 0 ? g_.operators[size_t(s.op)].output
                                      : graph_inputs_[size_t(s.graph_input)]);
    } else {
      op.inputs.push_back(layer_list_input(l));
    }
    for (const int32_t t : op.inputs) g_.tensors[size_t(t)].consumers.push_back(self);
    // A plain layer (a layer list's) always has weights; a graph operator as its row says.
    if ((!L.quantized || info.weights) && L.weight_bytes() > 0) op.weights = weights_of(L, self);
    if (info.norm_params) op.params = params_of(L, self);
    const std::string out_name =
        l < net_.tensor_names.size() ? net_.tensor_names[l] : L.name + ".output";
    GraphTensor out = activation(out_name, TensorRole::Activation, L.N, L.K, L.out_h(), L.out_w(),
                                 L.quantized ? L.quant.output : TensorQuant{});
    out.dtype = output_bits_of(net_, l) > 0 ? DataType::Binary : DataType::Int8;
    out.layout = out.dtype == DataType::Binary ? TensorLayout::Nhwc : L.output_layout;
    out.bytes = L.output_bytes();
    out.producer = self;
    op.output = add(std::move(out));
    g_.operators.push_back(std::move(op));
  }

  // One tensor per distinct seeded weight set of graph operators (decode
  // steps share the prefill's projections), as the compiler shares their DRAM
  // region; a plain layer's, a model's own or a .npy file's weights are the
  // operator's alone.
  int32_t weights_of(const LayerConfig& L, int32_t self) {
    const std::string key = L.quantized ? seeded_weights_key(L) : "";
    if (!key.empty()) {
      const auto it = shared_.find(key);
      if (it != shared_.end()) {
        g_.tensors[size_t(it->second)].consumers.push_back(self);
        return it->second;
      }
    }
    GraphTensor w;
    w.name = L.name + ".weights", w.role = TensorRole::Weights;
    w.N = L.K, w.C = L.group_channels(), w.H = L.R, w.W = L.S;
    w.dtype = L.dtype;
    w.bytes = L.weight_bytes();
    if (L.quantized) {
      w.element = L.quant.weight_type;
      w.scale = L.quant.weight_scale;
      w.zero_point = L.quant.weight_zero_point;
      w.per_axis = w.scale.size() > 1 || w.zero_point.size() > 1;
    }
    w.consumers.push_back(self);
    const int32_t id = add(std::move(w));
    if (!key.empty()) shared_.emplace(key, id);
    return id;
  }

  int32_t params_of(const LayerConfig& L, int32_t self) {
    GraphTensor p;
    p.name = L.name + ".params", p.role = TensorRole::Params;
    p.N = L.C;
    p.element = QuantType::Int32;
    p.bytes = uint64_t(L.C) * 8;  // an int32 beta and an int32 gamma per channel
    p.consumers.push_back(self);
    return add(std::move(p));
  }

  void mark_outputs() {
    if (net_.is_graph()) {
      for (const std::string& name : net_.outputs)
        for (GraphTensor& t : g_.tensors)
          if (t.name == name && t.role == TensorRole::Activation) t.graph_output = true;
      return;
    }
    // A layer list: every output no later layer consumes is read back.
    for (GraphTensor& t : g_.tensors)
      if (t.role == TensorRole::Activation && t.consumers.empty()) t.graph_output = true;
  }

  void set_lifetimes() {
    const int32_t last = int32_t(g_.operators.size()) - 1;
    for (GraphTensor& t : g_.tensors) {
      t.first_use = t.producer >= 0 ? t.producer
                    : t.consumers.empty()
                        ? -1
                        : *std::min_element(t.consumers.begin(), t.consumers.end());
      t.last_use = t.consumers.empty() ? t.first_use
                                       : *std::max_element(t.consumers.begin(), t.consumers.end());
      if (t.graph_output) t.last_use = last;
    }
  }

  const NetworkConfig& net_;
  TensorGraph g_;
  std::vector<int32_t> graph_inputs_;
  std::map<std::string, int32_t> shared_;
};

}  // namespace

std::vector<int32_t> TensorGraph::live_at(int32_t op) const {
  std::vector<int32_t> live;
  for (size_t t = 0; t < tensors.size(); ++t)
    if (tensors[t].first_use >= 0 && tensors[t].first_use <= op && op <= tensors[t].last_use)
      live.push_back(int32_t(t));
  return live;
}

uint64_t TensorGraph::live_bytes_at(int32_t op, bool constants) const {
  uint64_t bytes = 0;
  for (const int32_t t : live_at(op))
    if (constants || !tensors[size_t(t)].constant()) bytes += tensors[size_t(t)].bytes;
  return bytes;
}

TensorGraph::Peak TensorGraph::peak_live_bytes(bool constants) const {
  Peak peak;
  for (int32_t op = 0; op < int32_t(operators.size()); ++op) {
    const uint64_t bytes = live_bytes_at(op, constants);
    if (peak.op < 0 || bytes > peak.bytes) peak = {bytes, op};
  }
  return peak;
}

TensorGraph build_tensor_graph(const NetworkConfig& net) { return Builder(net).run(); }

}  // namespace npusim
