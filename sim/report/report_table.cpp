// The summary table on stdout: the run header, one row per layer, a totals
// row, then the run's headline figures and the verdict on the outputs. The
// compact table keeps the essential columns within 100 characters (long names
// shortened in the middle); the wide one has every column. Column widths
// follow the widest cell so long layer names never shear the table.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/report/area.h"
#include "sim/report/report.h"
#include "sim/report/report_figures.h"
#include "sim/report/row_selection.h"
#include "sim/report/units.h"

namespace npusim {

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
std::string pct(double fraction) { return fmt("%.1f", 100.0 * fraction); }
// "5.00 k", "1.23 M": a rate reads at a glance without counting digits.
std::string si(double v) {
  const char* suffix = "";
  for (const char* next : {"k", "M", "G"}) {
    if (v < 1000.0) break;
    v /= 1000.0;
    suffix = next;
  }
  return fmt("%.2f", v) + (*suffix != '\0' ? std::string(" ") + suffix : "");
}
std::string kib(uint64_t bytes) { return fmt("%.1f", static_cast<double>(bytes) / 1024.0); }

struct Column {
  const char* header;
  bool left;  // names and shapes read left-aligned, numbers right-aligned
};

const std::vector<Column> kWideColumns = {
    {"layer", true},   {"shape", true},   {"cycles", false},   {"time_us", false}, {"mac%", false},
    {"use%", false},   {"load%", false},  {"comp%", false},    {"store%", false},  {"vec%", false},
    {"dep", false},    {"mem", false},    {"buf", false},      {"bus", false},     {"port", false},
    {"rd_KiB", false}, {"wr_KiB", false}, {"peak_KiB", false}, {"out", true},      {"wts", true},
    {"tiling", true},  {"check", true},   {"bound", true},
};

// Cells from `shape` to `tiling` that come from counters, for one layer or the
// whole run; `value` reads a counter.
template <typename Value>
std::vector<std::string> row(const std::string& name, const std::string& shape, const Figures& f,
                             Value value, const std::string& output_in,
                             const std::string& weights_in, const std::string& tiling,
                             const std::string& check, const std::string& bound) {
  return {name,
          shape,
          std::to_string(f.cycles),
          fmt("%.3f", f.time_us),
          pct(f.hw_mac_util),
          pct(f.useful_mac_util),
          pct(f.load_busy),
          pct(f.compute_busy),
          pct(f.store_busy),
          pct(f.vector_busy),
          std::to_string(value("stall.data_dependency_cycles")),
          std::to_string(value("stall.memory_dependency_cycles")),
          std::to_string(value("stall.buffer_space_cycles")),
          std::to_string(value("stall.bus_cycles")),
          std::to_string(value("stall.cache_port_cycles")),
          kib(value("dram.read_bytes")),
          kib(value("dram.write_bytes")),
          kib(value("cache.peak_occupancy_bytes")),
          output_in,
          weights_in,
          tiling,
          check,
          bound};
}

// The compact table: name and shape (each shortened to fit), cycles, MAC
// utilisation, the busy share of the operator's engine, the largest stall
// cause, DRAM traffic and the check.
const std::vector<Column> kCompactColumns = {
    {"layer", true}, {"shape", true},     {"cycles", false}, {"mac%", false}, {"busy%", false},
    {"stall", true}, {"dram_KiB", false}, {"check", true},   {"bound", true},
};
constexpr size_t kCompactName = 20;
// The shape column takes at most 24 characters, fewer (down to 16) when long
// numbers in the other columns would push the table past 100.
constexpr size_t kCompactShape = 24, kCompactShapeMin = 16, kCompactWidth = 100;

// The stall counter with the most cycles, by its short name; "-" for none.
template <typename Value>
std::string top_stall(Value value) {
  static const std::pair<const char*, const char*> kStalls[] = {
      {"dep", "stall.data_dependency_cycles"},
      {"mem", "stall.memory_dependency_cycles"},
      {"buf", "stall.buffer_space_cycles"},
      {"bus", "stall.bus_cycles"},
      {"port", "stall.cache_port_cycles"}};
  std::string best = "-";
  uint64_t most = 0;
  for (const auto& [name, counter] : kStalls) {
    const uint64_t v = value(counter);
    if (v > most) {
      most = v;
      best = name;
    }
  }
  return best;
}

template <typename Value>
std::vector<std::string> compact_row(const std::string& name, const std::string& shape,
                                     const Figures& f, bool on_vector_unit, Value value,
                                     const std::string& check, const std::string& bound) {
  return {name,
          shape,
          std::to_string(f.cycles),
          pct(f.hw_mac_util),
          pct(on_vector_unit ? f.vector_busy : f.compute_busy),
          top_stall(value),
          kib(value("dram.read_bytes") + value("dram.write_bytes")),
          check,
          compact_bound(bound)};
}

void print_rows(std::ostream& out, const std::vector<Column>& columns,
                const std::vector<std::vector<std::string>>& rows, size_t totals_row) {
  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    width[c] = std::string(columns[c].header).size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  auto print = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      if (c > 0) line += "  ";
      line += columns[c].left ? cells[c] + pad : pad + cells[c];
    }
    line.erase(line.find_last_not_of(' ') + 1);  // no trailing blanks after "check"
    out << line << '\n';
  };
  std::vector<std::string> headers;
  size_t total_width = 2 * (columns.size() - 1);
  for (size_t c = 0; c < columns.size(); ++c) {
    headers.emplace_back(columns[c].header);
    total_width += width[c];
  }
  const std::string rule(total_width, '-');
  print(headers);
  out << rule << '\n';
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i == totals_row) out << rule << '\n';
    print(rows[i]);
  }
}

// The last line: the one thing a user must not miss.
std::string verdict(const RunSummary& s) {
  if (s.timing_only) return "outputs: not checked (timing-only mode)";
  for (size_t i = 0; i < s.checks.size(); ++i) {
    const LayerCheck& c = s.checks[i];
    const std::string& name = s.network->layers[i].name;
    if (!c.checked) return "outputs: NOT CHECKED in layer " + name;
    if (!c.match) return "outputs: MISMATCH in layer " + name + ": " + c.mismatch;
  }
  return "outputs: bit-exact vs reference (" + std::to_string(s.checks.size()) + " layers)";
}

std::string totals_check(const RunSummary& s) {
  if (s.timing_only) return "-";
  return all_layers_match(s) ? "ok" : "MISMATCH";
}

void print_layer_rows(std::ostream& out, const RunSummary& s, TableWidth width) {
  const StatsRegistry& st = *s.stats;
  std::vector<std::vector<std::string>> rows;
  const bool wide = width == TableWidth::Wide;
  // Compact: every operator, or on a large workload the most costly few and a
  // row for the rest (row_selection.h).
  const size_t n = s.network->layers.size();
  const Counter& span = st.get("layer.cycles");
  const Counter& read = st.get("dram.read_bytes");
  const Counter& written = st.get("dram.write_bytes");
  std::vector<uint64_t> spans(n);
  for (uint32_t i = 0; i < n; ++i) spans[i] = span.at(i);
  RowSelection selection;
  if (wide)
    for (uint32_t i = 0; i < n; ++i) selection.shown.push_back(i);
  else
    selection = select_rows(spans, std::vector<bool>(n, true));
  for (const uint32_t i : selection.shown) {
    const LayerConfig& layer = s.network->layers[i];
    const LayerTiling& t = s.tiling[i];
    const auto value = [&](const std::string& n) { return st.get(n).at(i); };
    if (wide)
      rows.push_back(row(layer.name, shape_string(layer), layer_figures(s, i), value, t.output_in,
                         *t.weights_in != '\0' ? t.weights_in : "-",
                         std::to_string(t.k_tile) + "x" + std::to_string(t.pieces) +
                             (t.weight_buffers > 1 ? "w2" : "") +
                             (t.feature_stationary ? "fs" : ""),
                         check_string(s.checks[i]), layer_bound(s, i)));
    else
      rows.push_back(compact_row(layer.name, shape_string(layer, ShapeStyle::Compact),
                                 layer_figures(s, i), !runs_on_array(layer.op), value,
                                 check_string(s.checks[i]), layer_bound(s, i)));
  }
  if (!wide) {  // names cut to the column, each still telling its operator apart
    std::vector<std::string> names;
    for (const auto& r : rows) names.push_back(r[0]);
    const std::vector<std::string> short_names =
        distinct_short_names(names, selection.shown, kCompactName);
    for (size_t k = 0; k < rows.size(); ++k) rows[k][0] = short_names[k];
  }
  if (!selection.rest.empty()) {
    uint64_t cycles = 0, dram = 0;
    for (const uint32_t i : selection.rest) {
      cycles += spans[i];
      dram += read.at(i) + written.at(i);
    }
    rows.push_back({"(" + std::to_string(selection.rest.size()) + " more)", "",
                    std::to_string(cycles), "", "", "", kib(dram), "", ""});
  }
  const size_t totals_row = rows.size();
  const Figures tot = total_figures(s);
  const auto total = [&](const std::string& n) { return st.get(n).total(); };
  if (wide)
    rows.push_back(row("total", "", tot, total, "", "", "", totals_check(s), run_bound(s)));
  else
    rows.push_back(compact_row("total", "", tot, false, total, totals_check(s), run_bound(s)));
  if (!wide) {
    // What the other columns leave of 100 characters (two spaces between columns).
    size_t others = 2 * (kCompactColumns.size() - 1);
    for (size_t c = 0; c < kCompactColumns.size(); ++c) {
      if (c == 1) continue;
      size_t w = std::string(kCompactColumns[c].header).size();
      for (const auto& r : rows) w = std::max(w, r[c].size());
      others += w;
    }
    const size_t room = others < kCompactWidth ? kCompactWidth - others : 0;
    const size_t shape_width = std::clamp(room, kCompactShapeMin, kCompactShape);
    for (auto& r : rows) r[1] = shortened(r[1], shape_width);
  }
  print_rows(out, wide ? kWideColumns : kCompactColumns, rows, totals_row);
  if (wide) {
    out << "stalls in cycles: dep = data dependency, mem = memory dependency, buf = buffer space,"
           " bus = DRAM bus, port = cache port\n"
           "out: where the output lived (dram; cache, kept there by the memory plan; kv_region)\n"
           "bound: compute or memory, whichever lower bound (bound.compute_cycles,"
           " bound.memory_cycles) is larger;\n"
           "neither: cycles more than twice the larger bound (stalls, not the array or bus, "
           "rule)\n\n";
  } else {
    out << "mac%: array MACs of peak; busy%: the array's, or the vector unit's for its operators;\n"
           "stall: the largest stall cause (dep = data dependency, mem = memory dependency,\n"
           "buf = buffer space, bus = DRAM bus, port = cache port); bound: comp(ute) or\n"
           "mem(ory), whichever lower bound is larger (compute alone or DRAM traffic alone),\n"
           "none when the cycles are over twice both (stalls, not the array or bus, rule);\n"
           "run --wide: every column\n";
    if (selection.rest.empty()) {
      out << '\n';
    } else {
      out << "the " << selection.shown.size() << " of " << n
          << " operators with the most cycles, in program order; (more): the others' spans\n"
             "and DRAM traffic summed; run --wide: every operator\n\n";
      print_kind_table(out, s);
    }
  }
}

// A decoder workload's time to first token, per-token decode latency and
// tokens per second (docs/decoders.md#decoder-figures).
void print_decoder_lines(std::ostream& out, const RunSummary& s) {
  const auto d = decoder_figures(s);
  if (!d) return;
  const HardwareConfig& hw = *s.hw;
  out << "first token      : " << d->first_token_cycles << " cycles ("
      << duration_text(cycles_to_ms(hw, double(d->first_token_cycles)) * 1e-3)
      << "): the end of the prefill (pass 0)\n";
  if (d->step_cycles.empty()) {
    out << "decode           : no decode steps\n";
    return;
  }
  const auto [lo, hi] = std::minmax_element(d->step_cycles.begin(), d->step_cycles.end());
  out << "decode per token : mean " << fmt("%.1f", d->mean_step_cycles) << " cycles ("
      << duration_text(cycles_to_ms(hw, d->mean_step_cycles) * 1e-3) << ") over "
      << d->step_cycles.size() << " steps, min " << *lo << ", max " << *hi << '\n';
  out << "tokens per second: " << fmt("%.1f", d->tokens_per_second) << " (decode, "
      << (d->sequences == 1 ? std::string("one sequence")
                            : std::to_string(d->sequences) + " sequences")
      << ")\n";
}

// The banked DRAM's channels (docs/dram.md#per-channel-figures): one line
// of their spread and the sustained bandwidth, and with --wide a row each.
void print_dram_channels(std::ostream& out, const RunSummary& s, TableWidth width) {
  const DramChannelTable& channels = *s.dram_channels;
  const double cycles = double(std::max<uint64_t>(1, s.total_cycles));
  const auto bytes = [](const DramChannelFigures& c) { return c.read_bytes + c.write_bytes; };
  size_t most = 0, least = 0, busiest = 0;
  uint64_t refresh = 0;
  for (size_t c = 0; c < channels.size(); ++c) {
    if (bytes(channels[c]) > bytes(channels[most])) most = c;
    if (bytes(channels[c]) < bytes(channels[least])) least = c;
    if (channels[c].busy_cycles > channels[busiest].busy_cycles) busiest = c;
    refresh = std::max(refresh, channels[c].refresh_cycles);
  }
  const double peak = dram_peak_gbps(*s.hw);
  const double sustained = dram_sustained_gbps(s);
  out << "DRAM channels    : " << channels.size();
  const std::string low = bytes_text(bytes(channels[least]));
  const std::string high = bytes_text(bytes(channels[most]));
  if (channels.size() > 1 && low == high)
    out << ", " << high << " each";
  else if (channels.size() > 1)
    out << ", " << low << " (channel " << least << ") to " << high << " (channel " << most
        << ") each";
  out << "; busiest data bus " << pct(double(channels[busiest].busy_cycles) / cycles)
      << " % of the run, refresh " << pct(std::min(1.0, double(refresh) / cycles))
      << " %; a long read stream sustains " << fmt("%.1f", sustained) << " GB/s ("
      << pct(peak > 0 ? sustained / peak : 0) << " % of peak)\n";
  if (width != TableWidth::Wide) return;
  char header[160];
  std::snprintf(header, sizeof header, "%-8s %-11s %-11s %6s %11s %10s %11s %10s\n", "channel",
                "read", "written", "busy%", "activates", "row hit%", "conflicts", "refreshes");
  out << header;
  for (size_t c = 0; c < channels.size(); ++c) {
    const DramChannelFigures& f = channels[c];
    const uint64_t bursts = f.row_hits + f.activates;
    char line[160];
    std::snprintf(line, sizeof line, "%-8zu %-11s %-11s %6s %11llu %10s %11llu %10llu\n", c,
                  bytes_text(f.read_bytes).c_str(), bytes_text(f.write_bytes).c_str(),
                  pct(double(f.busy_cycles) / cycles).c_str(), (unsigned long long)f.activates,
                  pct(bursts ? double(f.row_hits) / double(bursts) : 0).c_str(),
                  (unsigned long long)f.row_conflicts, (unsigned long long)f.refreshes);
    out << line;
  }
}

}  // namespace

void print_summary_table(std::ostream& out, const RunSummary& s, TableWidth width) {
  validate_summary(s);
  const StatsRegistry& st = *s.stats;
  const HardwareConfig& hw = *s.hw;
  print_run_header(out, s);
  print_layer_rows(out, s, width);
  const Figures tot = total_figures(s);
  const RunBounds b = run_bounds(s);
  out << "total cycles     : " << s.total_cycles << " (" << duration_text(tot.time_us * 1e-6)
      << " at " << fmt("%g", hw.clock_mhz) << " MHz)\n";
  out << "bounds           : compute >= " << b.compute_lower << ", memory >= " << b.memory_lower
      << ", serial <= " << b.serial_upper << " cycles"
      << (b.within(s.total_cycles) ? "" : "  ** total cycles OUTSIDE the bounds **") << '\n';
  out << "MAC utilisation  : hardware " << pct(tot.hw_mac_util) << " %, useful "
      << pct(tot.useful_mac_util) << " % of " << hw.peak_macs_per_cycle() << " MACs/cycle\n";
  out << "DRAM             : read " << bytes_text(st.get("dram.read_bytes").total()) << ", written "
      << bytes_text(st.get("dram.write_bytes").total()) << ", bus busy " << pct(tot.dram_bus_busy)
      << " %\n";
  if (hw.dram.model == DramModel::Banked) {
    const uint64_t hits = st.get("dram.row_hits").total();
    const uint64_t bursts =
        hits + st.get("dram.row_misses").total() + st.get("dram.row_conflicts").total();
    out << "DRAM banks       : " << st.get("dram.activates").total() << " activates, row hits "
        << pct(bursts ? double(hits) / double(bursts) : 0) << " % of " << bursts << " bursts ("
        << st.get("dram.row_conflicts").total() << " conflicts), "
        << st.get("dram.refreshes").total() << " refreshes; " << fmt("%.1f", tot.dram_gbps)
        << " GB/s over the run, " << pct(tot.dram_peak_share) << " % of "
        << fmt("%.1f", dram_peak_gbps(hw)) << " GB/s peak\n";
    if (s.dram_channels != nullptr && !s.dram_channels->empty()) print_dram_channels(out, s, width);
  }
  const CompileTrials* trials = s.compile_trials;
  if (hw.residency == Residency::Auto && trials != nullptr && trials->chosen.residency_off) {
    // The trials ran the program without the plan faster than with it.
    CompileTrial with_plan = trials->chosen;
    with_plan.residency_off = false;
    uint64_t planned = 0;
    for (const CompileTrial& t : trials->trials)
      if (t.ok && t.same_target(with_plan)) planned = t.cycles;
    out << "memory plan      : not used: the trials ran the program without it faster ("
        << trials->chosen.cycles << " cycles against "
        << (planned != 0 ? std::to_string(planned) + " with it" : "none with it: it did not run")
        << "; compiler.residency=auto)\n";
  } else if (hw.residency == Residency::Auto) {
    const MemoryPlanFigures plan = memory_plan_figures(s);
    out << "memory plan      : " << plan.outputs_in_cache << " of " << s.tiling.size()
        << " outputs kept in the cache, "
        << (plan.weights_in_cache > 0
                ? std::to_string(plan.weights_in_cache) + " operators' weights loaded once, "
                : std::string())
        << bytes_text(plan.dram_bytes_saved)
        << " moved through it instead of DRAM (compiler.residency=auto)\n";
  }
  out << "cache            : peak " << bytes_text(st.get("cache.peak_occupancy_bytes").total())
      << " of " << bytes_text(hw.cache_bytes()) << ", reuse " << fmt("%.2f", tot.cache_reuse)
      << "x\n";
  const double dynamic = tot.dynamic_energy_uj;
  const auto share = [&](double part) { return pct(dynamic > 0 ? part / dynamic : 0); };
  out << "energy           : " << energy_text(dynamic) << " dynamic (compute "
      << share(tot.compute_energy_uj) << " %, cache " << share(tot.cache_energy_uj) << " %, DRAM "
      << share(tot.dram_energy_uj) << " %)\n";
  const AreaEstimate area = estimate_area(hw);
  out << "leakage          : " << energy_text(tot.leakage_energy_uj) << " ("
      << fmt("%.3f", area.leakage_mw()) << " mW over " << duration_text(tot.time_us * 1e-6)
      << "); total energy " << energy_text(tot.energy_uj) << "\n";
  const double mm2 = area.total_mm2();
  const auto part = [&](double a) { return pct(mm2 > 0 ? a / mm2 : 0); };
  const double mac = area.at("mac_array").mm2;
  const double sram = area.at("cache").mm2 + area.at("accumulators").mm2;
  const double dram = area.at("dram_interface").mm2;
  out << "area             : " << fmt("%.3f", mm2) << " mm2 (MAC array " << part(mac) << " %, SRAM "
      << part(sram) << " %, DRAM " << part(dram) << " %, other " << part(mm2 - mac - sram - dram)
      << " %)\n";
  print_decoder_lines(out, s);
  out << "wall time        : " << fmt("%.3f", s.wall_seconds) << " s";
  if (s.wall_seconds > 0)
    out << " (" << si(static_cast<double>(s.total_cycles) / s.wall_seconds)
        << " simulated cycles/s)";
  out << '\n';
  out << '\n';
  print_sparsity_table(out, s, width);
  if (width == TableWidth::Wide) print_access_table(out, s);
  out << verdict(s) << '\n';
}

}  // namespace npusim
