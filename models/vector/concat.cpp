#include "models/vector/concat.h"

#include <cmath>

namespace npusim::vector_kernels {

// QLinearConcat along channels: an input quantised like the output is
// copied; another is requantised value by value:
// nearbyint((x - x_zp) * x_scale / y_scale) + y_zp, saturated.
void concat_row(const LayerDescriptor& L, const InputView* in, uint32_t oh, int8_t* out) {
  const TensorQuant& y = L.quant.output;
  uint32_t k0 = 0;
  for (size_t i = 0; i <= L.more_inputs.size(); ++i) {
    const InputView& x = in[i];
    const bool same =
        x.quant.type == y.type && x.quant.scale == y.scale && x.quant.zero_point == y.zero_point;
    for (uint32_t ow = 0; ow < L.out_w; ++ow)
      for (uint32_t c = 0; c < x.C; ++c) {
        const int32_t v = x.value((uint64_t(oh) * L.W + ow) * x.C + c);
        const float real = float(v - x.quant.zero_point) * x.quant.scale;
        out[uint64_t(ow) * L.K + k0 + c] =
            same ? int8_t(v)
                 : saturate(std::nearbyintf(real / y.scale) + float(y.zero_point), y.type);
      }
    k0 += x.C;
  }
}

}  // namespace npusim::vector_kernels
