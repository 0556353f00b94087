// The per-run check of graph workloads: each operator's expected output,
// computed by the independent ONNX-semantics reference (sim/reference/qops.h)
// from its producers' *reference* outputs (never the simulator's), and the
// simulator's output read back from its DRAM image. Both as NHWC values.
#pragma once

#include <vector>

#include "models/dram_image.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"
#include "sim/tensor/tensor.h"
#include "sim/workload/layer_data.h"

namespace npusim {

// One N,H,W,C tensor of every operator, in graph order. `graph_inputs` are
// the inputs' data (N,H,W,C bytes; uint8 held as bytes). With the
// fixed-point requantiser, convolutions and matmuls requantise their raw
// sums with it (written out here, apart from the store engine's).
// `weights_from[l]`, when given and >= 0, is the operator whose `data` holds
// operator l's weights (operators sharing one seeded weight tensor).
std::vector<TensorI32> graph_reference_outputs(const NetworkConfig& net,
                                               const std::vector<LayerData>& data,
                                               const std::vector<TensorI8>& graph_inputs,
                                               Requantiser requantiser,
                                               const std::vector<int64_t>& weights_from = {});

// The values operator `d` stored (int8, uint8 or int32 by its output type), N,H,W,K.
TensorI32 read_operator_output(const DramImage& image, const LayerDescriptor& d);

}  // namespace npusim
