// What a timing-only run needs of a layer's weights (the kernel stream's format and each
// kernel's non-zero count, summarise_kernels), counted once per process (the counts are kept
// by the layer's seeded_weights_key), and a cache of it on disk shared by runs and by the
// points of a sweep: runs of one workload on other hardware draw the same seeded weights, and
// drawing and counting them is a large share of a timing-only run's work. The cache is the
// folder the NPUSIM_KERNEL_CACHE environment variable names (npusim sweep sets it for its
// points), nothing when it is set empty, and by default $XDG_CACHE_HOME (or ~/.cache)
// /npusim/kernel-counts/BUILD-ID, one folder per build of npusim (sim/io/build_id.h).
#pragma once

#include <cstddef>
#include <string>

#include "sim/compiler/kernel_stream.h"
#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"

namespace npusim {

// summarise_layer_kernels(layer, make_layer_weights(layer), mode), through the cache in
// `cache_dir` when it is not empty and the layer's weights are seeded (weights from a file or a
// model are never cached). An entry is one file, written to a temporary name and renamed, so a
// reader sees a whole entry or none; a missing, short or foreign entry is recomputed and
// rewritten. A folder that cannot be written only costs the saving.
KernelStream timing_kernel_summary(const LayerConfig& layer, ComputeMode mode,
                                   const std::string& cache_dir);

// Counts every seeded array layer's non-zeros into the process's memory, where later summaries
// of the same weights (this process's and its forked children's) find them; with a disk cache
// (kernel_summary_cache_dir), each layer's summary for `mode` is read from it, or counted and
// written there, and kept in memory the same way.
void warm_kernel_counts(const NetworkConfig& network, ComputeMode mode);

// The default cache keeps the folders of this many builds: a build's first run, making its
// folder, removes the other build folders (hex names) but for the last written to.
constexpr size_t kKeptBuildFolders = 4;

// The folder NPUSIM_KERNEL_CACHE names ("" when it is set empty: no cache); when it is not set,
// $XDG_CACHE_HOME/npusim/kernel-counts/BUILD-ID (~/.cache when XDG_CACHE_HOME is not an absolute
// path), made if missing (kKeptBuildFolders); "" without an absolute HOME or a build ID, or when
// the folder cannot be made.
std::string kernel_summary_cache_dir();

// Everything the seeded weights and their summary depend on, as text (the entry's key; its
// hash names the file). Empty when the layer's weights are not seeded. For tests.
std::string kernel_summary_key(const LayerConfig& layer, ComputeMode mode);

}  // namespace npusim
