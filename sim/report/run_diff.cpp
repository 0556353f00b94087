#include "sim/report/run_diff.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <system_error>

#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"
#include "sim/report/csv.h"
#include "sim/report/report.h"

namespace npusim {
namespace {

using nlohmann::json;

// "1 layer", "3 layers".
std::string layer_count(size_t n) { return std::to_string(n) + (n == 1 ? " layer" : " layers"); }

// The text of a bad value for an error message, cut when long.
std::string shown_text(const std::string& text) {
  return "\"" + (text.size() > 60 ? text.substr(0, 57) + "..." : text) + "\"";
}

// ---------------------------------------------------------------- report.json

const json& field(const json& object, const std::string& pointer, const std::string& key,
                  const std::string& file) {
  if (!object.is_object()) throw ConfigError(file, pointer, "an object", describe_json(object));
  const auto it = object.find(key);
  if (it == object.end())
    throw ConfigError(file, json_pointer_append(pointer, key), "a field \"" + key + "\"",
                      "none (the field is missing)");
  return *it;
}

uint64_t uint_field(const json& object, const std::string& pointer, const std::string& key,
                    const std::string& file) {
  return expect_uint(field(object, pointer, key, file), file, json_pointer_append(pointer, key), 0,
                     UINT64_MAX);
}

double number_field(const json& object, const std::string& pointer, const std::string& key,
                    const std::string& file) {
  const json& v = field(object, pointer, key, file);
  if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>()))
    throw ConfigError(file, json_pointer_append(pointer, key), "a number >= 0", describe_json(v));
  return v.get<double>();
}

// ----------------------------------------------------------------- layers.csv

struct CsvRecord {
  size_t line = 0;  // line of the file where the record starts, from 1
  std::vector<std::string> fields;
};

// RFC 4180: ',' between fields, "\n" or "\r\n" between records, a field in
// double quotes may hold separators, newlines and doubled quotes. Blank lines
// are skipped.
std::vector<CsvRecord> parse_csv(const std::string& text, const std::string& file) {
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field_text;
  bool in_quotes = false, quoted_field = false;
  size_t line = 1;
  record.line = 1;
  const auto end_field = [&] {
    record.fields.push_back(field_text);
    field_text.clear();
    quoted_field = false;
  };
  const auto end_record = [&] {
    end_field();
    const bool blank = record.fields.size() == 1 && record.fields[0].empty();
    if (!blank) records.push_back(record);
    record.fields.clear();
    record.line = line;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field_text += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        if (c == '\n') ++line;
        field_text += c;
      }
    } else if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      ++line;
      end_record();
    } else if (c == '"') {
      if (!field_text.empty() || quoted_field)
        throw ConfigError(file, "line " + std::to_string(line),
                          "a double quote only around a whole field (RFC 4180)",
                          "one inside the field " + shown_text(field_text + "\""));
      in_quotes = quoted_field = true;
    } else {
      if (quoted_field)
        throw ConfigError(file, "line " + std::to_string(line),
                          "a separator after a field's closing quote",
                          shown_text(std::string(1, c)));
      field_text += c;
    }
  }
  if (in_quotes)
    throw ConfigError(file, "line " + std::to_string(record.line),
                      "a closing double quote for the field opened there", "the end of the file");
  if (!field_text.empty() || quoted_field || !record.fields.empty()) end_record();
  return records;
}

std::string column_pointer(size_t line, const std::string& column) {
  return "line " + std::to_string(line) + ", column \"" + column + "\"";
}

uint64_t csv_uint(const std::string& text, const std::string& file, size_t line,
                  const std::string& column) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw ConfigError(file, column_pointer(line, column), "a non-negative integer",
                      text.empty() ? std::string("an empty field") : shown_text(text));
  return value;
}

double parse_csv_number(const std::string& text, const std::string& file, size_t line,
                        const std::string& column) {
  char* end = nullptr;
  const double value = text.empty() || std::isspace(static_cast<unsigned char>(text[0]))
                           ? -1.0
                           : std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(value >= 0) || !std::isfinite(value))
    throw ConfigError(file, column_pointer(line, column), "a number >= 0",
                      text.empty() ? std::string("an empty field") : shown_text(text));
  return value;
}

// The columns load_run reads, by header name.
const char* const kShapeColumns[] = {"N", "C", "H", "W", "K", "R", "S", "stride", "padding"};
const char* const kFigureColumns[] = {"name",      "cycles",          "hw_mac_util",
                                      "energy_uj", "dram.read_bytes", "dram.write_bytes"};

std::vector<DiffLayer> read_layers_csv(const std::string& file) {
  const std::vector<CsvRecord> records = parse_csv(
      read_input_file(file, "a readable CSV file (layers.csv of npusim run --out)"), file);
  if (records.empty())
    throw ConfigError(file, "line 1", "a header row naming the columns", "an empty file");
  const std::vector<std::string>& header = records[0].fields;
  std::map<std::string, size_t> column;
  const auto find_column = [&](const std::string& name) {
    const auto first = std::find(header.begin(), header.end(), name);
    if (first == header.end()) {
      const std::string nearest = nearest_key(name, header);
      throw ConfigError(file, "line 1 (header)", "a column named \"" + name + "\"",
                        "no such column among its " + std::to_string(header.size()) +
                            (nearest.empty() ? "" : " (the nearest is \"" + nearest + "\")"));
    }
    if (std::find(first + 1, header.end(), name) != header.end())
      throw ConfigError(file, "line 1 (header)", "one column named \"" + name + "\"",
                        "two or more");
    column[name] = size_t(first - header.begin());
  };
  for (const char* name : kFigureColumns) find_column(name);
  for (const char* name : kShapeColumns) find_column(name);

  std::vector<DiffLayer> layers;
  std::map<std::string, size_t> line_of_name;
  for (size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& rec = records[r];
    if (rec.fields.size() != header.size())
      throw ConfigError(file, "line " + std::to_string(rec.line),
                        std::to_string(header.size()) + " fields, as in the header",
                        std::to_string(rec.fields.size()));
    const auto cell = [&](const std::string& name) -> const std::string& {
      return rec.fields[column.at(name)];
    };
    DiffLayer l;
    l.index = uint32_t(layers.size());
    l.name = cell("name");
    const auto [it, fresh] = line_of_name.emplace(l.name, rec.line);
    if (!fresh)
      throw ConfigError(file, column_pointer(rec.line, "name"),
                        "a layer name not used on an earlier row",
                        shown_text(l.name) + ", also on line " + std::to_string(it->second));
    for (const char* name : kShapeColumns)
      l.shape += (l.shape.empty() ? "" : " ") + std::string(name) + "=" + cell(name);
    l.figures.cycles = csv_uint(cell("cycles"), file, rec.line, "cycles");
    l.figures.hw_mac_util = parse_csv_number(cell("hw_mac_util"), file, rec.line, "hw_mac_util");
    l.figures.energy_uj = parse_csv_number(cell("energy_uj"), file, rec.line, "energy_uj");
    l.figures.dram_bytes = csv_uint(cell("dram.read_bytes"), file, rec.line, "dram.read_bytes") +
                           csv_uint(cell("dram.write_bytes"), file, rec.line, "dram.write_bytes");
    layers.push_back(l);
  }
  return layers;
}

// ------------------------------------------------------------------ hardware

std::string leaf_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

void flatten(const json& j, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& item : j.items())
      flatten(item.value(), prefix.empty() ? item.key() : prefix + "." + item.key(), out);
  } else {
    out[prefix] = leaf_text(j);
  }
}

// "hardware default: 32x32 array x 1 unit, 1024 KiB cache, 1000 MHz"; parts
// the report lacks are left out.
std::string hardware_summary(const json& hw) {
  const auto text = [&](const char* pointer) -> std::string {
    const json::json_pointer p(pointer);
    return hw.contains(p) && !hw.at(p).is_structured() ? leaf_text(hw.at(p)) : "";
  };
  std::string s = "hardware " + (text("/name").empty() ? "(unnamed)" : text("/name"));
  std::vector<std::string> parts;
  if (!text("/compute/array_rows").empty() && !text("/compute/array_cols").empty()) {
    std::string array = text("/compute/array_rows") + "x" + text("/compute/array_cols") + " array";
    if (!text("/compute/units").empty())
      array +=
          " x " + text("/compute/units") + (text("/compute/units") == "1" ? " unit" : " units");
    parts.push_back(array);
  }
  if (!text("/cache/size_kib").empty()) parts.push_back(text("/cache/size_kib") + " KiB cache");
  if (hw.contains(json::json_pointer("/clock_mhz")) && hw.at("clock_mhz").is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g MHz", hw.at("clock_mhz").get<double>());
    parts.push_back(buf);
  }
  for (size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? ": " : ", ") + parts[i];
  return s;
}

// ---------------------------------------------------------------- formatting

std::string printf_text(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// About four significant digits without an exponent: 1.799, 20.12, 122.2, 3979.
std::string short_number(double v) {
  if (v == 0) return "0";
  const char* format = v < 10 ? "%.3f" : v < 100 ? "%.2f" : v < 1000 ? "%.1f" : "%.0f";
  return printf_text(format, v);
}

std::string ratio_text(const std::optional<double>& r) {
  if (!r) return "-";
  const double v = *r;
  return printf_text(v < 10 ? "%.2f" : v < 100 ? "%.1f" : "%.0f", v);
}

// Longer than `width`: the start and the end around "...".
std::string fit(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(0, width);
  const size_t head = (width - 3) / 2;
  return text.substr(0, head) + "..." + text.substr(text.size() - (width - 3 - head));
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}
std::string pad_right(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// `first`, then `units` separated by spaces on lines of at most `width`
// columns (a unit is never split); later lines start with `indent`.
void print_units_wrapped(std::ostream& out, const std::string& first,
                         const std::vector<std::string>& units, size_t width,
                         const std::string& indent) {
  std::string line = first;
  bool line_has_unit = false;
  for (const std::string& unit : units) {
    if (line_has_unit && line.size() + 1 + unit.size() > width) {
      out << line << '\n';
      line = indent;
      line_has_unit = false;
    }
    line += (line_has_unit ? " " : "") + unit;
    line_has_unit = true;
  }
  out << line << '\n';
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> w;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) w.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return w;
}

// "a, b, c" as units that keep each name whole.
std::vector<std::string> list_units(const std::vector<std::string>& names) {
  std::vector<std::string> units;
  for (size_t i = 0; i < names.size(); ++i)
    units.push_back(names[i] + (i + 1 < names.size() ? "," : ""));
  return units;
}

std::string name_list(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

constexpr size_t kPageWidth = 100;
constexpr size_t kMinNameWidth = 12;
constexpr size_t kMaxLabelWidth = 10;
constexpr int kGroups = 4;
const char* const kGroupTitles[kGroups] = {"cycles", "MAC util %", "DRAM KiB", "energy uJ"};
using Cells = std::array<std::string, 3 * kGroups>;

// The twelve cells of a row: A, B and B/A of each group.
Cells figure_cells(const DiffFigures& a, const DiffFigures& b) {
  return {std::to_string(a.cycles),
          std::to_string(b.cycles),
          ratio_text(diff_ratio(double(a.cycles), double(b.cycles))),
          printf_text("%.1f", 100 * a.hw_mac_util),
          printf_text("%.1f", 100 * b.hw_mac_util),
          ratio_text(diff_ratio(a.hw_mac_util, b.hw_mac_util)),
          short_number(double(a.dram_bytes) / 1024),
          short_number(double(b.dram_bytes) / 1024),
          ratio_text(diff_ratio(double(a.dram_bytes), double(b.dram_bytes))),
          short_number(a.energy_uj),
          short_number(b.energy_uj),
          ratio_text(diff_ratio(a.energy_uj, b.energy_uj))};
}

std::string csv_ratio(double a, double b) {
  const std::optional<double> r = diff_ratio(a, b);
  return r ? csv_number(*r) : "";
}

std::string csv_figures(const DiffFigures& a, const DiffFigures& b) {
  return std::to_string(a.cycles) + "," + std::to_string(b.cycles) + "," +
         csv_ratio(double(a.cycles), double(b.cycles)) + "," + csv_number(a.hw_mac_util) + "," +
         csv_number(b.hw_mac_util) + "," + csv_ratio(a.hw_mac_util, b.hw_mac_util) + "," +
         std::to_string(a.dram_bytes) + "," + std::to_string(b.dram_bytes) + "," +
         csv_ratio(double(a.dram_bytes), double(b.dram_bytes)) + "," + csv_number(a.energy_uj) +
         "," + csv_number(b.energy_uj) + "," + csv_ratio(a.energy_uj, b.energy_uj);
}

}  // namespace

DiffRun load_run(const std::string& dir) {
  namespace fs = std::filesystem;
  const auto fail = [&](const std::string& expected, const std::string& found) {
    throw std::runtime_error((dir.empty() ? std::string("\"\"") : dir) + ": expected " + expected +
                             ", found " + found);
  };
  const char* const kFolder = "a run folder (npusim run --out DIR)";
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (dir.empty() || !fs::exists(status)) fail(kFolder, "nothing at that path");
  if (!fs::is_directory(status)) fail(kFolder, "a file, not a folder");
  for (const char* name : {"report.json", "layers.csv"})
    if (!fs::exists(fs::path(dir) / name, ec))
      fail(std::string(kFolder) + " holding " + name, std::string("no ") + name + " in it");

  DiffRun run;
  run.dir = dir;
  const std::string report_file = (fs::path(dir) / "report.json").string();
  const json report = load_json_file(report_file);
  if (!report.is_object()) throw ConfigError(report_file, "", "an object", describe_json(report));
  const uint64_t schema = uint_field(report, "", "schema_version", report_file);
  if (schema != uint64_t(kReportSchemaVersion))
    throw ConfigError(
        report_file, "/schema_version",
        std::to_string(kReportSchemaVersion) + " (the report format this npusim reads)",
        std::to_string(schema));
  const json& workload = field(report, "", "workload", report_file);
  run.workload = expect_string(field(workload, "/workload", "name", report_file), report_file,
                               "/workload/name");
  run.workload_layers = uint_field(workload, "/workload", "layers", report_file);
  run.hardware = field(report, "", "hardware", report_file);
  if (!run.hardware.is_object())
    throw ConfigError(report_file, "/hardware", "an object", describe_json(run.hardware));
  const json& totals = field(report, "", "totals", report_file);
  run.totals.cycles = uint_field(totals, "/totals", "cycles", report_file);
  run.totals.hw_mac_util = number_field(totals, "/totals", "hw_mac_util", report_file);
  run.totals.energy_uj = number_field(totals, "/totals", "energy_uj", report_file);
  const json& counters = field(totals, "/totals", "counters", report_file);
  run.totals.dram_bytes = uint_field(counters, "/totals/counters", "dram.read_bytes", report_file) +
                          uint_field(counters, "/totals/counters", "dram.write_bytes", report_file);

  const std::string csv_file = (fs::path(dir) / "layers.csv").string();
  run.layers = read_layers_csv(csv_file);
  if (run.layers.size() != run.workload_layers)
    throw std::runtime_error(csv_file + ": expected " + std::to_string(run.workload_layers) +
                             " layer rows (report.json's /workload/layers), found " +
                             std::to_string(run.layers.size()));
  return run;
}

std::optional<double> diff_ratio(double a, double b) {
  if (a == 0) return std::nullopt;
  return b / a;
}

RunDiff compare_runs(const DiffRun& a, const DiffRun& b) {
  RunDiff d;
  std::map<std::string, const DiffLayer*> in_b;
  for (const DiffLayer& l : b.layers) in_b[l.name] = &l;
  std::map<std::string, bool> matched;
  for (const DiffLayer& la : a.layers) {
    const auto it = in_b.find(la.name);
    if (it == in_b.end()) {
      d.only_a.push_back(la.name);
      continue;
    }
    const DiffLayer& lb = *it->second;
    matched[la.name] = true;
    d.layers.push_back({la.name, la.index, lb.index, la.figures, lb.figures});
    if (la.shape != lb.shape) d.reshaped.push_back(la.name);
  }
  for (const DiffLayer& lb : b.layers)
    if (!matched.count(lb.name)) d.only_b.push_back(lb.name);
  if (d.layers.empty())
    throw std::runtime_error("no layer name is in both runs, so nothing can be compared: " + a.dir +
                             " ran " + a.workload + " (" + layer_count(a.layers.size()) + "), " +
                             b.dir + " ran " + b.workload + " (" + layer_count(b.layers.size()) +
                             ")");

  std::map<std::string, std::string> hw_a, hw_b;
  flatten(a.hardware, "", hw_a);
  flatten(b.hardware, "", hw_b);
  std::map<std::string, bool> keys;
  for (const auto& kv : hw_a) keys[kv.first] = true;
  for (const auto& kv : hw_b) keys[kv.first] = true;
  for (const auto& kv : keys) {
    const auto ia = hw_a.find(kv.first), ib = hw_b.find(kv.first);
    const std::string va = ia == hw_a.end() ? "(none)" : ia->second;
    const std::string vb = ib == hw_b.end() ? "(none)" : ib->second;
    if (va != vb) d.hardware_changes.push_back(kv.first + " " + va + " -> " + vb);
  }
  d.total_a = a.totals;
  d.total_b = b.totals;
  return d;
}

std::vector<std::string> diff_warnings(const DiffRun& a, const DiffRun& b, const RunDiff& d) {
  std::vector<std::string> w;
  if (a.workload != b.workload || a.layers.size() != b.layers.size())
    w.push_back("the workloads differ: A ran " + a.workload + " (" + layer_count(a.layers.size()) +
                "), B ran " + b.workload + " (" + layer_count(b.layers.size()) +
                "); layers are matched by name");
  if (!d.only_a.empty())
    w.push_back(layer_count(d.only_a.size()) + " only in A, not compared: " + name_list(d.only_a));
  if (!d.only_b.empty())
    w.push_back(layer_count(d.only_b.size()) + " only in B, not compared: " + name_list(d.only_b));
  if (!d.only_a.empty() || !d.only_b.empty())
    w.push_back("the total row compares the whole runs, their unmatched layers included");
  if (!d.reshaped.empty())
    w.push_back(layer_count(d.reshaped.size()) +
                " with the same name in both but a different shape (N C H W K R S stride "
                "padding): " +
                name_list(d.reshaped));
  return w;
}

void print_run_diff(std::ostream& out, const DiffRun& a, const DiffRun& b, const RunDiff& d,
                    const std::string& label_a, const std::string& label_b) {
  for (const auto& [letter, label, run] :
       {std::make_tuple("A", &label_a, &a), std::make_tuple("B", &label_b, &b)}) {
    const std::string head = *label == letter ? letter : std::string(letter) + " (" + *label + ")";
    out << head << ": " << run->dir << '\n';
    print_units_wrapped(out, "  workload ",
                        words(run->workload + " (" + layer_count(run->layers.size()) + ")"),
                        kPageWidth, "    ");
    print_units_wrapped(out, "  ", words(hardware_summary(run->hardware)), kPageWidth, "    ");
  }
  if (d.hardware_changes.empty())
    out << "hardware: the same in both runs\n";
  else
    print_units_wrapped(out, "hardware A -> B: ", list_units(d.hardware_changes), kPageWidth, "  ");
  for (const std::string& w : diff_warnings(a, b, d))
    print_units_wrapped(out, "warning: ", words(w), kPageWidth, "  ");
  out << '\n';

  // Cells first, then the widths they need.
  std::vector<std::pair<std::string, Cells>> rows;
  for (const DiffRow& r : d.layers) rows.emplace_back(r.name, figure_cells(r.a, r.b));
  const auto total = figure_cells(d.total_a, d.total_b);
  const std::string heads[3] = {fit(label_a, kMaxLabelWidth), fit(label_b, kMaxLabelWidth), "B/A"};
  std::array<size_t, 3 * kGroups> width{};
  for (size_t c = 0; c < width.size(); ++c) {
    width[c] = std::max(heads[c % 3].size(), total[c].size());
    for (const auto& row : rows) width[c] = std::max(width[c], row.second[c].size());
  }
  size_t groups_width = 0;
  size_t span[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    span[g] = width[3 * g] + 1 + width[3 * g + 1] + 1 + width[3 * g + 2];
    const size_t title = std::string(kGroupTitles[g]).size();
    if (title > span[g]) {
      width[3 * g] += title - span[g];
      span[g] = title;
    }
    groups_width += 2 + span[g];
  }
  size_t name_width = 5;  // "layer", "total"
  for (const auto& row : rows) name_width = std::max(name_width, row.first.size());
  const size_t room = groups_width < kPageWidth ? kPageWidth - groups_width : 0;
  name_width = std::min(name_width, std::max(kMinNameWidth, room));

  std::string titles = std::string(name_width, ' ');
  for (int g = 0; g < kGroups; ++g) {
    const std::string t = kGroupTitles[g];
    const size_t left = (span[g] - t.size()) / 2;
    titles += "  " + pad_right(std::string(left, ' ') + t, span[g]);
  }
  while (!titles.empty() && titles.back() == ' ') titles.pop_back();
  out << titles << '\n';
  const auto print_row = [&](const std::string& name, const Cells& cells) {
    std::string line = pad_right(fit(name, name_width), name_width);
    for (size_t c = 0; c < cells.size(); ++c)
      line += (c % 3 == 0 ? "  " : " ") + pad_left(cells[c], width[c]);
    out << line << '\n';
  };
  Cells head_row;
  for (size_t c = 0; c < head_row.size(); ++c) head_row[c] = heads[c % 3];
  print_row("layer", head_row);
  const std::string rule(name_width + groups_width, '-');
  out << rule << '\n';
  for (const auto& row : rows) print_row(row.first, row.second);
  out << rule << '\n';
  print_row("total", total);
  out << "B/A: B's value over A's, \"-\" where A's is 0. MAC util: hardware MAC utilisation.\n"
         "DRAM: bytes read + written. Layer cycles are spans and may overlap; the total row holds\n"
         "each run's own totals.\n";
}

void write_run_diff_csv(std::ostream& out, const RunDiff& d) {
  out << "layer,index_a,index_b,cycles_a,cycles_b,cycles_ratio,hw_mac_util_a,hw_mac_util_b,"
         "hw_mac_util_ratio,dram_bytes_a,dram_bytes_b,dram_bytes_ratio,energy_uj_a,energy_uj_b,"
         "energy_uj_ratio\n";
  for (const DiffRow& r : d.layers)
    out << csv_field(r.name) << ',' << r.index_a << ',' << r.index_b << ',' << csv_figures(r.a, r.b)
        << '\n';
  out << "total,,," << csv_figures(d.total_a, d.total_b) << '\n';
}

}  // namespace npusim
