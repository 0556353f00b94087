// Pareto extraction and the result tables on hand-made data.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/report/csv.h"
#include "sim/sweep/pareto.h"
#include "sim/sweep/results.h"

using nlohmann::json;
using namespace npusim::sweep;

namespace {

PointResult ok(double cycles, double sram, double util = 0.5) {
  PointResult r;
  r.status = Status::Ok;
  r.metrics = {cycles, cycles / 1000, util, util, 100, 50, 150, 2.5, 3.25, sram, 1024,
               2,      512,           16,   8,    0,   0,  0,   0.1};
  return r;
}

}  // namespace

TEST_CASE("the Pareto front keeps exactly the non-dominated points", "[sweep]") {
  //            0       1       2       3       4       5 (ties 2)
  const std::vector<std::vector<double>> costs = {{1, 5}, {2, 4}, {3, 3}, {2, 6}, {4, 4}, {3, 3}};
  CHECK(pareto_front(costs) == std::vector<std::size_t>{0, 1, 2, 5});
  CHECK(pareto_front({}).empty());
  CHECK(pareto_front({{7, 7}}) == std::vector<std::size_t>{0});
  // Three objectives: (2,2,2) is dominated by (1,2,2); (3,1,3) and (1,3,1) trade off.
  CHECK(pareto_front({{2, 2, 2}, {1, 2, 2}, {3, 1, 3}, {1, 3, 1}}) ==
        std::vector<std::size_t>{1, 3, 2});
}

TEST_CASE("pareto_indices uses the objectives and their goals on finished points only", "[sweep]") {
  SweepSpec spec;
  Parameter param;
  param.name = "p";
  spec.parameters = {param};
  std::vector<Point> points(5);
  for (std::size_t i = 0; i < points.size(); ++i) points[i] = {"id" + std::to_string(i), {json(i)}};
  std::vector<PointResult> results = {ok(100, 4096), ok(200, 1024), ok(150, 4096), ok(300, 2048),
                                      PointResult{Status::Failed, "exit 1", {}}};
  spec.objectives = {{"cycles", false, -1}, {"sram_bytes", false, -1}};
  CHECK(pareto_indices(spec, points, results) == std::vector<std::size_t>{0, 1});
  // Maximising MAC utilisation instead of minimising SRAM.
  results[3] = ok(300, 2048, 0.9);
  spec.objectives = {{"cycles", false, -1}, {"hw_mac_util", true, -1}};
  CHECK(pareto_indices(spec, points, results) == std::vector<std::size_t>{0, 3});
  // A parameter as an objective: smaller p is better.
  spec.objectives = {{"cycles", false, -1}, {"p", false, 0}};
  CHECK(pareto_indices(spec, points, results) == std::vector<std::size_t>{0});
}

TEST_CASE("results.csv has one row per point with every parameter and the metrics", "[sweep]") {
  SweepSpec spec;
  Parameter a, b;
  a.name = "compute.array_rows";
  b.name = "scheduler.policy";
  spec.parameters = {a, b};
  const std::vector<Point> points = {{"00000000000000aa", {json(16), json("early")}},
                                     {"00000000000000bb", {json(32), json("a,b")}}};
  const std::vector<PointResult> results = {ok(2613831, 1048576, 0.25),
                                            PointResult{Status::Timeout, "timeout after 5 s", {}}};
  const std::string csv = results_csv(spec, points, results);
  const std::string header =
      "id,compute.array_rows,scheduler.policy,status,cycles,time_us,hw_mac_util,"
      "useful_mac_util,dram_read_bytes,dram_write_bytes,dram_bytes,energy_uj,area_mm2,sram_bytes,"
      "macs_per_cycle,units_used,cache_kib_used,array_rows_used,array_cols_used,first_token_ms,"
      "decode_ms_per_token,tokens_per_second,wall_s,reason\n";
  CHECK(csv.substr(0, header.size()) == header);
  CHECK_THAT(csv, Catch::Contains("00000000000000aa,16,early,ok,2613831,2613.831,0.25,0.25,100,"
                                  "50,150,2.5,3.25,1048576,1024,2,512,16,8,0,0,0,0.1,\n"));
  CHECK_THAT(csv,
             Catch::Contains(
                 "00000000000000bb,32,\"a,b\",timeout,,,,,,,,,,,,,,,,,,,,timeout after 5 s\n"));
  CHECK(npusim::csv_field("plain text") == "plain text");
  CHECK(npusim::csv_field("x,\"y\"") == "\"x,\"\"y\"\"\"");
}

TEST_CASE(
    "metrics come from report.json, units_used, cache_kib_used and array_*_used from the layers, "
    "the compile trials' choice, compiler.* or the estimate's partition",
    "[sweep]") {
  const json report = {{"totals",
                        {{"cycles", 1000},
                         {"time_us", 1.0},
                         {"hw_mac_util", 0.5},
                         {"useful_mac_util", 0.4},
                         {"energy_uj", 12.5},
                         {"counters", {{"dram.read_bytes", 300}, {"dram.write_bytes", 100}}}}},
                       {"hardware",
                        {{"cache", {{"size_kib", 512}}},
                         {"compiler", {{"cache_kib", 0}}},
                         {"compute", {{"units", 4}, {"array_rows", 16}, {"array_cols", 8}}}}},
                       {"layers",
                        {{{"tiling", {{"units", 3}}}},
                         {{"tiling", {{"units", 0}}}},  // a vector operator
                         {{"tiling", {{"units", 2}}}}}},
                       {"area", {{"total_mm2", 7.75}}},
                       {"wall_seconds", 0.25}};
  const PointResult r = result_from_report(report);
  CHECK(r.status == Status::Ok);
  CHECK(r.metrics == std::vector<double>{1000, 1.0, 0.5, 0.4, 300, 100, 400, 12.5, 7.75, 524288,
                                         512, 3, 512, 16, 8, 0, 0, 0, 0.25});
  // The cache and the part of the array: the trials' choice, else compiler.*.
  json chosen = report;
  chosen["compile_trials"] = {
      {"units", 3}, {"cache_kib", 128}, {"array_rows", 8}, {"array_cols", 6}};
  CHECK(result_from_report(chosen).metrics[12] == 128);
  CHECK(result_from_report(chosen).metrics[13] == 8);
  CHECK(result_from_report(chosen).metrics[14] == 6);
  json part = report;
  part["hardware"]["compiler"]["array_rows"] = 12;
  CHECK(result_from_report(part).metrics[13] == 12);
  CHECK(result_from_report(part).metrics[14] == 8);
  json budget = report;
  budget["hardware"]["compiler"]["cache_kib"] = 256;
  CHECK(result_from_report(budget).metrics[12] == 256);
  // An estimate: its partition's units (0: every unit of the hardware).
  json estimate = budget;
  estimate["kind"] = "estimate";
  estimate["partition"] = {{"units", 2}};
  CHECK(result_from_report(estimate).metrics[11] == 2);
  estimate["partition"]["units"] = 0;
  CHECK(result_from_report(estimate).metrics[11] == 4);
  CHECK(result_from_report(estimate).metrics[12] == 256);
  // A decoder's report adds its per-token figures.
  json decoder = report;
  decoder["decoder"] = {
      {"first_token_ms", 1.5}, {"mean_step_ms", 0.25}, {"tokens_per_second", 8000.0}};
  const PointResult d = result_from_report(decoder);
  CHECK(std::vector<double>(d.metrics.begin() + 15, d.metrics.end()) ==
        std::vector<double>{1.5, 0.25, 8000, 0.25});
  CHECK_THROWS_WITH(result_from_report(json{{"totals", json::object()}}),
                    Catch::Contains("report.json lacks"));
}
