// Where an ONNX Resize's output pixels read its input, as ONNX Runtime's CPU
// kernel works it out in float32 (upsample.h, upsamplebase.h), per axis of
// `in` inputs resized to `out` at the float32 scale `scale` (the node's scale,
// or out / in from its sizes; docs/graphs.md):
//  - the output index o lies at input position p: o itself where scale == 1,
//    else ResizeCoordinates: half_pixel (o + 0.5) / scale - 0.5,
//    pytorch_half_pixel the same but 0 where out == 1, align_corners
//    o * (in - 1) / (out - 1) (0 where out == 1), asymmetric o / scale,
//    tf_half_pixel_for_nn (o + 0.5) / scale;
//  - nearest reads the input index ResizeRounding picks from p (nearest_mode
//    round_prefer_floor: the nearest integer, halves down; round_prefer_ceil:
//    halves up; floor; ceil), clamped to [0, in - 1]; a position within one
//    float32 step of a half counts as the half (ONNX Runtime 1.30 rounds so,
//    measured: docs/quantization.md);
//  - linear clamps p to [0, in - 1]; it reads input indices lo = floor(p) and
//    hi = min(lo + 1, in - 1), weighted |p - hi| and |p - lo| (both 0.5 where
//    lo == hi). An output pixel is then, in float32 and in this order,
//      (wx_lo * wy_lo) * X[y_lo][x_lo] + (wx_hi * wy_lo) * X[y_lo][x_hi]
//      + (wx_lo * wy_hi) * X[y_hi][x_lo] + (wx_hi * wy_hi) * X[y_hi][x_hi]
//    of the dequantised inputs, quantised as QuantizeLinear does;
//  - cubic does not clamp p: it reads the four input indices floor(p) - 1 to
//    floor(p) + 2, each clamped to [0, in - 1], with Keys' coefficients of
//    t = p - floor(p) at ONNX's cubic_coeff_a (ResizeBiCubic's
//    GetCubicCoeffs, float32); exclude_outside zeroes the coefficients of
//    indices outside the input and divides by the sum of the four (1
//    otherwise). Row r of the four is, in float32 and in order,
//      h_r = sum over j of f32(wx_j / sum_x) * X[y_r][x_j]
//    and the output sum over r of f32(h_r * wy_r) / sum_y, quantised.
// The model's side: the vector unit and the rows an instruction loads (the
// reference computes its own, sim/reference/qresize.cpp).
#pragma once

#include <cstdint>

#include "sim/graph/workload.h"

namespace npusim {

// One axis of a resize: `in` inputs to `out` outputs at float32 `scale`.
struct ResizeAxis {
  uint32_t in = 1, out = 1;
  float scale = 1;
};

struct LinearTap {
  uint32_t lo = 0, hi = 0;
  float w_lo = 0, w_hi = 0;
};

// A cubic tap: the input indices (clamped), coefficients and their divisor.
struct CubicTap {
  uint32_t index[4] = {0, 0, 0, 0};
  float w[4] = {0, 0, 0, 0};
  float sum = 1;
};

// The input position of output index `o` (before any clamp).
float resize_position(ResizeCoordinates c, const ResizeAxis& axis, uint32_t o);
// Output index `o` of a linear resize.
LinearTap linear_tap(ResizeCoordinates c, const ResizeAxis& axis, uint32_t o);
// Output index `o` of a cubic resize at coefficient `a`.
CubicTap cubic_tap(ResizeCoordinates c, const ResizeAxis& axis, float a, bool exclude_outside,
                   uint32_t o);
// The input index output index `o` of a nearest resize copies.
uint32_t nearest_tap(ResizeCoordinates c, ResizeRounding r, const ResizeAxis& axis, uint32_t o);

}  // namespace npusim
