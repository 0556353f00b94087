// The vector unit's arithmetic: what its lanes compute for one output pixel
// of each graph operator it runs (max and average pooling, global average
// pooling, quantised add, concat), on quantised bytes, with the float32
// formulas ONNX Runtime uses (docs/quantization.md). Pure functions; the
// engine (models/vector_unit.h) moves the data and charges the time.
#pragma once

#include <cstdint>

#include "sim/program/program.h"

namespace npusim::vector_ops {

// One input tensor as the unit sees it: NHWC bytes of image n, its channel
// count and quantisation.
struct InputView {
  const int8_t* image = nullptr;  // N,H,W,C bytes of the batch being processed
  uint32_t C = 0;
  uint64_t pixels = 0;  // of one image; 1: a per-channel operand read by every pixel
  TensorQuant quant;
  int32_t value(uint64_t i) const {
    return quant.type == QuantType::Uint8 ? int32_t(uint8_t(image[i])) : int32_t(image[i]);
  }
};

// Computes output channels [k_begin, k_end) of output row `oh` (all out_w
// pixels; NHWC bytes into `out_row`, which holds the row's K channels) of
// operator L from its inputs (one, or several for add/concat). Concat takes
// all K channels (vector_splits_channels).
void compute_row(const LayerDescriptor& L, const InputView* inputs, uint32_t oh, uint32_t k_begin,
                 uint32_t k_end, int8_t* out_row);

}  // namespace npusim::vector_ops
