// The table activations (GELU, SiLU, sigmoid, hard sigmoid, hard swish,
// tanh) of one 8-bit value, and ONNX Runtime's float32 logistic and tanh,
// from docs/transformers.md's definitions (qsequence.h).
#include <cmath>
#include <string>

#include "sim/reference/qsequence.h"

namespace npusim::reference::qops {

using detail::f32;
using detail::fail;

namespace {

const char* activation_name(Activation f) {
  switch (f) {
    case Activation::Gelu:
      return "gelu";
    case Activation::Silu:
      return "silu";
    case Activation::Sigmoid:
      return "sigmoid";
    case Activation::HardSigmoid:
      return "hardsigmoid";
    case Activation::HardSwish:
      return "hardswish";
    case Activation::Tanh:
      return "tanh";
    case Activation::LeakyRelu:
      break;
  }
  return "leakyrelu";
}

// The activation of one real value: GELU in double, then the float32 ones (ONNX's float tensor
// arithmetic, one operation at a time).
double activation_value(Activation f, double real, float alpha, float beta) {
  const float v = float(real);
  switch (f) {
    case Activation::Gelu:
      return 0.5 * real * (1.0 + std::erf(real * 0.70710678118654752440));
    case Activation::Silu:
      return f32(v * logistic(v));
    case Activation::Sigmoid:
      return logistic(v);
    case Activation::HardSigmoid: {
      const float t = alpha * v + beta;
      return t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    }
    case Activation::HardSwish: {
      const float t = (1.0f / 6.0f) * v + 0.5f;
      return v * (t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t);
    }
    case Activation::Tanh:
      return tanh_f32(v);
    case Activation::LeakyRelu:
      break;
  }
  return v >= 0.0f ? v : f32(alpha * v);
}

bool in_float32(Activation f) { return f != Activation::Gelu; }

}  // namespace

QTensor activation(const QTensor& x, const Quant& xq, Activation f, const Quant& yq,
                   ElemType y_type, float alpha, float beta) {
  const char* op = activation_name(f);
  detail::check_tensor(op, "x", x, 0);
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  QTensor y{x.shape, std::vector<int32_t>(x.data.size()), y_type};
  const double lo = type_min(y_type), hi = type_max(y_type);
  for (size_t i = 0; i < x.data.size(); ++i) {
    double q;
    if (in_float32(f)) {
      const float real = float(x.data[i] - xs.zero_point) * xs.scale;
      const float value = float(activation_value(f, real, alpha, beta));
      q = double(std::nearbyint(value / ys.scale)) + double(ys.zero_point);
    } else {
      const double real = double(x.data[i] - xs.zero_point) * double(xs.scale);
      q = std::nearbyint(activation_value(f, real, alpha, beta) / double(ys.scale)) +
          double(ys.zero_point);
    }
    y.data[i] = int32_t(q < lo ? lo : q > hi ? hi : q);
  }
  return y;
}

float tanh_f32(float v) {
  // As logistic below: Horner in v^2 over the odd numerator and the even denominator.
  static const float numerator[] = {
      -2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f, 5.12229709037114e-08f,
      1.48572235717979e-05f,  6.37261928875436e-04f, 4.89352455891786e-03f};
  static const float denominator[] = {1.19825839466702e-06f, 1.18534705686654e-04f,
                                      2.26843463243900e-03f, 4.89352518554385e-03f};
  const float x = v < -9.0f ? -9.0f : v > 9.0f ? 9.0f : v;
  const float x2 = f32(x * x);
  float p = numerator[0], q = denominator[0];
  for (size_t i = 1; i < 7; ++i) p = std::fma(p, x2, numerator[i]);
  for (size_t i = 1; i < 4; ++i) q = std::fma(q, x2, denominator[i]);
  return f32(f32(p * x) / q);
}

float logistic(float v) {
  // Horner in v^2 over the odd numerator and the even denominator.
  static const float numerator[] = {4.37031012579801e-11f, 1.15627324459942e-07f,
                                    6.08574864600143e-05f, 8.51377133304701e-03f,
                                    2.48287947061529e-01f};
  static const float denominator[] = {6.10247389755681e-13f, 5.76102136993427e-09f,
                                      6.29106785017040e-06f, 1.70198817374094e-03f,
                                      1.16817656904453e-01f, 9.93151921023180e-01f};
  const float x = v < -18.0f ? -18.0f : v > 18.0f ? 18.0f : v;
  const float x2 = f32(x * x);
  float p = numerator[0], q = denominator[0];
  for (size_t i = 1; i < 5; ++i) p = std::fma(p, x2, numerator[i]);
  for (size_t i = 1; i < 6; ++i) q = std::fma(q, x2, denominator[i]);
  p = f32(p * x);
  const float r = f32(f32(p / q) + 0.5f);
  return r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
}

}  // namespace npusim::reference::qops
