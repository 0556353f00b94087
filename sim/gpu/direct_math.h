// The per-thread arithmetic of the direct (non-binary) convolution kernels --
// int8 with int32 accumulation, and the float baseline -- shared by nvcc (the
// kernels) and g++ (the host emulation), like kernel_math.h for the binary one.
//
// Same block structure as the binary kernel, so the comparison is about the
// arithmetic, not the tiling: 32 lanes = 32 consecutive output channels, each
// warp a thread tile of output pixels, the block's input footprint staged in
// shared memory a chunk of `groups_per_stage` channels at a time (here a
// "group" is one channel), weights staged lane-minor.
#pragma once

#include <cstdint>

#include "sim/gpu/kernel_math.h"

namespace npusim::gpu {

// What the direct kernel does with its sums.
enum class DirectEpilogue : uint32_t {
  Requantize = 0,  // int8 layer: the reference's requantisation -> int8
  Binarize = 1,    // binary layer run on +-1 int8 values: threshold/flip -> +-1
  Raw = 2,         // keep the sums (the float baseline writes them as float)
};

NPUSIM_HD inline uint32_t direct_stage_input_elems(const ConvGeometry& g) {
  return g.groups_per_stage * g.in_rows * g.in_cols;
}
NPUSIM_HD inline uint32_t direct_stage_weight_elems(const ConvGeometry& g) {
  return g.groups_per_stage * g.r * g.s * kWarp;
}

// NHWC input and KRSC weights; stages channels [c0, c0 + gs) of the block's
// footprint ([gs][in_rows][in_cols]) and of its 32 kernels ([gs][R][S][32]).
// Taps outside the input read `pad` (0 = skip / zero padding, or +-1).
template <typename T>
NPUSIM_HD inline void stage_direct_block(const ConvGeometry& g, const T* input, const T* weights,
                                         T pad, uint32_t n, uint32_t out_group, uint32_t block_row,
                                         uint32_t block_col, uint32_t c0, T* s_in, T* s_w,
                                         uint32_t t, uint32_t threads) {
  const int64_t y0 = footprint_origin(block_row * g.block_rows, g.stride, g.padding);
  const int64_t x0 = footprint_origin(block_col * g.block_cols, g.stride, g.padding);
  const uint32_t in_elems = direct_stage_input_elems(g);
  for (uint32_t i = t; i < in_elems; i += threads) {
    const uint32_t ci = i / (g.in_rows * g.in_cols);
    const uint32_t yy = (i / g.in_cols) % g.in_rows, xx = i % g.in_cols;
    const int64_t y = y0 + yy, x = x0 + xx;
    const uint32_t c = c0 + ci;
    const bool inside = y >= 0 && y < int64_t(g.h) && x >= 0 && x < int64_t(g.w);
    // A channel past C contributes nothing whatever the pad (its weight is 0).
    s_in[i] = c >= g.c ? T(0)
              : inside ? input[((uint64_t(n) * g.h + uint64_t(y)) * g.w + uint64_t(x)) * g.c + c]
                       : pad;
  }
  const uint32_t w_elems = direct_stage_weight_elems(g);
  for (uint32_t i = t; i < w_elems; i += threads) {
    const uint32_t lane = i % kWarp, tap = i / kWarp;  // tap = (ci * R + r) * S + s
    const uint32_t s = tap % g.s, r = (tap / g.s) % g.r, ci = tap / (g.s * g.r);
    const uint32_t k = out_group * kWarp + lane, c = c0 + ci;
    s_w[i] = (k < g.k && c < g.c) ? weights[((uint64_t(k) * g.r + r) * g.s + s) * g.c + c] : T(0);
  }
}

// One thread's share of one stage: its thread tile of pixels, output channel
// out_group * 32 + lane, multiply-accumulate over the staged channels and taps.
template <typename T, typename Acc>
NPUSIM_HD inline void direct_thread_tile(const ConvGeometry& g, const T* s_in, const T* s_w,
                                         uint32_t lane, uint32_t warp,
                                         Acc (&acc)[kMaxThreadTile][kMaxThreadTile]) {
  const uint32_t ty = (warp / g.warp_cols) * g.thread_rows;
  const uint32_t tx = (warp % g.warp_cols) * g.thread_cols;
  for (uint32_t ci = 0; ci < g.groups_per_stage; ++ci) {
    for (uint32_t r = 0; r < g.r; ++r) {
      for (uint32_t s = 0; s < g.s; ++s) {
        const Acc w = Acc(s_w[((ci * g.r + r) * g.s + s) * kWarp + lane]);
        NPUSIM_UNROLL
        for (uint32_t i = 0; i < kMaxThreadTile; ++i) {
          if (i >= g.thread_rows) break;
          const T* row = s_in + (ci * g.in_rows + (ty + i) * g.stride + r) * g.in_cols + s;
          NPUSIM_UNROLL
          for (uint32_t j = 0; j < kMaxThreadTile; ++j) {
            if (j >= g.thread_cols) break;
            acc[i][j] += Acc(row[(tx + j) * g.stride]) * w;
          }
        }
      }
    }
  }
}

// The int8 / binarised output value of one sum (Raw has no int8 value).
NPUSIM_HD inline int8_t direct_output(int32_t acc, DirectEpilogue e, int32_t bias, int32_t scale,
                                      uint32_t shift, bool relu, int32_t threshold, uint32_t flip) {
  if (e == DirectEpilogue::Binarize) return binary_decision(acc, threshold, flip) ? 1 : -1;
  return requantize(acc, bias, scale, shift, relu);
}

}  // namespace npusim::gpu
