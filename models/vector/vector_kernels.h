// The vector unit's arithmetic: what its lanes compute for one output row of
// each graph operator it runs, on quantised bytes, with the float32 formulas
// ONNX Runtime uses (docs/quantization.md) or, for the transformer operators,
// integer kernels with a float32 requantiser at the end (docs/transformers.md).
// One file pair per operator family in this folder (pool, elementwise, concat,
// gather, softmax, norm, activation, rope); compute_row dispatches on the
// family and its sub-kind. Pure functions, no SystemC; the engine
// (models/vector_unit.h) moves the data and charges the time.
#pragma once

#include <cstdint>

#include "models/vector/kernel_common.h"
#include "sim/program/program.h"

namespace npusim::vector_kernels {

// Computes output row `oh` of operator L (all out_w pixels; NHWC bytes into
// `out_row`, which holds the row's K channels) from its inputs (one, or
// several for add, mul and concat). The map operators (pools, add, gather,
// resize) compute output channels [k_begin, k_end) only; concat and the
// transformer operators compute all K (vector_splits_channels). `params` is
// the norms' C x {int32 beta, int32 gamma} bank (nullptr for the others).
void compute_row(const LayerDescriptor& L, const InputView* inputs, uint32_t oh, uint32_t k_begin,
                 uint32_t k_end, const int8_t* params, int8_t* out_row);

}  // namespace npusim::vector_kernels
