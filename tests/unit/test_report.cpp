// Report floor: derived figures against numbers worked by hand, the JSON
// schema, the CSV shape, the files written, and loud errors for bad input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "sim/report/report.h"
#include "sim/report/report_figures.h"
#include "sim/report/row_selection.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

// Hand-picked per-layer values. The hardware below has 2 units of 4x8 MACs
// (peak 64 MACs/cycle) at 500 MHz; the run's total is 2500 cycles (the two
// layers' spans overlap by 500).
const std::map<std::string, std::pair<uint64_t, uint64_t>> kValues = {
    {"layer.start_cycle", {0, 500}},
    {"layer.finish_cycle", {1000, 2500}},
    {"layer.cycles", {1000, 2000}},
    {"load.busy_cycles", {400, 1000}},
    {"load.instructions", {4, 8}},
    {"compute.busy_cycles", {1500, 2000}},
    {"compute.instructions", {10, 20}},
    {"compute.work_cycles", {1400, 1900}},
    {"compute.macs_performed", {32000, 96000}},
    {"compute.macs_useful", {16000, 64000}},
    {"store.busy_cycles", {100, 500}},
    {"store.instructions", {2, 4}},
    {"store.batches", {3, 5}},
    {"vector.busy_cycles", {0, 250}},
    {"stall.data_dependency_cycles", {11, 21}},
    {"stall.buffer_space_cycles", {12, 22}},
    {"stall.memory_dependency_cycles", {13, 23}},
    {"stall.bus_cycles", {14, 24}},
    {"stall.cache_port_cycles", {15, 25}},
    {"dram.read_bytes", {2048, 4096}},
    {"dram.write_bytes", {1024, 512}},
    {"dram.bus_busy_cycles", {600, 200}},
    {"cache.read_bytes", {3000, 500}},
    {"cache.write_bytes", {1000, 0}},
    {"cache.peak_occupancy_bytes", {8192, 4096}},
    {"cache.allocated_bytes", {10240, 10240}},
    {"bound.compute_cycles", {500, 1000}},
    {"bound.memory_cycles", {800, 1200}},
    {"bound.serial_cycles", {1500, 3000}},
};

bool is_max(const std::string& name) {
  return name == "layer.start_cycle" || name == "layer.finish_cycle" ||
         name == "cache.peak_occupancy_bytes" || name == "cache.allocated_bytes";
}

// Declares every counter in kValues except `skip` and fills both layers.
StatsRegistry make_stats(const std::string& skip = "") {
  StatsRegistry st(2);
  for (const auto& [name, v] : kValues) {
    if (name == skip) continue;
    Counter& c = st.declare(name, "unit", "meaning of " + name,
                            is_max(name) ? Counter::Reduce::Max : Counter::Reduce::Sum);
    c.add(0, v.first);
    c.add(1, v.second);
  }
  return st;
}

LayerConfig make_layer(const std::string& name, uint32_t C, uint32_t HW, uint32_t K, uint32_t RS,
                       uint32_t stride) {
  LayerConfig l;
  l.name = name;
  l.C = C;
  l.H = l.W = HW;
  l.K = K;
  l.R = l.S = RS;
  l.stride = stride;
  l.padding = RS / 2;
  l.requant.scale.assign(K, 1);
  return l;
}

struct Fixture {
  HardwareConfig hw;
  NetworkConfig net;
  StatsRegistry stats = make_stats();
  RunSummary s;

  Fixture() {
    hw.clock_mhz = 500.0;
    hw.compute.units = 2;
    hw.compute.array_rows = 4;
    hw.compute.array_cols = 8;
    net.name = "two_layers";
    net.layers = {make_layer("conv1", 64, 56, 64, 3, 1), make_layer("conv2", 64, 56, 128, 1, 2)};
    net.chained = {false, false};
    s.hw = &hw;
    s.network = &net;
    s.stats = &stats;
    s.checks = {{true, true, "", "d0"}, {true, true, "", "d1"}};
    s.tiling = {{32, 4, 14, 65536}, {64, 2, 28, 32768}};
    s.total_cycles = 2500;
    s.wall_seconds = 0.5;
  }
};

std::string table_of(const RunSummary& s) {
  std::ostringstream out;
  print_summary_table(out, s);
  return out.str();
}

std::string wide_table_of(const RunSummary& s) {
  std::ostringstream out;
  print_summary_table(out, s, TableWidth::Wide);
  return out.str();
}

size_t widest_line(const std::string& text) {
  size_t widest = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) widest = std::max(widest, line.size());
  return widest;
}

}  // namespace

TEST_CASE("report: the default summary fits 100 columns and its header names every override",
          "[report]") {
  Fixture f;
  f.net.layers[0].name = "a_very_long_layer_name_from_an_onnx_graph_conv_0";
  f.s.provenance.hardware_source = "configs/hw/edge.json";
  f.s.provenance.workload_source = "nets/two_layers.json";
  for (int i = 0; i < 8; ++i)  // enough to wrap the overrides line
    f.s.provenance.overrides.push_back("compute.array_rows=" + std::to_string(100 + i));
  f.s.provenance.overrides.push_back("scheduler.policy=early");
  const std::string compact = table_of(f.s);
  INFO(compact);
  CHECK(widest_line(compact) <= 100);
  CHECK_THAT(compact, Contains("workload  two_layers: 2 layers from two_layers.json, functional"));
  CHECK_THAT(compact, Contains("hardware  'default' from edge.json"));
  for (const std::string& o : f.s.provenance.overrides) CHECK_THAT(compact, Contains(o));
  CHECK_THAT(compact, Contains("2 x 4x8 array (64 MACs/cycle)"));
  CHECK_THAT(compact, Contains("a_very_lo~aph_conv_0"));  // shortened in the middle
  // The wide table has every column, and is wider.
  const std::string wide = wide_table_of(f.s);
  CHECK(widest_line(wide) > 100);
  CHECK_THAT(wide,
             Contains("peak_KiB") && Contains("a_very_long_layer_name_from_an_onnx_graph_conv_0"));
  // Without provenance (a summary built by a test or a library user): the defaults.
  Fixture bare;
  CHECK_THAT(table_of(bare.s), Contains("hardware  'default' (built-in defaults)"));
  CHECK_THAT(table_of(bare.s), !Contains("overrides"));
  // The defaults changed by --set say so (a --set name=... gave "(built-in defaults)").
  bare.s.provenance.overrides = {"name=mine"};
  CHECK_THAT(table_of(bare.s),
             Contains("hardware  'default' (built-in defaults with the overrides below)"));
  CHECK_THAT(table_of(bare.s), Contains("overrides name=mine"));
}

TEST_CASE("report: per-layer derived figures match hand-worked numbers", "[report]") {
  Fixture f;
  const Figures a = layer_figures(f.s, 0);
  CHECK(a.cycles == 1000);
  CHECK(a.time_us == Approx(2.0));           // 1000 cycles / 500 MHz
  CHECK(a.hw_mac_util == Approx(0.5));       // 32000 / (64 * 1000)
  CHECK(a.useful_mac_util == Approx(0.25));  // 16000 / (64 * 1000)
  CHECK(a.load_busy == Approx(0.4));         // 400 / 1000
  CHECK(a.compute_busy == Approx(0.75));     // 1500 / (2 units * 1000)
  CHECK(a.store_busy == Approx(0.1));
  CHECK(a.dram_bus_busy == Approx(0.6));
  CHECK(a.cache_reuse == Approx(3.0));  // 3000 / 1000

  const Figures b = layer_figures(f.s, 1);
  CHECK(b.hw_mac_util == Approx(0.75));  // 96000 / (64 * 2000)
  CHECK(b.useful_mac_util == Approx(0.5));
  CHECK(b.compute_busy == Approx(0.5));  // 2000 / (2 * 2000)
  CHECK(a.vector_busy == Approx(0.0));
  CHECK(b.vector_busy == Approx(0.125));  // 250 / 2000
  CHECK(b.cache_reuse == Approx(500.0));  // no cache writes: divide by 1
}

TEST_CASE("report: run totals use total_cycles, not the sum of overlapping spans", "[report]") {
  Fixture f;
  const Figures t = total_figures(f.s);
  CHECK(t.cycles == 2500);
  CHECK(t.time_us == Approx(5.0));
  CHECK(t.hw_mac_util == Approx(0.8));      // 128000 / (64 * 2500)
  CHECK(t.useful_mac_util == Approx(0.5));  // 80000 / 160000
  CHECK(t.load_busy == Approx(0.56));       // 1400 / 2500
  CHECK(t.compute_busy == Approx(0.7));     // 3500 / (2 * 2500)
  CHECK(t.store_busy == Approx(0.24));
  CHECK(t.vector_busy == Approx(0.1));  // 250 / 2500
  CHECK(t.dram_bus_busy == Approx(0.32));
  CHECK(t.cache_reuse == Approx(3.5));  // 3500 / 1000

  const RunBounds b = run_bounds(f.s);
  CHECK(b.compute_lower == 1500);
  CHECK(b.memory_lower == 2000);
  CHECK(b.serial_upper == 4500);
  CHECK(b.within(2500));
  CHECK_FALSE(b.within(1999));
  CHECK_FALSE(b.within(4501));
}

TEST_CASE(
    "report: the run's compute bound sums the array layers and the vector operators apart and "
    "keeps the larger, since the two engines run side by side",
    "[report]") {
  // Layer bounds 500 (conv1) and 1000: both on the array, 1500; with conv2 a
  // max pool on the vector unit, max(500, 1000) = 1000.
  Fixture f;
  CHECK(run_bounds(f.s).compute_lower == 1500);
  f.net.layers[1].op = OpKind::MaxPool;
  CHECK(run_bounds(f.s).compute_lower == 1000);
  f.net.layers[0].op = OpKind::Add;
  CHECK(run_bounds(f.s).compute_lower == 1500);  // both on the vector unit
}

TEST_CASE(
    "report: dynamic energy per layer by its dtype, the run's the sum of its layers', and leakage "
    "over each one's own cycles",
    "[report]") {
  Fixture f;
  f.net.layers[1].dtype = DataType::Binary;  // its "MACs" are word steps at binary_word_pj
  // Default costs: 0.3 pJ per MAC, 0.2 per word step, 12.5 pJ/B in the 1 MiB
  // cache, 162.5 pJ/B of DRAM.
  const Figures a = layer_figures(f.s, 0);
  CHECK(a.compute_energy_uj == Approx(32000 * 0.3 * 1e-6));  // 9600 pJ
  CHECK(a.cache_energy_uj == Approx(4000 * 12.5 * 1e-6));    // 3000 + 1000 B: 50000 pJ
  CHECK(a.dram_energy_uj == Approx(3072 * 162.5 * 1e-6));    // 2048 + 1024 B: 499200 pJ
  CHECK(a.dynamic_energy_uj == Approx(0.5588));
  // Leakage of the fixture's hardware (docs/area.md, defaults but 2 units of
  // 4x8 MACs at 500 MHz): logic (0.044352 MAC array + 0.013408 vector +
  // 0.007805 AGU + 1.6 DRAM interface mm2) * 10 mW/mm2 = 16.65565 mW; SRAM
  // (0.9275 accumulators + 7.34 cache mm2) * 2 mW/mm2 = 16.535 mW.
  const double leakage_mw = 16.65565 + 16.535;
  CHECK(a.leakage_energy_uj == Approx(leakage_mw * 2.0 * 1e-3));  // 1000 cycles: 2 us
  CHECK(a.energy_uj == Approx(a.dynamic_energy_uj + a.leakage_energy_uj));
  const Figures b = layer_figures(f.s, 1);
  CHECK(b.compute_energy_uj == Approx(96000 * 0.2 * 1e-6));  // 19200 pJ
  CHECK(b.dynamic_energy_uj == Approx(0.77425));             // 19200 + 500 * 12.5 + 4608 * 162.5 pJ
  CHECK(b.leakage_energy_uj == Approx(leakage_mw * 4.0 * 1e-3));  // 2000 cycles: 4 us
  const Figures t = total_figures(f.s);
  CHECK(t.dynamic_energy_uj == Approx(0.5588 + 0.77425));
  CHECK(t.compute_energy_uj == Approx(0.0288));
  // The run leaks over its 2500 cycles (5 us), not the layers' overlapping 3000.
  CHECK(t.leakage_energy_uj == Approx(leakage_mw * 5.0 * 1e-3));
  CHECK(t.energy_uj == Approx(0.5588 + 0.77425 + leakage_mw * 5.0 * 1e-3));
  const std::string table = table_of(f.s);
  CHECK_THAT(table, Contains("energy           : 1.333 uJ dynamic (compute 2.2 %"));
  CHECK_THAT(table, Contains("leakage          : 0.166 uJ (33.191 mW over 5.000 us); total energy "
                             "1.499 uJ\n"));
  // 0.044352 MAC array, 8.2675 SRAM, 1.6 DRAM, 0.021213 other: 9.933065 mm2.
  CHECK_THAT(table, Contains("area             : 9.933 mm2 (MAC array 0.4 %, SRAM 83.2 %, DRAM "
                             "16.1 %, other 0.2 %)\n"));
  for (const std::string& line : {std::string("leakage "), std::string("area ")}) {
    const auto at = table.find(line);
    REQUIRE(at != std::string::npos);
    CHECK(table.find('\n', at) - at < 100);  // the lines stay under 100 columns
  }
  // A quarter of the cache costs half per byte (sqrt scaling).
  f.hw.cache.size_kib = 256;
  CHECK(layer_figures(f.s, 0).cache_energy_uj == Approx(4000 * 6.25 * 1e-6));
}

TEST_CASE("report: zero cycles give zero ratios, not NaN", "[report]") {
  Fixture f;
  f.s.total_cycles = 0;
  const Figures t = total_figures(f.s);
  CHECK(t.hw_mac_util == 0.0);
  CHECK(t.compute_busy == 0.0);
  CHECK(t.time_us == 0.0);
}

TEST_CASE("report: summary table rows, totals and verdicts", "[report]") {
  Fixture f;
  std::string text = table_of(f.s);
  CHECK_THAT(text, Contains("64x56x56 k64 3x3/1"));
  CHECK_THAT(text, Contains("64x56x56 k128 1x1/2"));
  CHECK_THAT(wide_table_of(f.s), Contains("32x4"));  // tiling: only in the wide table
  CHECK_THAT(text, Contains("total cycles     : 2500 (5.000 us at 500 MHz)"));
  CHECK_THAT(text, Contains("hardware 80.0 %, useful 50.0 %"));
  CHECK_THAT(text, Contains("(5.00 k simulated cycles/s)"));
  CHECK_THAT(text, Contains("outputs: bit-exact vs reference (2 layers)"));
  CHECK(text.find("OUTSIDE") == std::string::npos);

  f.s.checks[1] = {true, false, "element (0,3,4,17): 12 vs 13", ""};
  text = table_of(f.s);
  CHECK_THAT(text, Contains("MISMATCH"));
  CHECK_THAT(text, Contains("outputs: MISMATCH in layer conv2: element (0,3,4,17): 12 vs 13"));
  CHECK_FALSE(all_layers_match(f.s));

  f.s.timing_only = true;
  f.s.checks = {LayerCheck{}, LayerCheck{}};
  text = table_of(f.s);
  CHECK_THAT(text, Contains("outputs: not checked (timing-only mode)"));
  CHECK(all_layers_match(f.s));

  f.s.total_cycles = 100;  // below the memory lower bound: must be flagged
  CHECK_THAT(table_of(f.s), Contains("OUTSIDE the bounds"));
}

TEST_CASE("report: an unchecked layer outside timing-only mode is not a pass", "[report]") {
  Fixture f;
  f.s.checks[0].checked = false;
  CHECK_FALSE(all_layers_match(f.s));
  CHECK_THAT(table_of(f.s), Contains("outputs: NOT CHECKED in layer conv1"));
}

TEST_CASE("report: JSON carries the schema version and every field", "[report]") {
  Fixture f;
  const nlohmann::json j = make_report_json(f.s);
  CHECK(j.at("schema_version") == kReportSchemaVersion);
  CHECK(j.at("tool") == "npusim");
  CHECK(j.at("hardware").is_object());
  CHECK(j.at("workload").at("name") == "two_layers");
  CHECK(j.at("workload").at("layers") == 2);
  CHECK(j.at("timing_only") == false);
  CHECK(j.at("wall_seconds") == Approx(0.5));

  const nlohmann::json& t = j.at("totals");
  CHECK(t.at("cycles") == 2500);
  CHECK(t.at("hw_mac_util").get<double>() == Approx(0.8));
  CHECK(t.at("within_bounds") == true);
  CHECK(t.at("all_layers_match") == true);
  CHECK(t.at("counters").at("compute.macs_useful") == 80000);
  CHECK(t.at("counters").at("cache.peak_occupancy_bytes") == 8192);  // Max, not sum

  const nlohmann::json& layers = j.at("layers");
  REQUIRE(layers.size() == 2);
  const nlohmann::json& l1 = layers.at(1);
  CHECK(l1.at("name") == "conv2");
  CHECK(l1.at("index") == 1);
  CHECK(l1.at("cycles") == 2000);
  CHECK(l1.at("time_us").get<double>() == Approx(4.0));
  CHECK(l1.at("compute_busy").get<double>() == Approx(0.5));
  CHECK(l1.at("shape").at("K") == 128);
  CHECK(l1.at("shape").at("out_h") == 28);  // (56 + 0 - 1) / 2 + 1
  CHECK(l1.at("tiling").at("k_tile") == 64);
  CHECK(l1.at("tiling").at("half_bytes") == 32768);
  CHECK(l1.at("check").at("match") == true);
  CHECK(l1.at("check").at("digest") == "d1");
  CHECK(l1.at("counters").size() == kValues.size());
  CHECK(l1.at("counters").at("compute.macs_useful") == 64000);
  for (const FigureField& field : kFigureFields) CHECK(l1.contains(field.name));

  // The area is one run-level object: the same silicon runs every layer.
  const nlohmann::json& area = j.at("area");
  CHECK(area.at("total_mm2").get<double>() == Approx(9.933065));
  CHECK(area.at("leakage_mw").get<double>() == Approx(33.19065));
  for (const char* name : {"mac_array", "accumulators", "cache", "vector_unit", "address_generator",
                           "dram_interface"}) {
    INFO(name);
    CHECK(area.at("components").at(name).at("mm2").get<double>() > 0);
    CHECK(area.at("components").at(name).at("leakage_mw").get<double>() > 0);
  }
  CHECK(area.at("components").size() == 6);
  CHECK(area.at("components").at("cache").at("mm2").get<double>() == Approx(7.34));
  CHECK(!l1.contains("area_mm2"));
  CHECK(t.at("leakage_energy_uj").get<double>() == Approx(33.19065 * 5e-3));
}

TEST_CASE("report: CSV has a header and one row per layer", "[report]") {
  Fixture f;
  f.net.layers[0].name = "conv,1";  // a separator in a name must be quoted
  std::ostringstream out;
  write_layer_csv(out, f.s);
  std::istringstream in(out.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("index,name,N,C,H,W,K,R,S,stride,padding,out_h,out_w,cycles,time_us,", 0) ==
        0);
  for (const auto& [name, v] : kValues) CHECK_THAT(lines[0], Contains("," + name));
  CHECK(lines[1].rfind("0,\"conv,1\",1,64,56,56,64,3,3,1,1,56,56,1000,2,0.5,0.25,", 0) == 0);
  auto commas = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
  CHECK(commas(lines[2]) == commas(lines[0]));
  CHECK(commas(lines[1]) == commas(lines[0]) + 1);  // the quoted comma
}

TEST_CASE("report: a missing counter is named in the error", "[report]") {
  Fixture f;
  const StatsRegistry partial = make_stats("stall.bus_cycles");
  f.s.stats = &partial;
  std::ostringstream out;
  CHECK_THROWS_WITH(print_summary_table(out, f.s), Contains("stall.bus_cycles"));
  CHECK_THROWS_AS(make_report_json(f.s), std::logic_error);
  CHECK_THROWS_WITH(write_layer_csv(out, f.s), Contains("lacks counter"));
}

TEST_CASE("report: incomplete summaries are rejected", "[report]") {
  Fixture f;
  f.s.tiling.pop_back();
  CHECK_THROWS_WITH(make_report_json(f.s), Contains("RunSummary::tiling has 1"));
  Fixture g;
  g.s.stats = nullptr;
  CHECK_THROWS_AS(make_report_json(g.s), std::logic_error);
}

TEST_CASE(
    "report: report.json written one layer entry at a time is byte for byte the whole JSON "
    "dumped at once",
    "[report]") {
  Fixture f;
  // An estimate on one layer gives the totals an "estimator" and the layer an error; a
  // name with a quote, a backslash and a newline is escaped inside an indented entry.
  f.s.tiling[1].estimate_cycles = 1200;
  f.net.layers[0].name = "conv \"1\"\\\nnext";
  std::ostringstream streamed;
  write_report_json(streamed, f.s);
  const std::string whole = make_report_json(f.s).dump(2) + "\n";
  CHECK(make_report_json(f.s).at("totals").contains("estimator"));
  CHECK(streamed.str() == whole);

  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "npusim_test_report_streamed";
  fs::remove_all(dir);
  write_report_files(dir.string(), f.s);
  std::ifstream file(dir / "report.json");
  CHECK(std::string(std::istreambuf_iterator<char>(file), {}) == whole);
  fs::remove_all(dir);
}

TEST_CASE("report: write_report_files writes the six files", "[report]") {
  namespace fs = std::filesystem;
  Fixture f;
  const fs::path dir = fs::temp_directory_path() / "npusim_test_report" / "nested";
  fs::remove_all(dir.parent_path());
  write_report_files(dir.string(), f.s);
  for (const char* name : {"report.json", "layers.csv", "stats.json", "stats.txt",
                           "hw.resolved.json", "workload.resolved.json"})
    CHECK(fs::is_regular_file(dir / name));
  std::ifstream report(dir / "report.json");
  CHECK(nlohmann::json::parse(report).at("schema_version") == kReportSchemaVersion);
  std::ifstream stats(dir / "stats.json");
  CHECK(nlohmann::json::parse(stats).at("layer.cycles").at("total") == 3000);

  // A folder that cannot be created: its parent is a regular file.
  const fs::path blocked = dir / "report.json" / "sub";
  CHECK_THROWS_WITH(write_report_files(blocked.string(), f.s), Contains(blocked.string()));
  fs::remove_all(dir.parent_path());
}

TEST_CASE(
    "report: each operator's shape shows what it uses: kernels and windows only where it has them",
    "[report]") {
  LayerConfig l;
  l.quantized = true;
  l.C = 24, l.H = 56, l.W = 56, l.K = 24, l.R = 1, l.S = 1;
  l.op = OpKind::Add;
  CHECK(shape_string(l) == "add 24x56x56");
  l.op = OpKind::MaxPool, l.C = 64, l.H = 112, l.W = 112, l.K = 64, l.R = 3, l.S = 3, l.stride = 2;
  CHECK(shape_string(l) == "maxpool 64x112x112 3x3/2");
  // A batch-1 FC: one row of 2048 channels to 1000 (rows from H x W, not C).
  l.op = OpKind::MatMul, l.C = 2048, l.H = 1, l.W = 1, l.K = 1000, l.R = 1, l.S = 1, l.stride = 1;
  CHECK(shape_string(l) == "matmul 1x2048 k1000");
  // Attention scores with grouped-query heads: 32 query heads over 4 kv heads,
  // 128 tokens of C = 32 x 64 against 128 keys per head (K = 32 x 128).
  l.op = OpKind::BatchMatMul, l.C = 2048, l.H = 128, l.K = 4096;
  l.seq.heads = 32, l.seq.kv_heads = 4;
  CHECK(shape_string(l) == "batch_matmul h32/4 128x64 k128");
  l.op = OpKind::Softmax, l.C = 4096;
  CHECK(shape_string(l) == "softmax h32 128x4096");
  l.op = OpKind::Gelu, l.C = 3072;
  CHECK(shape_string(l) == "gelu 128x3072");  // a sequence: tokens x C
  l.op = OpKind::Conv, l.C = 3, l.H = 224, l.W = 224, l.K = 32, l.R = 3, l.S = 3, l.stride = 2;
  l.source_op = "QLinearConv";
  CHECK(shape_string(l) == "QLinearConv 3x224x224 k32 3x3/2");
}

TEST_CASE(
    "report: the compact table keeps a node's shape whole (npusim's operator names, the ONNX "
    "op type in the wide table)",
    "[report]") {
  Fixture f;
  f.net.layers[0] = make_layer("features.0.0", 3, 224, 32, 3, 2);
  f.net.layers[0].quantized = true;
  f.net.layers[0].source_op = "QLinearConv";
  f.net.layers[1] = make_layer("features.2.conv.1.0", 96, 112, 96, 3, 2);
  f.net.layers[1].quantized = true;
  f.net.layers[1].groups = 96;  // depthwise: no kernel count, K = C
  f.net.layers[1].source_op = "QLinearConv";
  const std::string text = table_of(f.s);
  CHECK_THAT(text, Contains(" 3x224x224 k32 3x3/2 "));
  CHECK_THAT(text, Contains(" dwconv 96x112x112 3x3/2 "));
  CHECK(text.find("QLinear") == std::string::npos);
  const std::string wide = wide_table_of(f.s);
  CHECK_THAT(wide, Contains("QLinearConv 3x224x224 k32 3x3/2"));
  CHECK_THAT(wide, Contains("QLinearConv 96x112x112 k96 3x3/2"));
  CHECK(widest_line(text) <= 100);
}

TEST_CASE(
    "report: with very long cycle counts the compact table narrows the shape column to stay "
    "within 100 characters",
    "[report]") {
  Fixture f;
  f.net.layers[0] = make_layer("a_rather_long_operator_name", 512, 112, 1024, 3, 2);
  const std::string whole = "512x112x112 k1024 3x3/2";  // 23 characters
  CHECK_THAT(table_of(f.s), Contains(whole));           // room for it with short numbers
  f.s.total_cycles = 123456789012;                      // 12 digits in the totals row
  const std::string text = table_of(f.s);
  // The table's lines, from its header to its totals row (the lines below it
  // name the out-of-bounds cycles in full).
  const size_t from = text.find("\nlayer "), to = text.find('\n', text.find("\ntotal ") + 1);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  CHECK(widest_line(text.substr(from + 1, to - from)) <= 100);
  CHECK(text.find(whole) == std::string::npos);             // shortened in the middle instead
  CHECK_THAT(text, Contains("512x112x") && Contains("~"));  // its start, then the cut
}

TEST_CASE("the trials line names the part of the array only where the trials tried more than one",
          "[report][trials][array]") {
  const auto trial = [](uint32_t rows, uint32_t cols, uint64_t cycles, uint64_t estimate) {
    CompileTrial t;
    t.units = 2, t.cache_kib = 128, t.array_rows = rows, t.array_cols = cols;
    t.ok = true, t.cycles = cycles, t.estimate = estimate;
    return t;
  };
  CompileTrials c;
  c.trials = {trial(48, 40, 288068, 900), trial(40, 32, 280983, 910)};
  c.estimated = c.trials[0];
  c.chosen = c.trials[1];
  CHECK(compile_trials_summary(c) ==
        std::vector<std::string>{
            "compiled for 2 units in 128 KiB on 40x32: 280983 cycles", "the fewest of 2 simulated",
            "the estimate's first: 2 units in 128 KiB on 48x40, 288068 cycles"});
  c.trials[1].array_rows = 48, c.trials[1].array_cols = 40, c.trials[1].cache_kib = 64;
  c.chosen = c.trials[1];
  CHECK(compile_trials_summary(c).front() == "compiled for 2 units in 64 KiB: 280983 cycles");
}

TEST_CASE(
    "the trials line names the trial compiled, says the fewest cycles only when it has them, and "
    "otherwise names the fastest trial",
    "[report][trials]") {
  const auto trial = [](uint32_t units, uint32_t kib, uint64_t cycles, uint64_t estimate) {
    CompileTrial t;
    t.units = units, t.cache_kib = kib, t.ok = true, t.cycles = cycles, t.estimate = estimate;
    return t;
  };
  CompileTrials c;
  c.trials = {trial(1, 1024, 1308292, 900), trial(1, 512, 1308374, 901),
              trial(1, 256, 1304148, 905)};
  c.estimated = c.trials[0];
  c.chosen = c.trials[2];  // the fastest
  CHECK(compile_trials_summary(c) ==
        std::vector<std::string>{"compiled for 1 unit in 256 KiB: 1304148 cycles",
                                 "the fewest of 3 simulated",
                                 "the estimate's first: 1 unit in 1 MiB, 1308292 cycles"});
  c.chosen = c.trials[0];  // compiler.traffic_margin's leaner choice
  CHECK(compile_trials_summary(c) ==
        std::vector<std::string>{"compiled for 1 unit in 1 MiB: 1308292 cycles",
                                 "the fewest DRAM bytes within compiler.traffic_margin",
                                 "the fastest of 3 simulated: 1 unit in 256 KiB, 1304148 cycles"});
}

TEST_CASE(
    "a large workload's compact table shows the 25 operators with the most cycles in "
    "program order and counts the rest, and a small one shows every operator",
    "[report]") {
  // 70 operators weighing 70 - i, except operator 60 which weighs 1000: the top 25 are
  // operators 0..23 and 60; 45 are left.
  std::vector<uint64_t> weight(70);
  for (uint32_t i = 0; i < 70; ++i) weight[i] = 70 - i;
  weight[60] = 1000;
  const RowSelection r = select_rows(weight, std::vector<bool>(70, true));
  std::vector<uint32_t> expected;
  for (uint32_t i = 0; i < 24; ++i) expected.push_back(i);
  expected.push_back(60);
  CHECK(r.shown == expected);
  CHECK(r.rest.size() == 45);
  CHECK(r.rest.front() == 24);
  // Operators not eligible never appear; 60 eligible ones are all shown.
  std::vector<bool> eligible(70, true);
  for (uint32_t i = 0; i < 10; ++i) eligible[i] = false;
  const RowSelection small = select_rows(weight, eligible);
  CHECK(small.shown.size() == 60);
  CHECK(small.shown.front() == 10);
  CHECK(small.rest.empty());
}
