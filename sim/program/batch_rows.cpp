#include "sim/program/batch_rows.h"

#include <algorithm>

namespace npusim {

bool folds_batch_into_rows(const LayerConfig& L) {
  // One pixel wide; a matmul has a 1x1 window and no geometry, so output row
  // r is input row r. Only NHWC tensors lie image after image as rows do.
  return L.op == OpKind::MatMul && L.N > 1 && L.W == 1 && L.R == 1 && L.S == 1 &&
         L.input_layout == TensorLayout::Nhwc && L.output_layout == TensorLayout::Nhwc;
}

ProgramImages program_images(const LayerConfig& L) {
  if (!folds_batch_into_rows(L)) return {L.N, L.H, L.out_h()};
  return {1, L.N * L.H, L.N * L.out_h()};
}

LayerConfig program_view(const LayerConfig& L) {
  LayerConfig v = L;
  const ProgramImages images = program_images(L);
  v.N = images.N, v.H = images.H;
  return v;
}

const NetworkConfig& program_view(const NetworkConfig& net, NetworkConfig& storage) {
  if (std::none_of(net.layers.begin(), net.layers.end(), folds_batch_into_rows)) return net;
  storage = net;
  for (LayerConfig& L : storage.layers) L = program_view(L);
  return storage;
}

}  // namespace npusim
