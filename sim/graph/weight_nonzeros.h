// A kernel's non-zero coefficients: what the zero-skip array (seed 003) skips
// is every coefficient equal to its kernel's zero (the weight zero point of a
// quantised operator, else 0), so what timing needs of a layer's weights is one
// count per kernel. A model's own weights (ONNX) are counted here; a timing-only
// import keeps only these counts (LayerConfig::weight_nonzeros) and drops the
// values, so that a model's weights are never all in memory at once.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/graph/shared_values.h"
#include "sim/graph/workload.h"

namespace npusim {

// The non-zeros of each of K kernels of `taps` coefficients lying one after another
// from `weights`: coefficients other than the kernel's zero (its weight zero point; 0
// when `zero_of_kernel` is empty), which zero skipping does not skip.
std::vector<uint32_t> count_kernel_nonzeros(const int8_t* weights, uint32_t K, uint64_t taps,
                                            const std::vector<int8_t>& zero_of_kernel);

// The same counts for K kernels whose coefficients lie across `rows` rows of K bytes, kernel f
// in column f (a matmul's B of [rows, K] as ONNX stores it, before its transposition).
std::vector<uint32_t> count_column_nonzeros(const int8_t* rows_of_k, uint64_t rows, uint32_t K,
                                            const std::vector<int8_t>& zero_of_kernel);

// Each kernel's "zero" coefficient: a graph operator's weight zero points, else none (empty: 0).
std::vector<int8_t> kernel_zeros(const LayerConfig& layer);

// The per-kernel counts of an array operator's own weights (a model's): the counts the
// import kept (weight_nonzeros, shared, not copied), else those of weight_values. Empty
// where the layer has neither, is binary or a batch_matmul (kernels at run time), or where
// the values do not fit K x R x S x C/groups (make_layer_weights then says so).
SharedValues<uint32_t> model_weight_nonzeros(const LayerConfig& layer);

// Replaces an array operator's weight_values by their per-kernel counts (weight_nonzeros):
// what a run that computes no values needs of them. A layer model_weight_nonzeros gives no
// counts for keeps its values.
void keep_only_weight_nonzeros(LayerConfig& layer);

}  // namespace npusim
