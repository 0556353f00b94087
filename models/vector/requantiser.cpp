#include "models/vector/requantiser.h"

#include <algorithm>
#include <cmath>

namespace npusim {

int32_t requantise_float32(int32_t acc, float multiplier, int32_t zero_point, int32_t lo,
                           int32_t hi) {
  // Clamping before rounding equals clamping after: the bounds are integers.
  float v = float(acc) * multiplier;
  v = std::max(v, float(lo - zero_point));
  v = std::min(v, float(hi - zero_point));
  return int32_t(std::nearbyintf(v)) + zero_point;
}

int32_t requantise_fixed_point(int32_t acc, uint32_t scale, uint32_t shift, int32_t zero_point,
                               int32_t lo, int32_t hi) {
  int64_t v = int64_t(acc) * scale;
  if (shift > 0) v = (v + (int64_t(1) << (shift - 1))) >> shift;  // round half up
  return int32_t(std::clamp<int64_t>(v + zero_point, lo, hi));
}

}  // namespace npusim
