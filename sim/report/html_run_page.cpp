// The run page of the HTML report: the text report's header and totals, the
// per-operator table (sorted by its script), and the data of the roofline and
// of the cycles chart, from a `npusim run --out` folder's report.json and
// layers.csv (docs/html-report.md#a-run).
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "sim/config/json_reader.h"
#include "sim/graph/op_table.h"
#include "sim/graph/workload.h"
#include "sim/report/html_pages.h"
#include "sim/report/report_figures.h"
#include "sim/report/units.h"

namespace npusim {
namespace {

using nlohmann::json;

// The five stall counters, in the order of tools/plot_cycles, with the text
// report's short names.
constexpr std::array<std::pair<const char*, const char*>, 5> kStallColumns = {{
    {"dep", "stall.data_dependency_cycles"},
    {"buf", "stall.buffer_space_cycles"},
    {"mem", "stall.memory_dependency_cycles"},
    {"bus", "stall.bus_cycles"},
    {"port", "stall.cache_port_cycles"},
}};

double number_at(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string text_at(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& object_at(const json& j, const char* key) {
  static const json kEmpty = json::object();
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

// 1024 -> "1 MiB", 768 -> "768 KiB".
std::string kib_size(double kib) {
  if (kib >= 1024 && static_cast<uint64_t>(kib) % 1024 == 0)
    return std::to_string(static_cast<uint64_t>(kib) / 1024) + " MiB";
  return std::to_string(static_cast<uint64_t>(kib)) + " KiB";
}

std::string base_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// 1000 -> "1000 MHz", 1500.5 -> "1500.5 MHz" (as the text header prints it).
std::string megahertz(double mhz) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%g MHz", mhz);
  return buffer;
}

// 260580 -> "260.58 k", 10660000 -> "10.66 M".
std::string with_prefix(double v) {
  const char* suffix = "";
  for (const char* next : {"k", "M", "G"}) {
    if (v < 1000.0) break;
    v /= 1000.0;
    suffix = next;
  }
  return fixed(v, 2) + (*suffix != '\0' ? std::string(" ") + suffix : "");
}

std::string percent(double fraction) { return fixed(100.0 * fraction, 1); }
std::string share_of(double part, double whole) {
  return whole > 0 ? percent(part / whole) : "0.0";
}

// The layer's operator as the report's shape object says it (a LayerConfig
// rebuilt from report.json's `shape`), so the column reads as the text table's.
LayerConfig layer_from_shape(const json& shape) {
  LayerConfig l;
  const auto u = [&](const char* key, uint32_t fallback) {
    const auto it = shape.find(key);
    return it != shape.end() && it->is_number_unsigned() ? it->get<uint32_t>() : fallback;
  };
  l.N = u("N", 1), l.C = u("C", 0), l.H = u("H", 0), l.W = u("W", 0);
  l.K = u("K", 0), l.R = u("R", 0), l.S = u("S", 0);
  l.stride = u("stride", 1), l.padding = u("padding", 0), l.groups = u("group", 1);
  if (const std::string op = text_at(shape, "op"); !op.empty()) {
    if (const std::optional<OpKind> kind = op_kind_named(op)) l.op = *kind;
    l.quantized = true;  // a graph operator: its shape leads with the operator
  }
  if (text_at(shape, "dtype") == "binary") l.dtype = DataType::Binary;
  return l;
}

// A graph's attention heads per operator name, from the run's workload.resolved.json
// (report.json's shapes leave them out); empty for a layer list or without the file.
std::map<std::string, std::pair<uint32_t, uint32_t>> operator_heads(const std::string& dir) {
  std::map<std::string, std::pair<uint32_t, uint32_t>> out;
  const std::string path = dir + "/workload.resolved.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return out;
  const json workload = load_json_file(path);
  if (!workload.is_object() || !workload.contains("operators") || !workload["operators"].is_array())
    return out;
  for (const json& op : workload["operators"]) {
    if (!op.is_object() || !op.contains("heads") || !op["heads"].is_number_unsigned()) continue;
    const uint32_t heads = op["heads"].get<uint32_t>();
    const auto kv = op.find("kv_heads");
    out[text_at(op, "name")] = {
        heads, kv != op.end() && kv->is_number_unsigned() ? kv->get<uint32_t>() : heads};
  }
  return out;
}

// The kind tools/plot_roofline colours by: conv, depthwise conv, binary conv or the operator.
std::string layer_kind(const LayerConfig& l) {
  if (l.op != OpKind::Conv) return to_string(l.op);
  if (l.is_binary()) return "binary conv";
  return l.groups > 1 ? "depthwise conv" : "conv";
}

// The header and totals, line for line as `npusim run` prints them (sim/report/run_header.cpp
// and report_table.cpp), from report.json alone.
// Whether the run was on the banked DRAM (report.json's dram; older reports have none).
bool banked_memory(const json& report) {
  return report.contains("dram") && report["dram"].is_object() &&
         report["dram"].value("model", "") == "banked";
}

std::vector<std::pair<std::string, std::string>> header_lines(const json& report,
                                                              std::size_t layers) {
  const json& hw = object_at(report, "hardware");
  const json& compute = object_at(hw, "compute");
  const json& totals = object_at(report, "totals");
  const json& counters = object_at(totals, "counters");
  const json& workload = object_at(report, "workload");
  const double clock = number_at(hw, "clock_mhz");
  const double units = number_at(compute, "units"), rows = number_at(compute, "array_rows"),
               cols = number_at(compute, "array_cols");
  const double peak = units * rows * cols;
  const double bytes_per_cycle = number_at(object_at(hw, "dram"), "bytes_per_cycle");
  const double cache_kib = number_at(object_at(hw, "cache"), "size_kib");
  const bool timing_only = report.value("timing_only", false);
  std::vector<std::pair<std::string, std::string>> out;

  bool graph = false;  // a graph's operators read named tensors (report.json's "input")
  if (report.contains("layers") && report["layers"].is_array())
    for (const json& l : report["layers"]) graph = graph || text_at(l, "input") == "graph";
  std::string workload_text = text_at(workload, "name") + ": " +
                              std::to_string(static_cast<uint64_t>(number_at(workload, "layers"))) +
                              (graph ? " operators" : " layers");
  if (!text_at(workload, "source").empty())
    workload_text += " from " + base_name(text_at(workload, "source"));
  out.emplace_back("workload", workload_text + ", " + (timing_only ? "timing only" : "functional"));
  std::string overrides;
  if (report.contains("overrides") && report["overrides"].is_array())
    for (const json& o : report["overrides"])
      if (o.is_string()) overrides += (overrides.empty() ? "" : ", ") + o.get<std::string>();
  const std::string source = text_at(report, "hardware_source");
  out.emplace_back("hardware", "'" + text_at(hw, "name") + "'" +
                                   (!source.empty()     ? " from " + base_name(source)
                                    : overrides.empty() ? " (built-in defaults)"
                                                        : " (built-in defaults with the overrides "
                                                          "below)"));
  if (!overrides.empty()) out.emplace_back("overrides", overrides);
  // The banked DRAM by its preset, its peak and what a long stream sustains
  // (report.json's dram); the bus by its bytes per cycle.
  const bool banked = banked_memory(report);
  const std::string memory =
      banked ? object_at(hw, "dram").value("preset", std::string("banked")) + " DRAM (" +
                   fixed(number_at(report["dram"], "peak_gbps"), 1) + " GB/s peak, " +
                   fixed(number_at(report["dram"], "sustained_gbps"), 1) + " sustained)"
             : fixed(bytes_per_cycle, 0) + " B/cycle DRAM (" +
                   fixed(bytes_per_cycle * clock / 1000.0, 1) + " GB/s)";
  out.emplace_back("", fixed(units, 0) + " x " + fixed(rows, 0) + "x" + fixed(cols, 0) +
                           " array (" + fixed(peak, 0) + " MACs/cycle), " + kib_size(cache_kib) +
                           " cache, " + memory + ", " + megahertz(clock));
  out.emplace_back("schedule", "policy " + text_at(object_at(hw, "scheduler"), "policy") + ", " +
                                   text_at(hw, "buffering") + " buffering, " +
                                   text_at(compute, "mode") + " array, " +
                                   text_at(object_at(hw, "load"), "access") + " loads");
  out.emplace_back("", "");

  const double cycles = number_at(totals, "cycles");
  out.emplace_back("total cycles", fixed(cycles, 0) + " (" +
                                       duration_text(number_at(totals, "time_us") * 1e-6) + " at " +
                                       megahertz(clock) + ")");
  out.emplace_back("bounds",
                   "compute >= " + fixed(number_at(counters, "bound.compute_cycles"), 0) +
                       ", memory >= " + fixed(number_at(counters, "bound.memory_cycles"), 0) +
                       ", serial <= " + fixed(number_at(counters, "bound.serial_cycles"), 0) +
                       " cycles" + (totals.value("within_bounds", true) ? "" : " (OUTSIDE them)"));
  out.emplace_back("MAC utilisation", "hardware " + percent(number_at(totals, "hw_mac_util")) +
                                          " %, useful " +
                                          percent(number_at(totals, "useful_mac_util")) + " % of " +
                                          fixed(peak, 0) + " MACs/cycle");
  out.emplace_back("DRAM", "read " + bytes_text(uint64_t(number_at(counters, "dram.read_bytes"))) +
                               ", written " +
                               bytes_text(uint64_t(number_at(counters, "dram.write_bytes"))) +
                               ", bus busy " + percent(number_at(totals, "dram_bus_busy")) + " %");
  out.emplace_back(
      "cache", "peak " + bytes_text(uint64_t(number_at(counters, "cache.peak_occupancy_bytes"))) +
                   " of " + bytes_text(uint64_t(cache_kib * 1024)) + ", reuse " +
                   fixed(number_at(totals, "cache_reuse"), 2) + "x");
  const double dynamic = number_at(totals, "dynamic_energy_uj");
  out.emplace_back("energy",
                   energy_text(dynamic) + " dynamic (compute " +
                       share_of(number_at(totals, "compute_energy_uj"), dynamic) + " %, cache " +
                       share_of(number_at(totals, "cache_energy_uj"), dynamic) + " %, DRAM " +
                       share_of(number_at(totals, "dram_energy_uj"), dynamic) + " %)");
  const json& area = object_at(report, "area");
  if (!area.empty()) {
    out.emplace_back("leakage", energy_text(number_at(totals, "leakage_energy_uj")) + " (" +
                                    fixed(number_at(area, "leakage_mw"), 3) + " mW over " +
                                    duration_text(number_at(totals, "time_us") * 1e-6) +
                                    "); total energy " +
                                    energy_text(number_at(totals, "energy_uj")));
    const json& parts = object_at(area, "components");
    const auto mm2 = [&](const char* part) { return number_at(object_at(parts, part), "mm2"); };
    const double total = number_at(area, "total_mm2");
    const double sram = mm2("cache") + mm2("accumulators");
    const double other = total - mm2("mac_array") - sram - mm2("dram_interface");
    out.emplace_back("area", fixed(total, 3) + " mm2 (MAC array " +
                                 share_of(mm2("mac_array"), total) + " %, SRAM " +
                                 share_of(sram, total) + " %, DRAM " +
                                 share_of(mm2("dram_interface"), total) + " %, other " +
                                 share_of(other, total) + " %)");
  }
  const double wall = number_at(report, "wall_seconds");
  if (wall > 0)
    out.emplace_back("wall time",
                     fixed(wall, 3) + " s (" + with_prefix(cycles / wall) + " simulated cycles/s)");
  std::string outputs;
  if (timing_only) {
    outputs = "not checked (timing-only mode)";
  } else if (totals.value("all_layers_match", false)) {
    outputs = "bit-exact vs reference (" + std::to_string(layers) + " layers)";
  } else {
    outputs = "MISMATCH or not checked: see the check column";
  }
  out.emplace_back("outputs", outputs);
  return out;
}

struct TableColumn {
  const char* header;
  const char* title;  // the header's tooltip
  bool numeric;
};

constexpr TableColumn kTableColumns[] = {
    {"#", "index in the run", true},
    {"layer", "operator name", false},
    {"shape", "C x H x W, K output channels, R x S kernel / stride", false},
    {"cycles", "the layer's span (layer.cycles)", true},
    {"time us", "cycles / clock", true},
    {"mac%", "array MACs of peak (hardware)", true},
    {"busy%", "the array's busy share, or the vector unit's for its operators", true},
    {"stall", "largest stall cause: dep, mem, buf, bus, port", false},
    {"dram KiB", "DRAM read + written", true},
    {"energy uJ", "dynamic + leakage", true},
    {"check", "ok, MISMATCH, or - when not checked", false},
    {"bound", "compute or memory: the larger lower bound; none: cycles over twice both", false},
};

}  // namespace

HtmlPage run_html_page(const std::string& dir) {
  const std::string report_path = dir + "/report.json";
  const json report = load_json_file(report_path);
  if (!report.is_object() || !report.contains("totals") || !report.contains("hardware"))
    throw std::runtime_error(report_path +
                             ": expected the report.json of `npusim run` (with "
                             "\"totals\" and \"hardware\"), found none of those");
  const CsvTable csv = read_csv_table(dir + "/layers.csv");
  const std::size_t c_index = csv.column("index"), c_name = csv.column("name"),
                    c_cycles = csv.column("cycles"), c_time = csv.column("time_us"),
                    c_mac = csv.column("hw_mac_util"), c_cbusy = csv.column("compute_busy"),
                    c_vbusy = csv.column("vector_busy"), c_energy = csv.column("energy_uj"),
                    c_check = csv.column("check"), c_bound = csv.column("bound"),
                    c_read = csv.column("dram.read_bytes"),
                    c_write = csv.column("dram.write_bytes"),
                    c_macs = csv.column("compute.macs_performed"),
                    c_useful = csv.column("compute.macs_useful"),
                    c_abusy = csv.column("compute.busy_cycles"),
                    c_vcycles = csv.column("vector.busy_cycles");
  // A stall counter a run did not declare counts as 0.
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::array<std::size_t, kStallColumns.size()> c_stalls{};
  for (std::size_t s = 0; s < kStallColumns.size(); ++s)
    c_stalls[s] = csv.has(kStallColumns[s].second) ? csv.column(kStallColumns[s].second) : kNone;

  const auto heads = operator_heads(dir);
  const json& layers_json =
      report.contains("layers") && report["layers"].is_array() ? report["layers"] : json::array();
  const auto value = [](const std::vector<std::string>& row, std::size_t c) {
    const json v = csv_value(row[c]);
    return v.is_number() ? v.get<double>() : 0.0;
  };

  std::ostringstream table;
  table << "<table id=\"layers\" class=\"sortable\">\n<thead><tr>";
  for (const TableColumn& c : kTableColumns)
    table << "<th" << (c.numeric ? " class=\"num\"" : "") << " title=\"" << html_escape(c.title)
          << "\">" << html_escape(c.header) << "</th>";
  table << "</tr></thead>\n<tbody>\n";
  json rows = json::array();
  for (std::size_t i = 0; i < csv.rows.size(); ++i) {
    const std::vector<std::string>& row = csv.rows[i];
    const json* layer = i < layers_json.size() ? &layers_json[i] : nullptr;
    LayerConfig shape =
        layer_from_shape(layer != nullptr ? object_at(*layer, "shape") : json::object());
    if (const auto h = heads.find(row[c_name]); h != heads.end())
      shape.seq.heads = h->second.first, shape.seq.kv_heads = h->second.second;
    const bool on_vector_unit = !runs_on_array(shape.op);
    std::array<double, kStallColumns.size()> stalls{};
    std::string top = "-";
    double most = 0;
    for (std::size_t s = 0; s < stalls.size(); ++s) {
      stalls[s] = c_stalls[s] != kNone ? value(row, c_stalls[s]) : 0.0;
      if (stalls[s] > most) most = stalls[s], top = kStallColumns[s].first;
    }
    const double dram_bytes = value(row, c_read) + value(row, c_write);
    const double busy = on_vector_unit ? value(row, c_vbusy) : value(row, c_cbusy);
    const std::string bound = row[c_bound];
    table << "<tr data-index=\"" << html_escape(row[c_index]) << "\">"
          << "<td class=\"num\">" << html_escape(row[c_index]) << "</td>"
          << "<td>" << html_escape(row[c_name]) << "</td>"
          << "<td>" << html_escape(shape_string(shape, ShapeStyle::Compact)) << "</td>"
          << "<td class=\"num\">" << fixed(value(row, c_cycles), 0) << "</td>"
          << "<td class=\"num\">" << fixed(value(row, c_time), 3) << "</td>"
          << "<td class=\"num\">" << percent(value(row, c_mac)) << "</td>"
          << "<td class=\"num\">" << percent(busy) << "</td>"
          << "<td>" << top << "</td>"
          << "<td class=\"num\">" << fixed(dram_bytes / 1024, 1) << "</td>"
          << "<td class=\"num\">" << fixed(value(row, c_energy), 3) << "</td>"
          << "<td" << (row[c_check] == "MISMATCH" ? " class=\"bad\"" : "") << ">"
          << html_escape(row[c_check]) << "</td>"
          << "<td>" << html_escape(compact_bound(bound)) << "</td></tr>\n";
    rows.push_back({value(row, c_index), row[c_name], layer_kind(shape), value(row, c_cycles),
                    value(row, c_macs), value(row, c_useful), dram_bytes, value(row, c_abusy),
                    value(row, c_vcycles), stalls[0], stalls[1], stalls[2], stalls[3], stalls[4]});
  }
  table << "</tbody>\n</table>\n";

  std::ostringstream body;
  const json& workload = object_at(report, "workload");
  const json& hw = object_at(report, "hardware");
  const std::string title =
      "npusim run: " + text_at(workload, "name") + " on '" + text_at(hw, "name") + "'";
  body << "<header><h1>" << html_escape(title) << "</h1>\n";
  if (!text_at(report, "command_line").empty())
    body << "<p class=\"command\"><code>" << html_escape(text_at(report, "command_line"))
         << "</code></p>\n";
  body << "<pre id=\"summary\">";
  // The header's labels are 10 columns wide; the totals' (after the blank line) 17 and a colon.
  bool totals = false;
  for (const auto& [label, text] : header_lines(report, csv.rows.size())) {
    if (label.empty() && text.empty()) {
      body << "\n";
      totals = true;
      continue;
    }
    std::string padded = label;
    padded.resize(totals ? 17 : 10, ' ');
    body << "<b>" << html_escape(padded) << "</b>" << (totals ? ": " : "") << html_escape(text)
         << "\n";
  }
  body << "</pre>\n</header>\n";
  body << "<section id=\"roofline-section\"><h2>Roofline</h2>\n"
       << "<p class=\"note\">One dot per layer: operational intensity (MACs per DRAM byte, read + "
          "written) against attained MACs per cycle (MACs over the layer's cycles), under the "
          "compute roof (peak MACs/cycle) and the DRAM roof (bytes/cycle x intensity), as "
          "<code>tools/plot_roofline</code> draws it. Hover a dot for its layer.</p>\n"
       << "<div class=\"chart roofline\"><canvas id=\"roofline\"></canvas></div>\n"
       << "<p class=\"note\" id=\"roofline-note\"></p></section>\n";
  body << "<section id=\"cycles-section\"><h2>Where the cycles went</h2>\n"
       << "<p class=\"note\">Each layer's cycles: the array's busy time (compute.busy_cycles over "
          "the units), the vector unit's, and the idle rest shared among the five stall causes "
          "in proportion to their counters, as <code>tools/plot_cycles</code> splits them.</p>\n"
       << "<div class=\"chart cycles\" id=\"cycles-box\"><canvas id=\"cycles\"></canvas></div>\n"
       << "<p class=\"note\" id=\"cycles-note\"></p></section>\n";
  body << "<section id=\"layers-section\"><h2>Operators</h2>\n"
       << "<p class=\"note\">Click a column header to sort; click again to reverse.</p>\n"
       << table.str() << "</section>\n";

  const json& compute = object_at(hw, "compute");
  HtmlPage page;
  page.title = title;
  page.body = body.str();
  const bool banked = banked_memory(report);
  page.script = "run_page.js";
  page.data = {
      {"kind", "run"},
      {"units", number_at(compute, "units")},
      {"array_rows", number_at(compute, "array_rows")},
      {"array_cols", number_at(compute, "array_cols")},
      // The roofline's bandwidth roof: what a long read stream sustains under
      // the banked DRAM (report.json's dram), else the bus's bytes per cycle.
      {"dram_bytes_per_cycle", banked ? number_at(report["dram"], "sustained_bytes_per_cycle")
                                      : number_at(object_at(hw, "dram"), "bytes_per_cycle")},
      {"dram_sustained", banked},
      {"layer_columns",
       {"index", "name", "kind", "cycles", "macs_performed", "macs_useful", "dram_bytes",
        "compute_busy_cycles", "vector_busy_cycles", "stall_dep", "stall_buf", "stall_mem",
        "stall_bus", "stall_port"}},
      {"layers", rows},
  };
  return page;
}

}  // namespace npusim
