#include "sim/graph/workload.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sim/config/checked_size.h"

namespace npusim {

uint32_t LayerConfig::ceil_extent(uint64_t last_start_limit, uint64_t room, uint64_t stride) {
  uint64_t out = (room + stride - 1) / stride + 1;
  if ((out - 1) * stride >= last_start_limit) --out;  // ONNX Runtime, onnx/onnx#5741
  return uint32_t(out);
}

using nlohmann::json;

namespace {
constexpr uint32_t kMaxShift = 31;  // as the requant "shift" key allows
}  // namespace

const char* to_string(TensorLayout l) { return l == TensorLayout::Nchw ? "nchw" : "nhwc"; }
const char* to_string(ResizeMode m) {
  switch (m) {
    case ResizeMode::Nearest:
      return "nearest";
    case ResizeMode::Linear:
      return "linear";
    case ResizeMode::Cubic:
      return "cubic";
  }
  return "?";
}
const char* to_string(ResizeCoordinates c) {
  switch (c) {
    case ResizeCoordinates::HalfPixel:
      return "half_pixel";
    case ResizeCoordinates::PytorchHalfPixel:
      return "pytorch_half_pixel";
    case ResizeCoordinates::AlignCorners:
      return "align_corners";
    case ResizeCoordinates::Asymmetric:
      return "asymmetric";
    case ResizeCoordinates::TfHalfPixelForNn:
      return "tf_half_pixel_for_nn";
  }
  return "?";
}
const char* to_string(ResizeRounding r) {
  switch (r) {
    case ResizeRounding::RoundPreferFloor:
      return "round_prefer_floor";
    case ResizeRounding::RoundPreferCeil:
      return "round_prefer_ceil";
    case ResizeRounding::Floor:
      return "floor";
    case ResizeRounding::Ceil:
      return "ceil";
  }
  return "?";
}

uint32_t output_bits_of(const NetworkConfig& net, size_t l) {
  if (l + 1 < net.layers.size() && l + 1 < net.chained.size() && net.chained[l + 1]) {
    const LayerConfig& consumer = net.layers[l + 1];
    return consumer.is_binary() ? consumer.binary.bits : 0;
  }
  return net.layers[l].is_binary() ? net.layers[l].binary.bits : 0;
}

const char* to_string(DataType t) { return t == DataType::Binary ? "binary" : "int8"; }

const char* to_string(BinaryPadMode m) {
  switch (m) {
    case BinaryPadMode::Skip:
      return "skip";
    case BinaryPadMode::PlusOne:
      return "plus_one";
    case BinaryPadMode::MinusOne:
      return "minus_one";
  }
  return "?";
}

const char* to_string(BinaryTie t) { return t == BinaryTie::MinusOne ? "minus_one" : "plus_one"; }

const char* to_string(SparsityConfig::Pattern p) {
  switch (p) {
    case SparsityConfig::Pattern::None:
      return "none";
    case SparsityConfig::Pattern::Unstructured:
      return "unstructured";
    case SparsityConfig::Pattern::NM:
      return "nm";
    case SparsityConfig::Pattern::Channel:
      return "channel";
  }
  return "?";
}

uint32_t auto_requant_shift(uint64_t reduction_size) {
  // ceil(log2(x) / 2) is the smallest s with 4^s >= x; integer arithmetic keeps
  // it exact and identical on every platform.
  uint32_t half_log = 0;
  while (half_log < 32 && (uint64_t(1) << (2 * half_log)) < reduction_size) ++half_log;
  const uint32_t shift = 7 + half_log;
  return shift > kMaxShift ? uint32_t(kMaxShift) : shift;
}

namespace {
uint64_t sum_tensor_bytes(const NetworkConfig& net, bool activations) {
  uint64_t total = 0;
  // Graph operators with the same seeded weights (a decode step's projections
  // and the prefill's) share one copy, in DRAM and on the host: count it once.
  // A model's own weights (no key) are each operator's own.
  std::set<std::string> shared;
  for (const LayerConfig& l : net.layers) {
    // Each term is at most 256 MiB (validate_layer), so only the sum can overflow.
    if (activations) total = saturating_sum(total, l.input_bytes());
    // batch_matmul's second operand is an activation, not weights.
    if (!activations && l.op == OpKind::BatchMatMul) continue;
    const std::string key = l.quantized && l.weight_bytes() > 0 ? seeded_weights_key(l) : "";
    if (key.empty() || shared.insert(key).second) total = saturating_sum(total, l.weight_bytes());
    if (activations) total = saturating_sum(total, l.output_bytes());
  }
  return total;
}
}  // namespace

uint64_t workload_tensor_bytes(const NetworkConfig& net) { return sum_tensor_bytes(net, true); }

uint64_t workload_weight_bytes(const NetworkConfig& net) { return sum_tensor_bytes(net, false); }

std::string input_source(const NetworkConfig& net, size_t l) {
  if (net.is_graph()) return "graph";
  if (l < net.chained.size() && net.chained[l]) return "chained from " + net.layers[l - 1].name;
  if (!net.layers[l].input_npy.empty()) return net.layers[l].input_npy;
  return "random";
}

json to_json(const NetworkConfig& net) {
  if (net.is_graph()) return json::parse(net.graph_json);
  json layers = json::array();
  for (const LayerConfig& l : net.layers) {
    json layer = {{"type", "conv2d"},
                  {"name", l.name},
                  {"N", l.N},
                  {"C", l.C},
                  {"H", l.H},
                  {"W", l.W},
                  {"K", l.K},
                  {"R", l.R},
                  {"S", l.S},
                  {"stride", l.stride},
                  {"padding", l.padding},
                  {"dtype", to_string(l.dtype)},
                  {"seed", l.seed}};
    if (l.access) layer["access"] = to_string(*l.access);
    // Written only when not the default, so files that never used them stay as they were.
    if (l.input_layout != TensorLayout::Nhwc) layer["input_layout"] = to_string(l.input_layout);
    if (l.output_layout != TensorLayout::Nhwc) layer["output_layout"] = to_string(l.output_layout);
    if (!l.weights_npy.empty()) layer["weights_npy"] = l.weights_npy;
    if (!l.input_npy.empty()) layer["input_npy"] = l.input_npy;
    if (l.is_binary()) {
      json b = {{"bits", l.binary.bits},
                {"padding", to_string(l.binary.padding)},
                {"tie", to_string(l.binary.tie)}};
      const auto& t = l.binary.threshold;
      const bool uniform_t = t.empty() || std::equal(t.begin() + 1, t.end(), t.begin());
      if (l.binary.batch_norm)
        b["batch_norm"] = {{"seed", l.binary.batch_norm_seed}};
      else
        b["threshold"] = uniform_t ? json(t.empty() ? 0 : t[0]) : json(t);
      layer["binary"] = std::move(b);
      layers.push_back(std::move(layer));
      continue;
    }
    layer["relu"] = l.relu;
    const auto& scale = l.requant.scale;
    const bool uniform = scale.empty() || std::equal(scale.begin() + 1, scale.end(), scale.begin());
    layer["requant"] = {{"scale", uniform ? json(scale.empty() ? 1 : scale[0]) : json(scale)},
                        {"shift", l.requant.shift}};
    if (!l.bias_npy.empty()) layer["bias_npy"] = l.bias_npy;
    if (l.sparsity.pattern == SparsityConfig::Pattern::NM)
      layer["sparsity"] = {{"pattern", "nm"}, {"n", l.sparsity.n}, {"m", l.sparsity.m}};
    else if (l.sparsity.pattern != SparsityConfig::Pattern::None)
      layer["sparsity"] = {{"pattern", to_string(l.sparsity.pattern)},
                           {"density", l.sparsity.density}};
    layers.push_back(std::move(layer));
  }
  return {{"name", net.name}, {"layers", std::move(layers)}};
}

std::string seeded_weights_key(const LayerConfig& L) {
  if (!L.weights_npy.empty() || !L.weight_values.empty() || !L.weight_nonzeros.empty()) return "";
  std::ostringstream k;
  k.precision(17);
  k << "seed " << L.seed << " K " << L.K << " R " << L.R << " S " << L.S << " C " << L.C
    << " groups " << L.groups << " dtype " << int(L.dtype) << " bits " << L.binary.bits
    << " quantized " << L.quantized << " sparsity " << to_string(L.sparsity.pattern) << " "
    << L.sparsity.density << " " << L.sparsity.n << " " << L.sparsity.m;
  if (L.quantized) {
    k << " weight_type " << int(L.quant.weight_type) << " zero_points";
    for (int32_t z : L.quant.weight_zero_point) k << " " << z;
  }
  return k.str();
}

const char* to_string(QuantType t) {
  return t == QuantType::Int8 ? "int8" : t == QuantType::Uint8 ? "uint8" : "int32";
}

}  // namespace npusim
