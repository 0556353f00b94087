// The elementwise family (ElementwiseKind): QLinearAdd of two maps of one
// shape and QLinearMul (one shape, or a per-channel [N, C, 1, 1] second
// operand), in float32 as ONNX Runtime computes them (docs/quantization.md).
#pragma once

#include <cstdint>

#include "models/vector/kernel_common.h"

namespace npusim::vector_kernels {

// Output channels [k_begin, k_end) of every pixel of output row `oh`.
void add_row(const LayerDescriptor& L, const InputView* in, uint32_t oh, uint32_t k_begin,
             uint32_t k_end, int8_t* out);
// All channels of output row `oh`.
void mul_row(const LayerDescriptor& L, const InputView* in, uint32_t oh, int8_t* out);

}  // namespace npusim::vector_kernels
