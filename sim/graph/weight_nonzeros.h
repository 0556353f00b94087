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

// Counts each of K kernels' coefficients other than the kernel's zero (its weight zero
// point; 0 when `zero_of_kernel` is empty), from the coefficients handed over in
// consecutive pieces of any size (a file read a chunk at a time, or all at once). The
// kernels lie one after another, `taps` coefficients each, or (`by_column`) down the
// columns of rows of K coefficients: kernel f is column f (a matmul's B [taps, K] as
// ONNX stores it).
class KernelNonzeroCounter {
 public:
  KernelNonzeroCounter(uint32_t K, uint64_t taps, bool by_column,
                       const std::vector<int8_t>& zero_of_kernel);
  // The next `size` coefficients.
  void add(const int8_t* coefficients, uint64_t size);
  // How many coefficients were handed over, and the counts (final once they are all).
  uint64_t seen() const { return seen_; }
  const std::vector<uint32_t>& counts() const { return counts_; }

 private:
  uint32_t K_;
  uint64_t taps_;
  bool by_column_;
  std::vector<int8_t> zeros_;
  std::vector<uint32_t> counts_;
  uint64_t seen_ = 0;
};

// The non-zeros of each of K kernels of `taps` coefficients lying one after another
// from `weights`.
std::vector<uint32_t> count_kernel_nonzeros(const int8_t* weights, uint32_t K, uint64_t taps,
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
