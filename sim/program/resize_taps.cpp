#include "sim/program/resize_taps.h"

#include <algorithm>
#include <cmath>

namespace npusim {

LinearTap linear_tap(ResizeCoordinates c, uint32_t o, uint32_t in, uint32_t factor) {
  const float out_len = float(uint64_t(in) * factor), last = float(in - 1);
  float p = 0;
  switch (c) {
    case ResizeCoordinates::HalfPixel:
      p = (float(o) + 0.5f) / float(factor) - 0.5f;
      break;
    case ResizeCoordinates::AlignCorners:
      p = out_len == 1 ? 0.0f : float(o) * last / (out_len - 1);
      break;
    case ResizeCoordinates::Asymmetric:
      p = float(o) / float(factor);
      break;
  }
  p = std::max(0.0f, std::min(p, last));
  LinearTap t;
  t.lo = std::min(uint32_t(p), in - 1);
  t.hi = std::min(t.lo + 1, in - 1);
  if (t.lo == t.hi) {
    t.w_lo = t.w_hi = 0.5f;
  } else {
    t.w_lo = std::fabs(p - float(t.hi));
    t.w_hi = std::fabs(p - float(t.lo));
  }
  return t;
}

}  // namespace npusim
