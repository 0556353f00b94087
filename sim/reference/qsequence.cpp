// The transformer operators, written from docs/transformers.md's definitions
// (see qsequence.h). Each step is spelled out in the order the document gives.
#include "sim/reference/qsequence.h"

#include <cmath>
#include <string>

namespace npusim::reference::qops {

using detail::f32;
using detail::fail;

namespace {

int32_t requantize_wide(int64_t acc, float multiplier, int32_t zero_point, ElemType type) {
  // The document saturates the integer result to int32 before the float32 product.
  const int64_t lo = INT32_MIN, hi = INT32_MAX;
  return requantize(int32_t(acc < lo ? lo : acc > hi ? hi : acc), multiplier, zero_point, type);
}

void check_rank(const char* op, const char* name, const QTensor& t, size_t rank) {
  detail::check_tensor(op, name, t, rank);
}

}  // namespace

uint64_t integer_sqrt(uint64_t v) {
  uint64_t root = 0;
  uint64_t bit = uint64_t(1) << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

QTensor batch_matmul(const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq,
                     const Quant& yq, ElemType y_type) {
  const char* op = "batch_matmul";
  check_rank(op, "a", a, 3);
  check_rank(op, "b", b, 3);
  const uint32_t G = a.shape[0], M = a.shape[1], D = a.shape[2];
  const uint32_t Gb = b.shape[0], N = b.shape[2];
  if (b.shape[1] != D)
    fail(op, "a " + detail::dims(a.shape) + " and b " + detail::dims(b.shape) +
                 " do not chain (a's last axis must equal b's middle axis)");
  if (Gb == 0 || G % Gb != 0) fail(op, "b's batch must divide a's (grouped-query sharing)");
  const detail::Single as = detail::single(op, "a", aq, a.type);
  const detail::Single bs = detail::single(op, "b", bq, b.type);
  const bool raw = y_type == ElemType::Int32;
  float multiplier = 0.0f;
  int32_t y_zp = 0;
  if (!raw) {
    const detail::Single ys = detail::single(op, "y", yq, y_type);
    multiplier = f32(f32(as.scale * bs.scale) / ys.scale);
    y_zp = ys.zero_point;
  }
  QTensor y{{G, M, N}, std::vector<int32_t>(uint64_t(G) * M * N), y_type};
  for (uint32_t g = 0; g < G; ++g) {
    const uint32_t gb = g / (G / Gb);
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t n = 0; n < N; ++n) {
        int64_t acc = 0;
        for (uint32_t d = 0; d < D; ++d)
          acc += int64_t(a.data[(uint64_t(g) * M + m) * D + d] - as.zero_point) *
                 int64_t(b.data[(uint64_t(gb) * D + d) * N + n] - bs.zero_point);
        if (acc < INT32_MIN || acc > INT32_MAX) fail(op, "a sum overflows int32");
        y.data[(uint64_t(g) * M + m) * N + n] =
            raw ? int32_t(acc) : requantize(int32_t(acc), multiplier, y_zp, y_type);
      }
  }
  return y;
}

QTensor softmax(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type, bool causal) {
  const char* op = "softmax";
  check_rank(op, "x", x, 3);
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const uint32_t G = x.shape[0], M = x.shape[1], N = x.shape[2];
  if (causal && N < M) fail(op, "a causal softmax needs at least as many keys as queries");
  const float multiplier = f32(f32(1.0f / 65536.0f) / ys.scale);
  QTensor y{x.shape, std::vector<int32_t>(x.data.size()), y_type};
  for (uint32_t g = 0; g < G; ++g)
    for (uint32_t m = 0; m < M; ++m) {
      const uint64_t row = (uint64_t(g) * M + m) * N;
      const uint32_t seen = causal ? m + (N - M) + 1 : N;  // keys 0 .. seen-1
      int32_t largest = x.data[row];
      for (uint32_t n = 1; n < seen; ++n)
        if (x.data[row + n] > largest) largest = x.data[row + n];
      std::vector<uint64_t> e(seen);
      uint64_t total = 0;
      for (uint32_t n = 0; n < seen; ++n) {
        const double gap = double(largest - x.data[row + n]);  // in input steps, >= 0
        e[n] = uint64_t(std::nearbyint(std::ldexp(std::exp(-gap * double(xs.scale)), 16)));
        total += e[n];
      }
      for (uint32_t n = 0; n < N; ++n) {
        const uint64_t p = n < seen ? e[n] * 65536 / total : 0;
        y.data[row + n] = requantize(int32_t(p), multiplier, ys.zero_point, y_type);
      }
    }
  return y;
}

QTensor normalize(const QTensor& x, const Quant& xq, const std::vector<int32_t>& gamma,
                  ElemType gamma_type, const Quant& gq, const std::vector<int32_t>& beta,
                  double epsilon, bool rms, const Quant& yq, ElemType y_type) {
  const char* op = rms ? "rms_norm" : "layer_norm";
  check_rank(op, "x", x, 2);
  const uint32_t M = x.shape[0], C = x.shape[1];
  if (gamma.size() != C || (!beta.empty() && beta.size() != C))
    fail(op, "gamma and beta need one value per channel");
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single gs = detail::single(op, "gamma", gq, gamma_type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const double sx2 = double(xs.scale) * double(xs.scale);
  // epsilon in the integer units of the quantity under the root.
  const double eps_units = rms ? epsilon * 65536.0 / sx2 : epsilon * double(C) * double(C) / sx2;
  const uint64_t eps_int = uint64_t(std::fmin(std::nearbyint(eps_units), 4.0e18));
  const float multiplier = f32(f32(gs.scale / 4096.0f) / ys.scale);
  QTensor y{x.shape, std::vector<int32_t>(x.data.size()), y_type};
  std::vector<int64_t> dev(C);
  for (uint32_t m = 0; m < M; ++m) {
    const int32_t* v = x.data.data() + uint64_t(m) * C;
    int64_t sum = 0;
    for (uint32_t c = 0; c < C; ++c) sum += v[c] - xs.zero_point;
    // LayerNorm: C times each deviation from the mean (exact); RMSNorm: the values.
    uint64_t sum_sq = 0;
    for (uint32_t c = 0; c < C; ++c) {
      const int64_t centred = v[c] - xs.zero_point;
      dev[c] = rms ? centred : int64_t(C) * centred - sum;
      sum_sq += uint64_t(dev[c] * dev[c]);
    }
    const uint64_t under_root = rms ? sum_sq * 65536 / C : sum_sq / C;
    const int64_t denominator = int64_t(integer_sqrt(under_root + eps_int));
    const int64_t scale_up = rms ? int64_t(1) << 20 : int64_t(1) << 12;
    for (uint32_t c = 0; c < C; ++c) {
      const int64_t z = denominator == 0 ? 0 : dev[c] * scale_up / denominator;  // Q12
      int64_t acc = int64_t(gamma[c] - gs.zero_point) * z;
      if (!beta.empty()) acc += beta[c];
      y.data[uint64_t(m) * C + c] = requantize_wide(acc, multiplier, ys.zero_point, y_type);
    }
  }
  return y;
}

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
      break;
  }
  return "tanh";
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
      break;
  }
  return tanh_f32(v);
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

QTensor mul(const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq, const Quant& yq,
            ElemType y_type) {
  const char* op = "mul";
  detail::check_tensor(op, "a", a, 0);
  detail::check_tensor(op, "b", b, 0);
  if (a.shape.size() != b.shape.size()) fail(op, "a and b must have one rank");
  for (size_t d = 0; d < a.shape.size(); ++d)
    if (b.shape[d] != a.shape[d] && b.shape[d] != 1)
      fail(op, "each dimension of b must equal a's or be 1");
  const detail::Single as = detail::single(op, "a", aq, a.type);
  const detail::Single bs = detail::single(op, "b", bq, b.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const float ratio = f32(f32(as.scale * bs.scale) / ys.scale);
  const double lo = type_min(y_type), hi = type_max(y_type);
  QTensor y{a.shape, std::vector<int32_t>(a.data.size()), y_type};
  std::vector<size_t> index(a.shape.size(), 0);  // a's multi-index, last axis fastest
  for (size_t i = 0; i < a.data.size(); ++i) {
    size_t j = 0;  // b's flat index: a broadcast axis stays at 0
    for (size_t d = 0; d < a.shape.size(); ++d)
      j = j * b.shape[d] + (b.shape[d] == 1 ? 0 : index[d]);
    const int32_t product = (a.data[i] - as.zero_point) * (b.data[j] - bs.zero_point);
    const float v = f32(f32(float(product) * ratio) + float(ys.zero_point));
    const double r = double(std::nearbyint(v));
    y.data[i] = int32_t(r < lo ? lo : r > hi ? hi : r);
    for (size_t d = a.shape.size(); d-- > 0;) {
      if (++index[d] < a.shape[d]) break;
      index[d] = 0;
    }
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

QTensor rope(const QTensor& x, const Quant& xq, double base, uint32_t position_offset,
             const Quant& yq, ElemType y_type) {
  const char* op = "rope";
  check_rank(op, "x", x, 3);
  const uint32_t G = x.shape[0], M = x.shape[1], D = x.shape[2];
  if (D % 2 != 0) fail(op, "the last axis must be even");
  const detail::Single xs = detail::single(op, "x", xq, x.type);
  const detail::Single ys = detail::single(op, "y", yq, y_type);
  const float multiplier = f32(f32(xs.scale / 16384.0f) / ys.scale);
  QTensor y{x.shape, std::vector<int32_t>(x.data.size()), y_type};
  const uint32_t half = D / 2;
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t i = 0; i < half; ++i) {
      const double angle =
          (double(m) + double(position_offset)) * std::pow(base, -2.0 * double(i) / double(D));
      const int64_t c = int64_t(std::nearbyint(std::cos(angle) * 16384.0));
      const int64_t s = int64_t(std::nearbyint(std::sin(angle) * 16384.0));
      for (uint32_t g = 0; g < G; ++g) {
        const uint64_t at = (uint64_t(g) * M + m) * D;
        const int64_t first = x.data[at + i] - xs.zero_point;
        const int64_t second = x.data[at + i + half] - xs.zero_point;
        y.data[at + i] = requantize_wide(first * c - second * s, multiplier, ys.zero_point, y_type);
        y.data[at + i + half] =
            requantize_wide(second * c + first * s, multiplier, ys.zero_point, y_type);
      }
    }
  return y;
}

}  // namespace npusim::reference::qops
