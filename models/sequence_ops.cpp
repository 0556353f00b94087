#include "models/sequence_ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/requantiser.h"

namespace npusim::sequence_ops {
namespace {

using vector_ops::InputView;

int8_t requantise_to_int8(int64_t acc, float multiplier, const TensorQuant& y) {
  const int64_t clamped = std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX);
  return int8_t(requantise_float32(int32_t(clamped), multiplier, y.zero_point, quant_min(y.type),
                                   quant_max(y.type)));
}

// Softmax over each head's n = C / heads channels of a pixel: e = E[max - q]
// with E[d] = round(2^16 exp(-d * x_scale)), p = floor(e * 2^16 / sum e)
// (Q16), then the float32 requantiser with multiplier 2^-16 / y_scale. A causal
// row `oh` sees keys j <= oh + (n - H); the rest get p = 0.
void softmax_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out) {
  std::array<uint32_t, 256> table{};
  for (uint32_t d = 0; d < 256; ++d)
    table[d] =
        uint32_t(std::nearbyint(std::ldexp(std::exp(-double(d) * double(x.quant.scale)), 16)));
  const TensorQuant& y = L.quant.output;
  const float multiplier = (1.0f / 65536.0f) / y.scale;
  const uint32_t n = L.C / L.seq.heads;
  const uint32_t valid = L.seq.causal ? std::min<uint32_t>(n, oh + (n - L.H) + 1) : n;
  for (uint32_t ow = 0; ow < L.out_w; ++ow)
    for (uint32_t h = 0; h < L.seq.heads; ++h) {
      const uint64_t base = (uint64_t(oh) * L.W + ow) * L.C + uint64_t(h) * n;
      int32_t top = INT32_MIN;
      for (uint32_t j = 0; j < valid; ++j) top = std::max(top, x.value(base + j));
      uint64_t sum = 0;
      for (uint32_t j = 0; j < valid; ++j) sum += table[uint32_t(top - x.value(base + j))];
      for (uint32_t j = 0; j < n; ++j) {
        const uint64_t p =
            j < valid ? (uint64_t(table[uint32_t(top - x.value(base + j))]) << 16) / sum : 0;
        out[uint64_t(ow) * L.K + uint64_t(h) * n + j] =
            requantise_to_int8(int64_t(p), multiplier, y);
      }
    }
}

int32_t param(const int8_t* params, uint32_t c, uint32_t which) {
  int32_t v = 0;
  std::memcpy(&v, params + uint64_t(c) * 8 + which * 4, 4);
  return v;
}

// LayerNorm and RMSNorm per pixel over its C channels; z in Q12, then
// acc = (gamma - gamma_zp) * z + beta, requantised with (gamma_scale / 2^12) / y_scale.
void norm_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, const int8_t* params,
              int8_t* out) {
  const uint32_t C = L.C;
  const bool layer_norm = L.op == OpKind::LayerNorm;
  const double sx = double(x.quant.scale);
  const double eps = layer_norm ? L.seq.epsilon * double(C) * double(C) / (sx * sx)
                                : L.seq.epsilon * 65536.0 / (sx * sx);
  const uint64_t eps_int = uint64_t(std::min(std::nearbyint(eps), 4.0e18));
  const bool g_unsigned = L.quant.weight_type == QuantType::Uint8;
  const int32_t g_zp = L.quant.weight_zero_point[0];
  const float multiplier = (L.quant.weight_scale[0] / 4096.0f) / L.quant.output.scale;
  for (uint32_t ow = 0; ow < L.out_w; ++ow) {
    const uint64_t base = (uint64_t(oh) * L.W + ow) * C;
    const auto centred = [&](uint32_t c) {
      return int64_t(x.value(base + c) - x.quant.zero_point);
    };
    int64_t total = 0;
    for (uint32_t c = 0; c < C; ++c) total += centred(c);
    uint64_t squares = 0;
    for (uint32_t c = 0; c < C; ++c) {
      const int64_t d = layer_norm ? int64_t(C) * centred(c) - total : centred(c);
      squares += uint64_t(d * d);
    }
    const uint64_t root = isqrt((layer_norm ? squares / C : (squares << 16) / C) + eps_int);
    for (uint32_t c = 0; c < C; ++c) {
      const int64_t d = layer_norm ? int64_t(C) * centred(c) - total : centred(c);
      const int64_t z = root == 0 ? 0 : d * (layer_norm ? 4096 : 1048576) / int64_t(root);
      const int32_t raw = param(params, c, 1);
      const int32_t gamma =
          (g_unsigned ? int32_t(uint8_t(int8_t(raw))) : int32_t(int8_t(raw))) - g_zp;
      const int64_t acc = int64_t(gamma) * z + (L.quant.bias ? param(params, c, 0) : 0);
      out[uint64_t(ow) * L.K + c] = requantise_to_int8(acc, multiplier, L.quant.output);
    }
  }
}

// The table activations (docs/transformers.md#table-activations): entry q is
// round_half_even(f(v) / y_s) + y_zp, clamped, with v = (q - x_zp) * x_s:
// GELU in double; SiLU, sigmoid, hard sigmoid and hard swish in float32 as
// ONNX Runtime evaluates its float operators between DequantizeLinear and
// QuantizeLinear (its logistic: a rational function, fused multiply-adds).
double gelu(double v) { return 0.5 * v * (1.0 + std::erf(v * 0.70710678118654752440)); }
float logistic(float v) {
  const float x = std::min(18.0f, std::max(-18.0f, v));
  const float s = x * x;
  float odd = std::fma(s, 4.37031012579801e-11f, 1.15627324459942e-07f);
  odd = std::fma(odd, s, 6.08574864600143e-05f);
  odd = std::fma(odd, s, 8.51377133304701e-03f);
  odd = std::fma(odd, s, 2.48287947061529e-01f);
  float even = std::fma(s, 6.10247389755681e-13f, 5.76102136993427e-09f);
  even = std::fma(even, s, 6.29106785017040e-06f);
  even = std::fma(even, s, 1.70198817374094e-03f);
  even = std::fma(even, s, 1.16817656904453e-01f);
  even = std::fma(even, s, 9.93151921023180e-01f);
  return std::min(1.0f, std::max(0.0f, (odd * x) / even + 0.5f));
}
float hard_sigmoid(float v, float alpha, float beta) {
  return std::min(1.0f, std::max(0.0f, alpha * v + beta));
}
float hard_swish(float v) { return v * hard_sigmoid(v, 1.0f / 6.0f, 0.5f); }
// ONNX Runtime's float32 tanh: its rational function on [-9, 9] (odd numerator,
// even denominator in v^2), fused multiply-adds as its x86-64 kernel evaluates them.
float hyperbolic_tangent(float v) {
  const float x = std::min(9.0f, std::max(-9.0f, v));
  const float s = x * x;
  float odd = std::fma(s, -2.76076847742355e-16f, 2.00018790482477e-13f);
  odd = std::fma(odd, s, -8.60467152213735e-11f);
  odd = std::fma(odd, s, 5.12229709037114e-08f);
  odd = std::fma(odd, s, 1.48572235717979e-05f);
  odd = std::fma(odd, s, 6.37261928875436e-04f);
  odd = std::fma(odd, s, 4.89352455891786e-03f);
  float even = std::fma(s, 1.19825839466702e-06f, 1.18534705686654e-04f);
  even = std::fma(even, s, 2.26843463243900e-03f);
  even = std::fma(even, s, 4.89352518554385e-03f);
  return (odd * x) / even;
}

// Entry q before the clamp.
double table_entry(const LayerDescriptor& L, const TensorQuant& x, int32_t q) {
  const TensorQuant& y = L.quant.output;
  const double vd = double(q - x.zero_point) * double(x.scale);
  const float vf = float(q - x.zero_point) * x.scale;
  const auto from_double = [&](double f) {
    return std::nearbyint(f / double(y.scale)) + double(y.zero_point);
  };
  const auto from_float = [&](float f) {
    return double(std::nearbyint(f / y.scale)) + double(y.zero_point);
  };
  switch (op_info(L.op).activation) {  // only the activation family's rows reach here
    case ActivationFn::Gelu:
      return from_double(gelu(vd));
    case ActivationFn::Silu:
      return from_float(vf * logistic(vf));
    case ActivationFn::Sigmoid:
      return from_float(logistic(vf));
    case ActivationFn::HardSigmoid:
      return from_float(hard_sigmoid(vf, L.seq.alpha, L.seq.beta));
    case ActivationFn::HardSwish:
      return from_float(hard_swish(vf));
    case ActivationFn::Tanh:
      return from_float(hyperbolic_tangent(vf));
  }
  throw std::logic_error(std::string("sequence_ops: ") + to_string(L.op) +
                         " has an activation function no case computes");
}

// A table activation through a 256-entry table of the input's codes.
void table_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out) {
  const TensorQuant& y = L.quant.output;
  const int32_t lo = quant_min(x.quant.type);
  std::array<int8_t, 256> table{};
  for (int32_t q = lo; q <= quant_max(x.quant.type); ++q) {
    const double r = table_entry(L, x.quant, q);
    table[size_t(q - lo)] = int8_t(
        int32_t(std::min(std::max(r, double(quant_min(y.type))), double(quant_max(y.type)))));
  }
  const uint64_t first = uint64_t(oh) * L.W * L.C, count = uint64_t(L.W) * L.C;
  for (uint64_t i = 0; i < count; ++i) out[i] = table[size_t(x.value(first + i) - lo)];
}

// Elementwise product as ONNX Runtime's QLinearMul: (a - a_zp) * (b - b_zp)
// times (a_scale * b_scale) / y_scale, plus y_zp, rounded, in float32. A
// per-channel b ([N, C, 1, 1]: one pixel per image) scales every pixel.
void mul_row(const LayerDescriptor& L, const InputView* in, uint32_t oh, int8_t* out) {
  const float ratio = (in[0].quant.scale * in[1].quant.scale) / L.quant.output.scale;
  const float zero_point = float(L.quant.output.zero_point);
  const float lo = float(quant_min(L.quant.output.type)),
              hi = float(quant_max(L.quant.output.type));
  const uint64_t first = uint64_t(oh) * L.W * L.C, count = uint64_t(L.W) * L.C;
  const bool per_channel = in[1].pixels == 1;
  for (uint64_t i = 0; i < count; ++i) {
    const int32_t a = in[0].value(first + i) - in[0].quant.zero_point;
    const int32_t b = in[1].value(per_channel ? i % L.C : first + i) - in[1].quant.zero_point;
    const float v = std::nearbyint(float(a * b) * ratio + zero_point);
    out[i] = int8_t(int32_t(std::min(hi, std::max(lo, v))));
  }
}

// Rotary embedding, rotate-half pairs (i, i + dim/2) of each head at position
// p = oh + position_offset: cos and sin of p * base^(-2i/dim) in Q14.
void rope_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out) {
  const uint32_t dim = L.C / L.seq.heads, half = dim / 2;
  const double position = double(oh) + double(L.seq.position_offset);
  std::vector<int64_t> cosines(half), sines(half);
  for (uint32_t i = 0; i < half; ++i) {
    const double theta = position * std::pow(L.seq.rope_base, -2.0 * double(i) / double(dim));
    cosines[i] = int64_t(std::nearbyint(std::cos(theta) * 16384.0));
    sines[i] = int64_t(std::nearbyint(std::sin(theta) * 16384.0));
  }
  const float multiplier = (x.quant.scale / 16384.0f) / L.quant.output.scale;
  const uint64_t row = uint64_t(oh) * L.W * L.C;
  for (uint32_t h = 0; h < L.seq.heads; ++h)
    for (uint32_t i = 0; i < half; ++i) {
      const uint64_t lo = row + uint64_t(h) * dim + i, hi = lo + half;
      const int64_t a = x.value(lo) - x.quant.zero_point, b = x.value(hi) - x.quant.zero_point;
      out[lo - row] = requantise_to_int8(a * cosines[i] - b * sines[i], multiplier, L.quant.output);
      out[hi - row] = requantise_to_int8(b * cosines[i] + a * sines[i], multiplier, L.quant.output);
    }
}

}  // namespace

void compute_row(const LayerDescriptor& L, const InputView* inputs, uint32_t oh,
                 const int8_t* params, int8_t* out_row) {
  const OpInfo& info = op_info(L.op);
  switch (info.family) {
    case OpFamily::Softmax:
      return softmax_row(L, inputs[0], oh, out_row);
    case OpFamily::Norm:
      return norm_row(L, inputs[0], oh, params, out_row);
    case OpFamily::Activation:
      return table_row(L, inputs[0], oh, out_row);
    case OpFamily::Rope:
      return rope_row(L, inputs[0], oh, out_row);
    case OpFamily::Elementwise:
      switch (info.elementwise) {
        case ElementwiseKind::Mul:
          return mul_row(L, inputs, oh, out_row);
        case ElementwiseKind::Add:  // vector_ops'
          break;
      }
      break;
    case OpFamily::Conv:  // the array's
    case OpFamily::Matmul:
    case OpFamily::Pool:  // vector_ops'
    case OpFamily::Concat:
    case OpFamily::Gather:
      break;
  }
  throw std::logic_error(std::string("sequence_ops::compute_row: ") + to_string(L.op) +
                         " is not a transformer vector operator");
}

uint64_t isqrt(uint64_t v) {
  constexpr uint64_t kMax = 0xFFFFFFFFull;  // floor(sqrt(2^64 - 1))
  uint64_t r = std::min<uint64_t>(uint64_t(std::sqrt(double(v))), kMax);
  while (r * r > v) --r;
  while (r < kMax && (r + 1) * (r + 1) <= v) ++r;
  return r;
}

}  // namespace npusim::sequence_ops
