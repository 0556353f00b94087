// What the memory plan of a compiled program rests on (docs/memory-plan.md):
// each operator output's lifetime, from its producer to its last consumer;
// the bytes each operator's buffers use in the cache; and the check that the
// outputs the program keeps in the cache (LayerDescriptor::output_resident)
// fit beside those buffers and never share bytes while both are live. The
// compiler's planner (sim/compiler/memory_plan.h) places them; the runner
// calls check_residency on every program, a replayed or edited one included.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"

namespace npusim {

// One operator output, in operator indices: written by `producer`, read last
// by `last_reader` (== producer when nothing reads it). `graph_output`: the
// workload names it as an output, so it must reach DRAM.
struct TensorLifetime {
  uint32_t producer = 0;
  uint32_t last_reader = 0;
  uint32_t readers = 0;
  bool graph_output = false;
  // A reader takes it in a way only DRAM serves: the host lowers it
  // (host_im2col, mec), or packed binary words or a planar layout.
  bool needs_dram = false;
};
// From the program alone (no graph outputs known: `graph_output` stays false),
// as the cache model reads it; and with the workload's named outputs.
std::vector<TensorLifetime> tensor_lifetimes(const Program& program);
std::vector<TensorLifetime> tensor_lifetimes(const Program& program, const NetworkConfig& net);

// Operators next to each other overlap in time (the early-completion
// scheduler starts one on the rows the other has finished), so an output
// placed in the cache must also fit beside the buffers of the operator before
// its producer and after its last reader: its guarded span.
struct OperatorSpan {
  uint32_t first = 0, last = 0;  // inclusive
  bool overlaps(const OperatorSpan& o) const { return first <= o.last && o.first <= last; }
};
OperatorSpan guarded_span(const TensorLifetime& t, size_t operators);
// The same for anything the cache holds from operator `first` to `last`.
OperatorSpan guarded_span(uint32_t first, uint32_t last, size_t operators);

// One layer's weights in DRAM (weight_block_bytes() at weights_address) and
// every operator that loads them: a decode step's projections share their
// prefill's block (docs/decoders.md#key-value-cache). `loaded_bytes`: what
// all their LoadWeights bring over the bus when nothing is kept on chip; more
// than `bytes` when some byte is loaded twice (another pass over the rows,
// another step), which is what keeping the block in the cache saves.
struct WeightBlock {
  uint64_t address = 0;
  uint64_t bytes = 0;
  std::vector<uint32_t> users;  // operator indices, in program order
  uint64_t loaded_bytes = 0;
};
std::vector<WeightBlock> weight_blocks(const Program& program);
// The blocks the program keeps in the cache (their users' weights_resident);
// none, and no pass over the program, when no operator keeps its weights.
std::vector<WeightBlock> kept_weight_blocks(const Program& program);
// Bytes one LoadWeights of a weighted operator reads: its kernels' streams,
// or with kernel parts the part's channels at every tap of each kernel.
uint64_t weight_load_bytes(const Instruction& in, const LayerDescriptor& layer);

// Bytes of the cache operator l's buffers use: its weight tile(s), parameter
// banks, the largest piece of each half of the units it uses, and its largest
// vector instruction's working set.
std::vector<uint64_t> operator_working_sets(const Program& program, const HardwareConfig& hw);

// Bytes a LoadInput's piece occupies in its half: the input rows it loads and
// the int32 results of its output rows (the column piece's or kernel part's
// view of the layer, from `views`).
uint64_t piece_bytes(const Instruction& in, const LayerDescriptor& layer, LayerViews& views);
// Per operator: its largest piece_bytes over its input loads (0 without any).
std::vector<uint64_t> largest_pieces(const Program& program);

// Throws ProgramError naming the operator when a resident output is a graph
// output or read only through DRAM, when the operators sharing a weight block
// disagree on keeping it (or on where), when at some operator of a kept
// output's or weight block's guarded span the buffers in use plus the kept
// bytes above it pass the cache, or when two kept blocks whose guarded spans
// overlap share bytes.
void check_residency(const Program& program, const NetworkConfig& net, const HardwareConfig& hw);

}  // namespace npusim
