// The softmax family: softmax over each head's channels of a token, with an
// optional causal mask, as an integer kernel (an exponential table, Q16
// probabilities) with a float32 requantiser at the end (docs/transformers.md;
// sim/reference/qsequence.cpp is the independent check).
#pragma once

#include <cstdint>

#include "models/vector/kernel_common.h"

namespace npusim::vector_kernels {

// All channels of output row (token) `oh`.
void softmax_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out);

}  // namespace npusim::vector_kernels
