#include "sim/program/resize_taps.h"

#include <algorithm>
#include <cmath>

namespace npusim {

float resize_position(ResizeCoordinates c, const ResizeAxis& axis, uint32_t o) {
  const float x = float(o), s = axis.scale;
  if (s == 1.0f) return x;  // ONNX Runtime skips the transform of an unscaled axis
  const float out = float(axis.out), in = float(axis.in);
  switch (c) {
    case ResizeCoordinates::HalfPixel:
      return (x + 0.5f) / s - 0.5f;
    case ResizeCoordinates::PytorchHalfPixel:
      return axis.out > 1 ? (x + 0.5f) / s - 0.5f : 0.0f;
    case ResizeCoordinates::AlignCorners:
      return axis.out == 1 ? 0.0f : x * (in - 1) / (out - 1);
    case ResizeCoordinates::Asymmetric:
      return x / s;
    case ResizeCoordinates::TfHalfPixelForNn:
      return (x + 0.5f) / s;
  }
  return x;
}

LinearTap linear_tap(ResizeCoordinates c, const ResizeAxis& axis, uint32_t o) {
  const float last = float(axis.in - 1);
  const float p = std::max(0.0f, std::min(resize_position(c, axis, o), last));
  LinearTap t;
  t.lo = std::min(uint32_t(p), axis.in - 1);
  t.hi = std::min(t.lo + 1, axis.in - 1);
  if (t.lo == t.hi) {
    t.w_lo = t.w_hi = 0.5f;
  } else {
    t.w_lo = std::fabs(p - float(t.hi));
    t.w_hi = std::fabs(p - float(t.lo));
  }
  return t;
}

CubicTap cubic_tap(ResizeCoordinates c, const ResizeAxis& axis, float a, bool exclude_outside,
                   uint32_t o) {
  const float p = resize_position(c, axis, o);
  const float floor_p = std::floor(p), t = p - floor_p;
  // Keys' kernel at the distances 1 + t, t, 1 - t and 2 - t, as ONNX Runtime
  // writes each polynomial (every step rounded to float32).
  const float near[2] = {t, 1 - t}, far[2] = {t + 1, 2 - t};
  const auto outer = [a](float d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
  const auto inner = [a](float d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
  CubicTap tap;
  tap.w[0] = outer(far[0]), tap.w[1] = inner(near[0]);
  tap.w[2] = inner(near[1]), tap.w[3] = outer(far[1]);
  const int64_t first = int64_t(floor_p) - 1, last = int64_t(axis.in) - 1;
  if (exclude_outside) tap.sum = 0;
  for (int i = 0; i < 4; ++i) {
    const int64_t at = first + i;
    if (exclude_outside) {
      if (at < 0 || at > last) tap.w[i] = 0;
      tap.sum += tap.w[i];
    }
    tap.index[i] = uint32_t(std::clamp<int64_t>(at, 0, last));
  }
  return tap;
}

uint32_t nearest_tap(ResizeCoordinates c, ResizeRounding r, const ResizeAxis& axis, uint32_t o) {
  const float p = resize_position(c, axis, o);
  // ONNX Runtime (1.30, measured) takes a position within one float32 step
  // of a half for the half itself.
  const float half = std::floor(p) + 0.5f;
  const float step = std::nextafter(std::fabs(p), INFINITY) - std::fabs(p);
  const bool tie = std::fabs(p - half) <= step;
  float picked = p;
  switch (r) {
    case ResizeRounding::RoundPreferFloor:
      picked = tie ? std::floor(p) : std::round(p);
      break;
    case ResizeRounding::RoundPreferCeil:
      picked = tie ? std::floor(p) + 1 : std::round(p);
      break;
    case ResizeRounding::Floor:
      picked = std::floor(p);
      break;
    case ResizeRounding::Ceil:
      picked = std::ceil(p);
      break;
  }
  if (picked <= 0) return 0;
  if (picked >= float(axis.in - 1)) return axis.in - 1;
  return uint32_t(picked);
}

}  // namespace npusim
