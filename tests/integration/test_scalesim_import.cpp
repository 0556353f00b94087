// A SCALE-Sim topology CSV runs like a JSON network: from the command line,
// bit-exact, and a bad cell stops it with the line and the column.
#include <catch2/catch.hpp>
#include <string>

#include "tests/support/test_support.h"

using namespace npusim;

namespace {

const char* kHeader = test::kScaleSimHeader;

}  // namespace

TEST_CASE("npusim run takes a SCALE-Sim topology and checks every layer", "[scalesim][e2e]") {
  // Two chained convolutions and a GEMM-shaped 1x1 as SCALE-Sim writes them.
  const std::string path = test::write_temp_file(
      "small_topology.csv", std::string(kHeader) +
                                "c1, 18, 18, 3, 3, 8, 16, 1,\nc2, 16, 16, 3, 3, 16, 16, 2,\n" +
                                "fc, 1, 1, 1, 1, 256, 10, 1,\n");
  const nlohmann::json report = test::run_report("run " + path);
  REQUIRE(report.at("layers").size() == 3);
  for (const nlohmann::json& layer : report.at("layers")) {
    INFO(layer.at("name"));
    CHECK(layer.at("check").at("match") == true);
  }
  CHECK(report.at("layers")[1].at("shape").at("out_h") == 7);  // (16 - 3) / 2 + 1
  CHECK(report.at("totals").at("within_bounds") == true);
  CHECK(report.at("workload").at("name") == "small_topology");
}

TEST_CASE("a bad topology cell is an error naming its line and column", "[scalesim][e2e]") {
  const std::string path = test::write_temp_file(
      "bad_topology.csv", std::string(kHeader) + "c1,18,18,3,3,8,16,1,\nc2,16,16,3,3,-16,16,1,\n");
  const auto r = test::run_cli("run " + path);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ":3: at /Channels: expected an integer in 1..65536, "
                                           "found \"-16\""));
}

TEST_CASE("a sweep takes a topology as its workload and varies its layers", "[scalesim][sweep]") {
  const std::string csv = test::write_temp_file(
      "sweep_topology.csv", std::string(kHeader) + "c1,10,10,3,3,8,16,1,\nc2,8,8,3,3,16,8,1,\n");
  const std::string spec = test::write_temp_file(
      "topology_sweep.json", R"({"name": "topology_sweep", "workload": ")" + csv + R"(",
        "parameters": [{"pointer": "/layers/1/K", "target": "workload", "values": [8, 24]}],
        "objectives": ["cycles", "energy_uj"]})");
  const std::string out = test::temp_dir() + "/topology_sweep";
  const auto r = test::run_cli("sweep " + spec + " --out " + out + " -j 2");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("2/2 points ok"));
}
