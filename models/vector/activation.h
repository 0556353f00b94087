// The activation family (ActivationFn): the table activations, one per
// ActivationFn of sim/graph/op_table.h (GELU, SiLU, sigmoid, hard sigmoid,
// hard swish, tanh), each a 256-entry table of the input's codes computed as
// docs/transformers.md#table-activations defines it (sim/reference/
// qsequence.cpp is the independent check).
#pragma once

#include <cstdint>

#include "models/vector/kernel_common.h"

namespace npusim::vector_kernels {

// All channels of output row `oh`.
void table_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, int8_t* out);

}  // namespace npusim::vector_kernels
