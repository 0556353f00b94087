// Where each tensor of a compiled program lies in DRAM, and which key-value
// blocks the cache's key-value region holds instead. The emitter asks for
// each operator's addresses as it emits it: graph inputs first, then per
// operator its own input (a layer list's unchained layer), its weights (one
// region for operators with the same seeded weights), its parameters, its
// output and the host's lowered matrix, each 64-byte aligned, in program
// order. Tensors never share DRAM (no reuse between lifetimes yet).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sim/program/program.h"

namespace npusim {

class DramLayout {
 public:
  explicit DramLayout(const NetworkConfig& net) : net_(net) {}

  // The graph inputs, each NHWC, into program.graph_input_addresses.
  void place_graph_inputs(Program& program);
  // A vector-unit operator l: its inputs' addresses (placed earlier in
  // `program`), its norm parameters and its output.
  void place_vector_operator(LayerDescriptor& d, size_t l, const Program& program);
  // An array operator l: its inputs, its weights (for batch_matmul the second
  // operand's first block), its parameter bank, its output and its lowered matrix.
  void place_array_operator(LayerDescriptor& d, size_t l, const Program& program);
  // Bytes of DRAM the program uses.
  uint64_t bytes() const { return next_; }

 private:
  uint64_t take(uint64_t bytes);
  void place_inputs(LayerDescriptor& d, size_t l, const Program& program);

  const NetworkConfig& net_;
  uint64_t next_ = 0;
  std::map<std::string, uint64_t> shared_weights_;  // seeded_weights_key -> address
};

// The key-value cache's blocks (a batch_matmul's second operand: keys or
// values, the prefill's and each step's) go into the cache's key-value region
// of `capacity` bytes (cache.kv_kib) in program order while they fit
// (LayerDescriptor::output_on_chip); the rest stay in DRAM. They keep their
// DRAM addresses, which a functional run still uses for their values.
void place_key_value_blocks(Program& program, uint64_t capacity);

}  // namespace npusim
