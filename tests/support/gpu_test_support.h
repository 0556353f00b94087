// What the GPU kernel tests (device and host emulation) share: the channel
// counts and padding modes they sweep, and the translation of a test's
// tensors and geometry into the kernels' shape and pad mode.
#pragma once

#include <cstdint>

#include "sim/gpu/conv_job.h"
#include "sim/graph/workload.h"
#include "sim/reference/binary_reference.h"
#include "sim/reference/reference_conv.h"
#include "sim/tensor/tensor.h"
#include "sim/workload/layer_data.h"

namespace npusim::test {

struct GpuGeometry {
  uint32_t h, w, rs, stride, padding;
};
inline constexpr uint32_t kGpuChannels[] = {31, 32, 33, 64, 100};
inline constexpr reference::BinaryPadding kGpuPads[] = {reference::BinaryPadding::Skip,
                                                        reference::BinaryPadding::PlusOne,
                                                        reference::BinaryPadding::MinusOne};

inline gpu::PadMode pad_mode(reference::BinaryPadding p) {
  return p == reference::BinaryPadding::PlusOne    ? gpu::PadMode::PlusOne
         : p == reference::BinaryPadding::MinusOne ? gpu::PadMode::MinusOne
                                                   : gpu::PadMode::Skip;
}

// input N,H,W,C and weights K,R,S,C under `g`'s stride and padding.
inline gpu::ConvShape shape_of(const TensorI8& in, const TensorI8& w, const GpuGeometry& g) {
  gpu::ConvShape s;
  s.n = in.shape[0], s.h = in.shape[1], s.w = in.shape[2], s.c = in.shape[3];
  s.k = w.shape[0], s.r = w.shape[1], s.s = w.shape[2];
  s.stride = g.stride, s.padding = g.padding;
  return s;
}

// A seeded int8 requantisation for K output channels of a C-channel layer
// under `g`: random bias and scale, ReLU on even seeds, the automatic shift.
inline reference::ConvParams random_requant(uint32_t K, uint32_t C, const GpuGeometry& g,
                                            uint64_t seed) {
  reference::ConvParams rp;
  rp.stride = g.stride, rp.padding = g.padding, rp.relu = seed % 2 == 0;
  rp.shift = auto_requant_shift(uint64_t(C) * g.rs * g.rs);
  SeededRandom rng(seed);
  for (uint32_t k = 0; k < K; ++k) {
    rp.bias.push_back(int32_t(rng.uniform(-5000, 5000)));
    rp.scale.push_back(int32_t(rng.uniform(1, 300)));
  }
  return rp;
}

}  // namespace npusim::test
