// The compute engine: `units` compute units, each an array of
// array_rows x array_cols int8 MACs with int32 accumulation, working from its
// own ping-pong pair (seed 003) and the shared weight tile. A stage computes a
// group of output rows whose int32 sums fit the accumulator; the cost formula
// is cost::zero_skip_stage_cycles: seed 002's zero-coefficient skipping, each
// array row working through its kernel's non-zero (coefficient, kx, ky)
// entries, decompressed from the stream in the cache (compute.mode
// "zero_skip"); "dense" applies every coefficient (cost::compute_stage_cycles).
// compute.dataflow "broadcast" is seed 002's own engine instead: one
// coefficient at a time on every multiplier (models/coefficient_broadcast.h,
// cost::broadcast_stage_cycles).
// A binary layer runs on the same lanes as XOR + popcount over packed words
// (models/binary_array.h, cost::binary_stage_cycles), always dense.
#pragma once

#include <vector>

#include "models/engine.h"
#include "models/int8_kernels.h"
#include "models/operand_fetch.h"

namespace npusim {

class ComputeEngine : public Engine {
 public:
  ComputeEngine(sc_core::sc_module_name name, const HardwareConfig& hw, EngineOptions options,
                StatsRegistry& stats);

 private:
  void run_unit(uint32_t unit);
  void compute(const Instruction& in);
  LayerViews views_;  // the layers as kernel parts and column pieces see them
  // The arithmetic of one stage: int8 x int8 -> int32 sums for output rows
  // [row_begin, row_end) of the piece, written into the result half, or with
  // `adds_to_sums` (a kernel part after the first) added to the sums there.
  void compute_rows(const LayerDescriptor& L, const Instruction& in, const ByteTile& input,
                    SumTile& results, uint32_t row_begin, uint32_t row_end, bool adds_to_sums);

  // The tile's kernels minus their zero points (9-bit values; plain layers
  // have none), once per instruction, from the decompressed kernels: graph
  // operators and the broadcast dataflow read these.
  void center_kernels(const LayerDescriptor& L, const Instruction& in, uint64_t coefficients);
  // Graph operators: zero points, groups, dilation, column stride (docs/graphs.md).
  void compute_rows_quantized(const LayerDescriptor& L, const Instruction& in,
                              const ByteTile& input, SumTile& results, uint32_t row_begin,
                              uint32_t row_end, bool adds_to_sums);
  // The int8 array's cycles for one stage given each kernel's applied
  // coefficients, by the dataflow's formula: broadcast, or lockstep (the
  // zero-skip, grouped convolution or matmul formula of the layer's kind).
  // `kernels`: the tile's first so many kernels (default all).
  uint64_t array_cycles(const LayerDescriptor& L, const Instruction& in, uint64_t pixels,
                        const uint32_t* counts, uint32_t kernels = UINT32_MAX) const;
  // When the array is done with a stage that starts at `now` (after `fill`
  // cycles of pipeline fill): at once when the whole weight tile is in, else
  // kernel group by kernel group as the weights arrive (seed 004 rule 1).
  // `prefix_cycles(k)`: the stage's array cycles for the tile's first k kernels.
  template <class PrefixCycles>
  uint64_t weight_groups_end(const Instruction& in, const ByteTile& weights,
                             const TileTag& weight_tag, uint64_t now, uint64_t fill,
                             const PrefixCycles& prefix_cycles, uint32_t stage);

  // Per compute unit (each has its own decompressor), the weight tile its
  // current compute expanded at its first stage: units may compute different
  // tiles at once (two weight slots, docs/tiling.md#weight-double-buffering).
  struct UnitKernels {
    std::vector<int8_t> kernels;    // the tile's decompressed kernels (K,R,S,C)
    std::vector<int16_t> centered;  // graph operators: kernels minus their zero points
    std::vector<uint64_t> binary;   // a binary tile's kernels as packed words
    // Each kernel's non-zero and dense coefficient counts for the current
    // compute. Members, not locals of compute(): a run stopped by an error
    // never resumes the suspended computes, whose locals would then leak.
    std::vector<uint32_t> nonzeros, dense_counts;
    // Seed 001's register sets: the unit's last register-fed stage, whose
    // last pass the next stage's first burst may overlap.
    int32_t last_fed_layer = -1;
    uint64_t last_array_end = 0, last_pass = 0;
  };
  std::vector<UnitKernels> unit_kernels_;
  std::vector<int16_t> centered_input_;  // graph operators: a stage's input rows minus x_zp
  std::vector<uint32_t> regions_;        // broadcast: per-kernel accumulation regions
  DataRegisterSets data_registers_;      // seed 001: what the array multiplies (compute_rows)

  Counter& busy_;
  Counter& instructions_;
  Counter& work_cycles_;
  Counter& macs_performed_;
  Counter& macs_useful_;
  Counter& macs_skipped_;
  Counter& dense_work_cycles_;
  Counter& standalone_cycles_;
  Counter& register_fetch_bytes_;
  Counter& register_stall_cycles_;
  const int8_kernels::Kernels& dots_;  // the dot products of the ISA level in use
};

}  // namespace npusim
