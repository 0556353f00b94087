// The taps of a linear (bilinear) resize (ONNX Resize, mode linear) by an
// integer factor, as ONNX Runtime's CPU kernel works them out, in float32:
// output index o lies at input position p (ResizeCoordinates: half_pixel
// (o + 0.5) / f - 0.5, align_corners o * (in - 1) / (in * f - 1), asymmetric
// o / f), clamped to [0, in - 1]; it reads input indices lo = floor(p) and
// hi = min(lo + 1, in - 1), weighted |p - hi| and |p - lo| (both 0.5 where
// lo == hi). An output pixel is then, in float32 and in this order,
//   (wx_lo * wy_lo) * X[y_lo][x_lo] + (wx_hi * wy_lo) * X[y_lo][x_hi]
//   + (wx_lo * wy_hi) * X[y_hi][x_lo] + (wx_hi * wy_hi) * X[y_hi][x_hi]
// of the dequantised inputs, quantised as QuantizeLinear does (docs/graphs.md).
// The model's side: the vector unit and the rows an instruction loads.
#pragma once

#include <cstdint>

#include "sim/graph/workload.h"

namespace npusim {

struct LinearTap {
  uint32_t lo = 0, hi = 0;
  float w_lo = 0, w_hi = 0;
};

// Output index `o` of an axis of `in` inputs upsampled by `factor`.
LinearTap linear_tap(ResizeCoordinates c, uint32_t o, uint32_t in, uint32_t factor);

}  // namespace npusim
