// `npusim estimate` and estimate-only sweeps (docs/mapping.md#estimate-only-runs):
// the total is the sum of the compiler's estimates `compile --explain-mapping`
// prints, its MAC utilisation uses ResNet-18's MAC count worked out by hand,
// a cache too small gets the compiler's error, and a sweep with
// "estimate_only" records the estimates, leaves the metrics it cannot give
// empty and refuses objectives that need a simulation.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using Catch::Matchers::Contains;
using nlohmann::json;
using npusim::test::run_cli;

namespace {

const std::string kRoot = NPUSIM_SOURCE_DIR;

json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return json::parse(in);
}

// The sum of --explain-mapping's estimate column (array and vector operators).
uint64_t explained_total(const std::string& args) {
  const npusim::test::CliResult r = run_cli("compile " + args + " --explain-mapping");
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);  // the partition
  std::getline(lines, line);  // the header
  uint64_t total = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
    REQUIRE(f.size() == 11);
    total += std::stoull(f[6]);
  }
  return total;
}

// results.csv as rows of column -> value (the test's fields hold no commas).
std::vector<std::map<std::string, std::string>> read_rows(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  const auto split = [](const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
      if (c == ',')
        out.emplace_back();
      else
        out.back().push_back(c);
    }
    return out;
  };
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> values = split(line);
    REQUIRE(values.size() == header.size());
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size(); ++i) row[header[i]] = values[i];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

TEST_CASE(
    "npusim estimate totals the compiler's per-operator estimates with no simulation, and its "
    "MAC utilisation counts ResNet-18's MACs",
    "[heavy][estimate]") {
  const std::string dir = npusim::test::temp_dir() + "/estimate";
  for (const std::string net : {"resnet18", "resnet18_full"}) {
    INFO(net);
    const std::string args = kRoot + "/configs/networks/" + net + ".json";
    const npusim::test::CliResult r =
        run_cli("estimate " + args + " --out " + dir + "/" + net + " -q");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json report = read_json(dir + "/" + net + "/report.json");
    CHECK(report.at("kind") == "estimate");
    const uint64_t cycles = report.at("totals").at("cycles").get<uint64_t>();
    CHECK(cycles == explained_total(args));
    uint64_t sum = 0;
    for (const json& layer : report.at("layers"))
      sum += layer.at("estimate_cycles").get<uint64_t>();
    CHECK(sum == cycles);
    CHECK_THAT(r.out, Contains("total") && Contains(std::to_string(cycles)));
    if (net == "resnet18") {
      // 1,813,561,344 MACs over 1024 MACs per cycle.
      CHECK(report.at("totals").at("macs").get<uint64_t>() == 1813561344ull);
      CHECK(report.at("totals").at("hw_mac_util").get<double>() ==
            Approx(1813561344.0 / (1024.0 * double(cycles))));
    }
  }
  // On a small cache the graph's vector operators get lines and a smaller region too.
  const std::string small = kRoot + "/configs/networks/resnet18_full.json --set cache.size_kib=128";
  const npusim::test::CliResult r = run_cli("estimate " + small + " -q");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("layer1.0.add") && Contains("maxpool"));
  CHECK_THAT(r.out, Contains(std::to_string(explained_total(small))));
}

TEST_CASE("npusim estimate of a cache too small gives the compiler's error and exit 2",
          "[estimate]") {
  const npusim::test::CliResult r = run_cli("estimate " + kRoot +
                                            "/configs/networks/resnet18.json "
                                            "--set cache.size_kib=1 -q");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("layer conv1 does not fit") &&
                        Contains("the network fits from cache.size_kib = 2"));
}

TEST_CASE(
    "an estimate_only sweep records each point's estimate, leaves energy and DRAM bytes empty, "
    "and refuses objectives and settings that need a simulation",
    "[estimate][sweep]") {
  const std::string dir = npusim::test::temp_dir() + "/estimate_sweep";
  const std::string net = kRoot + "/configs/networks/resnet18.json";
  const auto sweep_file = [&](const std::string& name, const std::string& extra) {
    return npusim::test::write_temp_file(
        name, R"({"name": "est", "workload": ")" + net + R"(", )" + extra +
                  R"("parameters": [{"pointer": "/cache/size_kib", "values": [256, 1024]}]})");
  };
  const std::string good =
      sweep_file("est.json", R"("estimate_only": true, "objectives": ["cycles", "area_mm2"], )");
  const npusim::test::CliResult r = run_cli("sweep " + good + " --out " + dir + "/ok -q");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = read_rows(dir + "/ok/results.csv");
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) {
    INFO(row.at("cache.size_kib"));
    CHECK(row.at("status") == "ok");
    const std::string single = dir + "/single" + row.at("cache.size_kib");
    REQUIRE(run_cli("estimate " + net + " --set cache.size_kib=" + row.at("cache.size_kib") +
                    " -q --out " + single)
                .exit_code == 0);
    const json estimate = read_json(single + "/report.json");
    CHECK(row.at("cycles") == std::to_string(estimate.at("totals").at("cycles").get<uint64_t>()));
    CHECK(row.at("energy_uj").empty());
    CHECK(row.at("dram_bytes").empty());
    CHECK_FALSE(row.at("area_mm2").empty());
  }

  const npusim::test::CliResult energy =
      run_cli("sweep " +
              sweep_file("est_energy.json",
                         R"("estimate_only": true, "objectives": ["cycles", "energy_uj"], )") +
              " --dry-run");
  CHECK(energy.exit_code == 2);
  CHECK_THAT(energy.err, Contains("/objectives/1") && Contains("\"energy_uj\""));
  const npusim::test::CliResult functional = run_cli(
      "sweep " +
      sweep_file("est_functional.json", R"("estimate_only": true, "timing_only": false, )") +
      " --dry-run");
  CHECK(functional.exit_code == 2);
  CHECK_THAT(functional.err, Contains("/timing_only"));
  // The folder of a simulated sweep is not resumed as an estimate one.
  const std::string simulated = sweep_file("est_sim.json", "");
  REQUIRE(run_cli("sweep " + simulated + " --out " + dir + "/sim -q").exit_code == 0);
  const npusim::test::CliResult mixed = run_cli("sweep " + good + " --out " + dir + "/sim -q");
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.err, Contains("different estimate_only"));
}
