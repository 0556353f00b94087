#include "sim/gpu/layer_job.h"

namespace npusim::gpu {

ConvShape conv_shape_of(const LayerConfig& l) {
  ConvShape s;
  s.n = l.N, s.c = l.C, s.h = l.H, s.w = l.W, s.k = l.K, s.r = l.R, s.s = l.S;
  s.stride = l.stride, s.padding = l.padding;
  return s;
}

PadMode pad_mode_of(BinaryPadMode m) {
  return m == BinaryPadMode::PlusOne    ? PadMode::PlusOne
         : m == BinaryPadMode::MinusOne ? PadMode::MinusOne
                                        : PadMode::Skip;
}

BinaryParams binary_params_of(const LayerConfig& l, const LayerData& data) {
  BinaryParams p;
  p.bits = l.binary.bits, p.pad_mode = pad_mode_of(l.binary.padding);
  p.threshold = data.threshold, p.flip = data.flip;
  return p;
}

DirectParams requantize_params_of(const LayerConfig& l, const LayerData& data) {
  DirectParams p;
  p.epilogue = DirectEpilogue::Requantize;
  p.relu = l.relu, p.bias = data.bias, p.scale = l.requant.scale, p.shift = l.requant.shift;
  return p;
}

DirectParams binarize_params_of(const BinaryParams& binary) {
  DirectParams p;
  p.epilogue = DirectEpilogue::Binarize;
  p.pad_value = pad_value_of(binary.pad_mode);
  p.relu = false;
  p.threshold = binary.threshold, p.flip = binary.flip;
  return p;
}

}  // namespace npusim::gpu
