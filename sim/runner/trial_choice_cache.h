// The compile trials' outcome kept between runs (docs/compile-trials.md#choices-kept-between-runs).
// The trials (compile_trials.h) simulate several candidate programs before a run; what they
// settle (every trial's cycles, the chosen one, and the partition and mappings of its estimate,
// from which the chosen program is compiled) depends only on the network, the hardware and the
// build of npusim. So it is kept, one file per (network, hardware), in the per-build folder of
// the kernel-count cache (kernel_summary_cache_dir: NPUSIM_KERNEL_CACHE, else
// $XDG_CACHE_HOME/npusim/kernel-counts/BUILD-ID), and a later run of the same network on the
// same hardware compiles the chosen program straight away and simulates it once. With one
// program or none to simulate, the entry holds no trials and the partition and mappings
// compile_network would choose (network_partition), so a later run maps nothing. An ONNX
// network is keyed by the digest of its model's and --input files' bytes (its source_files);
// layers with weights from weights_npy files are never kept.
#pragma once

#include <string>

#include "sim/compiler/network_estimate.h"
#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/report/trial_records.h"

namespace npusim {

// What the trials' outcome depends on, as one line (the entry's first, compared on every read;
// its digest names the file): the format, npusim's version and the SHA-256 of the hardware and
// the network as JSON, or of an ONNX network's source files. Empty when a layer's weights come
// from a weights_npy file, or an ONNX network's files cannot be read.
std::string trial_choice_key(const NetworkConfig& network, const HardwareConfig& hw);

// The entry of `key` in `dir`: true and `choice` and `estimate` (the chosen trial's partition
// and mappings, what compile_network reads; no operators) set when it is there, whole and of
// this key; false (both untouched) otherwise.
bool read_trial_choice(const std::string& dir, const std::string& key, CompileTrials& choice,
                       NetworkEstimate& estimate);

// Writes the entry of `key` in `dir` (to a temporary name, then renamed). A folder that cannot
// be written only costs the saving.
void write_trial_choice(const std::string& dir, const std::string& key, const CompileTrials& choice,
                        const NetworkEstimate& estimate);

// The entry's value as JSON, and back (false on anything missing or of the wrong type). For
// the cache and its tests.
std::string trial_choice_text(const CompileTrials& choice, const NetworkEstimate& estimate);
bool parse_trial_choice(const std::string& text, CompileTrials& choice, NetworkEstimate& estimate);

}  // namespace npusim
