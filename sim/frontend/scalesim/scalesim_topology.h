// Imports a SCALE-Sim topology CSV as a network, so the layer lists users
// keep for SCALE-Sim run here unchanged (docs/config.md#scale-sim-topologies).
// The header row says which of SCALE-Sim's two formats a file holds:
//
//   convolution  Layer name, IFMAP Height, IFMAP Width, Filter Height,
//                Filter Width, Channels, Num Filter, Strides[, more columns]
//   GEMM         Layer name, M, N, K   (an M x K by K x N product: a 1x1
//                convolution over M pixels, K input and N output channels)
//
// SCALE-Sim's IFMAP sizes are what the array sees, padding included, so
// layers import with padding 0 and out = (in - filter) / stride + 1, as
// SCALE-Sim computes it. Blank rows, rows of empty cells, spaces around
// cells and a trailing comma are accepted. A column after Strides is a
// note and ignored, unless its header names a stride: that one must equal
// Strides (npusim has one stride for both axes).
#pragma once

#include <string>

#include "sim/graph/workload.h"

namespace npusim {

// Throws ConfigError naming "<file>:<line>" and the column ("/Channels").
NetworkConfig parse_scalesim_topology(const std::string& text, const std::string& file);

// True when `path` names a topology CSV (it ends in ".csv", any case).
bool is_scalesim_topology(const std::string& path);

}  // namespace npusim
