// Graph workloads (docs/graphs.md): named tensors and quantised operators
// with ONNX semantics, parsed into a NetworkConfig whose layers are the
// operators in file order (which must respect data flow) and whose `sources`
// say where each operator's inputs come from.
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/config/checked_size.h"
#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/json/sequence_config.h"
#include "sim/frontend/json/workload_json.h"
#include "sim/graph/operator_checks.h"

namespace npusim {
namespace {

using nlohmann::json;

// A concat's inputs, or a batch_matmul's a and its blocks of b: a decode
// step's attention reads the prefill's keys and one block per step before it.
constexpr size_t kMaxBlocks = 4098;
constexpr uint64_t kMaxOperators = 65536;  // a 22-layer decoder, prefill + 128 steps: 51,000

// What a parsed tensor looks like to its consumers.
struct TensorInfo {
  uint32_t N = 1, C = 0, H = 0, W = 0;
  TensorQuant quant;
  TensorSource source;
  std::string pointer;  // where it was defined
};

QuantType parse_type(JsonReader& r, const std::string& key, bool allow_int32) {
  std::vector<std::string> choices = {"int8", "uint8"};
  if (allow_int32) choices.push_back("int32");
  return static_cast<QuantType>(r.require_choice(key, choices));
}

float expect_scale(const json& v, const std::string& file, const std::string& pointer) {
  // As float32: a double beyond its range or below its least value is no scale.
  if (!v.is_number() || !valid_scale(float(v.get<double>())))
    throw ConfigError(file, pointer, kValidScale, describe_json(v));
  return float(v.get<double>());
}

int32_t expect_zero_point(const json& v, const std::string& file, const std::string& pointer,
                          QuantType t) {
  const int64_t lo = quant_min(t), hi = quant_max(t);
  const std::string expected = "integer zero point in " + zero_point_range(t);
  if (!v.is_number_integer()) throw ConfigError(file, pointer, expected, describe_json(v));
  const int64_t z = v.is_number_unsigned()
                        ? int64_t(std::min<uint64_t>(v.get<uint64_t>(), 1u << 20))
                        : v.get<int64_t>();
  if (z < lo || z > hi) throw ConfigError(file, pointer, expected, describe_json(v));
  return int32_t(z);
}

// {"dtype", "scale", "zero_point"} of an activation tensor.
TensorQuant read_tensor_quant(JsonReader& r, bool allow_int32) {
  const std::string& file = r.file();
  TensorQuant q;
  q.type = parse_type(r, "dtype", allow_int32);
  if (q.type == QuantType::Int32) {
    for (const char* key : {"scale", "zero_point"})
      if (const json* v = r.find(key))
        r.fail(key, std::string("no \"") + key + "\" on an int32 output (raw accumulators)",
               describe_json(*v));
    return q;
  }
  const json* scale = r.find("scale");
  if (!scale) r.fail("scale", "a positive finite float32 scale", "nothing (the key is missing)");
  q.scale = expect_scale(*scale, file, r.pointer_to("scale"));
  if (const json* zp = r.find("zero_point"))
    q.zero_point = expect_zero_point(*zp, file, r.pointer_to("zero_point"), q.type);
  return q;
}

TensorQuant parse_tensor_quant(const json& j, const std::string& file, const std::string& pointer,
                               bool allow_int32) {
  JsonReader r(j, file, pointer);
  const TensorQuant q = read_tensor_quant(r, allow_int32);
  r.finish();
  return q;
}

// A weight quantisation: scale and zero point each one value or K values.
void parse_weight_quant(const json& j, const std::string& file, const std::string& pointer,
                        uint32_t K, OpQuant& q) {
  JsonReader r(j, file, pointer);
  q.weight_type = parse_type(r, "dtype", false);
  const auto list = [&](const char* key, auto read, auto& out, auto fallback) {
    const json* v = r.find(key);
    out.clear();
    if (!v) {
      out.push_back(fallback);
      return;
    }
    const std::string p = r.pointer_to(key);
    if (v->is_array()) {
      if (v->size() != K && v->size() != 1)
        throw ConfigError(file, p, "one value or an array of K = " + std::to_string(K),
                          describe_json(*v));
      for (std::size_t k = 0; k < v->size(); ++k)
        out.push_back(read((*v)[k], json_pointer_append(p, std::to_string(k))));
    } else {
      out.push_back(read(*v, p));
    }
  };
  list(
      "scale", [&](const json& v, const std::string& p) { return expect_scale(v, file, p); },
      q.weight_scale, 1.0f);
  if (!r.has("scale")) r.fail("scale", "a positive float scale or K of them", "nothing");
  list(
      "zero_point",
      [&](const json& v, const std::string& p) {
        return expect_zero_point(v, file, p, q.weight_type);
      },
      q.weight_zero_point, int32_t(0));
  r.finish();
}

// A single integer for both axes, or [a, b].
std::pair<uint32_t, uint32_t> parse_pair(JsonReader& r, const char* key, uint64_t min,
                                         uint32_t fallback) {
  const json* v = r.find(key);
  if (!v) return {fallback, fallback};
  const std::string p = r.pointer_to(key);
  if (v->is_array()) {
    if (v->size() != 2)
      throw ConfigError(r.file(), p, "an integer or [rows, columns]", describe_json(*v));
    return {uint32_t(expect_uint((*v)[0], r.file(), p + "/0", min, kMaxDim)),
            uint32_t(expect_uint((*v)[1], r.file(), p + "/1", min, kMaxDim))};
  }
  const uint32_t x = uint32_t(expect_uint(*v, r.file(), p, min, kMaxDim));
  return {x, x};
}

// "pads": p | [top, left, bottom, right].
std::array<uint32_t, 4> parse_pads(JsonReader& r) {
  const json* v = r.find("pads");
  if (!v) return {0, 0, 0, 0};
  const std::string p = r.pointer_to("pads");
  if (v->is_array()) {
    if (v->size() != 4)
      throw ConfigError(r.file(), p, "an integer or [top, left, bottom, right]", describe_json(*v));
    std::array<uint32_t, 4> pads{};
    for (int i = 0; i < 4; ++i)
      pads[i] = uint32_t(expect_uint((*v)[i], r.file(), p + "/" + std::to_string(i), 0, kMaxDim));
    return pads;
  }
  const uint32_t x = uint32_t(expect_uint(*v, r.file(), p, 0, kMaxDim));
  return {x, x, x, x};
}

// A resize's output rows and columns and float32 scales, as ONNX Runtime
// takes them: "scales" (one number or [rows, columns]) gives floor(in *
// scale) in float32 and keeps the scale; "sizes" (one integer or [rows,
// columns]) gives the size and the scale float(out) / float(in). One of the
// two. A size that stays keeps every pixel (scales 1), as ONNX Runtime copies it.
struct ResizeSize {
  uint32_t out[2] = {1, 1};
  float scale[2] = {1, 1};
};

ResizeSize parse_resize_size(JsonReader& r, uint32_t H, uint32_t W) {
  const json* scales = r.find("scales");
  const json* sizes = r.find("sizes");
  if (scales && sizes) r.fail("sizes", "\"scales\" or \"sizes\", not both", describe_json(*sizes));
  if (!scales && !sizes)
    r.fail("scales", "\"scales\" ([rows, columns] or one number) or \"sizes\"",
           "nothing (the key is missing)");
  const char* key = scales ? "scales" : "sizes";
  const json& v = scales ? *scales : *sizes;
  const std::string p = r.pointer_to(key);
  if (v.is_array() && v.size() != 2)
    throw ConfigError(
        r.file(), p,
        scales ? "a positive number or [rows, columns]" : "an integer or [rows, columns]",
        describe_json(v));
  const uint32_t in[2] = {H, W};
  ResizeSize size;
  for (int axis = 0; axis < 2; ++axis) {
    const json& e = v.is_array() ? v[size_t(axis)] : v;
    const std::string ep = v.is_array() ? p + "/" + std::to_string(axis) : p;
    if (sizes) {
      size.out[axis] = uint32_t(expect_uint(e, r.file(), ep, 1, kMaxDim));
      size.scale[axis] = float(size.out[axis]) / float(in[axis]);
      continue;
    }
    if (!e.is_number() || !std::isfinite(e.get<double>()) || !(float(e.get<double>()) > 0.0f) ||
        !std::isfinite(float(e.get<double>())))
      throw ConfigError(r.file(), ep, "a positive finite float32 scale", describe_json(e));
    const float s = float(e.get<double>());
    const float out = s * float(in[axis]);  // ONNX Runtime's output length, floored
    if (!(out >= 1.0f) || out >= float(kMaxDim + 1))
      throw ConfigError(r.file(), ep,
                        std::string("a scale whose output is 1 to ") + std::to_string(kMaxDim) +
                            (axis == 0 ? " rows" : " columns"),
                        describe_json(e) + " of " + std::to_string(in[axis]) + " gives " +
                            std::to_string(int64_t(out)));
    size.out[axis] = uint32_t(out);
    size.scale[axis] = s;
  }
  // ONNX Runtime copies a map whose size stays, whatever its scales.
  if (size.out[0] == H && size.out[1] == W) size.scale[0] = size.scale[1] = 1;
  return size;
}

// round half to even, as the activation bounds are quantised.
// gather's keys: the input channel of each output channel (C input channels).
void parse_gather_keys(JsonReader& r, LayerConfig& L, const std::string& file, uint32_t C) {
  // ONNX Gather on axis 1: "channels" lists the input channel of each
  // output channel (any order, repeats allowed).
  if (r.get_uint("axis", 1, 1, 1) != 1) r.fail("axis", "1", "another axis");
  const json* ch = r.find("channels");
  if (!ch || !ch->is_array() || ch->empty() || ch->size() > kMaxDim)
    r.fail("channels", "a non-empty array of input channel indices",
           ch ? describe_json(*ch) : "nothing (the key is missing)");
  for (std::size_t k = 0; k < ch->size(); ++k)
    L.gather_channels.push_back(uint32_t(
        expect_uint((*ch)[k], file, r.pointer_to("channels") + "/" + std::to_string(k), 0, C - 1)));
  L.K = uint32_t(L.gather_channels.size());
  L.R = L.S = 1;
}

// resize's keys, for an H x W input.
void parse_resize_keys(JsonReader& r, LayerConfig& L, uint32_t H, uint32_t W) {
  // To a size ("sizes") or by float32 scales ("scales"), nearest, linear
  // or cubic, with ONNX's coordinate transformation (half_pixel by
  // default), nearest its nearest_mode (round_prefer_floor), cubic its
  // cubic_coeff_a (-0.75) and exclude_outside (0).
  const ResizeMode mode_values[] = {ResizeMode::Nearest, ResizeMode::Linear, ResizeMode::Cubic};
  L.resize_mode = mode_values[r.get_choice("mode", {"nearest", "linear", "cubic"}, 0)];
  const bool linear = L.resize_mode != ResizeMode::Nearest;  // interpolates
  // The choices' names are to_string's (sim/graph/workload.h); the last coordinate
  // mode is nearest's only.
  const ResizeCoordinates coordinate_values[] = {
      ResizeCoordinates::HalfPixel, ResizeCoordinates::PytorchHalfPixel,
      ResizeCoordinates::AlignCorners, ResizeCoordinates::Asymmetric,
      ResizeCoordinates::TfHalfPixelForNn};
  std::vector<std::string> coordinates;
  for (const ResizeCoordinates c : coordinate_values)
    if (!linear || c != ResizeCoordinates::TfHalfPixelForNn) coordinates.push_back(to_string(c));
  L.resize_coordinates = coordinate_values[r.get_choice("coordinates", coordinates, 0)];
  if (L.resize_mode == ResizeMode::Cubic) {
    L.resize_cubic_a = float(r.get_number("cubic_coeff_a", -1000, 1000, -0.75));
    L.resize_exclude_outside = r.get_uint("exclude_outside", 0, 1, 0) == 1;
  } else {
    for (const char* key : {"cubic_coeff_a", "exclude_outside"})
      if (const json* v = r.find(key))
        r.fail(key, std::string("no \"") + key + "\" on a " + to_string(L.resize_mode) + " resize",
               describe_json(*v));
  }
  if (linear) {
    if (const json* m = r.find("nearest_mode"))
      r.fail("nearest_mode",
             std::string("no \"nearest_mode\" on a ") + to_string(L.resize_mode) + " resize",
             describe_json(*m));
  } else {
    const ResizeRounding rounding_values[] = {ResizeRounding::RoundPreferFloor,
                                              ResizeRounding::RoundPreferCeil,
                                              ResizeRounding::Floor, ResizeRounding::Ceil};
    std::vector<std::string> roundings;
    for (const ResizeRounding m : rounding_values) roundings.push_back(to_string(m));
    L.resize_rounding = rounding_values[r.get_choice("nearest_mode", roundings, 0)];
  }
  const ResizeSize size = parse_resize_size(r, H, W);
  L.resize_out_h = size.out[0], L.resize_out_w = size.out[1];
  L.resize_scale_h = size.scale[0], L.resize_scale_w = size.scale[1];
  L.K = L.C;
  L.R = L.S = 1;
}

int64_t round_even(double x) { return int64_t(std::nearbyint(x)); }

void parse_activation(JsonReader& r, OpQuant& q) {
  const json* v = r.find("activation");
  const TensorQuant& out = q.output;
  if (!v || out.type == QuantType::Int32) {
    if (v && !(v->is_string() && v->get<std::string>() == "none"))
      r.fail("activation", "no activation on an int32 output", describe_json(*v));
    return;
  }
  double lo = -INFINITY, hi = INFINITY;
  const std::string p = r.pointer_to("activation");
  if (v->is_string()) {
    const std::string a = v->get<std::string>();
    if (a == "relu") {
      lo = 0;
    } else if (a == "relu6") {
      lo = 0, hi = 6;
    } else if (a != "none") {
      throw ConfigError(r.file(), p, "\"none\", \"relu\", \"relu6\" or {\"clip\": [lo, hi]}",
                        describe_json(*v), nearest_key(a, {"none", "relu", "relu6"}));
    }
  } else {
    JsonReader c(*v, r.file(), p);
    const json* clip = c.find("clip");
    if (!clip || !clip->is_array() || clip->size() != 2 || !(*clip)[0].is_number() ||
        !(*clip)[1].is_number() || (*clip)[0].get<double>() > (*clip)[1].get<double>())
      c.fail("clip", "[lo, hi] with lo <= hi (real units)",
             clip ? describe_json(*clip) : "nothing (the key is missing)");
    lo = (*clip)[0].get<double>(), hi = (*clip)[1].get<double>();
    c.finish();
  }
  const int64_t qmin = quant_min(out.type), qmax = quant_max(out.type);
  const auto bound = [&](double x) {
    if (std::isinf(x)) return x < 0 ? qmin : qmax;
    return std::clamp<int64_t>(out.zero_point + round_even(x / double(out.scale)), qmin, qmax);
  };
  q.clamp_lo = int32_t(bound(lo));
  q.clamp_hi = int32_t(bound(hi));
}

class GraphParser {
 public:
  GraphParser(const json& j, std::string file) : j_(j), file_(std::move(file)) {}

  NetworkConfig run() {
    JsonReader r(j_, file_);
    net_.name = r.get_string("name", "graph");
    seed_ = r.get_uint("seed", 0, kMaxSeed, 1);
    r.get_string("description", "");
    const json* inputs = r.find("inputs");
    const json* ops = r.find("operators");
    const json* outputs = r.find("outputs");
    r.finish();
    if (!inputs || !inputs->is_array())
      r.fail("inputs", "an array of graph input tensors",
             inputs ? describe_json(*inputs) : "nothing (the key is missing)");
    for (std::size_t i = 0; i < inputs->size(); ++i) parse_input((*inputs)[i], i);
    if (!ops->is_array() || ops->empty() || ops->size() > kMaxOperators)
      r.fail("operators", "array of 1.." + std::to_string(kMaxOperators) + " operator objects",
             describe_json(*ops));
    for (std::size_t i = 0; i < ops->size(); ++i) parse_operator((*ops)[i], i);
    check_passes();
    std::vector<bool> read(net_.layers.size(), false);
    for (const auto& s : net_.sources)
      for (const TensorSource& t : s)
        if (t.op >= 0) read[size_t(t.op)] = true;
    if (outputs) {
      if (!outputs->is_array() || outputs->empty())
        r.fail("outputs", "a non-empty array of tensor names", describe_json(*outputs));
      for (std::size_t i = 0; i < outputs->size(); ++i) {
        const std::string p = "/outputs/" + std::to_string(i);
        const std::string name = expect_string((*outputs)[i], file_, p, "tensor name");
        const auto it = tensors_.find(name);
        if (it == tensors_.end() || it->second.source.op < 0)
          throw ConfigError(file_, p, "the name of a tensor an operator produces",
                            "\"" + name + "\"", nearest_tensor(name));
        net_.outputs.push_back(name);
      }
    } else {
      for (size_t l = 0; l < net_.layers.size(); ++l)
        if (!read[l]) net_.outputs.push_back(net_.tensor_names[l]);
    }
    net_.chained.assign(net_.layers.size(), false);
    for (size_t l = 1; l < net_.layers.size(); ++l)
      net_.chained[l] = net_.sources[l].size() == 1 && net_.sources[l][0].op == int32_t(l - 1);
    return std::move(net_);
  }

 private:
  // Decoder passes ("pass": 0 the prefill, then decode steps 1, 2, ...): all
  // operators carry one or none does, and they come in file order, each
  // operator in the pass of the one before it or the next.
  void check_passes() const {
    const auto& L = net_.layers;
    size_t marked = L.size();
    for (size_t i = 0; i < L.size(); ++i)
      if (L[i].pass >= 0) {
        marked = i;
        break;
      }
    if (marked == L.size()) return;
    for (size_t i = 0; i < L.size(); ++i) {
      const std::string p = "/operators/" + std::to_string(i);
      if (L[i].pass < 0)
        throw ConfigError(file_, p,
                          "a \"pass\" key, as operator /operators/" + std::to_string(marked) +
                              " has (a decoder marks every operator with its pass)",
                          "none");
      const int32_t before = i == 0 ? -1 : L[i - 1].pass;
      if (L[i].pass != before && L[i].pass != before + 1)
        throw ConfigError(
            file_, p + "/pass",
            i == 0 ? std::string("0 (the prefill comes first)")
                   : std::to_string(before) + " or " + std::to_string(before + 1) +
                         " (passes run in file order: the prefill 0, then decode steps 1, 2, ...)",
            std::to_string(L[i].pass));
    }
  }

  std::string nearest_tensor(const std::string& name) const {
    std::vector<std::string> names;
    for (const auto& t : tensors_) names.push_back(t.first);
    return nearest_key(name, names);
  }

  void define_tensor(const std::string& name, const std::string& pointer, TensorInfo info) {
    if (name.empty()) throw ConfigError(file_, pointer, "a non-empty tensor name", "empty string");
    const auto [it, inserted] = tensors_.emplace(name, info);
    if (!inserted)
      throw ConfigError(file_, pointer, "a tensor name defined once",
                        "\"" + name + "\" (already defined at " + it->second.pointer + ")");
    it->second.pointer = pointer;
  }

  void parse_input(const json& j, std::size_t i) {
    const std::string p = "/inputs/" + std::to_string(i);
    JsonReader r(j, file_, p);
    GraphInput in;
    in.name = r.require_string("name");
    const json* shape = r.find("shape");
    if (!shape || !shape->is_array() || shape->size() != 4)
      r.fail("shape", "[N, C, H, W]", shape ? describe_json(*shape) : "nothing");
    uint32_t dims[4];
    for (int d = 0; d < 4; ++d)
      dims[d] =
          uint32_t(expect_uint((*shape)[d], file_, p + "/shape/" + std::to_string(d), 1, kMaxDim));
    in.N = dims[0], in.C = dims[1], in.H = dims[2], in.W = dims[3];
    if (saturating_product({in.N, in.C, in.H, in.W}) > kMaxTensorElements)
      r.fail("shape", "at most 2^28 elements", describe_json(*shape));
    in.quant = read_tensor_quant(r, false);  // dtype, scale, zero_point beside the name
    in.seed = r.get_uint("seed", 0, kMaxSeed, seed_ + 1000003 + i);
    r.finish();
    TensorInfo t{in.N, in.C, in.H, in.W, in.quant, {-1, int32_t(i)}, p};
    define_tensor(in.name, p + "/name", t);
    net_.graph_inputs.push_back(in);
  }

  void parse_operator(const json& j, std::size_t i) {
    const std::string p = "/operators/" + std::to_string(i);
    JsonReader r(j, file_, p);
    LayerConfig L;
    L.quantized = true;
    L.name = r.get_string("name", "op" + std::to_string(i));
    if (L.name.empty()) r.fail("name", "non-empty string", "empty string");
    if (!names_.emplace(L.name, p).second)
      r.fail("name", "a name no other operator uses",
             "\"" + L.name + "\" (also at " + names_[L.name] + "/name)");
    static const std::vector<std::string> kinds = [] {
      std::vector<std::string> names;
      for (const OpKind k : kOpKinds) names.push_back(to_string(k));
      return names;
    }();
    L.op = kOpKinds[r.require_choice("op", kinds)];
    const OpInfo info = op_info(L.op);
    L.seed = r.get_uint("seed", 0, kMaxSeed, seed_ + i);
    if (r.has("pass")) L.pass = int32_t(r.require_uint("pass", 0, kMaxOperators));
    // Inputs: tensors already defined (file order respects data flow).
    const json* ins = r.find("inputs");
    // batch_matmul: a, then b as one or more blocks of tokens (a key-value cache).
    const size_t want_min = info.min_inputs;
    const size_t want_max = info.max_inputs == kManyInputs ? kMaxBlocks : info.max_inputs;
    const std::string count = want_min == want_max
                                  ? std::to_string(want_min)
                                  : std::to_string(want_min) + ".." + std::to_string(want_max);
    if (!ins || !ins->is_array() || ins->size() < want_min || ins->size() > want_max)
      r.fail("inputs", "an array of " + count + " tensor names for " + info.name,
             ins ? describe_json(*ins) : "nothing (the key is missing)");
    const std::string out_name = r.require_string("output");
    std::vector<const TensorInfo*> in_tensors;
    std::vector<TensorSource> sources;
    for (std::size_t k = 0; k < ins->size(); ++k) {
      const std::string ip = r.pointer_to("inputs") + "/" + std::to_string(k);
      const std::string name = expect_string((*ins)[k], file_, ip, "tensor name");
      const auto it = tensors_.find(name);
      if (it == tensors_.end())
        throw ConfigError(file_, ip,
                          "a graph input or the output of an earlier operator (operators run in "
                          "file order; a cycle or a later producer cannot be read)",
                          "\"" + name + "\", which no earlier operator produces",
                          nearest_tensor(name));
      if (it->second.quant.type == QuantType::Int32)
        throw ConfigError(file_, ip,
                          "an int8 or uint8 tensor (int32 outputs are graph outputs only)",
                          "\"" + name + "\" (int32)");
      in_tensors.push_back(&it->second);
      sources.push_back(it->second.source);
      L.quant.inputs.push_back(it->second.quant);
    }
    const TensorInfo& x = *in_tensors[0];
    L.N = x.N, L.C = x.C, L.H = x.H, L.W = x.W;
    const auto fail_shape = [&](std::size_t k, const std::string& expected) {
      const TensorInfo& t = *in_tensors[k];
      throw ConfigError(file_, r.pointer_to("inputs") + "/" + std::to_string(k), expected,
                        "\"" + (*ins)[k].get<std::string>() + "\" of shape " +
                            to_string(OperandShape{t.N, t.C, t.H, t.W}));
    };
    LayerConfig::Geometry g;
    const bool array_op = info.unit == OpUnit::Array;
    if (info.operands == OpOperands::Sequences) {
      std::vector<SequenceOperand> operands;
      for (const TensorInfo* t : in_tensors) operands.push_back({t->N, t->C, t->H, t->W, t->quant});
      parse_sequence_operator(r, L, operands, fail_shape);
      if (has_norm_params(L.op)) {  // gamma's quantisation
        const json* w = r.find("weights");
        if (!w)
          r.fail("weights", "the gamma quantisation {\"dtype\", \"scale\", \"zero_point\"}",
                 "nothing");
        parse_weight_quant(*w, file_, r.pointer_to("weights"), 1, L.quant);
      }
    } else {
      switch (info.family) {
        case OpFamily::Conv: {
          L.K = uint32_t(r.require_uint("K", 1, kMaxDim));
          const auto [R, S] = parse_pair(r, "kernel", 1, 0);
          if (R == 0) r.fail("kernel", "[R, S] or an integer", "nothing (the key is missing)");
          L.R = R, L.S = S;
          L.groups = uint32_t(r.get_uint("group", 1, kMaxDim, 1));  // checked with the rest
          break;
        }
        case OpFamily::Matmul:  // matmul (batch_matmul reads sequences: above)
          L.K = uint32_t(r.require_uint("out_features", 1, kMaxDim));
          L.R = L.S = 1;
          break;
        case OpFamily::Pool: {
          L.K = L.C;
          if (!info.window) {  // global: the whole map
            L.R = L.H, L.S = L.W;
            break;
          }
          const auto [R, S] = parse_pair(r, "kernel", 1, 0);
          if (R == 0) r.fail("kernel", "[R, S] or an integer", "nothing (the key is missing)");
          L.R = R, L.S = S;
          L.ceil_mode = r.get_bool("ceil_mode", false);
          switch (info.pool) {
            case PoolKind::Average:
              L.count_include_pad = r.get_bool("count_include_pad", false);
              break;
            case PoolKind::Max:
            case PoolKind::GlobalAverage:
              break;
          }
          break;
        }
        case OpFamily::Elementwise:  // add (mul reads sequences: above); shapes checked below
          L.K = L.C;
          L.R = L.S = 1;
          break;
        case OpFamily::Concat: {
          if (r.get_uint("axis", 1, 1, 1) != 1) r.fail("axis", "1", "another axis");
          L.K = 0;
          for (const TensorInfo* t : in_tensors) L.K += t->C;  // one N, H, W: checked below
          L.R = L.S = 1;
          break;
        }
        case OpFamily::Gather:
          switch (info.gather) {
            case GatherKind::Channels:
              parse_gather_keys(r, L, file_, x.C);
              break;
            case GatherKind::Resize:
              parse_resize_keys(r, L, x.H, x.W);
              break;
          }
          break;
        case OpFamily::Softmax:  // sequence operators: above
        case OpFamily::Norm:
        case OpFamily::Activation:
        case OpFamily::Rope:
          break;
      }
    }
    if (info.window) {
      const auto [sh, sw] = parse_pair(r, "stride", 1, 1);
      const auto pads = parse_pads(r);
      L.stride = sh, g.stride_w = sw;
      L.padding = pads[0], g.pad_left = pads[1], g.pad_bottom = pads[2], g.pad_right = pads[3];
      if (info.dilation) {
        const auto [dh, dw] = parse_pair(r, "dilation", 1, 1);
        g.dilation_h = dh, g.dilation_w = dw;
      }
      for (int side = 0; side < 4; ++side) {
        const uint32_t kernel = side % 2 == 0 ? L.R : L.S;
        const uint32_t pad = pads[size_t(side)];
        if (info.family == OpFamily::Pool && pad >= kernel)
          r.fail("pads", "pads smaller than the kernel (" + std::to_string(kernel) + ")",
                 std::to_string(pad));
      }
    }
    L.general = g;  // the defaults (stride 1, no pads) for the operators without geometry
    // Quantisation of the output and the weights.
    if (L.op == OpKind::Resize && L.resize_mode != ResizeMode::Nearest) {
      // Interpolated values: "out" optional, the input's quantisation by default.
      const json* o = r.find("out");
      L.quant.output = o ? parse_tensor_quant(*o, file_, r.pointer_to("out"), false) : x.quant;
    } else if (info.keeps_input_quant) {
      if (const json* o = r.find("out"))
        r.fail("out",
               std::string("no \"out\" on ") + info.name +
                   " (its output keeps the input's quantisation)",
               describe_json(*o));
      L.quant.output = x.quant;
    } else {
      const json* o = r.find("out");
      if (!o)
        r.fail("out", "an output quantisation {\"dtype\", \"scale\", \"zero_point\"}", "nothing");
      L.quant.output = parse_tensor_quant(*o, file_, r.pointer_to("out"), array_op);
    }
    if (info.weights) {
      const json* w = r.find("weights");
      if (!w)
        r.fail("weights", "a weight quantisation {\"dtype\", \"scale\", \"zero_point\"}",
               "nothing");
      parse_weight_quant(*w, file_, r.pointer_to("weights"), L.K, L.quant);
      L.quant.bias = r.get_bool("bias", true);
    }
    if (info.fused_activation) parse_activation(r, L.quant);
    // ONNX Runtime's contrib operators take and give one 8-bit type.
    if (info.one_8bit_type)
      for (std::size_t k = 0; k < in_tensors.size(); ++k)
        if (in_tensors[k]->quant.type != L.quant.output.type)
          throw ConfigError(file_, r.pointer_to("inputs") + "/" + std::to_string(k),
                            std::string("a ") + to_string(L.quant.output.type) + " tensor (" +
                                info.name +
                                " reads and writes one type, as ONNX Runtime's operator does)",
                            "\"" + (*ins)[k].get<std::string>() + "\" (" +
                                to_string(in_tensors[k]->quant.type) + ")");
    L.relu = false;
    r.finish();
    // The checks every front-end shares (sim/graph/operator_checks.h), at the
    // key that holds what a user would change.
    std::vector<OperandShape> shapes;
    for (const TensorInfo* t : in_tensors) shapes.push_back({t->N, t->C, t->H, t->W});
    if (const std::optional<OperatorProblem> p = check_operator(L, shapes)) {
      switch (p->part) {
        case OperatorPart::KernelRows:
        case OperatorPart::KernelCols:
          r.fail(info.window ? "kernel" : "", p->expected, p->found);
        case OperatorPart::Groups:
          r.fail("group", p->expected, p->found);
        case OperatorPart::Input:
          fail_shape(p->input, p->expected);  // throws
          break;
        case OperatorPart::InputQuant:
          r.fail("inputs", p->expected, p->found);
        case OperatorPart::OutputQuant:
          r.fail(info.keeps_input_quant ? "inputs" : "out", p->expected, p->found);
        case OperatorPart::WeightQuant:
          r.fail("weights", p->expected, p->found);
        case OperatorPart::Operator:
          r.fail("", p->expected, p->found);
      }
    }
    TensorInfo out{L.N, L.K, L.out_h(), L.out_w(), L.quant.output, {int32_t(i), -1}, ""};
    define_tensor(out_name, r.pointer_to("output"), out);
    net_.tensor_names.push_back(out_name);
    net_.sources.push_back(std::move(sources));
    net_.layers.push_back(std::move(L));
  }

  const json& j_;
  std::string file_;
  uint64_t seed_ = 1;
  NetworkConfig net_;
  std::map<std::string, TensorInfo> tensors_;
  std::map<std::string, std::string> names_;
};

}  // namespace

NetworkConfig parse_graph_workload(const json& j, const std::string& file) {
  NetworkConfig net = GraphParser(j, file).run();
  net.graph_json = j.dump();
  return net;
}

}  // namespace npusim
