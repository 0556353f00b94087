// Seed 002's compressed kernels, as the compiler produces them: for each
// kernel (output channel Z) and input channel kz, the non-zero coefficients
// with their (kx, ky) tap. The format is the smaller of raw and entries for
// the layer (entries cost 2 bytes per non-zero plus a count per channel, so
// dense kernels stay raw); in zero-skip mode the array skips zero
// coefficients either way. Byte layout: LayerDescriptor / WeightFormat.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/graph/weight_nonzeros.h"  // count_kernel_nonzeros, kernel_zeros
#include "sim/graph/workload.h"
#include "sim/program/program.h"
#include "sim/tensor/tensor.h"

namespace npusim {

struct KernelStream {
  WeightFormat format = WeightFormat::Raw;
  KernelCounts nonzeros;      // per kernel (shared by the operators of one weight region)
  std::vector<int8_t> bytes;  // all kernels, packed in order
};

// weights: K,R,S,C. `mode` Dense always uses raw (the ablation machine has no
// decompressor). Entries need R*S <= 255 (tap index and count are one byte each).
KernelStream encode_kernels(const TensorI8& weights, ComputeMode mode,
                            const std::vector<int8_t>& zero_of_kernel = {});

// What timing needs of encode_kernels' result: the format and the non-zeros per kernel, with
// no bytes (a timing-only run moves none).
KernelStream summarise_kernels(const TensorI8& weights, ComputeMode mode,
                               const std::vector<int8_t>& zero_of_kernel = {});

// The same from the non-zeros per kernel alone (K = their count), for weights counted without
// being stored: the format rule is summarise_kernels'.
KernelStream summary_from_counts(KernelCounts nonzeros, uint32_t R, uint32_t S, uint32_t C,
                                 ComputeMode mode);

// A binary layer's kernels (weights K,R,S,C of -1/+1): for each (k, r, s),
// ceil(C/bits) words of `bits` channel bits (bit 1 = +1, padding bits 0),
// each word bits/8 bytes little-endian. Format raw; no zero-skip counts.
KernelStream encode_binary_kernels(const TensorI8& weights, uint32_t bits);

// The stream of `layer`'s kernels: packed for a binary layer, else encode_kernels.
KernelStream encode_layer_kernels(const LayerConfig& layer, const TensorI8& weights,
                                  ComputeMode mode);

// summarise_kernels for `layer` (format raw and no counts for a binary layer).
KernelStream summarise_layer_kernels(const LayerConfig& layer, const TensorI8& weights,
                                     ComputeMode mode);

// The mode a layer's kernels are streamed for: hw's, but Dense (raw) for a
// layer of kernel parts, whose weight loads take each kernel's channels of
// a part (docs/tiling.md#kernel-parts).
inline ComputeMode kernel_stream_mode(const LayerDescriptor& layer, ComputeMode mode) {
  return layer.channels_per_part != 0 ? ComputeMode::Dense : mode;
}

// Sets the layer's weight_format and kernel_nonzeros from the stream.
void attach_kernel_stream(LayerDescriptor& layer, const KernelStream& stream);

}  // namespace npusim
