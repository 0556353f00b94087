// Machine-readable outputs: report JSON, per-layer CSV and the files written
// next to a run. Every derived figure comes from report_figures.cpp.
#include "sim/report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "sim/io/atomic_file.h"
#include "sim/report/area.h"
#include "sim/report/csv.h"
#include "sim/report/report_figures.h"
#include "sim/stats/median.h"

namespace npusim {

bool all_layers_match(const RunSummary& s) {
  if (s.network != nullptr && s.checks.size() != s.network->layers.size()) return false;
  for (const LayerCheck& c : s.checks) {
    if (c.checked && !c.match) return false;
    // Outside timing-only mode an unchecked layer is a wiring bug, not a pass.
    if (!c.checked && !s.timing_only) return false;
  }
  return true;
}

namespace {

nlohmann::json figures_json(const Figures& f) {
  nlohmann::json j = {{"cycles", f.cycles}};
  for (const FigureField& field : kFigureFields) j[field.name] = f.*field.member;
  return j;
}

nlohmann::json shape_json(const LayerConfig& l) {
  nlohmann::json j = {{"N", l.N},           {"C", l.C},           {"H", l.H},
                      {"W", l.W},           {"K", l.K},           {"R", l.R},
                      {"S", l.S},           {"stride", l.stride}, {"padding", l.padding},
                      {"out_h", l.out_h()}, {"out_w", l.out_w()}, {"dtype", to_string(l.dtype)}};
  if (l.quantized) {  // graph operators (docs/graphs.md)
    j["op"] = to_string(l.op);
    j["group"] = l.groups;
    j["stride_w"] = col_stride(l);
    j["pads"] = {l.padding, pad_l(l), pad_b(l), pad_r(l)};
    j["dilation"] = {dil_h(l), dil_w(l)};
    j["out_dtype"] = to_string(l.quant.output.type);
    if (!l.source_op.empty()) j["source_op"] = l.source_op;  // the ONNX node's op type
    if (l.op == OpKind::Resize) {
      j["mode"] = to_string(l.resize_mode);
      j["scales"] = {l.resize_scale_h, l.resize_scale_w};
      j["coordinates"] = to_string(l.resize_coordinates);
      if (l.resize_mode == ResizeMode::Nearest) j["nearest_mode"] = to_string(l.resize_rounding);
      if (l.resize_mode == ResizeMode::Cubic) {
        j["cubic_coeff_a"] = l.resize_cubic_a;
        j["exclude_outside"] = l.resize_exclude_outside ? 1 : 0;
      }
    }
  }
  return j;
}

nlohmann::json tiling_json(const LayerTiling& t) {
  nlohmann::json j = {{"k_tile", t.k_tile},
                      {"pieces", t.pieces},
                      {"rows_per_piece", t.rows_per_piece},
                      {"half_bytes", t.half_bytes},
                      {"weight_buffers", t.weight_buffers},
                      {"units", t.units},
                      {"estimate_cycles", t.estimate_cycles}};
  if (t.input_channel_tiles) j["input_channel_tiles"] = true;
  if (t.cols_per_piece != 0) j["cols_per_piece"] = t.cols_per_piece;
  if (t.feature_stationary) j["loop_order"] = "feature_stationary";
  if (t.channels_per_part != 0) j["channels_per_part"] = t.channels_per_part;
  j["output_in"] = t.output_in;
  if (*t.weights_in != '\0') j["weights_in"] = t.weights_in;
  return j;
}

nlohmann::json check_json(const LayerCheck& c) {
  return {
      {"checked", c.checked}, {"match", c.match}, {"mismatch", c.mismatch}, {"digest", c.digest}};
}

// Time to first token, each decode step, their mean and tokens per second.
nlohmann::json decoder_json(const HardwareConfig& hw, const DecoderFigures& d) {
  nlohmann::json steps = nlohmann::json::array();
  for (size_t i = 0; i < d.step_end.size(); ++i)
    steps.push_back({{"step", i + 1},
                     {"end_cycle", d.step_end[i]},
                     {"cycles", d.step_cycles[i]},
                     {"ms", cycles_to_ms(hw, double(d.step_cycles[i]))}});
  return {{"first_token_cycles", d.first_token_cycles},
          {"first_token_ms", cycles_to_ms(hw, double(d.first_token_cycles))},
          {"decode_steps", std::move(steps)},
          {"mean_step_cycles", d.mean_step_cycles},
          {"mean_step_ms", cycles_to_ms(hw, d.mean_step_cycles)},
          {"sequences", d.sequences},
          {"tokens_per_second", d.tokens_per_second}};
}

// The memory's peak and sustained bandwidth, and under the banked model each
// channel's figures (docs/dram.md#per-channel-figures).
nlohmann::json dram_json(const RunSummary& s) {
  const HardwareConfig& hw = *s.hw;
  nlohmann::json j = {{"model", hw.dram.model == DramModel::Banked ? "banked" : "bus"},
                      {"peak_gbps", dram_peak_gbps(hw)},
                      {"sustained_bytes_per_cycle", dram_sustained_bytes_per_cycle(s)},
                      {"sustained_gbps", dram_sustained_gbps(s)}};
  if (s.dram_channels != nullptr) {
    nlohmann::json channels = nlohmann::json::array();
    for (size_t c = 0; c < s.dram_channels->size(); ++c) {
      const DramChannelFigures& f = (*s.dram_channels)[c];
      channels.push_back({{"channel", c},
                          {"read_bytes", f.read_bytes},
                          {"write_bytes", f.write_bytes},
                          {"busy_cycles", f.busy_cycles},
                          {"activates", f.activates},
                          {"row_hits", f.row_hits},
                          {"row_conflicts", f.row_conflicts},
                          {"refreshes", f.refreshes},
                          {"refresh_cycles", f.refresh_cycles}});
    }
    j["channels"] = std::move(channels);
  }
  return j;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  write_file_atomically(path.string(), text);
}

}  // namespace

nlohmann::json area_json(const HardwareConfig& hw) {
  const AreaEstimate area = estimate_area(hw);
  nlohmann::json components = nlohmann::json::object();
  for (const AreaComponent& c : area.components)
    components[c.name] = {{"mm2", c.mm2}, {"leakage_mw", c.leakage_mw}};
  return {{"total_mm2", area.total_mm2()},
          {"leakage_mw", area.leakage_mw()},
          {"components", components}};
}

namespace {

// What report.json's layer entries and the estimator's totals share: the
// cycles each layer adds to the run, its finish minus the latest finish of
// the layers before it (0 when it ends earlier; spans overlap, these do not,
// and they sum to the latest finish), and the mapper's estimate against each
// array layer's simulated layer.cycles and added cycles
// (docs/mapping.md#estimator-error), signed.
struct LayerTimes {
  std::vector<uint64_t> added;
  std::vector<std::optional<double>> error, error_added;
};

// Checks the summary first: every caller reads it after.
LayerTimes layer_times(const RunSummary& s) {
  validate_summary(s);
  const Counter& layer_cycles = s.stats->get("layer.cycles");
  const Counter& finish = s.stats->get("layer.finish_cycle");
  const auto relative_error = [&](uint32_t i, uint64_t simulated) -> std::optional<double> {
    const uint64_t estimate = s.tiling[i].estimate_cycles;
    if (estimate == 0 || simulated == 0) return std::nullopt;
    return (double(estimate) - double(simulated)) / double(simulated);
  };
  LayerTimes t;
  uint64_t latest_finish = 0;
  for (uint32_t i = 0; i < s.network->layers.size(); ++i) {
    const uint64_t added = finish.at(i) > latest_finish ? finish.at(i) - latest_finish : 0;
    latest_finish = std::max(latest_finish, finish.at(i));
    t.added.push_back(added);
    t.error.push_back(relative_error(i, layer_cycles.at(i)));
    t.error_added.push_back(relative_error(i, added));
  }
  return t;
}

// Layer i's entry of report.json's "layers".
nlohmann::json layer_report_json(const RunSummary& s, uint32_t i, const LayerTimes& times,
                                 const std::vector<const Counter*>& counters) {
  const LayerConfig& l = s.network->layers[i];
  nlohmann::json j = figures_json(layer_figures(s, i));
  j["index"] = i;
  j["name"] = l.name;
  j["shape"] = shape_json(l);
  j["input"] = input_source(*s.network, i);
  j["tiling"] = tiling_json(s.tiling[i]);
  j["added_cycles"] = times.added[i];
  if (times.error[i]) j["tiling"]["estimate_error"] = *times.error[i];
  j["check"] = check_json(s.checks[i]);
  j["bound"] = layer_bound(s, i);
  nlohmann::json& layer_counters = j["counters"] = nlohmann::json::object();
  for (const Counter* c : counters) layer_counters[c->name()] = c->at(i);
  return j;
}

// report.json but for the entries of "layers" (an empty array); `times` is
// layer_times(s), which has checked the summary.
nlohmann::json report_head(const RunSummary& s, const LayerTimes& times) {
  const StatsRegistry& st = *s.stats;

  nlohmann::json totals = figures_json(total_figures(s));
  const RunBounds b = run_bounds(s);
  totals["within_bounds"] = b.within(s.total_cycles);
  totals["bound"] = run_bound(s);
  totals["all_layers_match"] = all_layers_match(s);
  nlohmann::json& total_counters = totals["counters"] = nlohmann::json::object();
  for (const Counter* c : st.counters()) total_counters[c->name()] = c->total();
  // The memory plan's effect (docs/memory-plan.md): DRAM bytes moved, and
  // those that went through the cache instead because an output or a weight
  // block stayed there.
  const MemoryPlanFigures plan = memory_plan_figures(s);
  totals["memory_plan"] = {{"dram_bytes", plan.dram_bytes},
                           {"dram_bytes_saved", plan.dram_bytes_saved},
                           {"outputs_in_cache", plan.outputs_in_cache},
                           {"weights_in_cache", plan.weights_in_cache}};
  // The estimate's error: the median of the absolute errors for the run.
  std::vector<double> abs_errors, abs_errors_added;
  for (uint32_t i = 0; i < times.error.size(); ++i) {
    if (times.error[i]) abs_errors.push_back(std::fabs(*times.error[i]));
    if (times.error_added[i]) abs_errors_added.push_back(std::fabs(*times.error_added[i]));
  }
  if (!abs_errors.empty())
    totals["estimator"] = {{"layers", abs_errors.size()},
                           {"median_abs_error", median(abs_errors)},
                           {"median_abs_error_added", median(abs_errors_added)}};

  const RunProvenance& p = s.provenance;
  nlohmann::json report = nlohmann::json::object();
  report["schema_version"] = kReportSchemaVersion;
  report["tool"] = "npusim";
  report["npusim_version"] = NPUSIM_VERSION;
  report["command_line"] = p.command_line;
  report["hardware_source"] = p.hardware_source;
  report["overrides"] = p.overrides;
  report["hardware"] = to_json(*s.hw);
  report["workload"] = {{"name", s.network->name},
                        {"layers", s.network->layers.size()},
                        {"source", p.workload_source}};
  report["area"] = area_json(*s.hw);
  report["totals"] = std::move(totals);
  report["layers"] = nlohmann::json::array();
  report["timing_only"] = s.timing_only;
  report["wall_seconds"] = s.wall_seconds;
  report["dram"] = dram_json(s);
  if (const auto d = decoder_figures(s)) report["decoder"] = decoder_json(*s.hw, *d);
  if (s.compile_trials != nullptr && !s.compile_trials->trials.empty()) {
    nlohmann::json trials = nlohmann::json::array();
    // The units, cache and part of the array a trial compiled for.
    const auto target = [](const CompileTrial& t) {
      nlohmann::json j{{"units", t.units},
                       {"cache_kib", t.cache_kib},
                       {"array_rows", t.array_rows},
                       {"array_cols", t.array_cols}};
      if (t.weight_stationary) j["loop_order"] = "weight_stationary";
      if (t.residency_off) j["residency"] = "off";
      return j;
    };
    for (const CompileTrial& t : s.compile_trials->trials) {
      nlohmann::json trial = target(t);
      if (t.ok) {
        trial["cycles"] = t.cycles;
        trial["dram_bytes"] = t.dram_bytes;
        trial["estimate_cycles"] = t.estimate;
      } else {
        trial["failure"] = t.failure;
      }
      trials.push_back(std::move(trial));
    }
    nlohmann::json choice = target(s.compile_trials->chosen);
    choice["estimated"] = target(s.compile_trials->estimated);
    choice["trials"] = std::move(trials);
    report["compile_trials"] = std::move(choice);
  }
  return report;
}

}  // namespace

nlohmann::json make_report_json(const RunSummary& s) {
  const LayerTimes times = layer_times(s);
  nlohmann::json report = report_head(s, times);
  const std::vector<const Counter*> counters = s.stats->counters();
  nlohmann::json& layers = report["layers"];
  for (uint32_t i = 0; i < s.network->layers.size(); ++i)
    layers.push_back(layer_report_json(s, i, times, counters));
  return report;
}

void write_report_json(std::ostream& out, const RunSummary& s) {
  const LayerTimes times = layer_times(s);
  const std::string head = report_head(s, times).dump(2);
  // The top-level key alone is indented by two spaces; every nested "layers"
  // (the workload's count) by more, and no string holds a raw newline.
  const std::string empty = "\n  \"layers\": []";
  const size_t at = head.find(empty);
  if (at == std::string::npos) throw std::logic_error("report.json: no \"layers\" key in its head");
  const size_t n = s.network->layers.size();
  if (n == 0) {
    out << head << '\n';
    return;
  }
  out.write(head.data(), std::streamsize(at));
  out << "\n  \"layers\": [";
  const std::vector<const Counter*> counters = s.stats->counters();
  std::string entry, indented;
  for (uint32_t i = 0; i < n; ++i) {
    // Each entry as dump(2) writes an element of a top-level array: four more
    // spaces before every line.
    entry = layer_report_json(s, i, times, counters).dump(2);
    indented.clear();
    indented += i == 0 ? "\n    " : ",\n    ";
    for (char c : entry) {
      indented += c;
      if (c == '\n') indented += "    ";
    }
    out << indented;
  }
  out << "\n  ]";
  out.write(head.data() + at + empty.size(), std::streamsize(head.size() - at - empty.size()));
  out << '\n';
}

void write_layer_csv(std::ostream& out, const RunSummary& s) {
  validate_summary(s);
  const std::vector<const Counter*> counters = s.stats->counters();
  static const char* const kShape[] = {"N", "C",      "H",       "W",     "K",    "R",
                                       "S", "stride", "padding", "out_h", "out_w"};
  std::string header = "index,name";
  for (const char* col : kShape) header += std::string(",") + col;
  header += ",cycles";
  for (const FigureField& field : kFigureFields) header += std::string(",") + field.name;
  header += ",k_tile,pieces,rows_per_piece,half_bytes,check,bound";
  for (const Counter* c : counters) header += "," + csv_field(c->name());
  out << header << '\n';

  for (uint32_t i = 0; i < s.network->layers.size(); ++i) {
    const LayerConfig& l = s.network->layers[i];
    const Figures f = layer_figures(s, i);
    const LayerTiling& t = s.tiling[i];
    std::string line = std::to_string(i) + "," + csv_field(l.name);
    for (uint64_t v : {uint64_t(l.N), uint64_t(l.C), uint64_t(l.H), uint64_t(l.W), uint64_t(l.K),
                       uint64_t(l.R), uint64_t(l.S), uint64_t(l.stride), uint64_t(l.padding),
                       uint64_t(l.out_h()), uint64_t(l.out_w())})
      line += "," + std::to_string(v);
    line += "," + std::to_string(f.cycles);
    for (const FigureField& field : kFigureFields) line += "," + csv_number(f.*field.member);
    line += "," + std::to_string(t.k_tile) + "," + std::to_string(t.pieces) + "," +
            std::to_string(t.rows_per_piece) + "," + std::to_string(t.half_bytes) + "," +
            check_string(s.checks[i]) + "," + layer_bound(s, i);
    for (const Counter* c : counters) line += "," + std::to_string(c->at(i));
    out << line << '\n';
  }
}

void write_report_files(const std::string& dir, const RunSummary& s) {
  namespace fs = std::filesystem;
  // Check the summary and build every small text first, so a bad summary leaves
  // no half-written folder; report.json, the largest, is written as it is made.
  validate_summary(s);
  std::ostringstream csv;
  write_layer_csv(csv, s);
  const std::string stats_json = s.stats->to_json().dump(2) + "\n";
  const std::string hw_json = to_json(*s.hw).dump(2) + "\n";
  const std::string workload_json = to_json(*s.network).dump(2) + "\n";

  if (dir.empty()) throw std::runtime_error("report folder name is empty");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create report folder " + dir + ": " + ec.message());
  const fs::path d(dir);
  AtomicFileWriter report((d / "report.json").string());
  write_report_json(report.stream(), s);
  report.commit();
  write_file(d / "layers.csv", csv.str());
  write_file(d / "stats.json", stats_json);
  write_file(d / "stats.txt", s.stats->to_text());
  write_file(d / "hw.resolved.json", hw_json);
  write_file(d / "workload.resolved.json", workload_json);
}

}  // namespace npusim
