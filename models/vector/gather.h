// The gather family (GatherKind): outputs picked from input positions, a
// channel gather (each output channel copies a listed input channel) and a
// resize (each output pixel copies, or interpolates between, the input
// pixels its coordinates pick; sim/program/resize_taps.h).
#pragma once

#include <cstdint>

#include "models/vector/kernel_common.h"

namespace npusim::vector_kernels {

// All K channels of output row `oh`.
void gather_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out);
// Output channels [k_begin, k_end) of output row `oh`, nearest or linear.
void resize_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, uint32_t k_begin,
                uint32_t k_end, int8_t* out);

}  // namespace npusim::vector_kernels
