#include "sim/frontend/onnx/qdq_lowering.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/frontend/onnx/onnx_constants.h"
#include "sim/graph/op_table.h"

namespace npusim {
namespace {

// A DequantizeLinear: its quantised input and the names of its scale and zero point.
struct Dequantized {
  std::string tensor, scale, zero_point;
};

bool is_float_compute(const std::string& op) {
  static const std::set<std::string> ops = {"Conv",        "MatMul",
                                            "Gemm",        "Add",
                                            "AveragePool", "GlobalAveragePool",
                                            "MaxPool",     "Concat",
                                            "Softmax",     "LayerNormalization",
                                            "Mul",         "Resize"};
  return ops.count(op) != 0 || op_kind_of_onnx_qdq(op).has_value();  // or a table activation
}

class Lowering {
 public:
  explicit Lowering(onnx::GraphProto& g) : g_(g) {
    for (const onnx::TensorProto& t : g.initializer()) initialisers_[t.name()] = &t;
    for (int i = 0; i < g.node_size(); ++i)
      for (const std::string& in : g.node(i).input()) ++readers_[in];
    for (const onnx::ValueInfoProto& o : g.output()) ++readers_[o.name()];
  }

  int run() {
    std::vector<onnx::NodeProto> out;
    std::set<int> consumed;
    // Every DequantizeLinear, wherever it lies in the node list: a bias's may follow its MatMul.
    for (const onnx::NodeProto& n : g_.node())
      if (n.op_type() == "DequantizeLinear" && n.input_size() >= 2)
        dq_[n.output(0)] = {n.input(0), n.input(1), n.input_size() > 2 ? n.input(2) : ""};
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto& n = g_.node(i);
      if ((n.op_type() == "Flatten" || n.op_type() == "Reshape" || n.op_type() == "Transpose") &&
          dq_.count(n.input(0))) {
        // Reshape (transpose) the quantised tensor instead; the float one is then unused.
        onnx::NodeProto moved = n;
        const Dequantized d = dq_[n.input(0)];
        moved.set_input(0, d.tensor);
        moved.set_output(0, n.output(0) + ".quantized");
        dq_[n.output(0)] = {moved.output(0), d.scale, d.zero_point};
        out.push_back(moved);
        consumed.insert(i);
        continue;
      }
      if (consumed.count(i)) continue;
      if ((n.op_type() == "Relu" || n.op_type() == "Clip") && dq_.count(n.input(0))) {
        std::vector<int> used;
        lower_clamp(i, out, used);
        for (int u : used) consumed.insert(u);
        ++count_;
        continue;
      }
      if (!is_float_compute(n.op_type())) {
        out.push_back(n);
        continue;
      }
      onnx::NodeProto lowered;
      std::vector<int> used;
      if (lower(i, lowered, used)) {
        for (int u : used) consumed.insert(u);
        out.push_back(lowered);
        ++count_;
      } else {
        out.push_back(n);
      }
    }
    // Readers of a clamp that changed nothing read its input instead.
    for (onnx::NodeProto& n : out)
      for (std::string& in : *n.mutable_input())
        if (renamed_.count(in)) in = renamed_.at(in);
    // Drop the DequantizeLinear nodes nothing reads any more.
    std::map<std::string, int> reads;
    for (const onnx::NodeProto& n : out)
      for (const std::string& in : n.input()) ++reads[in];
    for (const onnx::ValueInfoProto& o : g_.output()) ++reads[o.name()];
    g_.clear_node();
    for (const onnx::NodeProto& n : out) {
      const bool dead_dq = (n.op_type() == "DequantizeLinear" || n.op_type() == "Flatten" ||
                            n.op_type() == "Reshape" || n.op_type() == "Transpose") &&
                           reads[n.output(0)] == 0;
      if (!dead_dq) *g_.add_node() = n;
    }
    return count_;
  }

 private:
  // The single node reading `tensor`, or -1.
  int sole_reader(const std::string& tensor, int after) const {
    const auto r = readers_.find(tensor);
    if (r == readers_.end() || r->second != 1) return -1;
    for (int i = after + 1; i < g_.node_size(); ++i)
      for (const std::string& in : g_.node(i).input())
        if (in == tensor) return i;
    return -1;
  }

  bool lower(int index, onnx::NodeProto& q, std::vector<int>& used) {
    const onnx::NodeProto& f = g_.node(index);
    // The output chain: [Relu | Clip] -> QuantizeLinear.
    int next = sole_reader(f.output(0), index);
    if (next < 0) return false;
    // A MatMul's bias: Add of an int32 initialiser's DequantizeLinear (as exporters
    // write nn.Linear on a sequence; the scale is checked below).
    const Dequantized* bias = nullptr;
    if (f.op_type() == "MatMul" && g_.node(next).op_type() == "Add" &&
        g_.node(next).input_size() == 2) {
      const onnx::NodeProto& add = g_.node(next);
      const std::string& other = add.input(0) == f.output(0) ? add.input(1) : add.input(0);
      const auto d = dq_.find(other);
      if (d == dq_.end() || initializer_type(d->second.tensor) != onnx::TensorProto_DataType_INT32)
        return false;
      bias = &d->second;
      used.push_back(next);
      next = sole_reader(add.output(0), next);
      if (next < 0) return false;
    }
    float clip_min = -std::numeric_limits<float>::infinity(), clip_max = -clip_min;
    bool clipped = false;
    if (g_.node(next).op_type() == "Relu" || g_.node(next).op_type() == "Clip") {
      const onnx::NodeProto& act = g_.node(next);
      clipped = true;
      clip_min = 0.0f;
      if (act.op_type() == "Clip") {
        clip_min = act.input_size() > 1 && !act.input(1).empty()
                       ? float_constant(act.input(1), clip_min)
                       : clip_min;
        clip_max = act.input_size() > 2 && !act.input(2).empty()
                       ? float_constant(act.input(2), clip_max)
                       : clip_max;
        for (const auto& a : act.attribute()) {
          if (a.name() == "min") clip_min = a.f();
          if (a.name() == "max") clip_max = a.f();
        }
      }
      used.push_back(next);
      next = sole_reader(act.output(0), next);
      if (next < 0) return false;
    }
    const onnx::NodeProto& qn = g_.node(next);
    if (qn.op_type() != "QuantizeLinear" || qn.input_size() < 2) return false;
    used.push_back(next);
    const std::string& op = f.op_type();
    // A table activation's output range is its table's: no Relu or Clip folds into it.
    const bool table = op_kind_of_onnx_qdq(op).has_value();
    if (clipped && table) return false;
    // QuickGelu is SiLU only with alpha 1 (the exporter idiom's).
    if (op == "QuickGelu")
      for (const auto& a : f.attribute())
        if (a.name() == "alpha" && a.f() != 1.0f) return false;
    // Gelu is the erf form only (ONNX 20's approximate "tanh" is another function).
    if (op == "Gelu")
      for (const auto& a : f.attribute())
        if (a.name() == "approximate" && a.s() != "none") return false;
    // A linear or cubic Resize (a nearest one is moved onto the quantised
    // tensor, exporter_idioms.h); its table activation's rule: no Relu or Clip.
    if (op == "Resize") {
      const onnx::AttributeProto* mode = find_attribute(f, "mode");
      if (mode == nullptr || (mode->s() != "linear" && mode->s() != "cubic") || clipped)
        return false;
    }
    // Every input dequantised (an optional bias too); a LayerNormalization's
    // gamma and beta are float initialisers the importer quantises, a
    // Resize's roi, scales and sizes constants.
    for (int i = 0; i < f.input_size(); ++i)
      if (!f.input(i).empty() && !dq_.count(f.input(i)) &&
          !((op == "LayerNormalization" || op == "Resize") && i > 0))
        return false;
    const auto x = [&](int i) { return dq_.at(f.input(i)); };
    const std::string ys = qn.input(1), yz = qn.input_size() > 2 ? qn.input(2) : "";
    q = onnx::NodeProto();
    q.set_name(f.name().empty() ? op + "_" + std::to_string(index) : f.name());
    q.add_output(qn.output(0));
    for (const auto& a : f.attribute()) *q.add_attribute() = a;
    const auto in3 = [&](const Dequantized& d) {
      q.add_input(d.tensor), q.add_input(d.scale), q.add_input(d.zero_point);
    };
    if (op == "Conv") {
      q.set_op_type("QLinearConv");
      in3(x(0)), in3(x(1));
      q.add_input(ys), q.add_input(yz);
      if (f.input_size() > 2 && !f.input(2).empty()) q.add_input(x(2).tensor);
    } else if (op == "MatMul") {
      q.set_op_type("QLinearMatMul");
      in3(x(0)), in3(x(1));
      q.add_input(ys), q.add_input(yz);
      if (bias) {
        // The int32 bias adds to the accumulator only at scale x_scale * w_scale, zero point 0.
        const float xs = scalar_float(x(0).scale), ws = scalar_float(x(1).scale);
        if (!(scalar_float(bias->scale) == xs * ws) || int_constant(bias->zero_point) != 0)
          return false;
        q.add_input(bias->tensor);  // input 8, where QLinearConv has its bias
      }
    } else if (op == "Softmax") {
      q.set_op_type("QLinearSoftmax");
      q.set_domain("com.microsoft");
      in3(x(0));
      q.add_input(ys), q.add_input(yz);
    } else if (table) {
      // QLinear<op>, x triple, y pair, the attributes kept (HardSigmoid's alpha
      // and beta): ORT's contrib QLinearSigmoid, npusim's own for the others.
      q.set_op_type("QLinear" + op);
      if (op == "Sigmoid") q.set_domain("com.microsoft");
      in3(x(0));
      q.add_input(ys), q.add_input(yz);
    } else if (op == "LayerNormalization") {
      for (int o = 1; o < f.output_size(); ++o)
        if (!f.output(o).empty()) return false;    // Mean, InvStdDev: not computed
      q.set_op_type("QLinearLayerNormalization");  // npusim's own: x triple, gamma, beta, y
      in3(x(0));
      q.add_input(f.input(1));
      q.add_input(f.input_size() > 2 ? f.input(2) : "");
      q.add_input(ys), q.add_input(yz);
    } else if (op == "Gemm") {
      q.set_op_type("QGemm");
      q.set_domain("com.microsoft");
      in3(x(0)), in3(x(1));
      q.add_input(f.input_size() > 2 && !f.input(2).empty() ? x(2).tensor : "");
      q.add_input(ys), q.add_input(yz);
    } else if (op == "Mul") {  // ORT's QDQ fusion: com.microsoft QLinearMul
      q.set_op_type("QLinearMul");
      q.set_domain("com.microsoft");
      in3(x(0)), in3(x(1));
      q.add_input(ys), q.add_input(yz);
    } else if (op == "Add") {
      q.set_op_type("QLinearAdd");
      q.set_domain("com.microsoft");
      in3(x(0)), in3(x(1));
      q.add_input(ys), q.add_input(yz);
    } else if (op == "AveragePool" || op == "GlobalAveragePool") {
      q.set_op_type("QLinear" + op);
      q.set_domain("com.microsoft");
      in3(x(0));
      q.add_input(ys), q.add_input(yz);
    } else if (op == "Concat") {
      q.set_op_type("QLinearConcat");
      q.set_domain("com.microsoft");
      q.add_input(ys), q.add_input(yz);
      for (int i = 0; i < f.input_size(); ++i) in3(x(i));
    } else if (op == "Resize") {
      // npusim's own QLinearResize: x triple, y pair, then the Resize's
      // inputs from its second on (ONNX Runtime keeps the float Resize
      // between the two; the importer computes it so).
      q.set_op_type("QLinearResize");
      in3(x(0));
      q.add_input(ys), q.add_input(yz);
      for (int i = 1; i < f.input_size(); ++i) q.add_input(f.input(i));
    } else if (op == "MaxPool") {
      // Max commutes with (de)quantisation only when both use one scale and
      // zero point (as ONNX Runtime requires to fuse it); otherwise leave it.
      const Dequantized& d = x(0);
      if (float_constant(d.scale, -1.0f) != float_constant(ys, -2.0f) ||
          int_constant(d.zero_point) != int_constant(yz))
        return false;
      q.set_op_type("MaxPool");
      q.add_input(d.tensor);
    } else {
      return false;
    }
    auto* from = q.add_attribute();  // the report names the model's own node type
    from->set_name("npusim_qdq_op");
    from->set_type(onnx::AttributeProto_AttributeType_STRING);
    from->set_s(op);
    if (clipped) {
      auto* lo = q.add_attribute();
      lo->set_name("npusim_clip_min");
      lo->set_type(onnx::AttributeProto_AttributeType_FLOAT);
      lo->set_f(clip_min);
      auto* hi = q.add_attribute();
      hi->set_name("npusim_clip_max");
      hi->set_type(onnx::AttributeProto_AttributeType_FLOAT);
      hi->set_f(clip_max);
    }
    return true;
  }

  // A Relu or Clip standing alone on a quantised tensor: DequantizeLinear(x) ->
  // Relu | Clip -> QuantizeLinear(y). ONNX Runtime computes it in float32 (or drops
  // the clamp where y's range lies within it, which gives the same integers):
  // T(q) = Q_y(clip(DQ_x(q), min, max)) = clamp(f(q), Q_y(min), Q_y(max)), f = Q_y(DQ_x(.))
  // the requantisation (identity at one scale and zero point), clip and Q_y both
  // monotone. It becomes an integer Clip on x (folded into x's producer by the
  // importer) at the bounds [a, b] with f(clamp(q, a, b)) = T(q) for every q,
  // then the requantisation f if y's quantisation is not x's; neither where the
  // clamp changes no value and x is y. A variant outside this is marked refused
  // (npusim_refused_*), for the importer to name the node. Appends to `out`.
  void lower_clamp(int index, std::vector<onnx::NodeProto>& out, std::vector<int>& used) {
    const onnx::NodeProto& n = g_.node(index);
    const Dequantized d = dq_.at(n.input(0));
    onnx::NodeProto refused = n;
    const auto refuse = [&](const std::string& expected, const std::string& found) {
      set_string(refused, "npusim_refused_expected", expected);
      set_string(refused, "npusim_refused_found", found);
      out.push_back(refused);
      used.push_back(index);
    };
    const int next = sole_reader(n.output(0), index);
    if (next < 0 || g_.node(next).op_type() != "QuantizeLinear" || g_.node(next).input_size() < 2)
      return refuse("a " + n.op_type() +
                        " on a dequantised tensor read only by a QuantizeLinear "
                        "(DequantizeLinear -> Relu | Clip -> QuantizeLinear)",
                    next < 0 ? "its output read by " + std::to_string(readers_[n.output(0)]) +
                                   " nodes or graph outputs"
                             : "its output read by node '" + g_.node(next).name() + "' (" +
                                   g_.node(next).op_type() + ")");
    const onnx::NodeProto& qn = g_.node(next);
    float lo = n.op_type() == "Relu" ? 0.0f : -std::numeric_limits<float>::infinity();
    float hi = std::numeric_limits<float>::infinity();
    for (const auto& a : n.attribute()) {  // Clip below opset 11
      if (a.name() == "min") lo = a.f();
      if (a.name() == "max") hi = a.f();
    }
    for (int i = 1; n.op_type() == "Clip" && i < std::min(n.input_size(), 3); ++i) {
      if (n.input(i).empty()) continue;
      const float v = scalar_float(n.input(i));
      if (std::isnan(v))
        return refuse(
            std::string("Clip's ") + (i == 1 ? "min" : "max") + " a float32 constant of one value",
            "\"" + n.input(i) + "\", " +
                (initializer(n.input(i)) ? "not a float32 scalar" : "computed"));
      (i == 1 ? lo : hi) = v;
    }
    const float sx = scalar_float(d.scale), sy = scalar_float(qn.input(1));
    const std::string yz = qn.input_size() > 2 ? qn.input(2) : "";
    const int tx = d.zero_point.empty() ? int(onnx::TensorProto_DataType_UINT8)
                                        : initializer_type(d.zero_point);
    const int ty = yz.empty() ? int(onnx::TensorProto_DataType_UINT8) : initializer_type(yz);
    if (std::isnan(sx) || std::isnan(sy) || tx != ty ||
        (tx != onnx::TensorProto_DataType_UINT8 && tx != onnx::TensorProto_DataType_INT8))
      return refuse(
          "a DequantizeLinear and a QuantizeLinear of one 8-bit type (uint8 or int8), "
          "each with one scale",
          std::isnan(sx) || std::isnan(sy)
              ? "a scale of several values (or not a float32 constant)"
              : "input '" + n.input(0) + "' dequantised from " + type_text(tx) +
                    ", output quantised to " + type_text(ty) + " by node '" + qn.name() + "'");
    const bool u8 = tx == onnx::TensorProto_DataType_UINT8;
    const int q_min = u8 ? 0 : -128, q_max = u8 ? 255 : 127;
    const float zx = float(int_constant(d.zero_point)), zy = float(int_constant(yz));
    // ONNX Runtime's float32 QuantizeLinear and DequantizeLinear (as the requantisation).
    const auto quantise = [&](float v) {
      const float r = std::nearbyintf(v / sy) + zy;
      return int(std::isnan(r) ? q_min : std::clamp(r, float(q_min), float(q_max)));
    };
    const auto f = [&](int q) { return quantise(float(q - zx) * sx); };
    const auto t = [&](int q) { return quantise(std::min(std::max(float(q - zx) * sx, lo), hi)); };
    // a: the least q that f takes to Q_y(min) or above; b: the most it takes to Q_y(max) or below.
    int a = q_max, b = q_min;
    for (int q = q_max; q >= q_min; --q)
      if (f(q) >= quantise(lo)) a = q;
    for (int q = q_min; q <= q_max; ++q)
      if (f(q) <= quantise(hi)) b = q;
    for (int q = q_min; q <= q_max; ++q)
      if (a > b || f(std::clamp(q, a, b)) != t(q))
        return refuse("bounds [" + std::to_string(lo) + ", " + std::to_string(hi) +
                          "] that a clamp of the quantised input gives once requantised (scale " +
                          std::to_string(sx) + ", zero point " + std::to_string(int(zx)) +
                          " to scale " + std::to_string(sy) + ", zero point " +
                          std::to_string(int(zy)) + ")",
                      "input " + std::to_string(q) + " clamped to " + std::to_string(t(q)) +
                          ", which no input value requantises to");
    const bool same = sx == sy && zx == zy, clamps = a > q_min || b < q_max;
    const bool output = std::any_of(g_.output().begin(), g_.output().end(),
                                    [&](const auto& o) { return o.name() == qn.output(0); });
    used.push_back(index), used.push_back(next);
    std::string source = d.tensor;
    const std::string name =
        n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
    if (clamps) {
      onnx::NodeProto clip;
      clip.set_name(name);
      clip.set_op_type("Clip");
      clip.add_input(source);
      const auto bound = [&](int value, bool given, const std::string& suffix) {
        clip.add_input(given ? name + suffix : "");
        if (!given) return;
        onnx::TensorProto& c = *g_.add_initializer();  // a scalar of x's type
        c.set_name(name + suffix);
        c.set_data_type(tx);
        c.add_int32_data(value);
      };
      bound(a, a > q_min, ".min");
      bound(b, b < q_max, ".max");
      clip.add_output(same ? qn.output(0) : qn.output(0) + ".clamped");
      set_string(clip, "npusim_qdq_op", n.op_type());  // its bounds are inputs at any opset
      out.push_back(clip);
      source = clip.output(0);
    }
    if (!same || (!clamps && output)) {  // a graph output keeps its name: a copy
      onnx::NodeProto requant;
      requant.set_name(name + "_requantize");
      requant.set_op_type("QLinearConcat");
      requant.set_domain("com.microsoft");
      for (const std::string& in : {qn.input(1), yz, source, d.scale, d.zero_point})
        requant.add_input(in);
      requant.add_output(qn.output(0));
      auto* axis = requant.add_attribute();
      axis->set_name("axis");
      axis->set_type(onnx::AttributeProto_AttributeType_INT);
      axis->set_i(1);
      set_string(requant, "npusim_qdq_op", "Requantize");
      out.push_back(requant);
    } else if (!clamps) {
      renamed_[qn.output(0)] = source;
      for (auto& [tensor, dq] : dq_)
        if (dq.tensor == qn.output(0)) dq.tensor = source;
    }
  }

  static std::string type_text(int type) {
    return type == onnx::TensorProto_DataType_UINT8  ? "uint8"
           : type == onnx::TensorProto_DataType_INT8 ? "int8"
                                                     : "type " + std::to_string(type);
  }

  static void set_string(onnx::NodeProto& n, const std::string& name, const std::string& value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_STRING);
    a->set_s(value);
  }

  // The initialiser named `name`, or null.
  const onnx::TensorProto* initializer(const std::string& name) const {
    const auto it = initialisers_.find(name);
    return it == initialisers_.end() ? nullptr : it->second;
  }

  int initializer_type(const std::string& name) const {
    const onnx::TensorProto* t = initializer(name);
    return t ? t->data_type() : int(onnx::TensorProto_DataType_UNDEFINED);
  }

  // An initialiser's values; nullopt when absent or unreadable (the import reports that).
  std::optional<Constant> constant(const std::string& name) const {
    const onnx::TensorProto* t = initializer(name);
    return t ? constant_if_readable(*t) : std::nullopt;
  }

  // A float32 initialiser's first value, or `fallback`.
  float float_constant(const std::string& name, float fallback) const {
    const std::optional<Constant> c = constant(name);
    return c && c->type == onnx::TensorProto_DataType_FLOAT && !c->floats.empty() ? c->floats[0]
                                                                                  : fallback;
  }

  // A float32 initialiser of one value, or NaN (per-channel scales: no single value).
  float scalar_float(const std::string& name) const {
    const std::optional<Constant> c = constant(name);
    return c && c->type == onnx::TensorProto_DataType_FLOAT && c->floats.size() == 1
               ? c->floats[0]
               : std::nanf("");
  }

  // An integer initialiser's first value, whatever its storage (0 when absent, as
  // ONNX's default zero point).
  int64_t int_constant(const std::string& name) const {
    const std::optional<Constant> c = constant(name);
    if (!c || c->count() == 0 || (!c->is_8bit() && c->ints.empty())) return 0;
    return c->int_at(0);
  }

  onnx::GraphProto& g_;
  std::map<std::string, const onnx::TensorProto*> initialisers_;
  std::map<std::string, int> readers_;
  std::map<std::string, Dequantized> dq_;
  std::map<std::string, std::string> renamed_;  // a clamp's output -> its unchanged input
  int count_ = 0;
};

}  // namespace

int lower_qdq(onnx::GraphProto& graph) { return Lowering(graph).run(); }

}  // namespace npusim
