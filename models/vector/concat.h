// The concat family: QLinearConcat along channels, every input's channels of
// an output row side by side, each requantised to the output's quantisation
// where it differs (docs/quantization.md).
#pragma once

#include <cstdint>

#include "models/vector/kernel_common.h"

namespace npusim::vector_kernels {

// All K channels of output row `oh` (vector_splits_channels) from the
// 1 + more_inputs inputs.
void concat_row(const LayerDescriptor& L, const InputView* in, uint32_t oh, int8_t* out);

}  // namespace npusim::vector_kernels
