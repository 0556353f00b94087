// The vector unit's arithmetic for the transformer operators (softmax with an
// optional causal mask, layernorm, rmsnorm, the table activations (one per
// ActivationFn of sim/graph/op_table.h), mul, rope) on one
// output row (one token: out_w pixels of K channels). Integer kernels with a
// float32 requantiser at the end, exactly as docs/transformers.md defines them;
// sim/reference/qsequence.cpp is the independent check. Pure functions.
#pragma once

#include <cstdint>

#include "models/vector_ops.h"
#include "sim/program/program.h"

namespace npusim::sequence_ops {

// Output row `oh` of operator L into `out_row` (NHWC bytes). `params` is the
// norms' C x {int32 beta, int32 gamma} bank (nullptr for the others).
void compute_row(const LayerDescriptor& L, const vector_ops::InputView* inputs, uint32_t oh,
                 const int8_t* params, int8_t* out_row);

// floor(sqrt(v)) for any 64-bit v (Newton's iteration, corrected).
uint64_t isqrt(uint64_t v);

}  // namespace npusim::sequence_ops
