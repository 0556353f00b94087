// The norm family (NormKind): LayerNorm and RMSNorm over each token's
// channels, as integer kernels (an integer square root, Q12 normalised
// values) with a float32 requantiser at the end (docs/transformers.md;
// sim/reference/qsequence.cpp is the independent check).
#pragma once

#include <cstdint>

#include "models/vector/kernel_common.h"

namespace npusim::vector_kernels {

// All channels of output row (token) `oh`. `params` is the norm's
// C x {int32 beta, int32 gamma} bank.
void norm_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, const int8_t* params,
              int8_t* out);

// floor(sqrt(v)) for any 64-bit v (Newton's iteration, corrected).
uint64_t isqrt(uint64_t v);

}  // namespace npusim::vector_kernels
