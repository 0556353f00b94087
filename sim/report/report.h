// Everything a user reads after a run: the stdout table, report JSON (with a
// schema version), per-layer CSV and the two stats dumps. Reads only the
// stats registry and the configs; knows nothing of SystemC or the models.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/report/trial_records.h"
#include "sim/stats/dram_channels.h"
#include "sim/stats/stats_registry.h"

namespace npusim {

// 2: energy_uj became dynamic + leakage (it was dynamic only); "area" added.
inline constexpr int kReportSchemaVersion = 2;

// Result of comparing one layer's output with the reference.
struct LayerCheck {
  bool checked = false;  // false in timing-only mode
  bool match = false;
  std::string mismatch;  // first differing element, when !match
  std::string digest;    // digest of the simulator's output bytes
};

// Per-layer tiling chosen by the compiler, for the report.
struct LayerTiling {
  uint32_t k_tile = 0;               // output channels per weight tile
  uint32_t pieces = 0;               // seed 003 N: pieces per image per k-tile
  uint32_t rows_per_piece = 0;       // output rows per piece
  uint64_t half_bytes = 0;           // ping-pong half size
  uint32_t weight_buffers = 1;       // weight tiles the weight region holds (2: double-buffered)
  uint32_t units = 0;                // compute units its pieces are dealt to
  bool input_channel_tiles = false;  // pieces hold only their k-tile's input channels
  uint32_t cols_per_piece = 0;       // output columns per column piece (0: whole rows)
  bool feature_stationary = false;   // seed 004 rule 1's second loop order (else weight-stationary)
  uint32_t channels_per_part = 0;    // kernel parts' input channels (0: whole kernels)
  uint64_t estimate_cycles = 0;      // the mapper's estimate of the layer (0: not an array layer)
  // Where its output lived (docs/memory-plan.md): "dram", "cache" (kept by
  // the memory plan) or "kv_region" (cache.kv_kib).
  const char* output_in = "dram";
  // Where its weights lived: "dram", "cache" (a weight block the memory plan
  // keeps, loaded over the bus once), or "" for an operator without weights.
  const char* weights_in = "";
};

// How the run was asked for: the header of the summary and report.json say
// it, so a table read later still names its effective configuration. The CLI
// fills it; a summary built elsewhere (tests) may leave it empty.
struct RunProvenance {
  std::string command_line;            // argv joined with spaces
  std::string hardware_source;         // the --hw file, "program header", or "" (built-in defaults)
  std::vector<std::string> overrides;  // every --set, --policy, --buffering as key=value
  std::string workload_source;         // the workload file, or "" (the embedded default)
};

// The per-layer table of print_summary_table: the essential columns in at
// most 100 characters, or every column (`run --wide`).
enum class TableWidth { Compact, Wide };

struct RunSummary {
  const HardwareConfig* hw = nullptr;
  const NetworkConfig* network = nullptr;
  const StatsRegistry* stats = nullptr;
  std::vector<LayerCheck> checks;   // one per layer
  std::vector<LayerTiling> tiling;  // one per layer
  uint64_t total_cycles = 0;
  bool timing_only = false;
  double wall_seconds = 0.0;
  RunProvenance provenance;
  // Set when the runner ran compile trials (sim/runner/compile_trials.h).
  const CompileTrials* compile_trials = nullptr;
  // Under the banked DRAM: what each channel did, and the bandwidth a long
  // read stream sustains (bytes per cycle; docs/dram.md#sustained-bandwidth).
  const DramChannelTable* dram_channels = nullptr;
  double dram_sustained_bytes_per_cycle = 0;
};

// False when a compared layer differed, or (outside timing-only mode) a layer
// was left unchecked; a timing-only run compares nothing and gives true.
bool all_layers_match(const RunSummary& s);

// The functions below throw std::logic_error (see validate_summary in
// report_figures.h) when the summary is incomplete or a counter is missing.
void print_summary_table(std::ostream& out, const RunSummary& s,
                         TableWidth width = TableWidth::Compact);
// The lines above the table: the workload, the effective hardware (its source
// and every override) and the policy and buffering, each line at most 100
// characters.
void print_run_header(std::ostream& out, const RunSummary& s);
// The compile trials in a few phrases: the trial compiled and its cycles, how
// many ran, and the estimate's first choice when it differs.
std::vector<std::string> compile_trials_summary(const CompileTrials& trials);
// Seed 002 zero skipping, per layer with zero coefficients: non-zeros,
// density, array cycles against the dense ablation's, and the ideal 1/density.
// Prints nothing when every kernel is dense. Compact: one line when the zeros
// gain the array under 1 %, and on a large workload the layers that gain most.
void print_sparsity_table(std::ostream& out, const RunSummary& s,
                          TableWidth width = TableWidth::Compact);
// Seed 001 address generator: per layer, the input DRAM bytes of each
// load.access mode for the same tiles, the ratios to host_im2col, and each
// mode's largest input tile in the cache.
void print_access_table(std::ostream& out, const RunSummary& s);
nlohmann::json make_report_json(const RunSummary& s);
// make_report_json(s).dump(2) and a newline, written to `out` one layer entry
// at a time: a whole decoder's 51,084 entries never stand in memory as a tree.
void write_report_json(std::ostream& out, const RunSummary& s);
// The hardware's area estimate (docs/area.md) as report.json's "area": a
// run-level object, since the same silicon runs every layer.
nlohmann::json area_json(const HardwareConfig& hw);
void write_layer_csv(std::ostream& out, const RunSummary& s);
// Writes report.json, layers.csv, stats.json, stats.txt, hw.resolved.json and
// workload.resolved.json into `dir` (created if missing). Throws on I/O error.
void write_report_files(const std::string& dir, const RunSummary& s);

}  // namespace npusim
