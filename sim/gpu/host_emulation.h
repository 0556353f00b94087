// Host emulation of the GPU kernels: the kernels' grid, block, stage and
// thread loops run one after another on the CPU, calling the same
// __host__ __device__ functions (kernel_math.h, direct_math.h) with the same
// tiling plan. The warp ballot is emulated by pack_decisions over the 32
// lanes. This checks the kernels' index math, staging, masking and output
// rule on the CPU; it is not a GPU result and measures nothing about a GPU.
#pragma once

#include <vector>

#include "sim/gpu/conv_job.h"
#include "sim/gpu/tiling_plan.h"
#include "sim/tensor/layout.h"
#include "sim/tensor/tensor.h"

namespace npusim::gpu {

// input: N(C/b)HWb; weights: K,R,S,C packed the same way (pack_nhwc of the
// KRSC tensor). Returns the output packed N(K/b)HoWob.
PackedTensor emulate_binary_conv(const PackedTensor& input, const PackedTensor& weights,
                                 const ConvShape& shape, const BinaryParams& p,
                                 const TilingPlan& plan);

// NHWC int8 input, KRSC int8 weights -> NHWC int8 (Requantize or Binarize).
TensorI8 emulate_direct_int8(const TensorI8& input, const TensorI8& weights, const ConvShape& shape,
                             const DirectParams& p, const TilingPlan& plan);

// The float baseline on the same values: NHWC float sums N,Ho,Wo,K.
std::vector<float> emulate_direct_float(const TensorI8& input, const TensorI8& weights,
                                        const ConvShape& shape, int8_t pad_value,
                                        const TilingPlan& plan);

}  // namespace npusim::gpu
