// The per-thread arithmetic of the GPU kernels, written once for both
// compilers: nvcc compiles it into the kernels (sim/gpu/*.cu) and g++ compiles
// it into the host emulation (sim/gpu/host_emulation.cpp) that the unit tests
// compare bit for bit with the reference. So the index math, the masked
// XOR-popcount dot, the threshold rule, the packing of decisions and the
// requantisation the kernels run are exactly what the CPU tests check.
//
// Nothing here allocates, throws or touches CUDA APIs: plain inline functions
// on plain integers and pointers.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define NPUSIM_HD __host__ __device__
#else
#define NPUSIM_HD
#endif
// Unroll in the device pass only: the host compiler warns about the pragma.
#if defined(__CUDA_ARCH__)
#define NPUSIM_UNROLL _Pragma("unroll")
#else
#define NPUSIM_UNROLL
#endif

namespace npusim::gpu {

// Largest per-thread output tile side; register arrays are sized by it so
// that fully unrolled loops keep them in registers (runtime sizes <= this).
constexpr uint32_t kMaxThreadTile = 4;
// Output channels one lane computes per output word: 1 for b = 32, 2 for 64.
constexpr uint32_t kMaxChannelsPerLane = 2;
constexpr uint32_t kWarp = 32;  // the ballot packs one decision per lane

enum class PadMode : uint32_t { Skip = 0, PlusOne = 1, MinusOne = 2 };

// Everything a binary or direct (int8 / float) convolution kernel needs to
// know about the layer and its block tiling; passed by value to the kernels.
struct ConvGeometry {
  uint32_t n = 1, c = 0, h = 0, w = 0;  // input N, C, H, W
  uint32_t k = 0, r = 1, s = 1;         // K outputs, R x S kernel
  uint32_t stride = 1, padding = 0;
  uint32_t ho = 0, wo = 0;  // output rows and columns
  uint32_t bits = 32;       // b of N(C/b)HWb (binary kernel only)
  uint32_t in_groups = 0;   // ceil(C / b), or channel chunks for the direct kernel
  uint32_t out_groups = 0;  // ceil(K / b) (binary) or ceil(K / 32) (direct)
  uint32_t thread_rows = 1, thread_cols = 1;  // per-thread output tile
  uint32_t warp_rows = 1, warp_cols = 1;      // warps per block (each a thread tile)
  uint32_t block_rows = 1, block_cols = 1;    // output tile of a block
  uint32_t in_rows = 1, in_cols = 1;          // staged input footprint (with halo)
  uint32_t groups_per_stage = 1;              // channel groups staged at once
  PadMode pad_mode = PadMode::Skip;           // binary kernel; set from the layer, not by the plan
};

// ---- index math -----------------------------------------------------------

// Where a block works: blockIdx.z = n * out_groups + og, blockIdx.y / .x the
// output row / column tile; threadIdx.x is the lane and .y the warp, and
// thread t = warp * 32 + lane of `threads` stages shared memory.
struct BlockPlace {
  uint32_t n = 0, og = 0, by = 0, bx = 0;
};
NPUSIM_HD inline BlockPlace block_place(const ConvGeometry& g, uint32_t block_z, uint32_t block_y,
                                        uint32_t block_x) {
  return {block_z / g.out_groups, block_z % g.out_groups, block_y, block_x};
}

// Input footprint of `outputs` output rows (or columns): the halo the kernel
// window adds beyond the strided output positions.
NPUSIM_HD inline uint32_t footprint(uint32_t outputs, uint32_t stride, uint32_t kernel) {
  return (outputs - 1) * stride + kernel;
}

// Word index of (n, group, y, x) in N(C/b)HWb: group g+1 of a pixel lies
// H*W words after group g.
NPUSIM_HD inline uint64_t packed_index(uint32_t n, uint32_t group, uint32_t y, uint32_t x,
                                       uint32_t groups, uint32_t h, uint32_t w) {
  return ((uint64_t(n) * groups + group) * h + y) * w + x;
}

// Packed weights: K,R,S,C packed like an image with N = K, H = R, W = S
// (pack_nhwc on the KRSC tensor), so group g+1 of a tap lies R*S words on.
NPUSIM_HD inline uint64_t packed_weight_index(uint32_t k, uint32_t r, uint32_t s, uint32_t group,
                                              uint32_t R, uint32_t S, uint32_t groups) {
  return packed_index(k, group, r, s, groups, R, S);
}

// First input row (column) of a block's footprint; may be negative (padding).
NPUSIM_HD inline int64_t footprint_origin(uint32_t first_output, uint32_t stride,
                                          uint32_t padding) {
  return int64_t(first_output) * stride - int64_t(padding);
}

// The output pixel of element (i, j) of warp `warp`'s thread tile in the
// block at (by, bx): warps tile the block warp_rows x warp_cols, each warp a
// thread_rows x thread_cols tile. May lie past the output (edge blocks).
struct OutputPixel {
  uint32_t oy = 0, ox = 0;
};
NPUSIM_HD inline OutputPixel thread_tile_pixel(const ConvGeometry& g, uint32_t by, uint32_t bx,
                                               uint32_t warp, uint32_t i, uint32_t j) {
  return {by * g.block_rows + (warp / g.warp_cols) * g.thread_rows + i,
          bx * g.block_cols + (warp % g.warp_cols) * g.thread_cols + j};
}

// The binary kernel's epilogue: the N(K/b)HWb word that element (i, j) of the
// warp's tile writes (image n, output group og), or kNoOutputWord when the
// pixel lies past the output. The kernel and the host emulation both call it.
constexpr uint64_t kNoOutputWord = ~uint64_t(0);
NPUSIM_HD inline uint64_t binary_output_word(const ConvGeometry& g, uint32_t n, uint32_t og,
                                             uint32_t by, uint32_t bx, uint32_t warp, uint32_t i,
                                             uint32_t j) {
  const OutputPixel p = thread_tile_pixel(g, by, bx, warp, i, j);
  if (p.oy >= g.ho || p.ox >= g.wo) return kNoOutputWord;
  return packed_index(n, og, p.oy, p.ox, g.out_groups, g.ho, g.wo);
}

// ---- binary arithmetic ----------------------------------------------------

NPUSIM_HD inline uint32_t popcount(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return uint32_t(__popc(v));
#else
  return uint32_t(__builtin_popcount(v));
#endif
}
NPUSIM_HD inline uint32_t popcount(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return uint32_t(__popcll(static_cast<unsigned long long>(v)));
#else
  return uint32_t(__builtin_popcountll(v));
#endif
}

// The real channels of `group` (all b bits except in the last group when C is
// not a multiple of b). The mask matters for a +1 pad word, which is all ones.
template <typename Word>
NPUSIM_HD inline Word group_mask(uint32_t group, uint32_t channels) {
  constexpr uint32_t b = sizeof(Word) * 8;
  const uint32_t valid = channels - group * b;
  return valid >= b ? Word(~Word(0)) : Word((Word(1) << valid) - 1);
}

// Sum of a*w over the masked bits of one word pair (bit 1 = +1, bit 0 = -1):
// equal bits give +1, different bits -1, so dot = valid - 2 * popc(a ^ w).
template <typename Word>
NPUSIM_HD inline int32_t masked_dot(Word a, Word w, Word mask) {
  return int32_t(popcount(mask)) - 2 * int32_t(popcount(Word((a ^ w) & mask)));
}

// The word a padded tap reads: all ones for +1, all zeros for -1 (and for
// Skip, whose taps the dot loop leaves out).
template <typename Word>
NPUSIM_HD inline Word pad_word(PadMode mode) {
  return mode == PadMode::PlusOne ? Word(~Word(0)) : Word(0);
}

// The output rule: +1 iff (flip == 0 ? dot >= threshold : dot <= threshold).
NPUSIM_HD inline bool binary_decision(int32_t dot, int32_t threshold, uint32_t flip) {
  return flip == 0 ? dot >= threshold : dot <= threshold;
}

// What the warp ballot computes: bit `lane` of the word is lane's decision.
NPUSIM_HD inline uint32_t pack_decisions(const bool* decision, uint32_t lanes) {
  uint32_t word = 0;
  for (uint32_t lane = 0; lane < lanes; ++lane)
    if (decision[lane]) word |= uint32_t(1) << lane;
  return word;
}

// A 64-bit output word from two ballots: channels 0-31 of the group in the
// low half, 32-63 in the high half.
NPUSIM_HD inline uint64_t combine_ballots(uint32_t low, uint32_t high) {
  return uint64_t(low) | (uint64_t(high) << 32);
}

// ---- binary kernel: staging and the per-thread tile ---------------------

// Shared-memory layout of one stage of the binary kernel, in words:
//   input  [gs][in_rows][in_cols]  (the block footprint, halo included)
//   weights[gs][R][S][b]           (b = the block's output channels, lane-minor
//                                   so 32 lanes read 32 consecutive words)
NPUSIM_HD inline uint32_t binary_stage_input_words(const ConvGeometry& g) {
  return g.groups_per_stage * g.in_rows * g.in_cols;
}
NPUSIM_HD inline uint32_t binary_stage_weight_words(const ConvGeometry& g) {
  return g.groups_per_stage * g.r * g.s * g.bits;
}

// Cooperative load of one stage (input groups [g0, g0 + gs)) into shared
// memory: thread `t` of `threads` copies every threads-th word. Positions
// outside the input get the pad word; output channels >= K get zero weights.
template <typename Word>
NPUSIM_HD inline void stage_binary_block(const ConvGeometry& g, const Word* input,
                                         const Word* weights, uint32_t n, uint32_t out_group,
                                         uint32_t block_row, uint32_t block_col, uint32_t g0,
                                         Word* s_in, Word* s_w, uint32_t t, uint32_t threads) {
  const int64_t y0 = footprint_origin(block_row * g.block_rows, g.stride, g.padding);
  const int64_t x0 = footprint_origin(block_col * g.block_cols, g.stride, g.padding);
  const uint32_t in_words = binary_stage_input_words(g);
  for (uint32_t i = t; i < in_words; i += threads) {
    const uint32_t gi = i / (g.in_rows * g.in_cols);
    const uint32_t yy = (i / g.in_cols) % g.in_rows, xx = i % g.in_cols;
    const int64_t y = y0 + yy, x = x0 + xx;
    const uint32_t group = g0 + gi;
    const bool inside =
        group < g.in_groups && y >= 0 && y < int64_t(g.h) && x >= 0 && x < int64_t(g.w);
    s_in[i] = inside
                  ? input[packed_index(n, group, uint32_t(y), uint32_t(x), g.in_groups, g.h, g.w)]
                  : pad_word<Word>(g.pad_mode);
  }
  const uint32_t w_words = binary_stage_weight_words(g);
  for (uint32_t i = t; i < w_words; i += threads) {
    const uint32_t ch = i % g.bits;
    const uint32_t tap = i / g.bits;  // (gi * R + r) * S + s
    const uint32_t s = tap % g.s, r = (tap / g.s) % g.r, gi = tap / (g.s * g.r);
    const uint32_t k = out_group * g.bits + ch, group = g0 + gi;
    s_w[i] = (k < g.k && group < g.in_groups)
                 ? weights[packed_weight_index(k, r, s, group, g.r, g.s, g.in_groups)]
                 : Word(0);
  }
}

// One thread's share of one stage: for its thread_rows x thread_cols output
// pixels and its bits/32 output channels (lane, lane + 32), add the masked
// XOR-popcount dot over the staged groups and every kernel tap into `acc`.
// Taps outside the input are left out in Skip mode and read the pad word
// otherwise. The loops run to the compile-time maxima with runtime guards, so
// nvcc unrolls them and keeps `acc` in registers.
template <typename Word>
NPUSIM_HD inline void binary_thread_tile(
    const ConvGeometry& g, const Word* s_in, const Word* s_w, uint32_t lane, uint32_t warp,
    uint32_t block_row, uint32_t block_col, uint32_t g0,
    int32_t (&acc)[kMaxThreadTile][kMaxThreadTile][kMaxChannelsPerLane]) {
  const uint32_t lanes_channels = g.bits / kWarp;
  const uint32_t ty = (warp / g.warp_cols) * g.thread_rows;  // tile origin inside the block
  const uint32_t tx = (warp % g.warp_cols) * g.thread_cols;
  for (uint32_t gi = 0; gi < g.groups_per_stage; ++gi) {
    const uint32_t group = g0 + gi;
    if (group >= g.in_groups) break;
    const Word mask = group_mask<Word>(group, g.c);
    for (uint32_t r = 0; r < g.r; ++r) {
      for (uint32_t s = 0; s < g.s; ++s) {
        const Word* wrow = s_w + ((gi * g.r + r) * g.s + s) * g.bits;
        NPUSIM_UNROLL
        for (uint32_t i = 0; i < kMaxThreadTile; ++i) {
          if (i >= g.thread_rows) break;
          const uint32_t oy_local = ty + i;
          const int64_t iy =
              int64_t(block_row * g.block_rows + oy_local) * g.stride - int64_t(g.padding) + r;
          const bool row_inside = iy >= 0 && iy < int64_t(g.h);
          NPUSIM_UNROLL
          for (uint32_t j = 0; j < kMaxThreadTile; ++j) {
            if (j >= g.thread_cols) break;
            const uint32_t ox_local = tx + j;
            const int64_t ix =
                int64_t(block_col * g.block_cols + ox_local) * g.stride - int64_t(g.padding) + s;
            const bool inside = row_inside && ix >= 0 && ix < int64_t(g.w);
            if (!inside && g.pad_mode == PadMode::Skip) continue;
            const Word a = s_in[(gi * g.in_rows + oy_local * g.stride + r) * g.in_cols +
                                ox_local * g.stride + s];
            NPUSIM_UNROLL
            for (uint32_t q = 0; q < kMaxChannelsPerLane; ++q) {
              if (q >= lanes_channels) break;
              acc[i][j][q] += masked_dot<Word>(a, wrow[lane + q * kWarp], mask);
            }
          }
        }
      }
    }
  }
}

// Lane `lane`'s decision for channel slot q of a pixel: channels past K
// decide 0, so the last output group's unused high bits stay 0.
NPUSIM_HD inline bool binary_lane_decision(const ConvGeometry& g, int32_t dot,
                                           const int32_t* threshold, const uint8_t* flip,
                                           uint32_t out_group, uint32_t lane, uint32_t q) {
  const uint32_t k = out_group * g.bits + q * kWarp + lane;
  return k < g.k && binary_decision(dot, threshold[k], flip[k]);
}

// ---- int8 requantisation (the reference's rule, reference_conv.h) ---------

// v = (acc + bias) * scale (int64); v = round-half-up(v / 2^shift) as floor
// plus a remainder test; clamp to [-128, 127]; ReLU clamps below at 0.
NPUSIM_HD inline int8_t requantize(int32_t acc, int32_t bias, int32_t scale, uint32_t shift,
                                   bool relu) {
  int64_t v = (int64_t(acc) + int64_t(bias)) * int64_t(scale);
  if (shift > 0) {
    const int64_t floor_q = v >> shift;
    const int64_t rem = v & ((int64_t(1) << shift) - 1);
    v = floor_q + (rem >= (int64_t(1) << (shift - 1)) ? 1 : 0);
  }
  if (v < -128) v = -128;
  if (v > 127) v = 127;
  if (relu && v < 0) v = 0;
  return int8_t(v);
}

}  // namespace npusim::gpu
