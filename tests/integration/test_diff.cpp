// `npusim diff` as a user drives it: two real `npusim run --out` folders on
// hardware with different array sizes, and bad folders that must give exit
// code 2 and an error naming the file, never a crash.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using npusim::test::read_text_file;
using npusim::test::run_cli;
using npusim::test::temp_dir;
using npusim::test::write_temp_file;

namespace {

const std::string kSource = NPUSIM_SOURCE_DIR;
const std::string kWorkload = kSource + "/configs/networks/tiny3.json";

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

// `npusim run` of tiny3 on `hw` into a fresh temp folder; returns the folder.
std::string run_into(const std::string& name, const std::string& hw) {
  const std::string dir = temp_dir() + "/" + name;
  std::filesystem::remove_all(dir);
  const auto r = run_cli("run -q " + kWorkload + " --hw " + hw + " --out " + dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return dir;
}

// The shipped default hardware with an array of `rows` x `cols`, as a file.
std::string hardware_file(uint32_t rows, uint32_t cols) {
  nlohmann::json hw = nlohmann::json::parse(read_text_file(kSource + "/configs/hw/default.json"));
  hw["name"] = "array" + std::to_string(rows) + "x" + std::to_string(cols);
  hw["compute"]["array_rows"] = rows;
  hw["compute"]["array_cols"] = cols;
  return write_temp_file(hw["name"].get<std::string>() + ".json", hw.dump(2));
}

}  // namespace

TEST_CASE("diff of runs on 32x32 and 16x16 arrays: its total row equals their report.json totals",
          "[cli][diff]") {
  const std::string a = run_into("diff_a", kSource + "/configs/hw/default.json");
  const std::string b = run_into("diff_b", hardware_file(16, 16));
  const std::string csv = temp_dir() + "/diff.csv";
  const auto r = run_cli("diff " + a + " " + b + " --csv " + csv);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());

  const auto report_a = nlohmann::json::parse(read_text_file(a + "/report.json"));
  const auto report_b = nlohmann::json::parse(read_text_file(b + "/report.json"));
  const auto& ta = report_a.at("totals");
  const auto& tb = report_b.at("totals");
  const uint64_t cycles_a = ta.at("cycles"), cycles_b = tb.at("cycles");
  CHECK(cycles_a != cycles_b);  // a comparison worth making
  const auto dram = [](const nlohmann::json& totals) {
    return totals.at("counters").at("dram.read_bytes").get<uint64_t>() +
           totals.at("counters").at("dram.write_bytes").get<uint64_t>();
  };

  // The printed total row: A's and B's cycles, and their ratio to 2 decimals.
  std::vector<std::string> total;
  for (const std::string& line : split(r.out, '\n')) {
    CHECK(line.size() <= 100);
    if (line.rfind("total ", 0) == 0) {
      std::istringstream in(line);
      for (std::string word; in >> word;) total.push_back(word);
    }
  }
  REQUIRE(total.size() == 13);
  CHECK(total[1] == std::to_string(cycles_a));
  CHECK(total[2] == std::to_string(cycles_b));
  char ratio[16];
  std::snprintf(ratio, sizeof ratio, "%.2f", double(cycles_b) / double(cycles_a));
  CHECK(total[3] == ratio);
  CHECK_THAT(r.out, Catch::Contains("compute.array_cols 32 -> 16, compute.array_rows 32 -> 16"));
  CHECK_THAT(r.out, Catch::Contains("hardware array16x16: 16x16 array"));
  CHECK_THAT(r.out, !Catch::Contains("warning"));

  // The CSV's total row, at full precision.
  const auto rows = split(read_text_file(csv), '\n');
  REQUIRE(rows.size() == 2 + report_a.at("layers").size());
  const auto header = split(rows.front(), ',');
  const auto values = split(rows.back(), ',');
  REQUIRE(values.size() == header.size());
  std::map<std::string, std::string> t;
  for (size_t i = 0; i < header.size(); ++i) t[header[i]] = values[i];
  CHECK(t["layer"] == "total");
  CHECK(t["cycles_a"] == std::to_string(cycles_a));
  CHECK(t["cycles_b"] == std::to_string(cycles_b));
  CHECK(t["dram_bytes_a"] == std::to_string(dram(ta)));
  CHECK(t["dram_bytes_b"] == std::to_string(dram(tb)));
  CHECK(std::stod(t["energy_uj_a"]) == Approx(ta.at("energy_uj").get<double>()).epsilon(1e-8));
  CHECK(std::stod(t["energy_uj_b"]) == Approx(tb.at("energy_uj").get<double>()).epsilon(1e-8));
  CHECK(std::stod(t["hw_mac_util_a"]) == Approx(ta.at("hw_mac_util").get<double>()).epsilon(1e-8));
  CHECK(std::stod(t["hw_mac_util_b"]) == Approx(tb.at("hw_mac_util").get<double>()).epsilon(1e-8));
  CHECK(std::stod(t["cycles_ratio"]) == Approx(double(cycles_b) / double(cycles_a)));
}

TEST_CASE("diff of bad run folders exits 2 with an error naming the file, never a crash",
          "[cli][diff]") {
  const std::string good = run_into("diff_good", kSource + "/configs/hw/default.json");
  SECTION("a missing folder") {
    const auto r = run_cli("diff " + good + " " + temp_dir() + "/no-such-run");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("error: " + temp_dir() +
                                        "/no-such-run: expected a run "
                                        "folder"));
  }
  SECTION("a folder without report.json") {
    std::filesystem::create_directories(temp_dir() + "/not-a-run");
    const auto r = run_cli("diff " + temp_dir() + "/not-a-run " + good);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("not-a-run: expected a run folder") &&
                          Catch::Contains("found no report.json"));
  }
  SECTION("a layers.csv without the cycles column") {
    const std::string bad = temp_dir() + "/diff_no_cycles";
    std::filesystem::remove_all(bad);
    std::filesystem::copy(good, bad);
    std::string text = read_text_file(bad + "/layers.csv");
    text.replace(text.find(",cycles,"), 8, ",cycle_count,");
    std::ofstream(bad + "/layers.csv") << text;
    const auto r = run_cli("diff " + good + " " + bad);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(bad + "/layers.csv: at line 1 (header): expected a column "
                                            "named \"cycles\""));
    CHECK(r.out.empty());
  }
  SECTION("--csv into a run folder is refused and leaves its files alone") {
    const std::string before = read_text_file(good + "/layers.csv");
    const auto r = run_cli("diff " + good + " " + good + " --csv " + good + "/layers.csv");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("expected a file outside the run folders"));
    CHECK(read_text_file(good + "/layers.csv") == before);
  }
  SECTION("--labels that are not two names") {
    const auto r = run_cli("diff " + good + " " + good + " --labels onlyone");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--labels: expected two non-empty names"));
  }
}
