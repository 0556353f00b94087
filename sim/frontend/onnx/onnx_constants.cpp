#include "sim/frontend/onnx/onnx_constants.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "sim/config/config_error.h"

namespace npusim {

namespace {

// Little-endian raw_data of `n` values of T into `out` (`need` checks the count).
template <class T, class Need>
void read_raw(const std::string& raw, uint64_t n, std::vector<int64_t>& out, Need need) {
  need(raw.size() / sizeof(T), sizeof(T));
  for (uint64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    out.push_back(v);
  }
}

bool is_integer(int type) {
  return type == onnx::TensorProto_DataType_INT64 || type == onnx::TensorProto_DataType_INT32 ||
         type == onnx::TensorProto_DataType_INT8 || type == onnx::TensorProto_DataType_UINT8;
}

// The axes of Unsqueeze / Squeeze: an attribute before opset 13, an input from 13.
std::vector<int64_t> axes_of(const onnx::NodeProto& n, int64_t opset,
                             const std::function<const Constant*(const std::string&)>& constant) {
  if (opset < 13) {
    const onnx::AttributeProto* a = find_attribute(n, "axes");
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
  }
  if (n.input_size() < 2 || n.input(1).empty()) return {};
  const Constant* c = constant(n.input(1));
  if (c == nullptr) throw FoldError{"constant axes", "axes computed at run time"};
  return c->ints;
}

}  // namespace

Constant constant_from_tensor(const onnx::TensorProto& t, const std::string& file,
                              const std::string& pointer, std::optional<uint64_t> bytes_in_file) {
  Constant c;
  c.type = t.data_type();
  for (int64_t d : t.dims()) {
    if (d < 0) throw ConfigError(file, pointer, "dimensions >= 0", std::to_string(d));
    c.dims.push_back(d);
  }
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
    throw ConfigError(file, pointer, "data inside the model file", "external data");
  const uint64_t n = c.count();
  const std::string& raw = t.raw_data();
  const auto need = [&](uint64_t have, uint64_t bytes) {
    if (have != n)
      throw ConfigError(
          file, pointer,
          std::to_string(n) + " values (" + std::to_string(n * bytes) + " B) for its dims",
          std::to_string(have) + " values");
  };
  switch (c.type) {
    case onnx::TensorProto_DataType_FLOAT:
      if (t.has_raw_data()) {
        need(raw.size() / 4, 4);
        c.floats.resize(n);
        std::memcpy(c.floats.data(), raw.data(), n * 4);
      } else {
        need(uint64_t(t.float_data_size()), 4);
        c.floats.assign(t.float_data().begin(), t.float_data().end());
      }
      break;
    case onnx::TensorProto_DataType_UINT8:
    case onnx::TensorProto_DataType_INT8: {
      if (bytes_in_file) {
        need(*bytes_in_file, 1);
      } else if (t.has_raw_data()) {
        need(raw.size(), 1);
        c.bytes.assign(raw.begin(), raw.end());
      } else {
        need(uint64_t(t.int32_data_size()), 1);
        for (int32_t v : t.int32_data()) c.bytes.push_back(int8_t(v));  // uint8 wraps back
      }
      break;
    }
    case onnx::TensorProto_DataType_INT32:
      if (t.has_raw_data()) {
        read_raw<int32_t>(raw, n, c.ints, need);
      } else {
        need(uint64_t(t.int32_data_size()), 4);
        c.ints.assign(t.int32_data().begin(), t.int32_data().end());
      }
      break;
    case onnx::TensorProto_DataType_INT64:
      if (t.has_raw_data()) {
        read_raw<int64_t>(raw, n, c.ints, need);
      } else {
        need(uint64_t(t.int64_data_size()), 8);
        c.ints.assign(t.int64_data().begin(), t.int64_data().end());
      }
      break;
    default:
      break;  // only an error if a node reads it
  }
  return c;
}

std::optional<Constant> constant_if_readable(const onnx::TensorProto& t) {
  try {
    return constant_from_tensor(t, "", "");
  } catch (const ConfigError&) {
    return std::nullopt;
  }
}

int hoist_constant_nodes(onnx::GraphProto& g) {
  std::map<std::string, int> initialiser;
  for (int i = 0; i < g.initializer_size(); ++i) initialiser[g.initializer(i).name()] = i;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  int removed = 0;
  for (onnx::NodeProto& n : *g.mutable_node()) {
    const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    onnx::AttributeProto* value = nullptr;
    for (onnx::AttributeProto& a : *n.mutable_attribute())
      if (a.name() == "value" && value == nullptr) value = &a;
    if (default_domain && n.op_type() == "Constant" && n.output_size() == 1 && value != nullptr &&
        value->has_t()) {
      // The tensor moves (torch.onnx writes megabytes of weights so): no second copy.
      onnx::TensorProto* t = g.add_initializer();
      t->Swap(value->mutable_t());
      t->set_name(n.output(0));
      initialiser[t->name()] = g.initializer_size() - 1;
      ++removed;
      continue;
    }
    if (default_domain && n.op_type() == "Identity" && n.input_size() == 1 &&
        n.output_size() == 1 && initialiser.count(n.input(0))) {
      onnx::TensorProto* t = g.add_initializer();
      *t = g.initializer(initialiser.at(n.input(0)));
      t->set_name(n.output(0));
      initialiser[t->name()] = g.initializer_size() - 1;
      ++removed;
      continue;
    }
    *kept.Add() = std::move(n);
  }
  g.mutable_node()->Swap(&kept);
  return removed;
}

std::optional<Constant> fold_constant_node(
    const onnx::NodeProto& n, int64_t opset, const std::string& file,
    const std::function<const Constant*(const std::string&)>& constant,
    const std::function<std::optional<std::vector<int64_t>>(const std::string&)>& shape) {
  const std::string& op = n.op_type();
  if (!n.domain().empty() && n.domain() != "ai.onnx") return std::nullopt;
  // Only these nodes fold; any other (a convolution reading megabytes of
  // weights) is left before its inputs are read.
  static const std::set<std::string> foldable = {"Constant", "Shape",  "Add",    "Sub",
                                                 "Mul",      "Div",    "Gather", "Unsqueeze",
                                                 "Squeeze",  "Concat", "Cast",   "ConstantOfShape"};
  if (foldable.count(op) == 0) return std::nullopt;
  // Every input but an optional empty one must be a constant (Shape: an activation).
  // 8-bit constants are widened to ints here, so each rule below reads `ints`.
  std::vector<Constant> widened;
  widened.reserve(size_t(n.input_size()));
  std::vector<const Constant*> in;
  for (const std::string& name : n.input()) {
    const Constant* c = name.empty() ? nullptr : constant(name);
    if (c != nullptr && c->is_8bit()) {
      Constant w = *c;
      for (uint64_t i = 0; i < c->bytes.size(); ++i) w.ints.push_back(c->int_at(i));
      w.bytes.clear();
      w.type = onnx::TensorProto_DataType_INT64;
      widened.push_back(std::move(w));
      c = &widened.back();
    }
    in.push_back(c);
  }
  const auto all_constant = [&] {
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i] == nullptr && !n.input(int(i)).empty()) return false;
    return true;
  };
  const auto ints_only = [&](const Constant& c, const char* what) {
    if (!is_integer(c.type))
      throw FoldError{std::string("integer ") + what, "type " + std::to_string(c.type)};
  };

  // hoist_constant_nodes has made every Constant with a "value" tensor an
  // initialiser; one still here holds its value in another form.
  if (op == "Constant") throw FoldError{"a \"value\" tensor attribute", "another form of Constant"};
  if (op == "Shape") {
    if (n.input_size() < 1 || n.input(0).empty()) throw FoldError{"input 0 a named tensor", "none"};
    const std::optional<std::vector<int64_t>> s = shape(n.input(0));
    if (!s) return std::nullopt;  // the shape of a constant: not exported in practice
    Constant c;
    c.type = onnx::TensorProto_DataType_INT64;
    c.dims = {int64_t(s->size())};
    c.ints = *s;
    return c;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    // Integer arithmetic on shapes (torch.onnx computes a chunk's bounds as
    // Shape -> Gather -> Add -> Div -> Mul); float operands are not folded.
    if (!all_constant() || in.size() != 2 || in[0] == nullptr || in[1] == nullptr ||
        !is_integer(in[0]->type) || in[0]->is_8bit() || in[1]->type != in[0]->type)
      return std::nullopt;
    const Constant& a = *in[0];
    const Constant& b = *in[1];
    if (a.count() != b.count() && a.count() != 1 && b.count() != 1)
      throw FoldError{"operands of one size, or one of a single value",
                      std::to_string(a.count()) + " and " + std::to_string(b.count()) + " values"};
    Constant c = a.count() >= b.count() ? a : b;
    for (size_t i = 0; i < c.ints.size(); ++i) {
      const int64_t x = a.ints[a.count() == 1 ? 0 : i], y = b.ints[b.count() == 1 ? 0 : i];
      if (op == "Div" && y == 0) throw FoldError{"a non-zero divisor", "0"};
      c.ints[i] = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y;
    }
    return c;
  }
  // Gather, Unsqueeze, Squeeze, Concat, Cast, ConstantOfShape (`foldable`'s rest).
  if (!all_constant()) return std::nullopt;
  // An empty name marks an optional input left out; these inputs are not optional.
  const size_t required = op == "Gather" ? 2 : op == "Concat" ? std::max<size_t>(in.size(), 1) : 1;
  for (size_t i = 0; i < required; ++i)
    if (i >= in.size() || in[i] == nullptr)
      throw FoldError{"input " + std::to_string(i) + " a named tensor (it is not optional)",
                      i >= in.size() ? "no such input" : "an empty name"};

  if (op == "Cast") {
    const onnx::AttributeProto* to = find_attribute(n, "to");
    Constant c = *in[0];
    const int64_t target = to ? to->i() : 0;
    if (is_integer(target) && is_integer(c.type)) {
      c.type = int(target);
    } else if (target == onnx::TensorProto_DataType_FLOAT && is_integer(c.type)) {
      for (int64_t v : c.ints) c.floats.push_back(float(v));
      c.ints.clear();
      c.type = int(target);
    } else if (target != c.type) {
      throw FoldError{"a Cast between integer types, or integer to float",
                      "type " + std::to_string(c.type) + " to " + std::to_string(target)};
    }
    return c;
  }
  if (op == "ConstantOfShape") {
    ints_only(*in[0], "shape");
    Constant c;
    c.dims = in[0]->ints;
    c.type = onnx::TensorProto_DataType_FLOAT;
    Constant fill;
    fill.type = c.type;
    fill.floats = {0.0f};
    if (const onnx::AttributeProto* v = find_attribute(n, "value"))
      fill = constant_from_tensor(v->t(), file, "/graph/node/" + n.name() + "/value");
    c.type = fill.type;
    if (fill.count() != 1) throw FoldError{"a one-value \"value\"", "more values"};
    if (is_integer(c.type))
      c.ints.assign(c.count(), fill.ints.at(0));
    else
      c.floats.assign(c.count(), fill.floats.at(0));
    return c;
  }
  if (op == "Gather") {
    const Constant& data = *in[0];
    const Constant& idx = *in[1];
    ints_only(data, "data");
    ints_only(idx, "indices");
    const onnx::AttributeProto* axis = find_attribute(n, "axis");
    if (data.dims.size() != 1 || (axis && axis->i() != 0))
      throw FoldError{"1-D data gathered on axis 0 (a shape's entries)",
                      std::to_string(data.dims.size()) + "-D data"};
    Constant c;
    c.type = data.type;
    c.dims = idx.dims;
    for (int64_t i : idx.ints) {
      const int64_t at = i < 0 ? i + data.dims[0] : i;
      if (at < 0 || at >= data.dims[0])
        throw FoldError{"indices within the data's " + std::to_string(data.dims[0]) + " values",
                        std::to_string(i)};
      c.ints.push_back(data.ints[size_t(at)]);
    }
    return c;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    Constant c = *in[0];
    std::vector<int64_t> axes = axes_of(n, opset, constant);
    const int64_t rank = int64_t(c.dims.size()) + (op == "Unsqueeze" ? int64_t(axes.size()) : 0);
    for (int64_t& a : axes) a = a < 0 ? a + rank : a;
    std::sort(axes.begin(), axes.end());
    if (op == "Unsqueeze") {
      for (int64_t a : axes) {
        if (a < 0 || a > int64_t(c.dims.size())) throw FoldError{"axes within the rank", "out"};
        c.dims.insert(c.dims.begin() + a, 1);
      }
    } else {
      std::vector<int64_t> kept;
      for (size_t d = 0; d < c.dims.size(); ++d) {
        const bool drop = axes.empty()
                              ? c.dims[d] == 1
                              : std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
        if (!drop) kept.push_back(c.dims[d]);
      }
      c.dims = kept;
    }
    return c;
  }
  // Concat of constants (a shape assembled from pieces), along its only axis.
  Constant c;
  c.type = in.empty() ? onnx::TensorProto_DataType_INT64 : in[0]->type;
  for (const Constant* part : in) {
    ints_only(*part, "pieces");
    if (part->dims.size() != 1)
      throw FoldError{"1-D pieces", std::to_string(part->dims.size()) + "-D"};
    c.ints.insert(c.ints.end(), part->ints.begin(), part->ints.end());
  }
  c.dims = {int64_t(c.ints.size())};
  return c;
}

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

}  // namespace npusim
