// The rope family: rotary position embedding, rotate-half pairs of each head
// of a token by its position's angles, cos and sin in Q14, with a float32
// requantiser at the end (docs/transformers.md; sim/reference/qsequence.cpp
// is the independent check).
#pragma once

#include <cstdint>

#include "models/vector/kernel_common.h"

namespace npusim::vector_kernels {

// All channels of output row (token) `oh`.
void rope_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out);

}  // namespace npusim::vector_kernels
