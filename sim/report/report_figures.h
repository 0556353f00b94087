// Derived figures of the report (utilisation, busy fractions, reuse), each
// defined once here from the stats registry's counters; the table, the JSON and
// the CSV all print these, so the three outputs cannot disagree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/report.h"

namespace npusim {

// Every counter the report reads. Their absence is a wiring bug in the models.
extern const std::vector<std::string> kReportCounters;

// The derived figures for one layer or for the whole run. Fractions are 0..1;
// every ratio whose denominator is 0 (no cycles) is 0.
struct Figures {
  uint64_t cycles = 0;         // layer.cycles, or RunSummary::total_cycles for the run
  double time_us = 0;          // cycles / clock_mhz
  double hw_mac_util = 0;      // compute.macs_performed / (peak_macs_per_cycle * cycles)
  double useful_mac_util = 0;  // compute.macs_useful / (peak_macs_per_cycle * cycles)
  double load_busy = 0;        // load.busy_cycles / cycles
  double compute_busy = 0;     // compute.busy_cycles / (compute.units * cycles)
  double store_busy = 0;       // store.busy_cycles / cycles
  double vector_busy = 0;      // vector.busy_cycles / cycles
  double dram_bus_busy = 0;    // dram.bus_busy_cycles / cycles
  // DRAM bytes (read + written) over the time: the bandwidth achieved over
  // the layer's span (or the run), in GB/s, and as a share of the peak.
  double dram_gbps = 0;
  double dram_peak_share = 0;  // dram_gbps / dram_peak_gbps(hw)
  double cache_reuse = 0;      // cache.read_bytes / max(1, cache.write_bytes)
  // Energy in microjoules (sim/report/energy.h): energy = dynamic + leakage.
  // The run's dynamic energy is the sum of its layers' (compute energy depends
  // on each layer's dtype); leakage is the leakage power over `time_us`, so
  // for the run it is over the run's cycles, not the sum of the layers' spans.
  double energy_uj = 0;
  double dynamic_energy_uj = 0;  // compute + cache + DRAM
  double leakage_energy_uj = 0;
  double compute_energy_uj = 0;
  double cache_energy_uj = 0;
  double dram_energy_uj = 0;
};

// The floating-point figures by name, in a fixed order (JSON keys, CSV columns).
struct FigureField {
  const char* name;
  double Figures::*member;
};
extern const std::vector<FigureField> kFigureFields;

// The memory's peak in GB/s: the bus's bytes per cycle at the clock, or the
// banked device's channels x width x data rate.
double dram_peak_gbps(const HardwareConfig& hw);
// What a long read stream sustains (docs/dram.md#sustained-bandwidth): the
// banked device's timed stream (RunSummary::dram_sustained_bytes_per_cycle),
// or the bus's bytes per cycle; per cycle and in GB/s.
double dram_sustained_bytes_per_cycle(const RunSummary& s);
double dram_sustained_gbps(const RunSummary& s);

// Throws std::logic_error naming what is wrong: a null pointer, a registry or
// check/tiling list whose layer count differs from the network's, or every
// counter of kReportCounters the registry lacks.
void validate_summary(const RunSummary& s);

Figures layer_figures(const RunSummary& s, uint32_t layer);
Figures total_figures(const RunSummary& s);
// An estimate's figures (`npusim estimate`, no simulation): `cycles` and the
// array's `dense_macs`; only time_us and the MAC utilisations are meaningful.
Figures estimate_figures(const HardwareConfig& hw, uint64_t cycles, uint64_t dense_macs);

// "64x56x56 k64 3x3/1" (C x H x W, K output channels, R x S kernel / stride);
// prefixed with "n<N> " when the batch is larger than one. A graph operator
// leads with its operator (an ONNX node with its op type). Compact, for the
// 24-character column of the default table: npusim's operator names (gap,
// avgpool, bmm) even for ONNX nodes, none before a plain convolution, and no
// kernel count for a depthwise one (K = C).
enum class ShapeStyle { Full, Compact };
std::string shape_string(const LayerConfig& l, ShapeStyle style = ShapeStyle::Full);
// "ok", "MISMATCH", or "-" when the layer was not checked (timing-only).
std::string check_string(const LayerCheck& c);

// Whether a layer (or the run) is compute- or memory-bound: "compute" when its
// bound.compute_cycles is at least its bound.memory_cycles, "memory" when
// DRAM traffic alone needs more cycles, "-" when both are 0, and "neither"
// when its cycles are more than kNeitherBoundFactor times the larger bound
// (latency, dependencies or the vector unit's waits take most of the time,
// not the array or the bus).
constexpr uint64_t kNeitherBoundFactor = 2;
std::string bound_string(uint64_t compute_cycles, uint64_t memory_cycles, uint64_t cycles);
std::string layer_bound(const RunSummary& s, uint32_t layer);
std::string run_bound(const RunSummary& s);
// "compute" -> "comp", "memory" -> "mem", "neither" -> "none" (others as they
// are): the compact table and the HTML page stay narrow on workloads of
// millions of cycles.
std::string compact_bound(const std::string& bound);

// A decoder workload's per-token figures (docs/decoders.md#decoder-figures):
// operators carry their pass (0: the prefill, s: decode step s), and each
// pass ends at the largest layer.finish_cycle of its operators.
struct DecoderFigures {
  uint64_t first_token_cycles = 0;    // time to first token: the prefill's end
  std::vector<uint64_t> step_end;     // each decode step's end, steps 1..D
  std::vector<uint64_t> step_cycles;  // step s: its end - the end of pass s - 1
  double mean_step_cycles = 0;        // (last step's end - prefill's end) / D; 0 when D = 0
  uint32_t sequences = 1;             // decoded together: the operators' N (a batch)
  // sequences * clock_mhz * 1e6 / mean_step_cycles (a step makes one token of
  // each sequence); 0 when D = 0
  double tokens_per_second = 0;
};
// Empty when no operator carries a pass (not a decoder workload).
std::optional<DecoderFigures> decoder_figures(const RunSummary& s);
// Milliseconds at the hardware's clock.
double cycles_to_ms(const HardwareConfig& hw, double cycles);

// Lower and upper bounds of the whole run, summed over layers.
struct RunBounds {
  // bound.compute_cycles summed over the array layers, or over the vector
  // operators when that is larger: the array and the vector unit run side by
  // side, so only each engine's own work bounds the run.
  uint64_t compute_lower = 0;
  uint64_t memory_lower = 0;  // bound.memory_cycles total
  uint64_t serial_upper = 0;  // bound.serial_cycles total
  // max(compute_lower, memory_lower) <= total_cycles <= serial_upper
  bool within(uint64_t cycles) const;
};
RunBounds run_bounds(const RunSummary& s);

// What the memory plan did (docs/memory-plan.md): the bytes that crossed the
// DRAM bus (read + written), the bytes that went through the cache instead
// because their output stayed there (stored once, read by each reader) or
// their weight block did (loaded over the bus once, read from the cache on
// every later load), how many operators' outputs it kept there, and how many
// operators loaded their weights from a kept block.
struct MemoryPlanFigures {
  uint64_t dram_bytes = 0;
  uint64_t dram_bytes_saved = 0;
  uint32_t outputs_in_cache = 0;
  uint32_t weights_in_cache = 0;
};
MemoryPlanFigures memory_plan_figures(const RunSummary& s);

}  // namespace npusim
