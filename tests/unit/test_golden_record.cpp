// Golden records (sim/regress/golden.h): check_golden refuses what golden_text would never
// write, naming the file and the JSON pointer, and compare_golden matches layers by name,
// repeated names included.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/config/config_error.h"
#include "sim/regress/golden.h"

using namespace npusim;
using namespace npusim::regress;
using nlohmann::json;

namespace {

json record() {
  return json::parse(R"({
    "case": "c", "counters": {"dram.read_bytes": 10, "stall.bus_cycles": 3}, "cycles": 100,
    "format": 1, "timing_only": false,
    "layers": [{"name": "a", "cycles": 60, "digest": "00ff", "counters": {"dram.read_bytes": 6}},
               {"name": "b", "cycles": 40, "digest": null, "counters": {}}]})");
}

// The ConfigError check_golden throws for `r`, as "pointer | expected | found".
std::string refusal(const json& r) {
  try {
    check_golden(r, "g.json");
  } catch (const ConfigError& e) {
    CHECK(e.file() == "g.json");
    return e.pointer() + " | " + e.expected() + " | " + e.found();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("a golden record as golden_text writes it is accepted", "[regress][unit]") {
  CHECK(refusal(record()) == "accepted");
  CHECK(refusal(json::parse(golden_text(record()))) == "accepted");
}

TEST_CASE(
    "a golden record with an unknown or misspelt key, a wrong type or another format is refused "
    "at its JSON pointer",
    "[regress][unit][robustness]") {
  json r = record();
  r["cycels"] = 100;
  CHECK_THAT(refusal(r), Catch::StartsWith("/cycels | "));

  r = record();
  r["layers"][1]["counters"]["stall.bus_cycels"] = 1;
  CHECK_THAT(refusal(r), Catch::StartsWith("/layers/1/counters/stall.bus_cycels | "));

  r = record();
  r["cycles"] = "100";
  CHECK_THAT(refusal(r), Catch::StartsWith("/cycles | ") && Catch::EndsWith("string \"100\""));

  r = record();
  r["counters"]["dram.read_bytes"] = 2.5;
  CHECK_THAT(refusal(r), Catch::StartsWith("/counters/dram.read_bytes | "));

  r = record();
  r["layers"][0]["digest"] = 7;
  CHECK_THAT(refusal(r), Catch::StartsWith("/layers/0/digest | ") && Catch::EndsWith("number 7"));

  r = record();
  r["layers"][0].erase("name");
  CHECK_THAT(refusal(r), Catch::StartsWith("/layers/0/name | "));

  r = record();
  r["layers"] = json::object();
  CHECK_THAT(refusal(r), Catch::StartsWith("/layers | an array"));

  r = record();
  r["format"] = 2;
  CHECK_THAT(refusal(r), Catch::StartsWith("/format | golden format 1"));

  CHECK_THAT(refusal(json::array()), Catch::StartsWith(" | object | "));
}

TEST_CASE("compare_golden matches layers by name in either order, and a repeated name both times",
          "[regress][unit]") {
  json fresh = record();
  std::swap(fresh["layers"][0], fresh["layers"][1]);
  fresh["layers"][0]["cycles"] = 41;  // b moved
  const std::vector<FieldChange> changes = compare_golden(record(), fresh, {});
  std::vector<std::string> fields;
  for (const FieldChange& c : changes) fields.push_back(c.field);
  CHECK(fields == std::vector<std::string>{"layers", "b/cycles"});

  // Two layers named "a" on each side: each old one is compared with each new one.
  json twice = record();
  twice["layers"][1]["name"] = "a";
  json moved = twice;
  moved["layers"][1]["cycles"] = 61;
  std::size_t a_cycles = 0;
  for (const FieldChange& c : compare_golden(twice, moved, {})) a_cycles += c.field == "a/cycles";
  // old a(60) vs new a(61), old a(40) vs new a(60), old a(40) vs new a(61).
  CHECK(a_cycles == 3);
}
