// Sweep constraints: the expression language, the structured form, pruning
// before anything runs, and errors at the constraint's JSON pointer.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/config/config_error.h"
#include "sim/sweep/expansion.h"

using nlohmann::json;
using namespace npusim;
using namespace npusim::sweep;

namespace {

double eval(const std::string& text, const Variables& vars = {}) {
  return parse_expr(text)->evaluate(vars).number;
}

std::string error_of(const std::string& text) {
  try {
    make_plan(parse_sweep(json::parse(text), "s.json"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("expected a ConfigError");
  return "";
}

const char* kGrid = R"("parameters": [
    {"pointer": "/compute/array_rows", "values": [8, 16, 32, 64]},
    {"pointer": "/compute/array_cols", "values": [8, 16, 32, 64]}])";

}  // namespace

TEST_CASE("constraint expressions follow the usual precedence", "[sweep]") {
  CHECK(eval("1 + 2 * 3") == 7);
  CHECK(eval("(1 + 2) * 3") == 9);
  CHECK(eval("10 - 4 - 3") == 3);
  CHECK(eval("-2 * -3") == 6);
  CHECK(eval("7 % 4") == 3);
  CHECK(eval("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 4 || 5 != 5") == 0);
  CHECK(eval("1 < 2 and not (2 > 3)") == 1);
  CHECK(eval("!0") == 1);
  CHECK(eval("max(1, 5, 3) + min(4, 2) + log2(1024)") == 17);
  CHECK(eval("2.5e3") == 2500);
  const Variables vars = {{"cache.size_kib", Value{false, 512, {}}},
                          {"scheduler.policy", Value{true, 0, "early"}}};
  CHECK(eval("cache.size_kib * 1024 <= 524288", vars) == 1);
  CHECK(eval("scheduler.policy == \"early\" && scheduler.policy != 'strict'", vars) == 1);
}

TEST_CASE("bad expressions give a column or a reason", "[sweep]") {
  for (const char* bad : {"1 +", "(1 < 2", "1 2", "a ==", "\"open", "@", "min 3", "log2(1, 2)"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_expr(bad), ExprError);
  }
  CHECK_THROWS_WITH(parse_expr("1 + (2 * )"), Catch::Contains("\")\" at column 10"));
  CHECK_THROWS_WITH(eval("\"a\" + 1"), Catch::Contains("needs numbers"));
  CHECK_THROWS_WITH(eval("x > 1"), Catch::Contains("unknown variable \"x\""));
  CHECK_THROWS_WITH(eval("1 / 0"), Catch::Contains("division by zero"));
}

TEST_CASE("constraints prune points before anything runs", "[sweep]") {
  const Plan plan = make_plan(parse_sweep(
      json::parse(
          std::string("{") + kGrid +
          R"(, "constraints": [{"expr": "compute.array_rows * compute.array_cols == 1024"}]})"),
      "s.json"));
  REQUIRE(plan.points.size() == 3);  // 16x64, 32x32, 64x16
  CHECK(plan.pruned.size() == 13);
  CHECK(plan.points[0].values[0] == json(16));
  CHECK(plan.points[0].values[1] == json(64));
  CHECK(plan.points[2].values[0] == json(64));
}

TEST_CASE("structured constraints and derived variables", "[sweep]") {
  const char* text = R"({"parameters": [
      {"pointer": "/cache/size_kib", "values": [512, 1024, 2048, 4096]},
      {"pointer": "/compute/array_rows", "values": [16, 32, 64]}],
    "constraints": [{"max_sram_kib": 2048}, {"min_macs_per_cycle": 1024},
                    {"expr": "sram_bytes == cache_bytes && sram_bytes == cache.size_kib * 1024"}]})";
  const Plan plan = make_plan(parse_sweep(json::parse(text), "s.json"));
  // sram <= 2048 KiB keeps 3 cache sizes; rows * 32 cols >= 1024 keeps rows 32 and 64.
  CHECK(plan.points.size() == 6);
  CHECK(plan.pruned.size() == 6);
  for (const Point& p : plan.points) {
    CHECK(p.values[0].get<int>() <= 2048);
    CHECK(p.values[1].get<int>() >= 32);
  }
}

TEST_CASE("constraint errors point at the constraint", "[sweep]") {
  const std::string head = std::string("{") + kGrid + R"(, "constraints": [)";
  CHECK_THAT(error_of(head + R"({"expr": "compute.array_rwos > 8"}]})"),
             Catch::Contains("/constraints/0/expr") &&
                 Catch::Contains("did you mean \"compute.array_rows\""));
  CHECK_THAT(error_of(head + R"({"expr": "1 <"}]})"),
             Catch::Contains("/constraints/0/expr") && Catch::Contains("column"));
  CHECK_THAT(error_of(head + R"({"max_sram_kib": "big"}]})"),
             Catch::Contains("/constraints/0/max_sram_kib"));
  CHECK_THAT(error_of(head + R"({"expr": "1"}, {"limit": 3}]})"),
             Catch::Contains("/constraints/1/limit"));
  CHECK_THAT(error_of(head + R"({"expr": "scheduler.policy"}]})"),
             Catch::Contains("/constraints/0/expr") && Catch::Contains("truth value"));
}
