// `npusim diff`: two `npusim run --out` folders side by side. load_run reads a
// folder's report.json (workload, hardware, run totals) and layers.csv (one row
// per layer, columns found by header name, so added columns do no harm);
// compare_runs matches the layers by name; the printers format the result.
// Reads only those two files: no models, no SystemC. Bad input throws
// ConfigError or std::runtime_error naming the folder or file, what was
// expected and what was found.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace npusim {

// The figures compared, for one layer or a whole run.
struct DiffFigures {
  uint64_t cycles = 0;      // layer.cycles, or the run's total cycles
  double hw_mac_util = 0;   // fraction 0..1 (the table's mac%)
  uint64_t dram_bytes = 0;  // dram.read_bytes + dram.write_bytes
  double energy_uj = 0;     // energy_uj: dynamic + leakage (docs/energy.md)
};

struct DiffLayer {
  uint32_t index = 0;  // row of layers.csv, from 0
  std::string name;
  std::string shape;  // "N=1 C=8 ...": compared between runs, not printed
  DiffFigures figures;
};

// What `npusim diff` reads of one run folder.
struct DiffRun {
  std::string dir;
  std::string workload;           // report.json /workload/name
  uint64_t workload_layers = 0;   // report.json /workload/layers
  nlohmann::json hardware;        // report.json /hardware (an object)
  std::vector<DiffLayer> layers;  // layers.csv, in file order
  DiffFigures totals;             // report.json /totals
};

// Reads `dir`/report.json and `dir`/layers.csv. Throws when the folder or a
// file is missing, unreadable or malformed, or lacks a field or column it needs.
DiffRun load_run(const std::string& dir);

struct DiffRow {
  std::string name;
  uint32_t index_a = 0, index_b = 0;
  DiffFigures a, b;
};

struct RunDiff {
  std::vector<DiffRow> layers;        // layers of A also in B (by name), in A's order
  std::vector<std::string> only_a;    // layer names only in A
  std::vector<std::string> only_b;    // layer names only in B
  std::vector<std::string> reshaped;  // matched layers whose shapes differ
  // Hardware fields (dotted keys) whose values differ: "compute.array_rows 32 -> 16".
  std::vector<std::string> hardware_changes;
  DiffFigures total_a, total_b;  // the runs' own totals (all their layers)
};

// Matches layers by name. Throws std::runtime_error when no name is shared.
RunDiff compare_runs(const DiffRun& a, const DiffRun& b);

// b / a; nothing when a is 0 (printed "-", empty in the CSV).
std::optional<double> diff_ratio(double a, double b);

// The human lines that say how the workloads differ; empty when they match.
std::vector<std::string> diff_warnings(const DiffRun& a, const DiffRun& b, const RunDiff& d);

// The table of docs/compare.md: both runs' workload and hardware, warnings,
// one row per matched layer and the totals row, in at most 100 columns while
// the numbers fit. `label_a` / `label_b` head the columns of each run.
void print_run_diff(std::ostream& out, const DiffRun& a, const DiffRun& b, const RunDiff& d,
                    const std::string& label_a = "A", const std::string& label_b = "B");

// The same comparison as CSV: full names and full precision, one row per
// matched layer, then the totals row (layer "total", empty indices).
void write_run_diff_csv(std::ostream& out, const RunDiff& d);

}  // namespace npusim
