// What report.json records of a run (issue 22, item 5): the version, the
// command line and the effective configuration; and every counter a run
// declares is documented in docs/reports.md.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using npusim::test::read_text_file;
using npusim::test::run_cli;
using npusim::test::temp_dir;

TEST_CASE(
    "report.json names the version, the command line, the overrides and the hardware they give",
    "[report][cli]") {
  const std::string out = temp_dir() + "/provenance";
  const std::string workload = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/tiny3.json";
  const auto r = run_cli("run -q --timing-only " + workload +
                         " --set compute.array_rows=16 --policy early --out " + out);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto report = nlohmann::json::parse(read_text_file(out + "/report.json"));
  CHECK(report["npusim_version"] == NPUSIM_VERSION);
  CHECK_THAT(report["command_line"].get<std::string>(),
             Catch::StartsWith("npusim run -q --timing-only") &&
                 Catch::Contains("--set compute.array_rows=16 --policy early"));
  CHECK(report["overrides"] ==
        nlohmann::json::array({"compute.array_rows=16", "scheduler.policy=early"}));
  CHECK(report["hardware_source"] == "");
  CHECK(report["hardware"]["compute"]["array_rows"] == 16);
  CHECK(report["hardware"]["scheduler"]["policy"] == "early");
  CHECK(report["workload"]["source"] == workload);
  // The summary's header says the same.
  CHECK_THAT(r.out, Catch::Contains("overrides compute.array_rows=16, scheduler.policy=early") &&
                        Catch::Contains("1 x 16x32 array (512 MACs/cycle)") &&
                        Catch::Contains("policy early"));
}

TEST_CASE("every counter of an int8 network and of a graph run is documented in docs/reports.md",
          "[report][cli]") {
  const std::string doc = read_text_file(std::string(NPUSIM_SOURCE_DIR) + "/docs/reports.md");
  REQUIRE(!doc.empty());
  for (const char* workload : {"tiny3.json", "resnet18_full.json"}) {
    const std::string out = temp_dir() + "/counters_" + workload;
    const auto r = run_cli("run -q --timing-only " + std::string(NPUSIM_SOURCE_DIR) +
                           "/configs/networks/" + workload + " --out " + out);
    INFO(workload << "\n" << r.err);
    REQUIRE(r.exit_code == 0);
    const auto stats = nlohmann::json::parse(read_text_file(out + "/stats.json"));
    REQUIRE(stats.size() > 30);
    for (const auto& item : stats.items()) {
      INFO(item.key());
      CHECK(doc.find("`" + item.key() + "`") != std::string::npos);
    }
  }
}

TEST_CASE(
    "report.json gives each layer the cycles it adds past the latest earlier finish, which sum "
    "to the run's cycles, and the estimator's median error against them",
    "[report][estimator]") {
  // resnet18_full: a graph with residual branches. (The engines run instructions in program
  // order, so here every layer finishes after the ones before it; the running maximum keeps
  // the figures summing to the run's cycles if one did not.)
  const std::string workload =
      std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/resnet18_full.json";
  const nlohmann::json r = npusim::test::run_report("run --timing-only " + workload);
  uint64_t latest = 0, sum = 0;
  std::vector<double> errors;
  for (const auto& layer : r.at("layers")) {
    INFO(layer.at("name").get<std::string>());
    const uint64_t finish = layer.at("counters").at("layer.finish_cycle").get<uint64_t>();
    const uint64_t expected = finish > latest ? finish - latest : 0;
    latest = std::max(latest, finish);
    CHECK(layer.at("added_cycles").get<uint64_t>() == expected);
    CHECK(expected <= layer.at("cycles").get<uint64_t>());
    sum += expected;
    const uint64_t estimate = layer.at("tiling").at("estimate_cycles").get<uint64_t>();
    if (estimate != 0 && expected != 0)
      errors.push_back(std::fabs((double(estimate) - double(expected)) / double(expected)));
  }
  CHECK(sum == r.at("totals").at("cycles").get<uint64_t>());
  REQUIRE(errors.size() > 1);
  std::sort(errors.begin(), errors.end());
  const size_t mid = errors.size() / 2;
  const double median = errors.size() % 2 ? errors[mid] : (errors[mid - 1] + errors[mid]) / 2;
  CHECK(r.at("totals").at("estimator").at("median_abs_error_added").get<double>() ==
        Approx(median).epsilon(1e-12));
}
