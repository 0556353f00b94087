// How one layer's tensors enter and leave the DRAM image, and what the
// reference says its stored output must be. int8 tensors are NHWC or NCHW
// bytes (the layer's layouts); binary ones are packed N(C/b)HWb (docs/binary.md).
#pragma once

#include <cstdint>
#include <vector>

#include "models/dram_image.h"
#include "sim/compiler/kernel_stream.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"
#include "sim/tensor/tensor.h"
#include "sim/workload/layer_data.h"

namespace npusim {

// Input (packed when binary, else in the layer's input layout), kernel stream and the K x 8-byte
// parameters
// ({bias, scale}, or {threshold, flip} for a binary layer).
void lay_out_layer(DramImage& image, const LayerDescriptor& d, const LayerConfig& L,
                   const LayerData& data, const KernelStream& kernels);

// A norm's parameters (docs/transformers.md#layernorm): C x {int32 beta,
// int32 gamma byte}, at the descriptor's params_address.
void lay_out_norm_params(DramImage& image, const LayerDescriptor& d, const LayerData& data);

// The output the store wrote, as N,Ho,Wo,K int8 whatever its layout in DRAM
// (a packed one unpacked to -1/+1).
TensorI8 read_output(const DramImage& image, const LayerDescriptor& d);

// The reference output of the layer on `input`, in the form the store writes
// it: int8, or -1/+1 when the output is packed (an int8 layer feeding a binary
// one stores signs). `input` is what the layer reads: the previous layer's
// reference_output when chained, else its own input.
TensorI8 reference_output(const LayerConfig& L, const LayerDescriptor& d, const LayerData& data,
                          const TensorI8& input);

}  // namespace npusim
