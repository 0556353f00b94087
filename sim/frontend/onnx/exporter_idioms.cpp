#include "sim/frontend/onnx/exporter_idioms.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/frontend/onnx/onnx_constants.h"

namespace npusim {
namespace {

bool default_domain(const onnx::NodeProto& n) {
  return n.domain().empty() || n.domain() == "ai.onnx";
}

std::vector<int64_t> ints_of(const onnx::NodeProto& n, const std::string& name) {
  const onnx::AttributeProto* a = find_attribute(n, name);
  if (a == nullptr) return {};
  return {a->ints().begin(), a->ints().end()};
}

// Attribute `name` of `n`, emptied and given `type` (added when `n` has none).
onnx::AttributeProto& reset_attribute(onnx::NodeProto& n, const std::string& name,
                                      onnx::AttributeProto_AttributeType type) {
  onnx::AttributeProto* a = nullptr;
  for (onnx::AttributeProto& b : *n.mutable_attribute())
    if (b.name() == name) a = &b;
  if (a == nullptr) a = n.add_attribute();
  a->Clear();
  a->set_name(name);
  a->set_type(type);
  return *a;
}

struct Quant {
  float scale;
  int64_t zero_point;
  int type;
};

// Readers and producers of every tensor, and the initialisers by name.
struct GraphIndex {
  explicit GraphIndex(const onnx::GraphProto& g) {
    init.reserve(size_t(g.initializer_size()));
    readers.reserve(size_t(g.node_size()) * 2);
    producer.reserve(size_t(g.node_size()));
    for (const onnx::TensorProto& t : g.initializer()) init[t.name()] = &t;
    for (const onnx::NodeProto& n : g.node()) {
      for (const std::string& in : n.input()) ++readers[in];
      for (const std::string& out : n.output()) producer[out] = &n;
    }
    for (const onnx::ValueInfoProto& o : g.output()) ++readers[o.name()];
  }
  const onnx::NodeProto* made_by(const std::string& tensor, const char* op) const {
    const auto it = producer.find(tensor);
    return it != producer.end() && it->second->op_type() == op ? it->second : nullptr;
  }
  int reads(const std::string& tensor) const {
    const auto it = readers.find(tensor);
    return it == readers.end() ? 0 : it->second;
  }
  // An initialiser's values, or nullopt (absent, or malformed: the importer reports that).
  // Through Identity nodes (torch.onnx writes a shared zero point as Identity of one).
  std::optional<Constant> constant(const std::string& name) const {
    const auto it = init.find(name);
    if (it != init.end()) return constant_if_readable(*it->second);
    const onnx::NodeProto* identity = made_by(name, "Identity");
    if (identity == nullptr || identity->input_size() != 1) return std::nullopt;
    return constant(identity->input(0));
  }
  // The per-tensor quantisation of a QuantizeLinear or DequantizeLinear node: a
  // scalar float scale and 8-bit zero point (uint8 when absent), both
  // initialisers; nullopt otherwise (per-axis, computed or malformed).
  std::optional<Quant> quant_of(const onnx::NodeProto& n) const {
    if (n.input_size() < 2 || find_attribute(n, "axis")) return std::nullopt;
    const std::string zero_point = n.input_size() > 2 ? n.input(2) : "";
    const std::optional<Constant> s = constant(n.input(1));
    if (!s || s->type != onnx::TensorProto_DataType_FLOAT || s->floats.size() != 1)
      return std::nullopt;
    Quant q{s->floats[0], 0, onnx::TensorProto_DataType_UINT8};
    if (zero_point.empty()) return q;
    const std::optional<Constant> z = constant(zero_point);
    if (!z || !z->is_8bit() || z->count() != 1) return std::nullopt;
    q.type = z->type;
    q.zero_point = z->int_at(0);
    return q;
  }
  // Looked up only, never walked in order: hashed.
  std::unordered_map<std::string, const onnx::TensorProto*> init;
  std::unordered_map<std::string, int> readers;
  std::unordered_map<std::string, const onnx::NodeProto*> producer;
};

// Each QuantizeLinear output's element type: its zero point's, or uint8 without one.
std::map<std::string, int> quantised_types(const onnx::GraphProto& g) {
  std::map<std::string, int> initialiser_type;
  for (const onnx::TensorProto& t : g.initializer()) initialiser_type[t.name()] = t.data_type();
  std::map<std::string, int> types;
  for (const onnx::NodeProto& n : g.node()) {
    if (n.op_type() != "QuantizeLinear" || n.output_size() < 1) continue;
    int type = onnx::TensorProto_DataType_UINT8;
    if (n.input_size() > 2 && !n.input(2).empty()) {
      const auto it = initialiser_type.find(n.input(2));
      if (it == initialiser_type.end()) continue;  // a computed zero point: type unknown here
      type = it->second;
    }
    types[n.output(0)] = type;
  }
  return types;
}

// Removes each Cast of a quantised tensor to the type it already has.
int remove_identity_casts(onnx::GraphProto& g) {
  std::map<std::string, int> types = quantised_types(g);
  std::map<std::string, std::string> alias;  // Cast output -> the tensor it copies
  std::set<std::string> graph_output;
  for (const onnx::ValueInfoProto& o : g.output()) graph_output.insert(o.name());
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (onnx::NodeProto& n : *g.mutable_node()) {  // each kept node moves (the old list is dropped)
    for (std::string& in : *n.mutable_input()) {
      const auto a = alias.find(in);
      if (a != alias.end()) in = a->second;
    }
    if (default_domain(n) && n.op_type() == "Cast" && n.input_size() == 1 && n.output_size() == 1 &&
        !graph_output.count(n.output(0))) {
      const auto t = types.find(n.input(0));
      const onnx::AttributeProto* to = find_attribute(n, "to");
      if (t != types.end() && to != nullptr && t->second == to->i()) {
        alias[n.output(0)] = n.input(0);
        types[n.output(0)] = t->second;
        continue;
      }
    }
    kept.Add()->Swap(&n);
  }
  const int removed = g.node_size() - kept.size();
  g.mutable_node()->Swap(&kept);
  return removed;
}

// A node that only moves its input's values: a reshape, a channel slice, a
// nearest Resize (ONNX's default mode).
bool is_reshape(const onnx::NodeProto& n) {
  static const std::set<std::string> ops = {"Flatten",   "Reshape",   "Squeeze",
                                            "Unsqueeze", "Transpose", "Slice"};
  const onnx::AttributeProto* mode = find_attribute(n, "mode");
  const bool copies = ops.count(n.op_type()) != 0 ||
                      (n.op_type() == "Resize" && (mode == nullptr || mode->s() == "nearest"));
  return default_domain(n) && copies && n.input_size() >= 1 && n.output_size() == 1;
}

// The graph's nodes with some replaced: each entry of `replaced` by its list
// (empty: removed). Keeps the order, so every tensor is still written before it is read.
void replace_nodes(onnx::GraphProto& g,
                   const std::map<const onnx::NodeProto*, std::vector<onnx::NodeProto>>& replaced) {
  if (replaced.empty()) return;  // the graph as it was: no node is copied
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  kept.Reserve(g.node_size());
  for (onnx::NodeProto& n : *g.mutable_node()) {
    const auto it = replaced.find(&n);
    if (it == replaced.end())
      kept.Add()->Swap(&n);  // moved, not copied (the old list is dropped below)
    else
      for (const onnx::NodeProto& m : it->second) *kept.Add() = m;
  }
  g.mutable_node()->Swap(&kept);
}

// The one-input QLinearConcat that computes exactly ONNX Runtime's float
// DequantizeLinear -> QuantizeLinear (a table over the 256 input values),
// reported as Requantize(QDQ).
onnx::NodeProto requantisation(const onnx::NodeProto& dq, const onnx::NodeProto& q,
                               const std::string& name, const std::string& output) {
  onnx::NodeProto requant;
  requant.set_name(name);
  requant.set_op_type("QLinearConcat");
  requant.set_domain("com.microsoft");
  const std::string dz = dq.input_size() > 2 ? dq.input(2) : "";
  const std::string qz = q.input_size() > 2 ? q.input(2) : "";
  for (const std::string& in : {q.input(1), qz, dq.input(0), dq.input(1), dz})
    requant.add_input(in);
  requant.add_output(output);
  reset_attribute(requant, "axis", onnx::AttributeProto_AttributeType_INT).set_i(1);
  reset_attribute(requant, "npusim_qdq_op", onnx::AttributeProto_AttributeType_STRING)
      .set_s("Requantize");
  return requant;
}

// DequantizeLinear -> QuantizeLinear at another scale or zero point (FX-mode
// quantisation writes one where a tensor changes its observer): a requantisation.
int requantise_dequantize_quantize(onnx::GraphProto& g) {
  const GraphIndex index(g);
  std::map<const onnx::NodeProto*, std::vector<onnx::NodeProto>> replaced;
  for (const onnx::NodeProto& q : g.node()) {
    if (q.op_type() != "QuantizeLinear" || q.input_size() < 2) continue;
    const onnx::NodeProto* dq = index.made_by(q.input(0), "DequantizeLinear");
    if (dq == nullptr) continue;
    const std::optional<Quant> from = index.quant_of(*dq), to = index.quant_of(q);
    if (!from || !to || from->type != to->type) continue;
    replaced[&q] = {requantisation(*dq, q, q.name().empty() ? dq->name() + "_requantize" : q.name(),
                                   q.output(0))};
  }
  replace_nodes(g, replaced);
  return int(replaced.size());
}

// DequantizeLinear -> (Flatten | Reshape | Squeeze | Unsqueeze | Transpose |
// Slice | Split) -> QuantizeLinear on each output, as torch.onnx writes a
// quantised model's flatten before its classifier (and npusim quantize every
// view and channel split). At one scale and zero point the node moves onto the
// quantised tensor (ONNX Runtime drops the pair); at another it follows a
// requantisation, written as the one-input QLinearConcat that computes exactly
// ONNX Runtime's float DequantizeLinear -> QuantizeLinear (a table over the 256
// input values). A Split's outputs must share one quantisation.
int move_reshapes_to_quantised(onnx::GraphProto& g) {
  const GraphIndex index(g);
  std::map<std::string, const onnx::NodeProto*> quantised_by;  // tensor -> its QuantizeLinear
  for (const onnx::NodeProto& q : g.node())
    if (q.op_type() == "QuantizeLinear" && q.input_size() >= 2) quantised_by[q.input(0)] = &q;
  std::map<const onnx::NodeProto*, std::vector<onnx::NodeProto>> replaced;
  for (const onnx::NodeProto& view : g.node()) {
    const bool split = default_domain(view) && view.op_type() == "Split";
    if (!is_reshape(view) && !split) continue;
    const onnx::NodeProto* dq = index.made_by(view.input(0), "DequantizeLinear");
    if (dq == nullptr || view.output_size() < 1) continue;
    const std::optional<Quant> from = index.quant_of(*dq);
    std::vector<const onnx::NodeProto*> qs;
    std::optional<Quant> to;
    for (const std::string& out : view.output()) {
      const auto q = quantised_by.find(out);
      if (q == quantised_by.end() || index.reads(out) != 1) break;
      const std::optional<Quant> t = index.quant_of(*q->second);
      if (!t || (to && (t->scale != to->scale || t->zero_point != to->zero_point))) break;
      to = t;
      qs.push_back(q->second);
    }
    if (!from || qs.size() != size_t(view.output_size()) || from->type != to->type) continue;
    std::vector<onnx::NodeProto> nodes;
    std::string source = dq->input(0);
    if (from->scale != to->scale || from->zero_point != to->zero_point) {
      const onnx::NodeProto& q = *qs[0];
      nodes.push_back(requantisation(*dq, q,
                                     q.name().empty() ? view.name() + "_requantize" : q.name(),
                                     q.output(0) + ".requantized"));
      source = nodes.back().output(0);
    }
    onnx::NodeProto moved = view;
    moved.set_input(0, source);
    for (size_t i = 0; i < qs.size(); ++i) {
      moved.set_output(int(i), qs[i]->output(0));
      replaced[qs[i]] = {};
    }
    nodes.push_back(moved);
    replaced[&view] = nodes;
  }
  replace_nodes(g, replaced);
  int moved = 0;
  for (const auto& [node, nodes] : replaced) moved += nodes.empty() ? 0 : 1;
  return moved;
}

// DequantizeLinear -> Pad (constant 0, on H and W) -> AveragePool, as torch.onnx
// writes AvgPool2d(padding, count_include_pad=True): one AveragePool with the pads
// and count_include_pad 1. The padded zeros are real zeros, the quantised zero
// point, which is what a padded QLinearAveragePool averages in.
int fold_pad_into_average_pool(onnx::GraphProto& g) {
  const GraphIndex index(g);
  std::map<const onnx::NodeProto*, std::vector<onnx::NodeProto>> replaced;
  for (const onnx::NodeProto& pool : g.node()) {
    if (pool.op_type() != "AveragePool" || pool.input_size() != 1) continue;
    const onnx::NodeProto* pad = index.made_by(pool.input(0), "Pad");
    if (pad == nullptr || index.reads(pad->output(0)) != 1 || pad->input_size() < 2 ||
        !index.made_by(pad->input(0), "DequantizeLinear"))
      continue;
    const onnx::AttributeProto* mode = find_attribute(*pad, "mode");
    if (mode != nullptr && mode->s() != "constant") continue;
    if (pad->input_size() > 2 && !pad->input(2).empty()) {
      const std::optional<Constant> value = index.constant(pad->input(2));
      if (!value || value->floats.size() != 1 || value->floats[0] != 0.0f) continue;
    }
    if (pad->input_size() > 3 && !pad->input(3).empty()) continue;  // axes (opset 18)
    const std::optional<Constant> pads = index.constant(pad->input(1));
    if (!pads || pads->ints.size() != 8 || pads->ints[0] != 0 || pads->ints[1] != 0 ||
        pads->ints[4] != 0 || pads->ints[5] != 0)
      continue;
    bool negative = false;
    for (int64_t p : pads->ints) negative = negative || p < 0;
    if (negative) continue;
    // The pool's own pads add to the Pad's, all averaged in: only with count_include_pad.
    std::vector<int64_t> own(4, 0);
    if (const onnx::AttributeProto* a = find_attribute(pool, "pads")) {
      if (a->ints_size() != 4) continue;
      own.assign(a->ints().begin(), a->ints().end());
    }
    const onnx::AttributeProto* include = find_attribute(pool, "count_include_pad");
    const bool included = include != nullptr && include->i() != 0;
    if (!included && (own[0] || own[1] || own[2] || own[3])) continue;
    if (const onnx::AttributeProto* a = find_attribute(pool, "auto_pad"))
      if (!a->s().empty() && a->s() != "NOTSET") continue;
    // A pad as wide as the kernel is legal in a Pad (a window of padding averages to 0) but
    // not in a pool's own pads: leave such a Pad to be refused by name.
    const std::vector<int64_t> kernel = ints_of(pool, "kernel_shape");
    const std::vector<int64_t> merged_pads = {own[0] + pads->ints[2], own[1] + pads->ints[3],
                                              own[2] + pads->ints[6], own[3] + pads->ints[7]};
    if (kernel.size() != 2 || merged_pads[0] >= kernel[0] || merged_pads[2] >= kernel[0] ||
        merged_pads[1] >= kernel[1] || merged_pads[3] >= kernel[1])
      continue;
    onnx::NodeProto merged = pool;
    merged.set_input(0, pad->input(0));
    onnx::AttributeProto& pads_attribute =
        reset_attribute(merged, "pads", onnx::AttributeProto_AttributeType_INTS);
    for (int64_t p : merged_pads) pads_attribute.add_ints(p);
    reset_attribute(merged, "count_include_pad", onnx::AttributeProto_AttributeType_INT).set_i(1);
    replaced[pad] = {};
    replaced[&pool] = {merged};
  }
  replace_nodes(g, replaced);
  return int(replaced.size() / 2);
}

// x * HardSigmoid(x) with alpha 1/6 and beta 1/2 (torch.onnx's hardswish, in
// MobileNetV3) is HardSwish(x): the same float operations in the same order.
int fuse_hard_swish(onnx::GraphProto& g) {
  const GraphIndex index(g);
  std::map<const onnx::NodeProto*, std::vector<onnx::NodeProto>> replaced;
  for (const onnx::NodeProto& mul : g.node()) {
    if (mul.op_type() != "Mul" || mul.input_size() != 2 || mul.output_size() != 1) continue;
    for (int side = 0; side < 2; ++side) {
      const onnx::NodeProto* hs = index.made_by(mul.input(side), "HardSigmoid");
      if (hs == nullptr || hs->input_size() != 1 || hs->input(0) != mul.input(1 - side) ||
          index.reads(hs->output(0)) != 1 || replaced.count(hs))
        continue;
      const onnx::AttributeProto* alpha = find_attribute(*hs, "alpha");
      const onnx::AttributeProto* beta = find_attribute(*hs, "beta");
      if (alpha == nullptr || alpha->f() != 1.0f / 6.0f || (beta != nullptr && beta->f() != 0.5f))
        continue;
      onnx::NodeProto swish;
      swish.set_name(mul.name().empty() ? hs->name() : mul.name());
      swish.set_op_type("HardSwish");
      swish.add_input(hs->input(0));
      swish.add_output(mul.output(0));
      replaced[hs] = {};
      replaced[&mul] = {swish};
      break;
    }
  }
  replace_nodes(g, replaced);
  return int(replaced.size() / 2);
}

// x * Sigmoid(x) (torch.onnx's SiLU, in EfficientNet) is ONNX Runtime's
// QuickGelu with alpha 1 (its QuickGeluFusion): the float32 logistic of x,
// times x. The Sigmoid's output must feed only this Mul.
int fuse_silu(onnx::GraphProto& g) {
  const GraphIndex index(g);
  std::map<const onnx::NodeProto*, std::vector<onnx::NodeProto>> replaced;
  for (const onnx::NodeProto& mul : g.node()) {
    if (mul.op_type() != "Mul" || !default_domain(mul) || mul.input_size() != 2 ||
        mul.output_size() != 1)
      continue;
    for (int side = 0; side < 2; ++side) {
      const onnx::NodeProto* sigmoid = index.made_by(mul.input(side), "Sigmoid");
      if (sigmoid == nullptr || sigmoid->input_size() != 1 ||
          sigmoid->input(0) != mul.input(1 - side) || index.reads(sigmoid->output(0)) != 1 ||
          replaced.count(sigmoid))
        continue;
      onnx::NodeProto silu;
      silu.set_name(mul.name().empty() ? sigmoid->name() : mul.name());
      silu.set_op_type("QuickGelu");
      silu.set_domain("com.microsoft");
      silu.add_input(sigmoid->input(0));
      silu.add_output(mul.output(0));
      onnx::AttributeProto& alpha =
          reset_attribute(silu, "alpha", onnx::AttributeProto_AttributeType_FLOAT);
      alpha.set_f(1.0f);
      replaced[sigmoid] = {};
      replaced[&mul] = {silu};
      break;
    }
  }
  replace_nodes(g, replaced);
  return int(replaced.size() / 2);
}

}  // namespace

int rewrite_exporter_idioms(onnx::GraphProto& graph) {
  int count = remove_identity_casts(graph);
  count += move_reshapes_to_quantised(graph);
  count += fold_pad_into_average_pool(graph);
  count += fuse_hard_swish(graph);
  count += fuse_silu(graph);
  count += requantise_dequantize_quantize(graph);
  return count;
}

}  // namespace npusim
