// Every cost formula of the timing model, one function each, in one place.
// Pure functions of the hardware config and a stage's shape (no SystemC), so
// unit tests check them against numbers worked by hand; docs/timing.md
// states each one.
#pragma once

#include <cstdint>

#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"

namespace npusim::cost {

inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Bus cycles to move `segments` contiguous pieces of `segment_bytes` each:
// every segment rounds up to whole bursts, the bus moves bytes_per_cycle (which
// may be fractional: the last cycle is a whole one).
//   ceil(segments * ceil(segment_bytes / burst) * burst / bytes_per_cycle)
uint64_t dram_data_cycles(const DramConfig& dram, uint64_t segments, uint64_t segment_bytes);

// Bytes actually carried on the bus (whole bursts) for the same request.
uint64_t dram_burst_bytes(const DramConfig& dram, uint64_t segments, uint64_t segment_bytes);

// Cycles one cache port needs to stream `bytes`: ceil(bytes / port_bytes_per_cycle).
uint64_t cache_access_cycles(const CacheConfig& cache, uint64_t bytes);

// How many accesses can stream at once: the ports, limited by what the banks
// sustain together: min(ports, max(1, banks * bank_bytes_per_cycle / port_bytes_per_cycle)).
uint32_t cache_parallel_accesses(const CacheConfig& cache);

// Dense array cycles for one compute stage: every coefficient (C*R*S per
// output channel) is applied to the stage's output pixels, array_cols pixels
// per cycle, array_rows output channels at once:
//   ceil(k_count / array_rows) * C*R*S * ceil(pixels / array_cols)
uint64_t compute_stage_cycles(const ComputeConfig& compute, uint64_t pixels, uint64_t k_count,
                              uint64_t coefficients_per_kernel);

// Zero-skip array cycles (seed 002): each array row works through its own
// kernel's non-zero coefficients; the rows of a group of array_rows kernels
// move in lockstep, so a group takes as long as its densest kernel:
//   sum over groups g of max_{Z in g} nonzeros[Z] * ceil(pixels / array_cols)
// With every coefficient non-zero this equals compute_stage_cycles.
uint64_t zero_skip_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                const uint32_t* nonzeros, uint32_t k_count);

// Binary array cycles for one compute stage (seed 000, docs/binary.md): each
// lane does one XOR + popcount of a b-bit word (b channels) per cycle, so a
// binary kernel is R*S*ceil(C/b) word steps and the stage costs what the
// dense int8 stage costs with C replaced by ceil(C/b):
//   ceil(k_count / array_rows) * R*S*ceil(C/b) * ceil(pixels / array_cols)
// No zero-skip: +-1 weights have no zero coefficient.
uint64_t binary_stage_cycles(const ComputeConfig& compute, uint64_t pixels, uint64_t k_count,
                             uint64_t taps, uint64_t words_per_tap);

// Grouped convolution (depthwise when each group has one kernel): the
// array broadcasts one input tile to all its rows, and a group's kernels read
// only that group's channels, so rows work together only on kernels of one
// group. The tile's kernels [k_begin, k_begin + k_count) split into runs of
// one group each; each run costs zero_skip_stage_cycles on its own:
//   sum over runs of sum over its array_rows-blocks of max nonzeros * ceil(pixels / array_cols)
// Depthwise (one kernel per group): sum_k nonzeros[k] * ceil(pixels / array_cols),
// one array row busy. With one group this equals zero_skip_stage_cycles.
uint64_t grouped_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                              const uint32_t* nonzeros, uint32_t k_begin, uint32_t k_count,
                              uint32_t kernels_per_group);

// Matrix multiply over M = rows_m input rows (a batch-1 fully connected
// layer has M = 1). When M < array_cols the idle columns fold: the array
// takes fold = floor(array_cols / M) groups of array_rows output features at
// once, each on cols / fold columns:
//   fold = floor(cols / min(M, cols)); lockstep = rows * fold
//   sum over blocks of `lockstep` features of max nonzeros * ceil(M / floor(cols / fold))
// With M >= cols (fold 1) this equals zero_skip_stage_cycles with pixels = M.
//
// `split` (coefficient_split below): when the tile's kernels leave column
// groups spare, each kernel's non-zero coefficients are dealt round-robin to
// `split` groups, which add their partial sums in an adder tree as the stage
// ends: a lockstep block takes ceil(max nonzeros / split) passes, and the
// stage ceil(log2(split)) more cycles (split_tree_cycles). split 1: no split.
uint64_t matmul_stage_cycles(const ComputeConfig& compute, uint64_t rows_m,
                             const uint32_t* nonzeros, uint32_t k_count, uint32_t split = 1);
// The matmul's fold: floor(cols / min(M, cols)).
uint32_t matmul_fold(const ComputeConfig& compute, uint64_t rows_m);

// How many column groups share each kernel of a tile of `tile_k` kernels on a
// fold of `fold` groups (compute.spare_fold_groups "split_coefficients";
// docs/timing.md#coefficient-split): the tile's kernels need
// b = min(fold, ceil(tile_k / rows)) groups, and the rest split coefficients:
//   split = floor(fold / b)
// 1 when spare groups stay idle (compute.spare_fold_groups "idle") or with
// seed 001's data register sets, whose bursts feed every group the same pixels.
uint32_t coefficient_split(const HardwareConfig& hw, uint32_t fold, uint64_t tile_k);
// The adder tree that sums `split` partial sums: ceil(log2(split)) cycles.
uint64_t split_tree_cycles(uint32_t split);

// A lockstep stage on a folded array (compute.fold "stages",
// docs/timing.md#folded-stages): the columns split into `fold` groups of
// floor(cols / fold) columns, each group with its own array_rows kernels on
// the same pixels, so rows * fold kernels move in lockstep:
//   sum over blocks of rows*fold kernels of max nonzeros * ceil(pixels / floor(cols / fold))
// fold 1 is zero_skip_stage_cycles; the matmul's fold is matmul_stage_cycles.
// With a coefficient split s (as for the matmul): ceil(max nonzeros / s) per
// block, plus split_tree_cycles(s).
uint64_t folded_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                             const uint32_t* nonzeros, uint32_t k_count, uint32_t fold,
                             uint32_t split = 1);
// Its closed form when every kernel applies `coefficients`:
//   ceil(k_count / (rows * fold)) * ceil(coefficients / split)
//     * ceil(pixels / floor(cols / fold)) + split_tree_cycles(split)
uint64_t uniform_folded_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                     uint64_t coefficients, uint32_t k_count, uint32_t fold,
                                     uint32_t split = 1);
// The fold a stage of `pixels` pixels and a tile of `k_count` kernels of
// `coefficients` each takes: the f in 1 .. array_cols with the fewest dense
// cycles (uniform_folded_stage_cycles with split = coefficient_split(hw, f,
// k_count)), the smallest such f on a tie (1 when folding gains nothing).
// Without a split that is the f with the fewest passes
//   ceil(k_count / (rows * f)) * ceil(pixels / floor(cols / f)).
struct StageFold {
  uint32_t fold = 1;
  uint32_t split = 1;
};
StageFold stage_fold(const HardwareConfig& hw, uint64_t pixels, uint32_t k_count,
                     uint64_t coefficients);

// Seed 002's broadcast dataflow (compute.dataflow "broadcast"): the engine
// applies one coefficient at a time to the stage's whole input tile, every
// one of the rows x cols multipliers on its own output pixel, so each
// coefficient takes ceil(pixels / (rows * cols)) cycles and kernels never
// wait for each other (no lockstep), whatever their groups or sizes:
//   sum_k counts[k] * ceil(pixels / (array_rows * array_cols))
// `counts`: each kernel's applied coefficients (non-zeros, or all of them).
uint64_t broadcast_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                const uint32_t* counts, uint32_t k_count);

// The three lockstep formulas above when every kernel applies the same
// `coefficients` (graph operators, which have no zero-skip data), in closed
// form so the mapper need not build a per-kernel array of K equal counts:
//   grouped: (ceil(first / rows) + full * ceil(per_group / rows) + ceil(last / rows))
//            * coefficients * ceil(pixels / cols)
//     where the tile's runs are `first` kernels up to a group's end, `full`
//     whole groups and `last` kernels of the group it ends in;
//   matmul: ceil(k_count / (rows * fold)) * ceil(coefficients / split)
//           * ceil(M / floor(cols / fold)) + split_tree_cycles(split);
//   broadcast: k_count * coefficients * ceil(pixels / (rows * cols)).
// Each equals its general formula with every count = coefficients (tested).
uint64_t uniform_grouped_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                      uint64_t coefficients, uint32_t k_begin, uint32_t k_count,
                                      uint32_t kernels_per_group);
uint64_t uniform_matmul_stage_cycles(const ComputeConfig& compute, uint64_t rows_m,
                                     uint64_t coefficients, uint32_t k_count, uint32_t split = 1);
uint64_t uniform_broadcast_stage_cycles(const ComputeConfig& compute, uint64_t pixels,
                                        uint64_t coefficients, uint32_t k_count);

// Seed 001's data register sets (compute.data_registers): a lockstep stage of
// `pixels` output pixels runs in n = ceil(pixels / array_cols) passes; before
// a pass multiplies, a fetch_ml burst copies its pixels' lowered rows
// (`row_bytes` = C*R*S each) into a register set at `rate` bytes per cycle:
//   f_i = ceil(pixels_i * row_bytes / rate)   (pixels_i = array_cols, the last the rest)
//   m_i = the stage's `array_cycles` split over the passes (floor((i+1)*A/n) - floor(i*A/n))
//   single: sum_i (f_i + m_i)
//   double: max(0, f_0 - overlap) + sum_i max(m_i, f_{i+1})   (f_n = 0)
//   in_place: array_cycles (the array reads the tile; nothing to fetch)
// With two sets, set i+1 loads while set i multiplies; `overlap` is how long
// the first burst could already load in the other set before the stage
// (while the stage before multiplied its last pass, its rows being in).
uint64_t register_fed_stage_cycles(const ComputeConfig& compute, DataRegisters sets,
                                   uint64_t pixels, uint64_t row_bytes, uint64_t array_cycles,
                                   uint64_t overlap = 0);
// m_{n-1}: the last pass's share of the stage's array cycles.
uint64_t last_pass_cycles(const ComputeConfig& compute, uint64_t pixels, uint64_t array_cycles);

// Vector unit cycles for `element_ops` element operations (a pooling window
// tap, one addend of an add, one element copied by concat):
//   ceil(element_ops / lanes)
uint64_t vector_stage_cycles(const VectorConfig& vector, uint64_t element_ops);

// Special-function cycles (divisions, integer square roots) of the vector
// unit: ceil(special_ops / vector.special_per_cycle), paid after the lanes.
uint64_t vector_special_cycles(const VectorConfig& vector, uint64_t special_ops);

// What one output row of a vector-unit operator costs (docs/transformers.md#cost),
// for `pixels` output pixels of `channels` channels (n = pixels * channels
// elements) and a pooling window of `window` taps (R*S; global: H*W):
//   maxpool, averagepool,
//   globalaveragepool  n * window element ops (one per window tap)
//   add                2n (one per addend)
//   concat             n (one copy per element)
//   gather             n (one copy per output element: a channel picked by index)
//   resize             n * window: nearest upsampling copies (window 1), linear
//                      weighs four taps (window 4; sim/program/resize_taps.h)
//   softmax            3n element ops (max, exp lookup and sum, normalise), n special (divisions)
//   layernorm          4n (sum, squares, normalise, scale), n + pixels special (divisions, roots)
//   rmsnorm            3n (squares, normalise, scale), n + pixels special
//   the activations    n (a table lookup each, whatever the function: gelu,
//                      silu, sigmoid, hardsigmoid, hardswish)
//   mul                2n (as add)
//   rope               3n (two products and a sum per output)
//   conv, matmul,
//   batch_matmul       none: the array's (cost::*_stage_cycles)
struct VectorWork {
  uint64_t element_ops = 0;
  uint64_t special_ops = 0;
};
VectorWork vector_row_work(OpKind op, uint64_t pixels, uint64_t channels, uint64_t window);

// Cycles of one weight tile streamed through the engines (the mapper's
// estimate, docs/mapping.md). Of the tile's weight load, `hidden` cycles
// overlap the previous tile's compute (a second weight slot; 0 when the
// region is single-buffered or for a layer's first tile); the rest,
// `exposed`, is paid alone. Then the pieces stream, either compute-bound
// (the first piece's fill, then the busiest unit's compute), bus-bound
// (every input load and store on the shared bus, and the hidden weight
// bytes, which share it) or port-bound (every cache access of the tile over
// the ports that stream at once), after one latency:
//   exposed = weights - min(weights, hidden)
//   exposed + max(fill + latency + unit_compute, latency + bus + (weights - exposed),
//                 latency + ceil(port_cycles / parallel_accesses))
// With hidden = 0 (a single-buffered region) the weights load alone first.
inline uint64_t prefetched_tile_cycles(uint64_t weights, uint64_t hidden, uint64_t fill,
                                       uint64_t unit_compute, uint64_t bus, uint64_t port_cycles,
                                       uint32_t parallel_accesses, uint64_t latency) {
  const uint64_t exposed = weights - (hidden < weights ? hidden : weights);
  const uint64_t compute_bound = fill + latency + unit_compute;
  const uint64_t bus_bound = latency + bus + (weights - exposed);
  const uint64_t port_bound = latency + ceil_div(port_cycles, parallel_accesses);
  const uint64_t stream = compute_bound > bus_bound ? compute_bound : bus_bound;
  return exposed + (stream > port_bound ? stream : port_bound);
}

// Seed 003's batch-upload threshold: results leave the cache once the amount
// the bus uploads in the time the array computes one output row has
// accumulated. In rows that is the ratio of the two rates, bus bytes per cycle
// over result bytes per cycle (the seed: 5 results/s in, 500/s out, upload at
// 500 = 100 x one step's 5):
//   floor(dram.bytes_per_cycle * row_cycles)
inline uint64_t upload_threshold_bytes(const DramConfig& dram, uint64_t row_cycles) {
  return uint64_t(dram.bytes_per_cycle * double(row_cycles));
}

// MACs the array performs in that stage (padding taps included).
inline uint64_t compute_stage_macs(uint64_t pixels, uint64_t k_count,
                                   uint64_t coefficients_per_kernel) {
  return pixels * k_count * coefficients_per_kernel;
}

}  // namespace npusim::cost
