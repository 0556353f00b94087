// Seeded-random or .npy-supplied tensors for one layer. Each tensor draws from
// its own stream (seed*4 + 1, 2, 3) so that, e.g., supplying weights from a
// file does not change the random input a layer gets.
#include "sim/workload/layer_data.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/workload/batch_norm.h"
#include "sim/workload/seeded_fill.h"

namespace npusim {
namespace {

std::string shape_str(const std::vector<uint32_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// Throws naming the file, the layer, the expected and the found shape.
void check_shape(const std::string& path, const LayerConfig& layer, const char* what,
                 const char* dims, const std::vector<uint32_t>& expected,
                 const std::vector<uint32_t>& found) {
  if (found == expected) return;
  throw std::runtime_error(path + ": " + what + " of layer '" + layer.name + "' must have shape " +
                           dims + " = " + shape_str(expected) + ", found " + shape_str(found));
}

TensorI8 random_int8(const std::vector<uint32_t>& shape, uint64_t seed) {
  TensorI8 t(shape);
  fill_uniform_bytes(t.data.data(), t.data.size(), seed, -128);  // = rng.uniform(-128, 127)
  return t;
}

// A binary tensor draws one bit per element: +1 or -1.
TensorI8 random_pm1(const std::vector<uint32_t>& shape, uint64_t seed) {
  TensorI8 t(shape);
  SeededRandom rng(seed);
  for (int8_t& v : t.data) v = rng.next() >> 63 ? 1 : -1;
  return t;
}

// A binary layer's .npy holds int8 -1/+1 only (a binary tensor has no 0).
void check_pm1(const TensorI8& t, const std::string& path, const LayerConfig& layer,
               const char* what) {
  for (uint64_t i = 0; i < t.data.size(); ++i) {
    if (t.data[i] != 1 && t.data[i] != -1)
      throw std::runtime_error(path + ": " + what + " of binary layer '" + layer.name +
                               "' must hold only -1 and +1, found " + std::to_string(t.data[i]) +
                               " at flat index " + std::to_string(i));
  }
}

}  // namespace

// splitmix64 (Steele, Lea, Flood 2014; the reference code by Vigna).
uint64_t SeededRandom::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Unbiased by rejection: draws below `threshold` (= 2^64 mod span) are
// discarded, leaving a count of accepted values that is a multiple of span.
int64_t SeededRandom::uniform(int64_t lo, int64_t hi) {
  if (lo > hi) throw std::invalid_argument("SeededRandom::uniform: lo > hi");
  // Unsigned arithmetic: the span of [INT64_MIN, INT64_MAX] wraps to 0.
  const uint64_t span = uint64_t(hi) - uint64_t(lo) + 1;
  if (span == 0) return int64_t(next());
  const uint64_t threshold = (0 - span) % span;
  uint64_t r;
  do {
    r = next();
  } while (r < threshold);
  return int64_t(uint64_t(lo) + r % span);
}

// Zeroes `count` of the indices [0, n) chosen by a seeded partial Fisher-Yates
// shuffle and calls zero(index) for each.
template <typename Zero>
void zero_random_subset(uint64_t n, uint64_t count, SeededRandom& rng, Zero zero) {
  std::vector<uint32_t> index(n);
  for (uint64_t i = 0; i < n; ++i) index[i] = uint32_t(i);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t j = uint64_t(rng.uniform(int64_t(i), int64_t(n - 1)));
    std::swap(index[i], index[j]);
    zero(index[i]);
  }
}

// The sparsity pattern of the layer config, applied to random weights (K,R,S,C).
void apply_sparsity(TensorI8& w, const SparsityConfig& s, uint64_t seed) {
  SeededRandom rng(seed);
  const uint32_t K = w.shape[0], C = w.shape[3];
  const uint64_t kernel = w.size() / K;
  switch (s.pattern) {
    case SparsityConfig::Pattern::None:
      return;
    case SparsityConfig::Pattern::Unstructured: {
      const uint64_t keep = uint64_t(std::llround(s.density * double(w.size())));
      zero_random_subset(w.size(), w.size() - keep, rng, [&](uint64_t i) { w.data[i] = 0; });
      return;
    }
    case SparsityConfig::Pattern::Channel: {
      const uint64_t keep = uint64_t(std::llround(s.density * double(K)));
      zero_random_subset(K, K - keep, rng, [&](uint64_t k) {
        std::fill_n(w.data.begin() + int64_t(k * kernel), kernel, int8_t(0));
      });
      return;
    }
    case SparsityConfig::Pattern::NM:
      // In every run of m consecutive input channels keep n (fewer in a short tail).
      for (uint64_t tap = 0; tap < w.size() / C; ++tap)
        for (uint32_t c0 = 0; c0 < C; c0 += s.m) {
          const uint32_t len = std::min(s.m, C - c0);
          const uint32_t keep = std::min(s.n, len);
          int8_t* group = w.data.data() + tap * C + c0;
          zero_random_subset(len, len - keep, rng, [&](uint64_t i) { group[i] = 0; });
        }
      return;
  }
}

namespace {

// A graph operator's data (docs/graphs.md#data): array operators get K x R x
// S x C/groups weights uniform over [-127, 127] (int8) or [0, 255] (uint8,
// held as their bytes) and a bias uniform over [-1024, 1024] (or none), or
// the model's own; the vector unit's operators have no data of their own.
LayerData make_operator_data(const LayerConfig& layer) {
  LayerData d;
  if (layer.op == OpKind::BatchMatMul) {  // both operands are activations
    d.bias.assign(layer.K, 0);
    return d;
  }
  if (!runs_on_array(layer.op) && !has_norm_params(layer.op)) return d;
  const uint64_t base = layer.seed * 4;
  // A norm's gamma: one coefficient per channel, drawn as weights are.
  d.weights = has_norm_params(layer.op)
                  ? TensorI8({layer.C, 1, 1, 1})
                  : TensorI8({layer.K, layer.R, layer.S, layer.group_channels()});
  // A model's weights kept only as counts (a timing-only import) are not there to compute with.
  if (layer.weight_values.empty() && !layer.weight_nonzeros.empty())
    throw std::logic_error("operator '" + layer.name +
                           "': its weights were imported as non-zero counts only (for a "
                           "timing-only run); computing its values needs the model's weights");
  if (!layer.weight_values.empty()) {  // a model's own weights and bias
    if (layer.weight_values.size() != d.weights.size())
      throw std::runtime_error(
          "operator '" + layer.name + "': " + std::to_string(layer.weight_values.size()) +
          " weight values for a K x R x S x C/groups = " + std::to_string(d.weights.size()) +
          " tensor");
    d.weights.data = layer.weight_values.values();
    d.bias = layer.bias_values;
    d.bias.resize(layer.K, 0);
    return d;
  }
  const bool u8 = layer.quant.weight_type == QuantType::Uint8;
  // uniform(0, 255) or uniform(-127, 127), drawn in bulk
  fill_uniform_bytes(d.weights.data.data(), d.weights.size(), base + 1, u8 ? 0 : -127,
                     u8 ? 256 : 255);
  if (!u8) apply_sparsity(d.weights, layer.sparsity, base);
  d.bias.assign(has_norm_params(layer.op) ? layer.C : layer.K, 0);
  if (layer.quant.bias) {
    SeededRandom b(base + 3);
    for (int32_t& v : d.bias) v = static_cast<int32_t>(b.uniform(-1024, 1024));
  }
  return d;
}

}  // namespace

TensorI8 make_graph_input(const GraphInput& in) {
  TensorI8 t({in.N, in.H, in.W, in.C});
  if (!in.values.empty()) {
    if (in.values.size() != t.size())
      throw std::runtime_error(
          "graph input '" + in.name + "': " + std::to_string(in.values.size()) +
          " values for an N x H x W x C = " + std::to_string(t.size()) + " tensor");
    t.data = in.values;
    return t;
  }
  const int64_t lo = quant_min(in.quant.type), hi = quant_max(in.quant.type);
  if (hi - lo == 255) {  // the whole int8 or uint8 range
    fill_uniform_bytes(t.data.data(), t.size(), in.seed * 4 + 2, lo);
    return t;
  }
  SeededRandom rng(in.seed * 4 + 2);
  for (int8_t& v : t.data) v = static_cast<int8_t>(rng.uniform(lo, hi));
  return t;
}

std::vector<uint32_t> count_seeded_kernel_nonzeros(const LayerConfig& layer,
                                                   const std::vector<int8_t>& zero_of_kernel) {
  if (layer.is_binary() || !layer.weights_npy.empty() || !layer.weight_values.empty() ||
      !layer.weight_nonzeros.empty())
    return {};
  // As drawn above: a plain layer's random_int8 and an operator's uniform(-127, 127), each then
  // thinned by its sparsity pattern, or an operator's uniform(0, 255), never thinned.
  const bool u8 = layer.quantized && layer.quant.weight_type == QuantType::Uint8;
  if (!u8 && layer.sparsity.pattern != SparsityConfig::Pattern::None) return {};
  const int64_t lo = u8 ? 0 : layer.quantized ? -127 : -128;
  const uint32_t span = layer.quantized && !u8 ? 255 : 256;
  const uint64_t seed = layer.seed * 4 + 1;  // the weights' stream
  const uint64_t kernel = uint64_t(layer.R) * layer.S * layer.group_channels();
  std::vector<uint32_t> counts(layer.K);
  for (uint32_t k = 0; k < layer.K; ++k) {
    const std::optional<uint64_t> n = count_uniform_bytes_other_than(
        seed, k * kernel, kernel, lo, zero_of_kernel.empty() ? int8_t(0) : zero_of_kernel[k], span);
    if (!n) return {};  // a rejected draw: the values no longer follow the draw index
    counts[k] = uint32_t(*n);
  }
  return counts;
}

TensorI8 make_layer_weights(const LayerConfig& layer) {
  if (layer.quantized) return make_operator_data(layer).weights;
  const uint64_t base = layer.seed * 4;  // wraps for huge seeds; still deterministic
  const std::vector<uint32_t> weight_shape = {layer.K, layer.R, layer.S, layer.C};
  const bool binary = layer.is_binary();
  TensorI8 weights;
  if (layer.weights_npy.empty()) {
    weights = binary ? random_pm1(weight_shape, base + 1) : random_int8(weight_shape, base + 1);
    if (!binary) apply_sparsity(weights, layer.sparsity, base);  // stream seed*4: else unused
  } else {
    weights = read_npy_int8(layer.weights_npy);
    check_shape(layer.weights_npy, layer, "weights", "K, R, S, C", weight_shape, weights.shape);
    if (binary) check_pm1(weights, layer.weights_npy, layer, "weights");
  }
  return weights;
}

LayerData make_layer_data(const LayerConfig& layer, bool with_input) {
  if (layer.quantized) return make_operator_data(layer);
  LayerData d;
  const uint64_t base = layer.seed * 4;  // wraps for huge seeds; still deterministic
  const bool binary = layer.is_binary();
  d.weights = make_layer_weights(layer);

  if (with_input) {
    const std::vector<uint32_t> input_shape = {layer.N, layer.H, layer.W, layer.C};
    if (layer.input_npy.empty()) {
      d.input = binary ? random_pm1(input_shape, base + 2) : random_int8(input_shape, base + 2);
    } else {
      d.input = read_npy_int8(layer.input_npy);
      check_shape(layer.input_npy, layer, "input", "N, H, W, C", input_shape, d.input.shape);
      if (binary) check_pm1(d.input, layer.input_npy, layer, "input");
    }
  }

  if (binary) {
    BinaryOutputRule rule = binary_output_rule(layer);
    d.threshold = std::move(rule.threshold);
    d.flip = std::move(rule.flip);
    return d;
  }

  if (layer.bias_npy.empty()) {
    // Small against the accumulator range on purpose: a bias of a few thousand
    // shifts outputs visibly without swamping the products.
    SeededRandom rng(base + 3);
    d.bias.resize(layer.K);
    for (int32_t& b : d.bias) b = static_cast<int32_t>(rng.uniform(-2048, 2048));
  } else {
    TensorI32 b = read_npy_int32(layer.bias_npy);
    check_shape(layer.bias_npy, layer, "bias", "K", {layer.K}, b.shape);
    d.bias = std::move(b.data);
  }
  return d;
}

}  // namespace npusim
