// Independent reference implementations of quantised ONNX operators, with the
// exact integer and float32 arithmetic of ONNX Runtime's CPU execution provider
// (docs/quantization.md derives every formula and says where it was confirmed).
// Plain loops over logical NCHW tensors, except that convolution and matmul
// accumulate as a GEMM over an im2col matrix (exact integers, checked against
// their direct loops, detail::conv_accumulate_naive; gemm_s16.h, plain loops the
// compiler vectorises); no hand-written SIMD, and no code shared with the
// simulator's models, so agreement with a model or compiler means something. Checked bit for bit
// against vectors produced by ONNX Runtime itself (tests/data/ort/, written by
// tools/ort-vectors; tests/unit/test_reference_ort.cpp).
//
// Every function throws std::invalid_argument on bad shapes, types, attributes
// or quantisation parameters; nothing is clamped or guessed silently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim::reference::qops {

enum class ElemType { Int8, Uint8, Int32 };

// Logical NCHW (ONNX order) for 4-D tensors, [M, K] for matmul operands; values held as int32.
struct QTensor {
  std::vector<uint32_t> shape;
  std::vector<int32_t> data;
  ElemType type = ElemType::Int8;
};

// Per-tensor (one entry) or per-channel (one entry per output channel) quantisation.
struct Quant {
  std::vector<float> scale;
  std::vector<int32_t> zero_point;
};

struct ConvAttrs {
  uint32_t group = 1;
  uint32_t dilation[2] = {1, 1};
  uint32_t stride[2] = {1, 1};
  // top, left, bottom, right = ONNX [h_begin, w_begin, h_end, w_end]
  uint32_t pads[4] = {0, 0, 0, 0};
};

struct PoolAttrs {
  uint32_t kernel[2] = {1, 1};
  uint32_t stride[2] = {1, 1};
  uint32_t pads[4] = {0, 0, 0, 0};
  uint32_t dilation[2] = {1, 1};
  bool ceil_mode = false;
  bool count_include_pad = false;
};

// A fused activation as an integer range in output quantised units (applied together with the
// dtype's saturation).
struct Clamp {
  int32_t lo = INT32_MIN, hi = INT32_MAX;
};

// The requantisation rule of QLinearConv/QLinearMatMul: saturate(round_half_to_even(float(acc) *
// multiplier) + zp), clamped to `clamp`.
int32_t requantize(int32_t acc, float multiplier, int32_t zero_point, ElemType type,
                   Clamp clamp = {});

// Convolution and matmul: acc = sum (x - x_zp) * (w - w_zp[k]) exactly, pads holding x_zp (so
// they add 0); the QLinear forms add bias[k] and requantize with the float32 multiplier
// (x_scale * w_scale[k]) / y_scale. The integer forms return Int32.
QTensor conv_integer(const QTensor& x, int32_t x_zp, const QTensor& w /*[K, C/group, R, S]*/,
                     const std::vector<int32_t>& w_zp /*1 or K*/, const ConvAttrs& a);
QTensor qlinear_conv(const QTensor& x, const Quant& xq, const QTensor& w,
                     const Quant& wq /*1 or K*/, const std::vector<int32_t>& bias /*empty or K*/,
                     const Quant& yq, ElemType y_type, const ConvAttrs& a, Clamp clamp = {});
QTensor matmul_integer(const QTensor& a /*[M,K]*/, int32_t a_zp, const QTensor& b /*[K,N]*/,
                       const std::vector<int32_t>& b_zp /*1 or N*/);
QTensor qlinear_matmul(
    const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq /*1 or N*/,
    const std::vector<int32_t>& bias /*empty or N; Gemm-style int32 bias added to the accumulator*/,
    const Quant& yq, ElemType y_type, Clamp clamp = {});
QTensor max_pool(const QTensor& x, const PoolAttrs& a);  // keeps x's type; pads never win
// com.microsoft QLinearAveragePool: float32 dequantise / sum / divide / requantise with the
// zero point added before rounding; a kernel covering the whole image without pads uses the
// global-pool formula (as ORT). No dilation; y_type must equal x's type.
QTensor qlinear_average_pool(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type,
                             const PoolAttrs& a);
// com.microsoft QLinearGlobalAveragePool: integer sum of (x - x_zp) requantized with the float32
// multiplier x_scale / (y_scale * H*W). Output [N, C, 1, 1]; y_type must equal x's type.
QTensor qlinear_global_average_pool(const QTensor& x, const Quant& xq, const Quant& yq,
                                    ElemType y_type);
// com.microsoft QLinearAdd as ORT's x86-64 AVX2/FMA kernel computes it (two FMAs on the raw
// values plus a folded zero-point constant). Same shape and one type for a, b and y.
QTensor qlinear_add(const QTensor& a, const Quant& aq, const QTensor& b, const Quant& bq,
                    const Quant& yq, ElemType y_type, Clamp clamp = {});
// com.microsoft QLinearConcat: each input through QuantizeLinear(x_scale * (x - x_zp)), or
// copied when its scale and zero point equal the output's. One type for all; any axis.
QTensor qlinear_concat(const std::vector<QTensor>& xs, const std::vector<Quant>& xqs,
                       const Quant& yq, ElemType y_type, uint32_t axis);
// ONNX Gather with 1-D indices on `axis`: output index j on that axis is input
// index indices[j] (negative counts from the end), every other axis kept.
QTensor gather(const QTensor& x, uint32_t axis, const std::vector<int64_t>& indices);
// ONNX Resize of an NCHW tensor's rows and columns to out_h x out_w at the float32
// scales scale_h and scale_w (the node's scales, or out / in from its sizes), as ONNX
// Runtime's CPU kernel computes it (qresize.cpp): output index i of an axis lies at ONNX's
// coordinate_transformation_mode `coordinates` (half_pixel, pytorch_half_pixel,
// align_corners, asymmetric or tf_half_pixel_for_nn) in float32, i itself on an axis of
// scale 1.
struct ResizeTo {
  uint32_t out_h = 1, out_w = 1;
  float scale_h = 1, scale_w = 1;
};
// Mode nearest: y[n][c][i][j] = x[n][c][row(i)][col(j)], each index picked from its
// coordinate by ONNX's `nearest_mode` (round_prefer_floor, round_prefer_ceil, floor or
// ceil) and clamped to the input.
QTensor resize_nearest(const QTensor& x, const ResizeTo& to, const std::string& coordinates,
                       const std::string& nearest_mode);
// Mode linear, between DequantizeLinear and QuantizeLinear as ONNX Runtime evaluates it (in
// float32: it does not fuse the pair): x dequantised, each output pixel the bilinear blend
// of its four neighbours with ONNX Runtime's clamping, weights and summation order, then
// QuantizeLinear.
QTensor resize_linear(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type,
                      const ResizeTo& to, const std::string& coordinates);
// Mode cubic, between DequantizeLinear and QuantizeLinear as ONNX Runtime evaluates it (in
// float32): x dequantised, each output pixel Keys' cubic convolution (coefficient
// `cubic_coeff_a`) of the 4 x 4 input pixels around its unclamped coordinate, indices clamped
// to the input; `exclude_outside` weighs the indices outside the input 0 and renormalises;
// each of the four rows along its columns, then the rows, in ONNX Runtime's order; then
// QuantizeLinear.
struct Cubic {
  float coeff_a = -0.75f;
  bool exclude_outside = false;
};
QTensor resize_cubic(const QTensor& x, const Quant& xq, const Quant& yq, ElemType y_type,
                     const ResizeTo& to, const std::string& coordinates, const Cubic& cubic);

// ---- Helpers (also used by the tests) ---------------------------------------------------

// Smallest / largest value of an element type.
int32_t type_min(ElemType t);
int32_t type_max(ElemType t);
const char* type_name(ElemType t);

// Round a float to the nearest integer, ties to the even neighbour (IEEE roundTiesToEven,
// what cvtps2dq / nearbyintf do in the default rounding mode). Written out with exact
// double arithmetic, independent of the FPU rounding mode.
double round_half_to_even(float v);

// The saturating store: clamp v to the dtype's range intersected with `clamp`.
int32_t saturate(int64_t v, ElemType type, Clamp clamp = {});

// QuantizeLinear as ONNX Runtime's MLAS computes it: saturate(round_half_to_even(value /
// scale) + zero_point), the division in float32.
int32_t quantize_linear(float value, float scale, int32_t zero_point, ElemType type);

// Output spatial size of a convolution or pool along one axis (floor or ceil mode), with
// ONNX Runtime's rule that a ceil-mode window must start inside the input or the begin pad.
uint32_t pooled_size(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t dilation,
                     uint32_t pad_begin, uint32_t pad_end, bool ceil_mode);

// ---- Shared checks of the implementation files (qops.cpp, qconv.cpp, qpool.cpp,
// qeltwise.cpp); not meant for callers -------------------------------------------------
namespace detail {

// Throws std::invalid_argument("qops::<op>: <what>").
[[noreturn]] void fail(const char* op, const std::string& what);
std::string dims(const std::vector<uint32_t>& shape);
uint64_t element_count(const std::vector<uint32_t>& shape);

// data.size() matches the shape, the rank is `rank` (0 = any), the type is one of the
// 8-bit types (or Int32 when allow_int32) and every value lies in the type's range.
void check_tensor(const char* op, const char* name, const QTensor& t, size_t rank,
                  bool allow_int32 = false);
void check_8bit(const char* op, const char* name, ElemType t);
void check_zero_point(const char* op, const char* name, int32_t zp, ElemType t);
void check_scale(const char* op, const char* name, float scale);

// A per-tensor quantisation: exactly one scale and one zero point of type t.
struct Single {
  float scale;
  int32_t zero_point;
};
Single single(const char* op, const char* name, const Quant& q, ElemType t);

// Per-tensor or per-channel parameters expanded to `count` entries (1 or count given).
std::vector<float> channel_scales(const char* op, const char* name, const Quant& q, uint32_t count);
std::vector<int32_t> channel_zero_points(const char* op, const char* name,
                                         const std::vector<int32_t>& zp, ElemType t,
                                         uint32_t count);

// The transformer operators' requantisation of a wide sum: saturated to int32
// first (as docs/transformers.md says), then requantize.
int32_t requantize_wide(int64_t acc, float multiplier, int32_t zero_point, ElemType type);

// saturate(round_half_to_even(v) + zero_point) for any float v, infinities included.
int32_t round_add_saturate(float v, int32_t zero_point, ElemType type, Clamp clamp = {});

// The value of a float32 expression rounded to float32 right here. Passing a product
// through this keeps the compiler from fusing it with a following add into one FMA
// (GCC contracts by default where the target has FMA), which would round once where ONNX
// Runtime rounds twice; it also drops x87 excess precision.
inline float f32(float v) {
  volatile float r = v;
  return r;
}

// ---- The exact accumulators of conv_integer / matmul_integer before the int32 check, for
// the tests (qconv.cpp): acc as defined above, [N, K, Ho, Wo] and [M, N]; w_zp / b_zp per
// tensor or per output channel / column; arguments checked as by conv_integer /
// matmul_integer. The plain forms are what the operators use (a GEMM over an im2col matrix of
// the centred input); the _naive forms are the direct loops, one int64 product per tap, that
// they are tested against (tests/unit/test_reference_fast_conv.cpp).
std::vector<int64_t> conv_accumulate(const QTensor& x, int32_t x_zp, const QTensor& w,
                                     const std::vector<int32_t>& w_zp, const ConvAttrs& a);
std::vector<int64_t> conv_accumulate_naive(const QTensor& x, int32_t x_zp, const QTensor& w,
                                           const std::vector<int32_t>& w_zp, const ConvAttrs& a);
std::vector<int64_t> matmul_accumulate(const QTensor& a, int32_t a_zp, const QTensor& b,
                                       const std::vector<int32_t>& b_zp);
std::vector<int64_t> matmul_accumulate_naive(const QTensor& a, int32_t a_zp, const QTensor& b,
                                             const std::vector<int32_t>& b_zp);

// requantize(acc[i] + add) for i < n into out[i], for accumulators that share the multiplier,
// zero point, type and clamp (one output channel's plane): the arguments are checked once, and
// each rounding takes its floor through int64 instead of a library call. A sum outside int32
// throws as conv_integer's does ("accumulator ... overflows int32", naming `op`). Tested against
// requantize() (tests/unit/test_reference_qops.cpp).
void requantize_run(const char* op, const int64_t* acc, size_t n, int64_t add, float multiplier,
                    int32_t zero_point, ElemType type, Clamp clamp, int32_t* out);

}  // namespace detail

}  // namespace npusim::reference::qops
