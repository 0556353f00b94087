// The compiler's estimate of a whole network, without a program and without
// simulating (`npusim estimate`, sweeps with "estimate_only"): the partition
// and each operator's mapping as the compiler chooses them (mapper.h,
// vector_estimate.h) and the estimates they were chosen by, summed: the
// operators one after another, each alone, dense (no zero-skip), as under the
// strict policy with no overlap between operators. docs/mapping.md#estimate-only-runs
// states what it leaves out and how far it is from the simulated cycles.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/compiler/tiler.h"
#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"

namespace npusim {

struct OperatorEstimate {
  std::string name;
  OpKind op = OpKind::Conv;
  uint64_t cycles = 0;
  uint64_t macs = 0;  // dense array MACs (0 on the vector unit)
  // The mapping: k-tile, pieces and weight buffers of an array operator; the
  // channel tile and rows per instruction of a vector operator.
  uint32_t k_tile = 0;
  uint32_t pieces = 0;
  uint32_t rows = 0;
  uint32_t weight_buffers = 0;
  bool feature_stationary = false;  // seed 004 rule 1's second loop order
};

struct NetworkEstimate {
  CachePartition partition;
  // The mappings the partition was chosen with, by mapping_signature: with the
  // partition, what compile_network for the same network and hardware would
  // choose again (it takes both from here when given the estimate).
  std::unordered_map<std::string, LayerTilingPlan> mappings;
  std::vector<OperatorEstimate> operators;  // in network order
  uint64_t cycles = 0;                      // the sum of the operators' cycles
  uint64_t macs = 0;
  // Estimated above the limit estimate_network was given: nothing else is set
  // (cycles is UINT64_MAX).
  bool over_limit = false;
};

class MachineEstimates;  // estimate_memo.h

// Throws CompileError, as compile_network would, when an operator does not
// fit or cannot be compiled. `memo`: mapping estimates shared with other
// estimates of the same network (choose_partition); the result is the same.
// `limit` (above 0): a caller that only needs an estimate of at most `limit`
// cycles (the compile trials' margins) gets over_limit instead of a larger
// one, sooner (choose_partition's limit); an estimate within it is the same.
NetworkEstimate estimate_network(const NetworkConfig& workload, const HardwareConfig& hw,
                                 MachineEstimates* memo = nullptr, double limit = 0);

}  // namespace npusim
