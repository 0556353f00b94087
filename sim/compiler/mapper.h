// The mapper: picks each array layer's mapping (k-tile and piece count; a
// compute stage holds the most rows the accumulator takes) by cost. It
// enumerates the candidates that fit the cache partition (seed 003: the
// minimum piece count N, and any larger N, the pieces staying equal; k-tiles
// in multiples of the array rows or of 8 and K itself, smaller ones only when
// nothing else fits), each also with two weight slots when two tiles fit the
// weight region (compiler.weight_buffers auto) and, under compiler.loop_order
// auto, each of several weight tiles in both of seed 004 rule 1's loop
// orders, and keeps the one with the fewest estimated cycles. The estimate
// models the program the emitter writes for that mapping (seed 004's load,
// compute and store engines over ping-pong halves, weights in one tile or two
// slots; feature_stationary_estimate.h for the second loop order) and uses
// only the formulas of models/cost_model. docs/mapping.md states the estimate.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/compiler/tiler.h"

namespace npusim {

// The estimate of one mapping, in cycles, with the terms it is built from.
struct MappingEstimate {
  uint64_t total = 0;
  uint64_t weights = 0;  // weight and parameter loads (serialised with the pieces)
  uint64_t compute = 0;  // array time on the busiest unit
  uint64_t bus = 0;      // input loads and stores on the shared bus
};

class PlanEstimates;     // estimate_memo.h
class MachineEstimates;  // estimate_memo.h

struct MappingCandidate {
  LayerTilingPlan plan;
  MappingEstimate estimate;
};

// Estimated cycles of layer `L` mapped by `plan` (plan.fits must be true),
// run alone under hw's buffering, as under the strict policy (so both
// policies run the same program). Dense array time (the compiler does not
// see the weights' zeros).
MappingEstimate estimate_mapping(const LayerConfig& L, const HardwareConfig& hw,
                                 const LayerTilingPlan& plan, uint32_t output_bits = 0);

// The estimate of the mapping a program gave layer `L` (its descriptor `d`,
// in the program's view of the layer, sim/program/batch_rows.h): what the
// mapper estimated when it chose it, so a run can report the estimator's
// error against the simulated cycles. `params_per_tile`: the program loads
// the layer's parameters tile by tile.
uint64_t estimate_of_program_layer(const LayerConfig& L, const HardwareConfig& hw,
                                   const LayerDescriptor& d, bool params_per_tile);

// DRAM bus time of a mapping: its weight and parameter loads, input loads and
// stores (what its traffic costs in cycles, and in energy).
inline uint64_t bus_time(const MappingEstimate& e) { return e.weights + e.bus; }

// The cost mapper's pick: the first candidate with the fewest estimated
// cycles; with compiler.traffic_margin m > 0, of the candidates within
// (1 + m) times those cycles, the one with the least bus_time, on a tie the
// fewer cycles, then the first (docs/compile-trials.md#traffic-margin). nullptr
// when there is none.
const MappingCandidate* chosen_candidate(const std::vector<MappingCandidate>& candidates,
                                         const HardwareConfig& hw);

// Every candidate that fits, in enumeration order (the greedy one first);
// where no whole-kernel candidate fits, or none has a k-tile of min(K, array
// rows), also those with kernel parts (kernel_parts.h, compiler.kernel_parts).
// `memo` (one per layer signature and machine, estimate_memo.h): estimates
// already worked out for this layer under another partition are taken from
// it, and new ones kept there; the candidates are the same either way.
std::vector<MappingCandidate> mapping_candidates(const LayerConfig& L, const HardwareConfig& hw,
                                                 const CachePartition& partition,
                                                 uint32_t output_bits = 0,
                                                 PlanEstimates* memo = nullptr);

// mapping_candidates' candidates with whole kernels; `estimated` false
// leaves their estimates empty (kernel parts estimate their own); `memo` as
// for mapping_candidates.
std::vector<MappingCandidate> whole_kernel_candidates(
    const LayerConfig& L, const HardwareConfig& hw, const CachePartition& partition,
    uint32_t output_bits = 0, bool estimated = true, PlanEstimates* memo = nullptr);

// The k-tiles the cost mapper tries: K and the multiples of the array rows
// or of 8 below it that fit, or (when none does) the largest smaller one
// that fits.
std::vector<uint32_t> k_tile_candidates(const LayerConfig& L, const HardwareConfig& hw,
                                        const CachePartition& partition, uint32_t output_bits = 0);
// Whether k_tile_candidates finds any (it stops at the first).
bool has_k_tile(const LayerConfig& L, const HardwareConfig& hw, const CachePartition& partition,
                uint32_t output_bits = 0);

// Whether hw.mapper finds a mapping of L that fits the partition (cheap: no estimates).
bool mapping_fits(const LayerConfig& L, const HardwareConfig& hw, const CachePartition& partition,
                  uint32_t output_bits = 0);

// What a mapping depends on, as text: the layer's shape, geometry, operator
// kind and tensor formats and the output format, not its name, seed, weights
// or pass. Layers with equal signatures get equal mappings on one machine and
// partition (a decode step's projections repeat layer after layer), so the
// compiler maps each signature once (choose_partition, the emitter).
std::string mapping_signature(const LayerConfig& L, uint32_t output_bits);

// The unit counts the cost mapper weighs when compiler.units is 0, most
// first: every count down to 1 when compute.units <= 8, else the counts above
// compute.units - 8 and the powers of two.
std::vector<uint32_t> unit_counts(const HardwareConfig& hw);

// The partition the compiler uses (docs/compile-trials.md#the-partition-and-the-units-in-use).
// Greedy mapper: seed 003's (weights at most half the cache) when every array
// layer fits it, else the first of weight shares 1/4 .. 1/64 with which every
// array layer fits, then the same with parameters per weight tile; a graph's
// vector region is vector.buffer_kib, halved (down to 1/64, never below the
// vector operators' smallest instruction, vector_tiling.h) only when nothing
// fits. Cost mapper: the option with the fewest estimated cycles over every
// weight share, number of units, parameter placement and vector region
// (parameters per tile and smaller vector regions only where the larger ones
// crowd the cache or nothing else fits); seed 003's on a tie. When nothing
// fits: seed 003's with the smallest vector region, for the error to name.
// With the cost mapper, `mappings` (when given) gets the chosen partition's
// mapping of each signature, as choose_mapping would give it, since finding
// the partition costed them all. compiler.units, when set, is the only unit
// count; compiler.cache_kib, when set, is the cache the regions are laid out in.
// `memo`: estimates kept from earlier calls (the compile trials'), and kept
// for later ones; the result is the same without it.
// `limit` (cost mapper, above 0): the caller wants the partition only when its
// estimate is at most `limit` cycles (a compile trial's margin), so once some
// partition fits every layer, each partition is abandoned as soon as its sum
// passes the limit. The partition is then the same as without it; when every
// partition that fits is estimated above the limit, `*over_limit` is set and
// seed 003's partition returned, without mappings.
CachePartition choose_partition(
    const NetworkConfig& net, const HardwareConfig& hw,
    std::unordered_map<std::string, LayerTilingPlan>* mappings = nullptr,
    MachineEstimates* memo = nullptr, double limit = 0, bool* over_limit = nullptr);

// The mapping the compiler uses: hw.mapper picks the cost mapper (the first
// candidate with the fewest estimated cycles) or the greedy plan_layer.
// Not fitting is a value (fits false, why set), as for plan_layer.
LayerTilingPlan choose_mapping(const LayerConfig& L, const HardwareConfig& hw,
                               const CachePartition& partition, uint32_t output_bits = 0);

}  // namespace npusim
