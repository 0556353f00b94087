// `npusim diff` on hand-made run folders: ratios worked by hand, layers.csv
// read by column name, layers matched by name, the 100-column table, the CSV,
// and an error naming the file for every kind of bad folder.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/report/run_diff.h"
#include "tests/support/test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

struct Layer {
  std::string name;
  uint64_t cycles;
  double util;  // hw_mac_util, 0..1
  uint64_t read_bytes, write_bytes;
  double energy_uj;
  uint32_t channels = 8;  // the shape's C
};

nlohmann::json default_hardware() {
  return {{"name", "default"},
          {"clock_mhz", 1000.0},
          {"compute", {{"array_rows", 32}, {"array_cols", 32}, {"units", 1}}},
          {"cache", {{"size_kib", 1024}}}};
}

// A run folder holding what `npusim run --out` writes that diff reads. The CSV
// columns are in another order than npusim writes them, with columns diff
// must ignore ("area_mm2" among them), so reading by position would fail.
std::string make_run(const std::string& folder, const std::vector<Layer>& layers,
                     const Layer& total, const std::string& workload = "net",
                     const nlohmann::json& hardware = default_hardware()) {
  const std::string dir = test::temp_dir() + "/diff/" + folder;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const nlohmann::json report = {
      {"schema_version", kReportSchemaVersion},
      {"tool", "npusim"},
      {"hardware", hardware},
      {"workload", {{"name", workload}, {"layers", layers.size()}}},
      {"totals",
       {{"cycles", total.cycles},
        {"hw_mac_util", total.util},
        {"energy_uj", total.energy_uj},
        {"area_mm2", 1.5},
        {"counters",
         {{"dram.read_bytes", total.read_bytes}, {"dram.write_bytes", total.write_bytes}}}}}};
  std::ofstream(dir + "/report.json") << report.dump(2);
  std::ofstream csv(dir + "/layers.csv");
  csv << "area_mm2,dram.write_bytes,name,energy_uj,index,cycles,N,C,H,W,K,R,S,stride,padding,"
         "hw_mac_util,dram.read_bytes,check\n";
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    const bool quote = l.name.find(',') != std::string::npos;
    csv << "0.25," << l.write_bytes << ',' << (quote ? "\"" + l.name + "\"" : l.name) << ','
        << l.energy_uj << ',' << i << ',' << l.cycles << ",1," << l.channels << ",16,16,16,3,3,1,1,"
        << l.util << ',' << l.read_bytes << ",ok\n";
  }
  return dir;
}

std::string printed(const DiffRun& a, const DiffRun& b, const std::string& label_a = "A",
                    const std::string& label_b = "B") {
  std::ostringstream out;
  print_run_diff(out, a, b, compare_runs(a, b), label_a, label_b);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> tokens(const std::string& line) {
  std::vector<std::string> t;
  std::istringstream in(line);
  for (std::string word; in >> word;) t.push_back(word);
  return t;
}

// The tokens of the table row whose first token is `name`.
std::vector<std::string> row(const std::string& text, const std::string& name) {
  for (const std::string& line : lines_of(text)) {
    const auto t = tokens(line);
    if (!t.empty() && t[0] == name) return t;
  }
  FAIL("no row " << name << " in:\n" << text);
  return {};
}

// Two runs of the same workload. conv: 1000 vs 1500 cycles; pool: A's
// utilisation and energy are 0.
DiffRun run_a() {
  return load_run(make_run("a", {{"conv", 1000, 0.5, 2048, 1024, 2.0}, {"pool", 500, 0, 0, 512, 0}},
                           {"total", 1400, 0.4, 2048, 1536, 2.0}));
}
DiffRun run_b() {
  return load_run(make_run("b",
                           {{"conv", 1500, 0.25, 2048, 1024, 3.0}, {"pool", 400, 0.1, 0, 512, 1.0}},
                           {"total", 1800, 0.2, 2048, 1536, 4.0}));
}

}  // namespace

TEST_CASE("diff: 1000 vs 1500 cycles print the ratio 1.50, and a 0 in A prints \"-\"", "[diff]") {
  const std::string text = printed(run_a(), run_b());
  INFO(text);
  // name, then A, B, B/A of cycles, MAC util %, DRAM KiB and energy uJ.
  CHECK(row(text, "conv") == std::vector<std::string>{"conv", "1000", "1500", "1.50", "50.0",
                                                      "25.0", "0.50", "3.000", "3.000", "1.00",
                                                      "2.000", "3.000", "1.50"});
  CHECK(row(text, "pool") == std::vector<std::string>{"pool", "500", "400", "0.80", "0.0", "10.0",
                                                      "-", "0.500", "0.500", "1.00", "0", "1.000",
                                                      "-"});
  CHECK(row(text, "total") == std::vector<std::string>{"total", "1400", "1800", "1.29", "40.0",
                                                       "20.0", "0.50", "3.500", "3.500", "1.00",
                                                       "2.000", "4.000", "2.00"});
}

TEST_CASE("diff: the CSV has full precision and leaves the ratio empty when A is 0", "[diff]") {
  std::ostringstream csv;
  write_run_diff_csv(csv, compare_runs(run_a(), run_b()));
  const auto lines = lines_of(csv.str());
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] ==
        "layer,index_a,index_b,cycles_a,cycles_b,cycles_ratio,hw_mac_util_a,hw_mac_util_b,"
        "hw_mac_util_ratio,dram_bytes_a,dram_bytes_b,dram_bytes_ratio,energy_uj_a,energy_uj_b,"
        "energy_uj_ratio");
  CHECK(lines[1] == "conv,0,0,1000,1500,1.5,0.5,0.25,0.5,3072,3072,1,2,3,1.5");
  CHECK(lines[2] == "pool,1,1,500,400,0.8,0,0.1,,512,512,1,0,1,");
  CHECK(lines[3] == "total,,,1400,1800,1.28571429,0.4,0.2,0.5,3584,3584,1,2,4,2");
}

TEST_CASE("diff: layers.csv is read by column name, so reordered and added columns do no harm",
          "[diff]") {
  const DiffRun a = run_a();
  CHECK(a.workload == "net");
  CHECK(a.workload_layers == 2);
  REQUIRE(a.layers.size() == 2);
  CHECK(a.layers[0].name == "conv");
  CHECK(a.layers[0].figures.cycles == 1000);
  CHECK(a.layers[0].figures.hw_mac_util == 0.5);
  CHECK(a.layers[0].figures.dram_bytes == 3072);
  CHECK(a.layers[0].figures.energy_uj == 2.0);
  CHECK(a.layers[1].index == 1);
  CHECK(a.totals.cycles == 1400);
  CHECK(a.totals.dram_bytes == 3584);
  CHECK(a.totals.energy_uj == 2.0);
}

TEST_CASE("diff: layers are matched by name, and the unmatched are listed, not compared",
          "[diff]") {
  const Layer t{"total", 100, 0.5, 1, 1, 1};
  const DiffRun a = load_run(make_run(
      "a", {{"x", 10, 0.5, 1, 1, 1}, {"y", 20, 0.5, 1, 1, 1}, {"z", 30, 0.5, 1, 1, 1}}, t, "net1"));
  const DiffRun b = load_run(make_run(
      "b", {{"z", 60, 0.5, 1, 1, 1}, {"y", 40, 0.5, 1, 1, 1}, {"w", 5, 0.5, 1, 1, 1}}, t, "net2"));
  const RunDiff d = compare_runs(a, b);
  REQUIRE(d.layers.size() == 2);  // in A's order
  CHECK(d.layers[0].name == "y");
  CHECK(d.layers[0].index_b == 1);
  CHECK(d.layers[0].b.cycles == 40);
  CHECK(d.layers[1].name == "z");
  CHECK(d.layers[1].index_a == 2);
  CHECK(d.layers[1].index_b == 0);
  CHECK(d.only_a == std::vector<std::string>{"x"});
  CHECK(d.only_b == std::vector<std::string>{"w"});
  const std::string text = printed(a, b);
  CHECK_THAT(text, Contains("warning: the workloads differ: A ran net1 (3 layers), B ran net2"));
  CHECK_THAT(text, Contains("warning: 1 layer only in A, not compared: x\n"));
  CHECK_THAT(text, Contains("warning: 1 layer only in B, not compared: w\n"));
  CHECK(row(text, "y")[3] == "2.00");
}

TEST_CASE("diff: runs sharing no layer name are refused, naming both workloads", "[diff]") {
  const Layer t{"total", 100, 0.5, 1, 1, 1};
  const DiffRun a = load_run(make_run("a", {{"x", 10, 0.5, 1, 1, 1}}, t, "net1"));
  const DiffRun b = load_run(make_run("b", {{"w", 10, 0.5, 1, 1, 1}}, t, "net2"));
  CHECK_THROWS_WITH(compare_runs(a, b), Contains("no layer name is in both runs") &&
                                            Contains("net1 (1 layer)") &&
                                            Contains("net2 (1 layer)"));
}

TEST_CASE("diff: a layer of the same name but another shape is warned about", "[diff]") {
  const Layer t{"total", 100, 0.5, 1, 1, 1};
  Layer wide{"x", 10, 0.5, 1, 1, 1};
  wide.channels = 64;
  const DiffRun a = load_run(make_run("a", {{"x", 10, 0.5, 1, 1, 1}, {"y", 10, 0.5, 1, 1, 1}}, t));
  const DiffRun b = load_run(make_run("b", {wide, {"y", 10, 0.5, 1, 1, 1}}, t));
  CHECK(compare_runs(a, b).reshaped == std::vector<std::string>{"x"});
  CHECK_THAT(printed(a, b), Contains("1 layer with the same name in both but a different shape"));
}

TEST_CASE("diff: the workload and hardware of each run head the table, with what differs",
          "[diff]") {
  nlohmann::json small = default_hardware();
  small["compute"]["array_rows"] = 16;
  small["name"] = "small";
  const Layer t{"total", 100, 0.5, 1, 1, 1};
  const DiffRun a = load_run(make_run("a", {{"x", 10, 0.5, 1, 1, 1}}, t));
  const DiffRun b = load_run(make_run("b", {{"x", 10, 0.5, 1, 1, 1}}, t, "net", small));
  const std::string text = printed(a, b, "big", "small");
  CHECK_THAT(text, Contains("A (big): " + a.dir +
                            "\n  workload net (1 layer)\n"
                            "  hardware default: 32x32 array x 1 unit, 1024 KiB cache, 1000 MHz\n"
                            "B (small): "));
  CHECK_THAT(text, Contains("hardware small: 16x32 array"));
  CHECK_THAT(text,
             Contains("hardware A -> B: compute.array_rows 32 -> 16, name default -> small\n"));
  CHECK_THAT(text, !Contains("warning"));
  CHECK(row(text, "layer") == std::vector<std::string>{"layer", "big", "small", "B/A", "big",
                                                       "small", "B/A", "big", "small", "B/A", "big",
                                                       "small", "B/A"});
}

TEST_CASE("diff: long names are cut with ... in a table of at most 100 columns, whole in the CSV",
          "[diff]") {
  const std::string long_name =
      "features.12.conv.1.0/some,very/long/onnx/node/name/that/goes/on/Conv";
  const Layer t{"total", 123456789, 0.5, 1 << 30, 1 << 30, 99999};
  const DiffRun a = load_run(make_run("a", {{long_name, 12345678, 0.5, 1 << 30, 1, 9999}}, t));
  const DiffRun b = load_run(make_run("b", {{long_name, 87654321, 0.5, 1 << 30, 1, 9999}}, t));
  const std::string text = printed(a, b);
  INFO(text);
  for (const std::string& line : lines_of(text)) CHECK(line.size() <= 100);
  CHECK_THAT(text, Contains("\nfeature.../on/Conv  "));
  CHECK_THAT(text, !Contains(long_name));
  std::ostringstream csv;
  write_run_diff_csv(csv, compare_runs(a, b));
  CHECK_THAT(csv.str(), Contains("\n\"" + long_name + "\",0,0,12345678,87654321,"));
}

TEST_CASE("diff: a bad run folder gives an error naming the file and what was expected", "[diff]") {
  const std::string dir = make_run("bad", {{"x", 10, 0.5, 1, 1, 1}, {"y", 20, 0.5, 1, 1, 1}},
                                   {"total", 30, 0.5, 2, 2, 2});
  const std::string report = dir + "/report.json", csv = dir + "/layers.csv";
  const auto edit = [](const std::string& file, const std::string& from, const std::string& to) {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    std::string text = s.str();
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(file) << text;
  };
  SECTION("missing folder") {
    CHECK_THROWS_WITH(load_run(dir + "/nope"), Contains(dir + "/nope: expected a run folder") &&
                                                   Contains("found nothing at that path"));
  }
  SECTION("a file, not a folder") {
    CHECK_THROWS_WITH(load_run(report), Contains("found a file, not a folder"));
  }
  SECTION("folder without report.json") {
    std::filesystem::remove(report);
    CHECK_THROWS_WITH(load_run(dir), Contains(dir + ": expected a run folder") &&
                                         Contains("holding report.json, found no report.json"));
  }
  SECTION("malformed report.json") {
    edit(report, "\"totals\"", "\"totals\",");
    CHECK_THROWS_WITH(load_run(dir),
                      Contains(report) && Contains("expected valid JSON") && Contains("at line"));
  }
  SECTION("report.json without a total") {
    edit(report, "\"energy_uj\"", "\"energy\"");
    CHECK_THROWS_WITH(load_run(dir), Contains(report + ": at /totals/energy_uj: expected a field"));
  }
  SECTION("report.json of another schema version") {
    const std::string current = std::to_string(kReportSchemaVersion);
    edit(report, "\"schema_version\": " + current, "\"schema_version\": 99");
    CHECK_THROWS_WITH(
        load_run(dir),
        Contains(report + ": at /schema_version: expected " + current) && Contains("found 99"));
  }
  SECTION("layers.csv missing a column") {
    edit(csv, ",cycles,", ",cycle,");
    CHECK_THROWS_WITH(load_run(dir), Contains(csv + ": at line 1 (header): expected a column "
                                                    "named \"cycles\", found no such column") &&
                                         Contains("the nearest is \"cycle\""));
  }
  SECTION("layers.csv without layers.csv") {
    std::filesystem::remove(csv);
    CHECK_THROWS_WITH(load_run(dir), Contains("holding layers.csv, found no layers.csv"));
  }
  SECTION("layers.csv with a word for a number") {
    edit(csv, ",20,", ",twenty,");
    CHECK_THROWS_WITH(load_run(dir), Contains(csv + ": at line 3, column \"cycles\": expected a "
                                                    "non-negative integer, found \"twenty\""));
  }
  SECTION("layers.csv with a negative energy") {
    edit(csv, ",1,1,20,", ",-1,1,20,");
    CHECK_THROWS_WITH(load_run(dir), Contains(csv + ": at line 3, column \"energy_uj\": expected "
                                                    "a number >= 0, found \"-1\""));
  }
  SECTION("layers.csv with an unclosed quote") {
    edit(csv, ",y,", ",\"y,");
    CHECK_THROWS_WITH(load_run(dir),
                      Contains(csv + ": at line 3: expected a closing double quote"));
  }
  SECTION("layers.csv with a short row") {
    edit(csv, ",ok\n", "\n");
    CHECK_THROWS_WITH(
        load_run(dir),
        Contains(csv + ": at line 2: expected 18 fields, as in the header, found 17"));
  }
  SECTION("layers.csv naming a layer twice") {
    edit(csv, ",y,", ",x,");
    CHECK_THROWS_WITH(load_run(dir), Contains("a layer name not used on an earlier row"));
  }
  SECTION("layers.csv with a row fewer than report.json's layer count") {
    edit(report, "\"layers\": 2", "\"layers\": 3");
    CHECK_THROWS_WITH(load_run(dir),
                      Contains(csv + ": expected 3 layer rows") && Contains("found 2"));
  }
  SECTION("an empty layers.csv") {
    std::ofstream(csv, std::ios::trunc).flush();
    CHECK_THROWS_WITH(load_run(dir), Contains(csv + ": at line 1: expected a header row"));
  }
}

TEST_CASE("diff: the ratio is B over A, and nothing when A is 0", "[diff]") {
  CHECK(*diff_ratio(1000, 1500) == 1.5);
  CHECK(*diff_ratio(2, 0) == 0);
  CHECK(!diff_ratio(0, 5));
  CHECK(!diff_ratio(0, 0));
}
