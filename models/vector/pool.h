// The pooling family (PoolKind): max pooling, QLinearAveragePool and
// QLinearGlobalAveragePool over an output row's window of input pixels, on
// quantised bytes with ONNX Runtime's formulas (docs/quantization.md).
#pragma once

#include <cstdint>

#include "models/vector/kernel_common.h"

namespace npusim::vector_kernels {

// Each computes output channels [k_begin, k_end) of output row `oh` (all
// out_w pixels) into `out` (the row's K channels).
void max_pool_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, uint32_t k_begin,
                  uint32_t k_end, int8_t* out);
void average_pool_row(const LayerDescriptor& L, const InputView& x, uint32_t oh, uint32_t k_begin,
                      uint32_t k_end, int8_t* out);
void global_average_pool_row(const LayerDescriptor& L, const InputView& x, uint32_t k_begin,
                             uint32_t k_end, int8_t* out);

}  // namespace npusim::vector_kernels
