#include "sim/compiler/dram_layout.h"

#include <vector>

namespace npusim {

uint64_t DramLayout::take(uint64_t bytes) {
  const uint64_t address = next_;
  next_ = (next_ + bytes + 63) / 64 * 64;
  return address;
}

void DramLayout::place_graph_inputs(Program& program) {
  for (const GraphInput& g : net_.graph_inputs)
    program.graph_input_addresses.push_back(take(uint64_t(g.N) * g.H * g.W * g.C));
}

// Where each input tensor lies: a producer's output, a graph input, or (a
// layer list's unchained layer) a fresh tensor of its own.
void DramLayout::place_inputs(LayerDescriptor& d, size_t l, const Program& program) {
  const auto address_of = [&](int32_t op, int32_t graph_input) {
    return op >= 0 ? program.layers[size_t(op)].output_address
                   : program.graph_input_addresses[size_t(graph_input)];
  };
  if (!net_.is_graph()) {
    d.input_address = d.input_from_layer >= 0
                          ? program.layers[size_t(d.input_from_layer)].output_address
                          : take(net_.layers[l].input_bytes());
    return;
  }
  const std::vector<TensorSource>& sources = net_.sources[l];
  d.input_address = address_of(sources[0].op, sources[0].graph_input);
  for (size_t i = 1; i < sources.size(); ++i)
    d.more_inputs[i - 1].address = address_of(sources[i].op, sources[i].graph_input);
}

void DramLayout::place_vector_operator(LayerDescriptor& d, size_t l, const Program& program) {
  place_inputs(d, l, program);
  // A norm's gamma and beta: C x {int32 beta, int32 gamma}.
  if (has_norm_params(net_.layers[l].op)) d.params_address = take(d.params_bytes());
  d.output_address = take(d.output_bytes());
}

void DramLayout::place_array_operator(LayerDescriptor& d, size_t l, const Program& program) {
  const LayerConfig& L = net_.layers[l];
  place_inputs(d, l, program);
  // Graph operators with the same seeded weights (a decode step's projection
  // and the prefill's) share one region; plain layers keep a region each.
  const std::string key = L.quantized ? seeded_weights_key(L) : "";
  if (L.op == OpKind::BatchMatMul) {
    // Its kernels are rows or columns of the second operand, an activation.
    d.weights_address = d.more_inputs.at(0).address;
  } else if (!key.empty() && shared_weights_.count(key) != 0) {
    d.weights_address = shared_weights_.at(key);
  } else {
    d.weights_address = take(L.weight_bytes());
    if (!key.empty()) shared_weights_[key] = d.weights_address;
  }
  d.params_address = take(d.params_bytes());
  d.output_address = take(d.output_bytes());
  // Where the host materialises the lowered matrix (host_im2col, mec).
  d.lowered_address = take(uint64_t(d.N) * d.lowered_bytes_per_image());
}

void place_key_value_blocks(Program& program, uint64_t capacity) {
  if (capacity == 0) return;
  std::vector<bool> is_block(program.layers.size(), false);
  for (const LayerDescriptor& d : program.layers)
    if (d.op == OpKind::BatchMatMul)
      for (const auto& block : d.more_inputs)
        if (block.from_layer >= 0) is_block[size_t(block.from_layer)] = true;
  uint64_t used = 0;
  for (size_t l = 0; l < program.layers.size(); ++l) {
    LayerDescriptor& d = program.layers[l];
    if (!is_block[l] || used + d.output_bytes() > capacity) continue;
    d.output_on_chip = true;
    used += d.output_bytes();
  }
}

}  // namespace npusim
