// The tensors a layer runs on: seeded-random or read from .npy, as its config
// says. Host-side input to both the simulator's DRAM image and the reference.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/graph/workload.h"
#include "sim/tensor/tensor.h"

namespace npusim {

// For a binary layer, input and weights hold only -1 and +1 (unpacked; the
// runner packs them into the DRAM image), `bias` is empty and `threshold` /
// `flip` hold its output rule (sim/workload/batch_norm.h).
struct LayerData {
  TensorI8 input;                  // N,H,W,C (empty when the layer is chained)
  TensorI8 weights;                // K,R,S,C
  std::vector<int32_t> bias;       // K (int8 layers)
  std::vector<int32_t> threshold;  // K (binary layers)
  std::vector<uint8_t> flip;       // K (binary layers), 0 or 1
};

// Deterministic across compilers and platforms (own PRNG, no std distributions).
// `with_input` = false for a layer that consumes the previous layer's output.
// Throws std::runtime_error naming the .npy file when its shape does not match.
// A graph operator (layer.quantized) gets only its own weights and bias.
LayerData make_layer_data(const LayerConfig& layer, bool with_input);
// The weights alone, as make_layer_data draws or reads them (a timing-only run needs only
// their non-zero counts).
TensorI8 make_layer_weights(const LayerConfig& layer);
// The number of coefficients of each kernel other than zero_of_kernel[k] (0 when it is empty),
// counted without storing the weights, when they are seeded bytes (a plain layer's [-128, 127],
// an operator's [-127, 127] or [0, 255]) with no sparsity pattern; empty otherwise (draw them
// with make_layer_weights).
std::vector<uint32_t> count_seeded_kernel_nonzeros(const LayerConfig& layer,
                                                   const std::vector<int8_t>& zero_of_kernel);
// A graph input's seeded data, N,H,W,C bytes uniform over its dtype's range
// (uint8 values held as their bytes).
TensorI8 make_graph_input(const GraphInput& in);

// splitmix64-based generator shared by all seeded data in npusim.
class SeededRandom {
 public:
  explicit SeededRandom(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform integer in [lo, hi].
  int64_t uniform(int64_t lo, int64_t hi);

 private:
  uint64_t state_;
};

}  // namespace npusim
