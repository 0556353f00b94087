// What the GPU kernel tests (device and host emulation) share: the channel
// counts and padding modes they sweep, and the translation of a test's
// tensors and geometry into the kernels' shape and pad mode.
#pragma once

#include <cstdint>

#include "sim/gpu/conv_job.h"
#include "sim/reference/binary_reference.h"
#include "sim/tensor/tensor.h"

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

}  // namespace npusim::test
