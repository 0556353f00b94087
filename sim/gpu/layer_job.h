// A simulator layer as the GPU path runs it: its shape and the parameters of
// each kernel's output rule, from the layer's config and generated data. One
// place for this translation, used by `npusim gpu` and the tests that feed
// the kernels (or their host emulation) the way the command does.
#pragma once

#include "sim/gpu/conv_job.h"
#include "sim/graph/workload.h"
#include "sim/workload/layer_data.h"

namespace npusim::gpu {

ConvShape conv_shape_of(const LayerConfig& layer);
PadMode pad_mode_of(BinaryPadMode mode);
// The binary kernel's parameters for a binary layer.
BinaryParams binary_params_of(const LayerConfig& layer, const LayerData& data);
// The direct kernel on an int8 layer: the layer's requantisation.
DirectParams requantize_params_of(const LayerConfig& layer, const LayerData& data);
// The direct kernel on a binary layer's +-1 values: the same threshold rule.
DirectParams binarize_params_of(const BinaryParams& binary);

}  // namespace npusim::gpu
