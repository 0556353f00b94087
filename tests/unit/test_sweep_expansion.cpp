// Sweep expansion on hand-checked cases: grid order, ranges, seeded random and
// Latin-hypercube sampling, stable point ids, and errors that name the sweep
// file and the JSON pointer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/sweep/expansion.h"
#include "tests/support/test_support.h"

using nlohmann::json;
using namespace npusim;
using namespace npusim::sweep;

namespace {

SweepSpec spec_from(const std::string& text) { return parse_sweep(json::parse(text), "s.json"); }

std::string sweep_expansion_error_of(const std::string& text) {
  try {
    make_plan(spec_from(text));
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("expected a ConfigError for " << text);
  return "";
}

std::vector<double> column(const Plan& plan, std::size_t param) {
  std::vector<double> out;
  for (const Point& p : plan.points) out.push_back(p.values[param].get<double>());
  return out;
}

}  // namespace

TEST_CASE("splitmix64 gives its published sequence", "[sweep]") {
  Prng prng(0);
  CHECK(prng.next() == 0xE220A8397B1DCDAFULL);
  CHECK(prng.next() == 0x6E789E6AA1B965F4ULL);
  CHECK(prng.next() == 0x06C45D188009454FULL);
}

TEST_CASE("grid expansion is the cartesian product with the last parameter fastest", "[sweep]") {
  const Plan plan = make_plan(spec_from(R"({"parameters": [
      {"pointer": "/compute/array_rows", "values": [8, 16]},
      {"pointer": "cache.size_kib", "range": {"start": 256, "stop": 1024, "factor": 2}}]})"));
  REQUIRE(plan.points.size() == 6);
  CHECK(column(plan, 0) == std::vector<double>{8, 8, 8, 16, 16, 16});
  CHECK(column(plan, 1) == std::vector<double>{256, 512, 1024, 256, 512, 1024});
  CHECK(plan.points[0].values[0].is_number_unsigned());  // integers stay integers for --set
  std::set<std::string> ids;
  for (const Point& p : plan.points) ids.insert(p.id);
  CHECK(ids.size() == 6);
  CHECK(plan.pruned.empty());
}

TEST_CASE("ranges include stop when a step lands on it", "[sweep]") {
  const Plan plan = make_plan(spec_from(R"({"parameters": [
      {"pointer": "/dram/bytes_per_cycle", "range": {"start": 8, "stop": 32, "step": 8}},
      {"pointer": "/clock_mhz", "range": {"start": 0.5, "stop": 1.0, "step": 0.25}}]})"));
  REQUIRE(plan.points.size() == 12);
  std::set<double> bw, clock;
  for (const Point& p : plan.points) {
    bw.insert(p.values[0].get<double>());
    clock.insert(p.values[1].get<double>());
  }
  CHECK(bw == std::set<double>{8, 16, 24, 32});
  CHECK(clock == std::set<double>{0.5, 0.75, 1.0});
}

TEST_CASE("point ids depend only on the parameter values", "[sweep]") {
  const SweepSpec a = spec_from(R"({"parameters": [
      {"pointer": "/compute/array_rows", "values": [16]},
      {"pointer": "/cache/size_kib", "values": [512]}]})");
  const SweepSpec b = spec_from(R"({"seed": 9, "parameters": [
      {"pointer": "/cache/size_kib", "values": [256, 512]},
      {"pointer": "/compute/array_rows", "values": [16]}]})");
  const std::string id = make_plan(a).points[0].id;
  CHECK(id.size() == 16);
  CHECK(make_plan(b).points[1].id == id);  // same values, other order and seed
  CHECK(make_plan(b).points[0].id != id);
}

TEST_CASE("Latin-hypercube samples put one point in every stratum of every parameter", "[sweep]") {
  const std::string text = R"({"seed": 7, "samples": 10, "parameters": [
      {"pointer": "/clock_mhz", "sample": {"kind": "latin_hypercube", "min": 100, "max": 1100}},
      {"pointer": "/compute/array_rows",
       "sample": {"kind": "latin_hypercube", "min": 1, "max": 10, "integer": true}}]})";
  const Plan plan = make_plan(spec_from(text));
  REQUIRE(plan.points.size() == 10);
  std::vector<int> strata(10, 0);
  for (double clock : column(plan, 0)) {
    REQUIRE(clock >= 100);
    REQUIRE(clock < 1100);
    ++strata[static_cast<std::size_t>((clock - 100) / 100)];
  }
  CHECK(strata == std::vector<int>(10, 1));
  std::vector<double> rows = column(plan, 1);
  std::sort(rows.begin(), rows.end());  // 10 strata of 1..10: each integer once
  CHECK(rows == std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});

  // The same seed gives the same points; another seed gives others.
  const Plan again = make_plan(spec_from(text));
  for (std::size_t i = 0; i < 10; ++i) CHECK(again.points[i].id == plan.points[i].id);
  json other = json::parse(text);
  other["seed"] = 8;
  CHECK(column(make_plan(parse_sweep(other, "s.json")), 0) != column(plan, 0));
}

TEST_CASE("random samples stay in range and are seeded and cross with the grid", "[sweep]") {
  const std::string text = R"({"seed": 3, "samples": 5, "parameters": [
      {"pointer": "/scheduler/policy", "values": ["strict", "early"]},
      {"pointer": "/dram/bytes_per_cycle",
       "sample": {"kind": "random", "min": 4, "max": 256, "integer": true, "log": true}},
      {"pointer": "/cache/size_kib",
       "sample": {"kind": "random", "count": 3, "min": 256, "max": 2048, "integer": true}}]})";
  const Plan plan = make_plan(spec_from(text));
  CHECK(plan.points.size() + plan.duplicates == 2 * 3 * 5);
  for (const Point& p : plan.points) {
    CHECK(p.values[1].get<double>() >= 4);
    CHECK(p.values[1].get<double>() <= 256);
    CHECK(p.values[2].get<double>() >= 256);
    CHECK(p.values[2].get<double>() <= 2048);
  }
  // The joint samples are the innermost loop and repeat for every grid cell.
  CHECK(plan.points[0].values[1] == plan.points[5].values[1]);
  CHECK(plan.points[0].values[2] != plan.points[5].values[2]);
  const Plan again = make_plan(spec_from(text));
  CHECK(column(again, 1) == column(plan, 1));
}

TEST_CASE("map_unit covers every integer of the range and the ends", "[sweep]") {
  SampleSpec s;
  s.min = 3;
  s.max = 5;
  s.integer = true;
  CHECK(map_unit(s, 0.0) == json(3));
  CHECK(map_unit(s, 0.34) == json(4));
  CHECK(map_unit(s, 0.999999) == json(5));
  s.integer = false;
  s.log = true;
  s.min = 1;
  s.max = 100;
  CHECK(map_unit(s, 0.5).get<double>() == Approx(10.0));
}

TEST_CASE("bad sweep files name the file and the JSON pointer", "[sweep]") {
  CHECK_THAT(sweep_expansion_error_of(
                 R"({"parameters": [{"pointer": "/compute/array_rows", "valuez": [1]}]})"),
             Catch::Contains("s.json") && Catch::Contains("/parameters/0"));
  CHECK_THAT(sweep_expansion_error_of(
                 R"({"parameters": [{"pointer": "/compute/array_rows", "values": [8]}],
                          "sede": 3})"),
             Catch::Contains("/sede") && Catch::Contains("did you mean \"seed\""));
  CHECK_THAT(sweep_expansion_error_of(R"({"parameters": [{"pointer": "/compute/array_rows",
                          "values": [8, 2000]}]})"),
             Catch::Contains("/parameters/0/values") && Catch::Contains("/compute/array_rows") &&
                 Catch::Contains("2000"));
  CHECK_THAT(sweep_expansion_error_of(R"({"parameters": [{"pointer": "/cache/size_kib",
                          "range": {"start": 8, "stop": 4, "step": 1}}]})"),
             Catch::Contains("/parameters/0/range/stop"));
  CHECK_THAT(sweep_expansion_error_of(R"({"parameters": [{"pointer": "/cache/size_kib",
                          "sample": {"kind": "latin", "min": 1, "max": 4}}], "samples": 3})"),
             Catch::Contains("/parameters/0/sample/kind"));
  CHECK_THAT(sweep_expansion_error_of(R"({"parameters": [{"pointer": "/cache/size_kib",
                          "sample": {"kind": "random", "min": 1, "max": 4}}]})"),
             Catch::Contains("/samples"));
  CHECK_THAT(
      sweep_expansion_error_of(R"({"parameters": [{"pointer": "/cache/size_kib", "values": [8]}],
                          "objectives": ["cycles", "area"]})"),
      Catch::Contains("/objectives/1"));
  CHECK_THAT(sweep_expansion_error_of(R"({"parameters": []})"), Catch::Contains("/parameters"));
  CHECK_THAT(
      sweep_expansion_error_of(R"({"parameters": [{"pointer": "/cache/size_kib", "values": [8]},
                          {"pointer": "cache.size_kib", "values": [16]}]})"),
      Catch::Contains("/parameters/1/pointer"));
}

TEST_CASE("a missing ONNX model as a sweep workload is an error at /workload, not one per point",
          "[sweep]") {
  const ConfigError e = test::config_error_from([] {
    parse_sweep(json::parse(R"({"workload": "no_such_model.onnx",
                                "parameters": [{"pointer": "/cache/size_kib", "values": [512]}]})"),
                "s.json");
  });
  CHECK(e.file() == "s.json");
  CHECK(e.pointer() == "/workload");
  CHECK_THAT(e.expected(), Catch::Contains("a readable ONNX model"));
  CHECK_THAT(e.found(), Catch::Contains("no_such_model.onnx") &&
                            Catch::Contains("a file that cannot be opened"));
}
