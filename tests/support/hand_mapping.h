// The small layers and array the mapper's estimates, column pieces and layer
// views are worked out by hand on (tests/unit/test_loop_order_mapping.cpp,
// test_kernel_parts_estimate.cpp, test_column_pieces.cpp, test_layer_views.cpp).
#pragma once

#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"

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

// A program layer: 5 channels of 9 x 40, 3 kernels 3 rows by 7 columns,
// stride 2, padding 2: out_w = (40 + 4 - 7) / 2 + 1 = 19.
inline LayerDescriptor wide_kernel_descriptor() {
  LayerDescriptor d;
  d.name = "wide_kernel";
  d.C = 5, d.H = 9, d.W = 40, d.K = 3, d.R = 3, d.S = 7;
  d.stride = 2, d.padding = 2;
  d.out_h = 4, d.out_w = 19;
  return d;
}

}  // namespace npusim::test
