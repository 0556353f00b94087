// The program's view of a batched matmul: a matmul over N images of H x 1
// pixels reads and writes the same bytes as one image of N*H rows (NHWC), and
// the array takes a matmul's rows together (the fold of
// cost::matmul_stage_cycles), so the compiler maps it, and its program
// describes it, as that one image: a batch of sequences' tokens share each
// weight tile's passes instead of taking one pass each
// (docs/tiling.md#batched-matmuls). Operators that read or write such a
// matmul's tensor in the other view meet it in global rows (GlobalRows:
// image * rows per image + row), which are the same bytes.
#pragma once

#include "sim/graph/workload.h"

namespace npusim {

// Whether the compiler maps `L` as one image of N*H rows: a matmul over N > 1
// images one pixel wide.
bool folds_batch_into_rows(const LayerConfig& L);

// The images and the input and output rows per image the program gives `L`:
// {1, N*H, N*out_h} when folds_batch_into_rows, else {N, H, out_h}.
struct ProgramImages {
  uint32_t N, H, out_h;
};
ProgramImages program_images(const LayerConfig& L);

// `L` as the compiler maps it: its shape with program_images' N and H.
LayerConfig program_view(const LayerConfig& L);

// `net` with every layer in its program view; `net` itself (no copy) when no
// layer folds. `storage` holds the copy.
const NetworkConfig& program_view(const NetworkConfig& net, NetworkConfig& storage);

}  // namespace npusim
