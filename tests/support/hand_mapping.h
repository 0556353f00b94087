// The small layer and array the mapper's estimates are worked out by hand on
// (tests/unit/test_loop_order_mapping.cpp, test_kernel_parts_estimate.cpp).
#pragma once

#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"

namespace npusim::test {

// C 16, 16x16, K 16, 3x3, pad 1 (the layer of test_mapper.cpp's hand derivations).
inline LayerConfig hand_conv_16() {
  LayerConfig L;
  L.name = "c";
  L.C = 16, L.H = 16, L.W = 16, L.K = 16, L.R = 3, L.S = 3;
  L.stride = 1, L.padding = 1;
  L.requant.scale.assign(L.K, 1);
  L.requant.shift = 8;
  return L;
}

// An 8 x 24 array (rows and columns told apart), unfolded stages.
inline HardwareConfig hand_array_8x24() {
  HardwareConfig hw;
  hw.fold = ArrayFold::Matmul;  // the unfolded formulas worked by hand
  hw.compute.array_rows = 8;
  hw.compute.array_cols = 24;
  return hw;
}

}  // namespace npusim::test
