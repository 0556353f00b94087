// What the resize unit tests (tests/unit/test_resize_*.cpp) share: a linear tap compared with its
// hand-worked neighbours and weights, a one-channel uint8 resize operator (scale 1, zero point 0)
// to run through the model and the reference, and a graph of one uint8 input and one operator
// for the front-ends' keys and errors.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "sim/program/program.h"
#include "sim/program/resize_taps.h"

namespace npusim::test {

// Exact weights when `margin` is 0 (whole factors), else within it (fractional scales).
inline void check_linear_tap(const LinearTap& t, uint32_t lo, uint32_t hi, float w_lo, float w_hi,
                             float margin = 0) {
  INFO("lo " << t.lo << " hi " << t.hi << " weights " << t.w_lo << ", " << t.w_hi);
  CHECK(t.lo == lo);
  CHECK(t.hi == hi);
  if (margin == 0) {
    CHECK(t.w_lo == w_lo);
    CHECK(t.w_hi == w_hi);
  } else {
    CHECK(t.w_lo == Approx(w_lo).margin(margin));
    CHECK(t.w_hi == Approx(w_hi).margin(margin));
  }
}

// One channel of uint8 (input scale 1, zero point 0) resized from `in` to `out` (height, width)
// by `scales` (rows, columns); the output at scale `y_scale`, zero point 0.
inline LayerDescriptor uint8_resize(ResizeMode mode, std::pair<uint32_t, uint32_t> in,
                                    std::pair<uint32_t, uint32_t> out,
                                    std::pair<float, float> scales, float y_scale = 1.0f) {
  LayerDescriptor d;
  d.op = OpKind::Resize;
  d.resize_mode = mode;
  d.N = 1, d.C = d.K = 1, d.H = in.first, d.W = in.second, d.R = d.S = 1;
  d.out_h = out.first, d.out_w = out.second;
  d.resize_scale_h = scales.first, d.resize_scale_w = scales.second;
  d.quant.inputs = {TensorQuant{QuantType::Uint8, 1.0f, 0}};
  d.quant.output = TensorQuant{QuantType::Uint8, y_scale, 0};
  return d;
}

// A graph of input x (`shape`, uint8 at scale 0.02, zero point 128) and the one operator `op`.
inline nlohmann::json one_input_graph(std::vector<uint32_t> shape, nlohmann::json op) {
  return {{"inputs",
           {{{"name", "x"},
             {"shape", std::move(shape)},
             {"dtype", "uint8"},
             {"scale", 0.02},
             {"zero_point", 128}}}},
          {"operators", {std::move(op)}}};
}

}  // namespace npusim::test
