// Kernel parts (docs/tiling.md#kernel-parts): where not even one kernel, or
// one output row with one kernel, fits the cache, or kernels fit only a few
// at a time, the compiler may cut the input channels into parts. Each part's weights (every kernel
// of the k-tile, its channels at every tap) and each piece's rows of those channels load in turn,
// and the piece's int32 sums build up over one compute per part: the partial sums stay in the
// piece's half until the last part, then the store requantises them. The issue's "splitting a
// kernel along its input channels"; the seeds describe no such split (seed 003 cuts rows only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/compiler/mapper.h"

namespace npusim {

// Why `layer` cannot have kernel parts on `hw` ("" when it can): as
// kernel_parts_unsupported (program.h) sees the layer's descriptor, plus the
// lockstep array and the cost mapper.
std::string kernel_parts_refusal(const LayerConfig& layer, const HardwareConfig& hw);

// The layer as one part of `channels` input channels sees it.
LayerConfig kernel_part_layer(const LayerConfig& layer, uint32_t channels);

// Whether some kernel parts of `layer` fit the partition (parts of one
// channel fit whenever any do).
bool kernel_parts_fit(const LayerConfig& layer, const HardwareConfig& hw,
                      const CachePartition& partition, uint32_t output_bits);

// The candidates with kernel parts: for P parts of ceil(C / P) channels, P
// the fewest that fit (bisection), twice and four times that, each part
// width's whole-kernel candidates for the part's channels (weight-stationary,
// whole rows), estimated by estimate_kernel_parts (or taken from `memo`, as
// for mapping_candidates).
std::vector<MappingCandidate> kernel_part_candidates(const LayerConfig& layer,
                                                     const HardwareConfig& hw,
                                                     const CachePartition& partition,
                                                     uint32_t output_bits,
                                                     PlanEstimates* memo = nullptr);

// The estimate of the emitter's program for `plan` (plan.channels_per_part
// set): per k-tile, the pieces in groups of units x halves; per group and
// part, the part's weights and the group's input rows on the bus and the
// group's computes (the busiest unit's). With two weight slots a part's loads
// run under the computes of the part before, but a unit's first piece loads
// its next part only after its own compute (the rows share its half); with
// one slot a part's weights wait for the computes before. Groups follow one
// another (their overlap is left out). The cache ports' time over the layer
// (loads, computes, the last part's stores, weight writes) bounds it from
// below, as in the whole-kernel estimate, and so does the bus (every weight
// part, row load, parameter load and store in turn).
// docs/tiling.md#kernel-parts.
MappingEstimate estimate_kernel_parts(const LayerConfig& layer, const HardwareConfig& hw,
                                      const LayerTilingPlan& plan, uint32_t output_bits);

}  // namespace npusim
