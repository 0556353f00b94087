// Independent reference implementations of the transformer operators
// (docs/transformers.md): a matmul of two activations batched over heads with
// grouped-query sharing, softmax with an optional causal mask, LayerNorm,
// RMSNorm, GELU, SiLU, sigmoid, hard sigmoid, hard swish, elementwise
// multiply and rotary embedding. Plain
// loops over logical tensors, written from the document's definitions and
// sharing no code with the simulator's models (models/vector/). One file per
// family: qbatch_matmul.cpp, qsoftmax.cpp, qnorm.cpp, qactivation.cpp,
// qeltwise.cpp (mul, beside add) and qrope.cpp.
// Every function throws std::invalid_argument on bad shapes or parameters.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/reference/qops.h"

namespace npusim::reference::qops {

// y[g] = a[g] x b[g / (G / Gb)] for a [G, M, D] and b [Gb, D, N] (ONNX MatMul
// with b's batch repeated G / Gb times: grouped-query attention). Int32 y:
// the raw sums of (a - a_zp)(b - b_zp) (MatMulInteger); 8-bit y: requantised
// with (a_scale * b_scale) / y_scale as QLinearMatMul.
QTensor batch_matmul(const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq,
                     const Quant& yq, ElemType y_type);

// Softmax along the last axis of x [G, M, N]; causal: row m sees keys
// n <= m + (N - M), the others get probability 0.
QTensor softmax(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type, bool causal);

// Normalisation along the last axis of x [M, C] with per-channel gamma
// (stored values, quantised by gq) and beta (int32, scale gamma_scale / 2^12;
// empty: none). Layer: LayerNorm (the deviations from the mean); Rms: RMSNorm
// (the values).
enum class NormForm { Layer, Rms };
QTensor normalize(const QTensor& x, const Quant& xq, const std::vector<int32_t>& gamma,
                  ElemType gamma_type, const Quant& gq, const std::vector<int32_t>& beta,
                  double epsilon, NormForm form, const Quant& yq, ElemType y_type);

// Elementwise activations of one 8-bit value. Gelu in double (as
// docs/transformers.md defines it); Silu (v * sigmoid(v)), Sigmoid,
// HardSigmoid (alpha, beta), HardSwish, Tanh (its rational tanh) and
// LeakyRelu (v for v >= 0, else alpha * v) in
// float32, as ONNX Runtime
// computes them on a dequantised float tensor (sigmoid: its rational
// logistic, fused multiply-adds): v = float(x - x_zp) * x_s,
// y = clamp(round_half_even(f(v) / y_s) + y_zp).
enum class Activation { Gelu, Silu, Sigmoid, HardSigmoid, HardSwish, Tanh, LeakyRelu };
QTensor activation(const QTensor& x, const Quant& xq, Activation f, const Quant& yq,
                   ElemType y_type, float alpha = 0.2f, float beta = 0.5f);

// Elementwise product as ONNX Runtime's QLinearMul computes it on x86-64:
// y = saturate(round_half_even(float((a - a_zp) * (b - b_zp)) * m + y_zp)),
// m = (a_s * b_s) / y_s, every step in float32. b has a's rank; each of its
// dimensions equals a's or is 1 (broadcast, as numpy and ONNX).
QTensor mul(const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq, const Quant& yq,
            ElemType y_type);

// Rotary embedding (rotate-half) of x [G, M, D] at positions m + position_offset.
QTensor rope(const QTensor& x, const Quant& xq, double base, uint32_t position_offset,
             const Quant& yq, ElemType y_type);

// ONNX Runtime's float32 logistic (its rational approximation on [-18, 18],
// fused multiply-adds as its x86-64 kernel evaluates them).
float logistic(float v);
// ONNX Runtime's float32 tanh (its rational approximation on [-9, 9], fused
// multiply-adds as its x86-64 kernel evaluates them).
float tanh_f32(float v);

// floor(sqrt(v)), digit by digit.
uint64_t integer_sqrt(uint64_t v);

}  // namespace npusim::reference::qops
