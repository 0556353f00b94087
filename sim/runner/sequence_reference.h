// The per-run check of the transformer operators (docs/transformers.md): the
// NHWC values of a sequence tensor ([1, C, tokens, 1], heads as groups of C)
// rearranged into the reference's logical tensors ([heads, tokens, dim]),
// run through sim/reference/qsequence.h, and rearranged back.
#pragma once

#include <vector>

#include "sim/graph/workload.h"
#include "sim/reference/qops.h"
#include "sim/tensor/tensor.h"
#include "sim/workload/layer_data.h"

namespace npusim {

// A graph tensor's element type and quantisation in the reference's terms
// (the graph and sequence checks both hand tensors to sim/reference/qops.h).
reference::qops::ElemType qops_elem_type(QuantType t);
reference::qops::Quant qops_quant(const TensorQuant& t);

// Operator L's expected N,H,W,K values from its inputs' N,H,W,C values.
TensorI32 sequence_reference_output(const LayerConfig& L, const LayerData& data,
                                    const std::vector<const TensorI32*>& inputs);

}  // namespace npusim
