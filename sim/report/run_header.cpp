// The lines above the summary table: what ran, on which effective hardware,
// under which policy. A table pasted into a note must say all of this, since
// the header used to read "hardware 'default'" even with overrides.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "sim/report/report.h"

namespace npusim {

namespace {

constexpr size_t kMaxLine = 100;

// "label     item, item, item" wrapped at kMaxLine, continuation lines indented.
void print_wrapped(std::ostream& out, const std::string& label,
                   const std::vector<std::string>& items) {
  const std::string indent(10, ' ');
  std::string line = label + std::string(label.size() < 10 ? 10 - label.size() : 1, ' ');
  bool first = true;
  for (const std::string& item : items) {
    const std::string piece = (first ? "" : ", ") + item;
    if (!first && line.size() + piece.size() > kMaxLine) {
      out << line << ",\n";
      line = indent + item;
    } else {
      line += piece;
    }
    first = false;
  }
  out << line << '\n';
}

std::string format_kib(uint64_t kib) {
  return kib % 1024 == 0 ? std::to_string(kib / 1024) + " MiB" : std::to_string(kib) + " KiB";
}

// The file's name without its folders: the header stays narrow and says no
// more about the machine than the user typed (report.json has the command line).
// A bus width in bytes a cycle: "32", or "48.57" for a fractional one.
std::string bytes_per_cycle_text(double bytes) {
  if (bytes == double(uint64_t(bytes))) return std::to_string(uint64_t(bytes));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", bytes);
  return buf;
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string clock_text(double mhz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g MHz", mhz);
  return buf;
}

// The memory as a person names it: "32 B/cycle DRAM (32.0 GB/s)" (the ideal
// bus at clock_mhz), or "DDR4-3200, 2 channels x 64 bit, 51.2 GB/s peak, open page".
std::string memory_text(const DramConfig& dram, double clock_mhz) {
  std::ostringstream gbps;
  gbps.precision(1);
  if (dram.model == DramModel::Bus) {
    gbps << std::fixed << dram.bytes_per_cycle * clock_mhz / 1000.0;
    return bytes_per_cycle_text(dram.bytes_per_cycle) + " B/cycle DRAM (" + gbps.str() + " GB/s)";
  }
  const DramDevice& d = dram.device;
  gbps << std::fixed << d.peak_bytes_per_second() / 1e9;
  return d.label + ", " + std::to_string(d.channels) +
         (d.channels == 1 ? " channel x " : " channels x ") + std::to_string(d.channel_bits) +
         " bit, " + gbps.str() + " GB/s peak, " + to_string(dram.page_policy) + " page";
}

}  // namespace

std::vector<std::string> compile_trials_summary(const CompileTrials& c) {
  const auto ran = [&c](const CompileTrial& target) -> const CompileTrial* {
    for (const CompileTrial& t : c.trials)
      if (t.ok && t.same_target(target)) return &t;
    return nullptr;
  };
  // The array only where a trial used part of it (docs/compile-trials.md#array-in-use).
  const CompileTrial& first = c.trials.front();
  const bool arrays_differ =
      std::any_of(c.trials.begin(), c.trials.end(), [&first](const CompileTrial& t) {
        return t.array_rows != first.array_rows || t.array_cols != first.array_cols;
      });
  const auto name = [arrays_differ](const CompileTrial& t) {
    return std::to_string(t.units) + (t.units == 1 ? " unit in " : " units in ") +
           format_kib(t.cache_kib) +
           (arrays_differ
                ? " on " + std::to_string(t.array_rows) + "x" + std::to_string(t.array_cols)
                : "") +
           (t.weight_stationary ? ", weight-stationary" : "") +
           (t.residency_off ? ", without the memory plan" : "");
  };
  const CompileTrial* chosen = ran(c.chosen);
  if (chosen == nullptr)
    return {"none of " + std::to_string(c.trials.size()) + " trials ran (" +
            c.trials.front().failure + ")"};
  const CompileTrial* fastest = chosen;
  for (const CompileTrial& t : c.trials)
    if (t.ok && t.cycles < fastest->cycles) fastest = &t;
  std::vector<std::string> items = {"compiled for " + name(*chosen) + ": " +
                                    std::to_string(chosen->cycles) + " cycles"};
  // compiler.traffic_margin may take a leaner trial than the fastest.
  if (fastest == chosen)
    items.push_back("the fewest of " + std::to_string(c.trials.size()) + " simulated");
  else
    items.insert(items.end(), {"the fewest DRAM bytes within compiler.traffic_margin",
                               "the fastest of " + std::to_string(c.trials.size()) +
                                   " simulated: " + name(*fastest) + ", " +
                                   std::to_string(fastest->cycles) + " cycles"});
  const CompileTrial* estimated = ran(c.estimated);
  if (estimated != nullptr && estimated != chosen)
    items.push_back("the estimate's first: " + name(*estimated) + ", " +
                    std::to_string(estimated->cycles) + " cycles");
  return items;
}

void print_run_header(std::ostream& out, const RunSummary& s) {
  const HardwareConfig& hw = *s.hw;
  const NetworkConfig& net = *s.network;
  const RunProvenance& p = s.provenance;
  std::string workload = net.name + ": " + std::to_string(net.layers.size()) +
                         (net.is_graph() ? " operators" : " layers");
  if (!p.workload_source.empty()) workload += " from " + file_name(p.workload_source);
  print_wrapped(out, "workload", {workload, s.timing_only ? "timing only" : "functional"});

  print_wrapped(out, "hardware",
                {"'" + hw.name + "'" +
                 (!p.hardware_source.empty() ? " from " + file_name(p.hardware_source)
                  : p.overrides.empty()      ? " (built-in defaults)"
                                             : " (built-in defaults with the overrides below)")});
  if (!p.overrides.empty()) print_wrapped(out, "overrides", p.overrides);
  print_wrapped(
      out, "",
      {std::to_string(hw.compute.units) + " x " + std::to_string(hw.compute.array_rows) + "x" +
           std::to_string(hw.compute.array_cols) + " array (" +
           std::to_string(hw.peak_macs_per_cycle()) + " MACs/cycle" +
           (hw.uses_part_of_array() ? "; the program uses " + std::to_string(hw.rows_in_use()) +
                                          "x" + std::to_string(hw.cols_in_use())
                                    : "") +
           ")",
       format_kib(hw.cache.size_kib) + " cache", memory_text(hw.dram, hw.clock_mhz),
       clock_text(hw.clock_mhz)});
  if (s.compile_trials != nullptr && !s.compile_trials->trials.empty())
    print_wrapped(out, "trials", compile_trials_summary(*s.compile_trials));
  print_wrapped(out, "schedule",
                {std::string("policy ") + to_string(hw.policy),
                 std::string(to_string(hw.buffering)) + " buffering",
                 std::string(to_string(hw.compute_mode)) + " array",
                 std::string(to_string(hw.load_access)) + " loads"});
  out << '\n';
}

}  // namespace npusim
