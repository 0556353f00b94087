// The transformer operators of graph workloads (docs/transformers.md): their
// keys and shape rules. A sequence tensor [tokens, heads * dim] is [1, C, H =
// tokens, 1]; heads are groups of C. Part of parse_graph_workload.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/config/json_reader.h"
#include "sim/graph/workload.h"

namespace npusim {

// One input tensor of the operator as the graph defines it.
struct SequenceOperand {
  uint32_t N = 1, C = 0, H = 0, W = 0;
  TensorQuant quant;
};

// Throws a ConfigError at input `k` of the operator, expecting `expected`.
using FailInput = std::function<void(std::size_t k, const std::string& expected)>;

// Reads a transformer operator's keys (heads, kv_heads, transpose_b, causal,
// epsilon, bias, base, position_offset) from `r` into L, which holds its
// first input's shape, and sets K, groups and (batch_matmul) the second
// operand's quantisation as the weights'. A norm's "weights" (gamma) is left
// to the caller. Throws ConfigError naming the key at fault.
void parse_sequence_operator(JsonReader& r, LayerConfig& L, const std::vector<SequenceOperand>& in,
                             const FailInput& fail_input);

}  // namespace npusim
