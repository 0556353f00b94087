// The workload as a graph of tensors with lifetimes (docs/architecture.md, the IR):
// every tensor an operator reads or writes is one object with its shape,
// element type, quantisation (per tensor, or per output channel for weights),
// DRAM layout, producer, consumers and the first and last operator that touch
// it. A memory planner reads the lifetimes to decide what can stay on chip;
// the reports read the live bytes. Built from a NetworkConfig of either kind
// (a layer list chains layer i-1 into layer i; a graph names its tensors).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/graph/workload.h"

namespace npusim {

// What a tensor holds.
enum class TensorRole {
  Input,       // a graph input, or a layer's own seeded / .npy input
  Weights,     // a constant: an operator's kernels (int8 or packed binary)
  Params,      // a constant: a norm's per-channel gamma and beta
  Activation,  // produced by an operator
};
const char* to_string(TensorRole r);

struct GraphTensor {
  std::string name;
  TensorRole role = TensorRole::Activation;
  // [N, C, H, W] for activations and inputs; [K, C / groups, R, S] for weights;
  // [C] for norm parameters (as N = C, C = H = W = 1).
  uint32_t N = 1, C = 1, H = 1, W = 1;
  DataType dtype = DataType::Int8;  // int8 family or packed binary
  QuantType element = QuantType::Int8;
  // Scale and zero point: one each (per tensor) or one per output channel
  // (axis 0 of a weight tensor, `per_axis`).
  std::vector<float> scale = {1.0f};
  std::vector<int32_t> zero_point = {0};
  bool per_axis = false;
  TensorLayout layout = TensorLayout::Nhwc;
  uint64_t bytes = 0;              // its size in DRAM
  int32_t producer = -1;           // the operator that writes it; -1 for inputs and constants
  std::vector<int32_t> consumers;  // the operators that read it, in execution order
  bool graph_output = false;       // read back after the run (kept to the end)
  // The lifetime: the first and last operator (execution order) that touch
  // it. A graph output lives to the last operator.
  int32_t first_use = -1, last_use = -1;
  bool constant() const { return role == TensorRole::Weights || role == TensorRole::Params; }
};

struct GraphOperator {
  OpKind kind = OpKind::Conv;
  std::string name;
  std::vector<int32_t> inputs;  // activation / input tensors, in operand order
  int32_t weights = -1;         // its weight tensor, if any
  int32_t params = -1;          // its norm parameters, if any
  int32_t output = -1;
};

struct TensorGraph {
  std::vector<GraphTensor> tensors;
  std::vector<GraphOperator> operators;  // one per NetworkConfig layer, same order

  // Tensors alive while operator `op` runs (first_use <= op <= last_use).
  std::vector<int32_t> live_at(int32_t op) const;
  // Their bytes; activations and inputs only (constants: false), or all.
  uint64_t live_bytes_at(int32_t op, bool constants) const;
  // The largest live_bytes_at over all operators, and where it occurs.
  struct Peak {
    uint64_t bytes = 0;
    int32_t op = -1;
  };
  Peak peak_live_bytes(bool constants) const;
};

// The tensor graph of `net`. Weights shared by several operators (equal
// seeded_weights_key) are one tensor.
TensorGraph build_tensor_graph(const NetworkConfig& net);

}  // namespace npusim
