#include "models/vector/activation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace npusim::vector_kernels {
namespace {

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
    case ActivationFn::LeakyRelu:
      return from_float(vf >= 0.0f ? vf : L.seq.alpha * vf);
  }
  throw std::logic_error(std::string("vector_kernels::table_entry: ") + to_string(L.op) +
                         " has an activation function no case computes");
}

}  // namespace

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

}  // namespace npusim::vector_kernels
