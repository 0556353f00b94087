// The requantisers of graph operators: what turns an int32 sum into an 8-bit
// output, one place for every engine that writes a quantised tensor (the
// store engine for convolutions and matmuls, the vector unit for global
// pooling). store.requantiser picks between them (docs/graphs.md#requantisers).
// It sits with the vector unit's kernels (models/vector), the floor below
// the engines, so that both the kernels and the store engine reach it.
#pragma once

#include <cstdint>

namespace npusim {

// float32 as ONNX Runtime computes QLinearConv (MlasRequantizeOutput):
// v = float(acc) * multiplier, clamped to [lo - zp, hi - zp], rounded half to
// even, plus zp.
int32_t requantise_float32(int32_t acc, float multiplier, int32_t zero_point, int32_t lo,
                           int32_t hi);

// The integer requantiser (store.requantiser fixed_point): (acc * scale +
// 2^(shift-1)) >> shift (round half up), plus zp, clamped to [lo, hi].
int32_t requantise_fixed_point(int32_t acc, uint32_t scale, uint32_t shift, int32_t zero_point,
                               int32_t lo, int32_t hi);

}  // namespace npusim
