// The store's two requantisers of graph operators against hand-worked numbers:
// float32 as ONNX Runtime computes it, and the fixed-point multiplier and shift
// (store.requantiser fixed_point) with the constants the host derives.
#include <catch2/catch.hpp>

#include "models/vector/requantiser.h"
#include "sim/program/program.h"

using namespace npusim;

TEST_CASE("fixed-point multiplier: the largest shift that keeps the scale in 16 bits",
          "[requant]") {
  // float(0.01) * 2^22 = 41943.04 -> 41943 (2^23 would give 83886 > 65535).
  CHECK(fixed_point_multiplier(0.01f).scale == 41943);
  CHECK(fixed_point_multiplier(0.01f).shift == 22);
  // 3 * 2^14 = 49152; 3 * 2^15 = 98304 is too big.
  CHECK(fixed_point_multiplier(3.0f).scale == 49152);
  CHECK(fixed_point_multiplier(3.0f).shift == 14);
  // Tiny multipliers stop at shift 47: float(1e-10) * 2^47 = 14073.75 -> 14074.
  CHECK(fixed_point_multiplier(1e-10f).shift == 47);
  CHECK(fixed_point_multiplier(1e-10f).scale == 14074);
  // Too large for 16 bits at shift 0: saturates.
  CHECK(fixed_point_multiplier(70000.0f).scale == 65535);
  CHECK(fixed_point_multiplier(70000.0f).shift == 0);
  CHECK(fixed_point_multiplier(3.0f).packed() == (49152 | 14 << 16));
}

TEST_CASE("fixed-point requantiser rounds half up, adds the zero point and clamps", "[requant]") {
  // 1000 * 41943 = 41,943,000; + 2^21 = 44,040,152; / 2^22 = 10.5000... -> 10.
  CHECK(requantise_fixed_point(1000, 41943, 22, 3, 0, 255) == 13);
  // 5 * 3 / 2 = 7.5 -> 8; -5 * 3 / 2 = -7.5 -> -7 (half up, not away from zero).
  CHECK(requantise_fixed_point(5, 3, 1, 0, -128, 127) == 8);
  CHECK(requantise_fixed_point(-5, 3, 1, 0, -128, 127) == -7);
  // Clamped to the range after the zero point: 200 + 100 -> 255; -300 + 100 -> 0 (relu range).
  CHECK(requantise_fixed_point(200, 1, 0, 100, 0, 255) == 255);
  CHECK(requantise_fixed_point(-300, 1, 0, 100, 100, 255) == 100);
}

TEST_CASE("float32 requantiser rounds half to even after scaling, as ONNX Runtime", "[requant]") {
  // 5 * 0.5 = 2.5 -> 2 (even); 7 * 0.5 = 3.5 -> 4; -5 * 0.5 = -2.5 -> -2.
  CHECK(requantise_float32(5, 0.5f, 0, -128, 127) == 2);
  CHECK(requantise_float32(7, 0.5f, 0, -128, 127) == 4);
  CHECK(requantise_float32(-5, 0.5f, 10, -128, 127) == 8);
  // Saturates at both ends of uint8 with zero point 128.
  CHECK(requantise_float32(1000, 1.0f, 128, 0, 255) == 255);
  CHECK(requantise_float32(-1000, 1.0f, 128, 0, 255) == 0);
}
