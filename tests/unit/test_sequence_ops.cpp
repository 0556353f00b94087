// The transformer operators' numerics (docs/transformers.md): hand-computed
// cases for the model (models/vector/) and the independent reference
// (sim/reference/qsequence.h), and the two against each other bit for bit on
// seeded data.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "models/vector/norm.h"
#include "models/vector/vector_kernels.h"
#include "sim/reference/qsequence.h"
#include "sim/workload/layer_data.h"

using namespace npusim;
namespace q = reference::qops;

namespace {

TensorQuant tq(QuantType t, float scale, int32_t zp) { return {t, scale, zp}; }

// A descriptor for a vector operator over rows x C (W = 1).
LayerDescriptor seq_layer(OpKind op, uint32_t rows, uint32_t C, std::vector<TensorQuant> inputs,
                          TensorQuant out) {
  LayerDescriptor L;
  L.op = op, L.quantized = true;
  L.N = 1, L.C = C, L.H = rows, L.W = 1, L.K = C, L.R = L.S = 1;
  L.out_h = rows, L.out_w = 1;
  L.quant.inputs = std::move(inputs);
  L.quant.output = out;
  return L;
}

// Runs the model over every row of `values` (rows x C bytes).
std::vector<int32_t> model_rows(const LayerDescriptor& L, const std::vector<int8_t>& a,
                                const std::vector<int8_t>& b = {},
                                const std::vector<int8_t>& params = {}) {
  std::vector<vector_kernels::InputView> views(1);
  views[0] = {a.data(), L.C, uint64_t(L.H) * L.W, L.quant.inputs[0]};
  // b: a's shape, or one pixel (a per-channel operand) when it holds C values.
  if (!b.empty()) views.push_back({b.data(), L.C, b.size() / L.C, L.quant.inputs[1]});
  std::vector<int8_t> out(uint64_t(L.H) * L.C);
  for (uint32_t oh = 0; oh < L.H; ++oh)
    vector_kernels::compute_row(L, views.data(), oh, 0, L.K,
                                params.empty() ? nullptr : params.data(),
                                out.data() + uint64_t(oh) * L.C);
  std::vector<int32_t> values;
  for (int8_t v : out)
    values.push_back(L.quant.output.type == QuantType::Uint8 ? int32_t(uint8_t(v)) : int32_t(v));
  return values;
}

std::vector<int8_t> norm_params(const std::vector<int32_t>& beta,
                                const std::vector<int8_t>& gamma) {
  std::vector<int8_t> p(gamma.size() * 8);
  for (size_t c = 0; c < gamma.size(); ++c) {
    const int32_t b = beta.empty() ? 0 : beta[c], g = gamma[c];
    std::memcpy(p.data() + c * 8, &b, 4);
    std::memcpy(p.data() + c * 8 + 4, &g, 4);
  }
  return p;
}

q::QTensor values(std::vector<uint32_t> shape, std::vector<int32_t> v, q::ElemType t) {
  return {std::move(shape), std::move(v), t};
}

const float kLn2 = 0.693147180559945f;

}  // namespace

TEST_CASE("softmax: halving exponentials give 137 68 34 17 of 256, in model and reference",
          "[sequence]") {
  // x_scale = ln 2: E[d] = 2^(16-d); codes 3 2 1 0 -> e = 65536 32768 16384 8192, sum
  // 122880, p = floor(e * 65536 / sum) = 34952 17476 8738 4369, / 256 (y_scale 1/256)
  // = 136.53 68.27 34.13 17.07 -> 137 68 34 17 (sum 256).
  const TensorQuant x = tq(QuantType::Int8, kLn2, 0), y = tq(QuantType::Uint8, 1.0f / 256, 0);
  const LayerDescriptor L = seq_layer(OpKind::Softmax, 1, 4, {x}, y);
  CHECK(model_rows(L, {3, 2, 1, 0}) == std::vector<int32_t>{137, 68, 34, 17});
  const q::QTensor r = q::softmax(values({1, 1, 4}, {3, 2, 1, 0}, q::ElemType::Int8), {{kLn2}, {0}},
                                  {{1.0f / 256}, {0}}, q::ElemType::Uint8, false);
  CHECK(r.data == std::vector<int32_t>{137, 68, 34, 17});
}

TEST_CASE("softmax: a causal mask lets row m see keys 0..m, each row summing to 128 of 128",
          "[sequence]") {
  // Equal inputs, y_scale 1/128: row 0 sees 1 key (128), row 1 two (64 64), row 2 three
  // (p = 21845 -> 42.67 -> 43 each, 129 in all), row 3 four (32 each).
  const TensorQuant x = tq(QuantType::Int8, 0.1f, 0), y = tq(QuantType::Uint8, 1.0f / 128, 0);
  const LayerDescriptor L = [&] {
    LayerDescriptor d = seq_layer(OpKind::Softmax, 4, 4, {x}, y);
    d.seq.causal = true;
    return d;
  }();
  const std::vector<int32_t> expected = {128, 0, 0, 0, 64, 64, 0, 0, 43, 43, 43, 0, 32, 32, 32, 32};
  CHECK(model_rows(L, std::vector<int8_t>(16, 5)) == expected);
  const q::QTensor r = q::softmax(values({1, 4, 4}, std::vector<int32_t>(16, 5), q::ElemType::Int8),
                                  {{0.1f}, {0}}, {{1.0f / 128}, {0}}, q::ElemType::Uint8, true);
  CHECK(r.data == expected);
}

TEST_CASE("softmax: every row of seeded data sums to 256 of 256 within half a step per key",
          "[sequence]") {
  // p sums to (65536 - n, 65536], so sum(y - zp) differs from 256 by at most n/2.
  const uint32_t n = 24, heads = 3, rows = 5;
  const TensorQuant x = tq(QuantType::Int8, 0.07f, -3), y = tq(QuantType::Int8, 1.0f / 256, -128);
  LayerDescriptor L = seq_layer(OpKind::Softmax, rows, n * heads, {x}, y);
  L.seq.heads = heads;
  SeededRandom rng(7);
  std::vector<int8_t> in(rows * n * heads);
  for (int8_t& v : in) v = int8_t(rng.uniform(-128, 127));
  const std::vector<int32_t> out = model_rows(L, in);
  for (uint32_t r = 0; r < rows * heads; ++r) {
    int64_t total = 0;
    for (uint32_t j = 0; j < n; ++j) total += out[r * n + j] + 128;
    INFO("row " << r);
    CHECK(std::abs(total - 256) <= int64_t(n / 2));
  }
}

TEST_CASE("layernorm: 1 2 3 4 normalise to -1.5 -0.5 0.5 1.5, rounded half to even", "[sequence]") {
  // T = 10, d = 4x - T = -6 -2 2 6, V = 80, isqrt(80 / 4) = 4, z = d * 4096 / 4 =
  // -6144 -2048 2048 6144; gamma 1, y_scale = gamma_scale: y = round(z / 4096) = -2 0 0 2;
  // beta 4096 on channel 0 moves it to round(-0.5) = 0.
  const TensorQuant x = tq(QuantType::Int8, 1.0f, 0), y = tq(QuantType::Int8, 1.0f / 64, 0);
  LayerDescriptor L = seq_layer(OpKind::LayerNorm, 1, 4, {x}, y);
  L.quant.weight_scale = {1.0f / 64}, L.quant.weight_zero_point = {0};
  L.quant.bias = true;
  L.seq.epsilon = 1e-12;
  CHECK(model_rows(L, {1, 2, 3, 4}, {}, norm_params({0, 0, 0, 0}, {1, 1, 1, 1})) ==
        std::vector<int32_t>{-2, 0, 0, 2});
  CHECK(model_rows(L, {1, 2, 3, 4}, {}, norm_params({4096, 0, 0, 0}, {1, 1, 1, 1})) ==
        std::vector<int32_t>{0, 0, 0, 2});
  const q::QTensor r =
      q::normalize(values({1, 4}, {1, 2, 3, 4}, q::ElemType::Int8), {{1.0f}, {0}}, {1, 1, 1, 1},
                   q::ElemType::Int8, {{1.0f / 64}, {0}}, {4096, 0, 0, 0}, 1e-12,
                   q::NormForm::Layer, {{1.0f / 64}, {0}}, q::ElemType::Int8);
  CHECK(r.data == std::vector<int32_t>{0, 0, 0, 2});
}

TEST_CASE("rmsnorm: 3 -4 with gamma 2 1 gives 27 -18, z truncated toward zero", "[sequence]") {
  // V = 25, (V << 16) / 2 = 819200, isqrt = 905; z = 3 * 2^20 / 905 = 3475 (3475.9),
  // -4 * 2^20 / 905 = -4634 (-4634.6); acc = 6950, -4634; multiplier (1 / 4096) / (1 / 16)
  // = 1/256: 27.15 -> 27, -18.10 -> -18.
  const TensorQuant x = tq(QuantType::Int8, 1.0f, 0), y = tq(QuantType::Int8, 1.0f / 16, 0);
  LayerDescriptor L = seq_layer(OpKind::RmsNorm, 1, 2, {x}, y);
  L.quant.weight_scale = {1.0f}, L.quant.weight_zero_point = {0};
  L.quant.bias = false;
  L.seq.epsilon = 1e-12;
  CHECK(model_rows(L, {3, -4}, {}, norm_params({}, {2, 1})) == std::vector<int32_t>{27, -18});
  const q::QTensor r = q::normalize(values({1, 2}, {3, -4}, q::ElemType::Int8), {{1.0f}, {0}},
                                    {2, 1}, q::ElemType::Int8, {{1.0f}, {0}}, {}, 1e-12,
                                    q::NormForm::Rms, {{1.0f / 16}, {0}}, q::ElemType::Int8);
  CHECK(r.data == std::vector<int32_t>{27, -18});
}

TEST_CASE("gelu and silu: hand values at 0, 1, -1 and a saturating 3", "[sequence]") {
  // x_scale 0.1, y_scale 0.01: gelu(1) = 0.8413 -> 84, gelu(-1) = -0.1587 -> -16,
  // gelu(3) = 2.996 -> 300 -> 127; silu(1) = 0.7311 -> 73, silu(-1) = -0.2689 -> -27.
  const TensorQuant x = tq(QuantType::Int8, 0.1f, 0), y = tq(QuantType::Int8, 0.01f, 0);
  const LayerDescriptor gelu = seq_layer(OpKind::Gelu, 1, 4, {x}, y);
  const LayerDescriptor silu = seq_layer(OpKind::Silu, 1, 4, {x}, y);
  CHECK(model_rows(gelu, {0, 10, -10, 30}) == std::vector<int32_t>{0, 84, -16, 127});
  CHECK(model_rows(silu, {0, 10, -10, 30}) == std::vector<int32_t>{0, 73, -27, 127});
  const q::QTensor in = values({4}, {0, 10, -10, 30}, q::ElemType::Int8);
  CHECK(q::activation(in, {{0.1f}, {0}}, q::Activation::Gelu, {{0.01f}, {0}}, q::ElemType::Int8)
            .data == std::vector<int32_t>{0, 84, -16, 127});
  CHECK(q::activation(in, {{0.1f}, {0}}, q::Activation::Silu, {{0.01f}, {0}}, q::ElemType::Int8)
            .data == std::vector<int32_t>{0, 73, -27, 127});
}

TEST_CASE("mul: (10 - 2) x (-3 - 1) at scales 0.5 x 0.25 / 0.1 is -40", "[sequence]") {
  const TensorQuant a = tq(QuantType::Int8, 0.5f, 2), b = tq(QuantType::Int8, 0.25f, 1);
  const TensorQuant y = tq(QuantType::Int8, 0.1f, 0);
  const LayerDescriptor L = seq_layer(OpKind::Mul, 1, 2, {a, b}, y);
  CHECK(model_rows(L, {10, 2}, {-3, 1}) == std::vector<int32_t>{-40, 0});
  CHECK(q::mul(values({2}, {10, 2}, q::ElemType::Int8), {{0.5f}, {2}},
               values({2}, {-3, 1}, q::ElemType::Int8), {{0.25f}, {1}}, {{0.1f}, {0}},
               q::ElemType::Int8)
            .data == std::vector<int32_t>{-40, 0});
}

TEST_CASE("mul: a per-channel [1, C, 1, 1] scale multiplies channel c of every pixel by b[c]",
          "[sequence]") {
  // 3 rows x 2 channels times b = (2, -1): channel 0 doubles, channel 1 negates. Indexing b
  // by pixel instead of channel would read past b or mix the columns.
  const TensorQuant a = tq(QuantType::Int8, 1.0f, 0), b = tq(QuantType::Int8, 1.0f, 0);
  const TensorQuant y = tq(QuantType::Int8, 1.0f, 0);
  LayerDescriptor L = seq_layer(OpKind::Mul, 3, 2, {a, b}, y);
  L.more_inputs.push_back({0, -1, 2, 1});  // one pixel per image
  CHECK(L.per_channel_input(0));
  CHECK(model_rows(L, {1, 2, 3, 4, 5, 6}, {2, -1}) == std::vector<int32_t>{2, -2, 6, -4, 10, -6});
  CHECK(q::mul(values({1, 3, 1, 2}, {1, 2, 3, 4, 5, 6}, q::ElemType::Int8), {{1.0f}, {0}},
               values({1, 1, 1, 2}, {2, -1}, q::ElemType::Int8), {{1.0f}, {0}}, {{1.0f}, {0}},
               q::ElemType::Int8)
            .data == std::vector<int32_t>{2, -2, 6, -4, 10, -6});
  // A same-shape operand is not per-channel, nor is one of a 1x1 map.
  L.more_inputs[0].rows = 3;
  CHECK_FALSE(L.per_channel_input(0));
}

TEST_CASE("mul adds the output zero point before rounding, as ONNX Runtime's QLinearMul",
          "[sequence]") {
  // (a - a_zp)(b - b_zp) = 7 at ratio 0.49999997f: 3.4999998 in float32; + 128 rounds to the
  // tie 131.5, which goes to the even 132. Rounding first and adding 128 after gives 131.
  const float just_below_half = 0.49999997f;
  const TensorQuant a = tq(QuantType::Int8, just_below_half, 0), b = tq(QuantType::Int8, 1.0f, 0);
  const TensorQuant y = tq(QuantType::Uint8, 1.0f, 128);
  const LayerDescriptor L = seq_layer(OpKind::Mul, 1, 1, {a, b}, y);
  CHECK(model_rows(L, {7}, {1}) == std::vector<int32_t>{132});
  CHECK(q::mul(values({1}, {7}, q::ElemType::Int8), {{just_below_half}, {0}},
               values({1}, {1}, q::ElemType::Int8), {{1.0f}, {0}}, {{1.0f}, {128}},
               q::ElemType::Uint8)
            .data == std::vector<int32_t>{132});
}

TEST_CASE("rope: position 0 is the identity, position 1 turns (10, 0) by one radian to (5, 8)",
          "[sequence]") {
  // dim 2: theta = p. cos 1 = 0.5403 -> 8852, sin 1 = 0.8415 -> 13787 (Q14); outputs
  // 10 * 8852 / 16384 = 5.40 -> 5 and 10 * 13787 / 16384 = 8.41 -> 8.
  const TensorQuant x = tq(QuantType::Int8, 1.0f, 0);
  const LayerDescriptor L = seq_layer(OpKind::Rope, 2, 2, {x}, x);
  CHECK(model_rows(L, {10, 0, 10, 0}) == std::vector<int32_t>{10, 0, 5, 8});
  CHECK(q::rope(values({1, 2, 2}, {10, 0, 10, 0}, q::ElemType::Int8), {{1.0f}, {0}}, 10000.0, 0,
                {{1.0f}, {0}}, q::ElemType::Int8)
            .data == std::vector<int32_t>{10, 0, 5, 8});
}

TEST_CASE("batch_matmul reference: two query heads share one key-value head", "[sequence]") {
  // a[0] = [1 2], a[1] = [3 -1]; b[0] = [[1 2] [3 4]]: y0 = [7 10], y1 = [0 2].
  const q::QTensor a = values({2, 1, 2}, {1, 2, 3, -1}, q::ElemType::Int8);
  const q::QTensor b = values({1, 2, 2}, {1, 2, 3, 4}, q::ElemType::Int8);
  const q::QTensor y = q::batch_matmul(a, {{1.0f}, {0}}, b, {{1.0f}, {0}}, {}, q::ElemType::Int32);
  CHECK(y.shape == std::vector<uint32_t>{2, 1, 2});
  CHECK(y.data == std::vector<int32_t>{7, 10, 0, 2});
}

TEST_CASE("integer square roots agree with floor(sqrt) at the edges, model and reference",
          "[sequence]") {
  const std::vector<std::pair<uint64_t, uint64_t>> cases = {
      {0, 0},
      {1, 1},
      {3, 1},
      {4, 2},
      {15, 3},
      {16, 4},
      {17, 4},
      {819200, 905},
      {(uint64_t(1) << 62), uint64_t(1) << 31},
      {UINT64_MAX, 0xFFFFFFFFull}};
  for (const auto& [v, root] : cases) {
    INFO(v);
    CHECK(vector_kernels::isqrt(v) == root);
    CHECK(q::integer_sqrt(v) == root);
  }
}

TEST_CASE("model and reference agree bit for bit on seeded rows of every vector operator",
          "[sequence]") {
  const uint32_t rows = 6, C = 40, heads = 4;
  SeededRandom rng(11);
  std::vector<int8_t> a(rows * C), b(rows * C), gamma(C);
  std::vector<int32_t> beta(C);
  for (int8_t& v : a) v = int8_t(rng.uniform(0, 255));  // uint8 bytes
  for (int8_t& v : b) v = int8_t(rng.uniform(-128, 127));
  for (int8_t& v : gamma) v = int8_t(rng.uniform(-127, 127));
  for (int32_t& v : beta) v = int32_t(rng.uniform(-5000, 5000));
  const TensorQuant xa = tq(QuantType::Uint8, 0.043f, 131), xb = tq(QuantType::Int8, 0.021f, -5);
  const TensorQuant y = tq(QuantType::Int8, 0.037f, 3);
  const auto as_values = [](const std::vector<int8_t>& v, bool u8) {
    std::vector<int32_t> out;
    for (int8_t x : v) out.push_back(u8 ? int32_t(uint8_t(x)) : int32_t(x));
    return out;
  };
  const std::vector<int32_t> av = as_values(a, true), bv = as_values(b, false);
  const q::Quant qa{{0.043f}, {131}}, qb{{0.021f}, {-5}}, qy{{0.037f}, {3}};
  // [rows, C] with heads of C / heads, as the reference wants it: [heads, rows, dim].
  const auto split = [&](const std::vector<int32_t>& v) {
    const uint32_t dim = C / heads;
    std::vector<int32_t> s(v.size());
    for (uint32_t g = 0; g < heads; ++g)
      for (uint32_t m = 0; m < rows; ++m)
        for (uint32_t j = 0; j < dim; ++j) s[(g * rows + m) * dim + j] = v[m * C + g * dim + j];
    return s;
  };
  SECTION("softmax, causal") {
    LayerDescriptor L = seq_layer(OpKind::Softmax, rows, C, {xa}, y);
    L.seq.heads = heads, L.seq.causal = true;
    const q::QTensor r = q::softmax(values({heads, rows, C / heads}, split(av), q::ElemType::Uint8),
                                    qa, qy, q::ElemType::Int8, true);
    CHECK(split(model_rows(L, a)) == r.data);
  }
  SECTION("layernorm and rmsnorm") {
    for (const OpKind op : {OpKind::LayerNorm, OpKind::RmsNorm}) {
      LayerDescriptor L = seq_layer(op, rows, C, {xa}, y);
      L.quant.weight_scale = {0.02f}, L.quant.weight_zero_point = {0};
      L.quant.bias = op == OpKind::LayerNorm;
      const q::QTensor r = q::normalize(
          values({rows, C}, av, q::ElemType::Uint8), qa, as_values(gamma, false), q::ElemType::Int8,
          {{0.02f}, {0}}, L.quant.bias ? beta : std::vector<int32_t>{}, 1e-5,
          op == OpKind::RmsNorm ? q::NormForm::Rms : q::NormForm::Layer, qy, q::ElemType::Int8);
      CHECK(model_rows(L, a, {}, norm_params(beta, gamma)) == r.data);
    }
  }
  SECTION("gelu, silu, mul and rope") {
    const q::QTensor x = values({rows * C}, av, q::ElemType::Uint8);
    CHECK(model_rows(seq_layer(OpKind::Gelu, rows, C, {xa}, y), a) ==
          q::activation(x, qa, q::Activation::Gelu, qy, q::ElemType::Int8).data);
    CHECK(model_rows(seq_layer(OpKind::Silu, rows, C, {xa}, y), a) ==
          q::activation(x, qa, q::Activation::Silu, qy, q::ElemType::Int8).data);
    CHECK(model_rows(seq_layer(OpKind::Mul, rows, C, {xa, xb}, y), a, b) ==
          q::mul(x, qa, values({rows * C}, bv, q::ElemType::Int8), qb, qy, q::ElemType::Int8).data);
    LayerDescriptor L = seq_layer(OpKind::Rope, rows, C, {xa}, y);
    L.seq.heads = heads, L.seq.position_offset = 7;
    const q::QTensor r = q::rope(values({heads, rows, C / heads}, split(av), q::ElemType::Uint8),
                                 qa, 10000.0, 7, qy, q::ElemType::Int8);
    CHECK(split(model_rows(L, a)) == r.data);
  }
}
