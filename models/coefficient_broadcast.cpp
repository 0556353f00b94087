#include "models/coefficient_broadcast.h"

#include <algorithm>

namespace npusim::coefficient_broadcast {

void compute_rows(const LayerDescriptor& L, const Instruction& in, const ByteTile& input,
                  int64_t tile_first_row, const std::vector<int16_t>& weights, SumTile& results,
                  uint32_t row_begin, uint32_t row_end, std::vector<uint32_t>& regions) {
  const uint32_t k_count = in.k_count(), Cg = L.group_channels();
  const uint32_t kernels_per_group = L.K / L.conv_groups;
  const uint32_t sw = col_stride(L), dh = dil_h(L), dw = dil_w(L);
  const uint64_t taps = uint64_t(L.R) * L.S;
  const uint64_t pixels = uint64_t(row_end - row_begin) * L.out_w;
  const bool quantized = L.quantized && !L.quant.inputs.empty();
  const int32_t x_zp = quantized ? L.quant.inputs[0].zero_point : 0;
  const bool x_unsigned = quantized && L.quant.inputs[0].type == QuantType::Uint8;
  // One region of `pixels` sums per kernel Z (uint32: wraps as int32 sums do).
  regions.assign(uint64_t(k_count) * pixels, 0);
  std::vector<int32_t> shifted(pixels);
  // Output pixel p's tap (ky, kx) of channel c lies at tile row
  // oh*stride - padding + ky*dh, column (ow*sw + kx*dw) of the padded row.
  const auto tap_value = [&](uint32_t oh, uint32_t ow, uint32_t ky, uint32_t kx, uint64_t c) {
    const int64_t row = int64_t(oh) * L.stride - L.padding + int64_t(ky) * dh - tile_first_row;
    const int8_t b = input.row(uint32_t(row))[(uint64_t(ow) * sw + uint64_t(kx) * dw) * L.C + c];
    return (x_unsigned ? int32_t(uint8_t(b)) : int32_t(b)) - x_zp;
  };
  // kz outer: each input channel's tile is used by every kernel that reads it.
  for (uint32_t kz = 0; kz < L.C; ++kz) {
    const uint32_t group = kz / Cg;
    const uint32_t channel = kz - group * Cg;  // within the group's kernels
    const uint32_t first = std::max(group * kernels_per_group, in.k_begin);
    const uint32_t last = std::min((group + 1) * kernels_per_group, in.k_end);
    for (uint32_t ky = 0; ky < L.R; ++ky)
      for (uint32_t kx = 0; kx < L.S; ++kx) {
        bool loaded = false;  // the shifted tile, built for the first kernel that needs it
        for (uint32_t z = first; z < last; ++z) {
          const int32_t w =
              weights[(uint64_t(z - in.k_begin) * taps + uint64_t(ky) * L.S + kx) * Cg + channel];
          if (w == 0) continue;  // skipped: never applied
          if (!loaded) {
            uint64_t p = 0;
            for (uint32_t oh = row_begin; oh < row_end; ++oh)
              for (uint32_t ow = 0; ow < L.out_w; ++ow)
                shifted[p++] = tap_value(oh, ow, ky, kx, kz);
            loaded = true;
          }
          uint32_t* region = regions.data() + uint64_t(z - in.k_begin) * pixels;
          for (uint64_t p = 0; p < pixels; ++p) region[p] += uint32_t(w * shifted[p]);
        }
      }
  }
  uint64_t p = 0;
  for (uint32_t oh = row_begin; oh < row_end; ++oh) {
    int32_t* out_row = results.row(oh - in.out_row_begin);
    for (uint32_t ow = 0; ow < L.out_w; ++ow, ++p)
      for (uint32_t k = 0; k < k_count; ++k)
        out_row[uint64_t(ow) * k_count + k] = int32_t(regions[uint64_t(k) * pixels + p]);
  }
}

}  // namespace npusim::coefficient_broadcast
