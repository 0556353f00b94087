// The lines above the summary table: what ran, on which effective hardware,
// under which policy. A table pasted into a note must say all of this, since
// the header used to read "hardware 'default'" even with overrides.
#include <cstdio>
#include <filesystem>
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
std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string clock_text(double mhz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g MHz", mhz);
  return buf;
}

}  // namespace

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
                 (p.hardware_source.empty() ? " (built-in defaults)"
                                            : " from " + file_name(p.hardware_source))});
  if (!p.overrides.empty()) print_wrapped(out, "overrides", p.overrides);
  print_wrapped(
      out, "",
      {std::to_string(hw.compute.units) + " x " + std::to_string(hw.compute.array_rows) + "x" +
           std::to_string(hw.compute.array_cols) + " array (" +
           std::to_string(hw.peak_macs_per_cycle()) + " MACs/cycle)",
       format_kib(hw.cache.size_kib) + " cache",
       std::to_string(hw.dram.bytes_per_cycle) + " B/cycle DRAM", clock_text(hw.clock_mhz)});
  if (s.unit_choice != nullptr && !s.unit_choice->trials.empty()) {
    const UnitChoice& c = *s.unit_choice;
    std::vector<std::string> items = {
        c.units == 0 ? std::string("no unit count compiled and ran")
                     : std::to_string(c.units) + " of " + std::to_string(hw.compute.units) +
                           " in use, the fewest simulated cycles" +
                           (c.estimated_units != 0 && c.estimated_units != c.units
                                ? " (the estimate's: " + std::to_string(c.estimated_units) + ")"
                                : "")};
    for (const UnitTrial& t : c.trials)
      items.push_back(std::to_string(t.units) + ": " +
                      (t.ok ? std::to_string(t.cycles) + " cycles" : std::string("failed")));
    print_wrapped(out, "units", items);
  }
  print_wrapped(out, "schedule",
                {std::string("policy ") + to_string(hw.policy),
                 std::string(to_string(hw.buffering)) + " buffering",
                 std::string(to_string(hw.compute_mode)) + " array",
                 std::string(to_string(hw.load_access)) + " loads"});
  out << '\n';
}

}  // namespace npusim
