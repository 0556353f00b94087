// A program may use part of the MAC array (compiler.array_rows/cols,
// docs/compile-trials.md#array-in-use): it is compiled and timed as an array of
// that size, so the compile trials can give a larger array every program a
// smaller one runs, in the same cycles.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/sweep/results.h"
#include "tests/support/test_support.h"

using npusim::test::run_cli;
using npusim::test::run_report;

namespace {

const std::string kArrayInUseNetworks = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/";

std::string array_sets(uint32_t rows, uint32_t cols) {
  return " --set compute.array_rows=" + std::to_string(rows) +
         " --set compute.array_cols=" + std::to_string(cols);
}

std::string part_sets(uint32_t rows, uint32_t cols) {
  return " --set compiler.array_rows=" + std::to_string(rows) +
         " --set compiler.array_cols=" + std::to_string(cols);
}

}  // namespace

TEST_CASE(
    "a program for a 24x16 part of a 32x32 array takes the cycles of a 24x16 machine, not of a "
    "16x24 one, and the report keeps the whole array's area and says the part in use",
    "[trials][array]") {
  const std::string net =
      "run -q --timing-only " + kArrayInUseNetworks + "resnet18.json --set compiler.trials=off";
  const nlohmann::json part = run_report(net + array_sets(32, 32) + part_sets(24, 16));
  const nlohmann::json own = run_report(net + array_sets(24, 16));
  const nlohmann::json swapped = run_report(net + array_sets(16, 24));
  const uint64_t cycles = part.at("totals").at("cycles").get<uint64_t>();
  INFO("24x16 of 32x32: " << cycles << "; 24x16: " << own.at("totals").at("cycles")
                          << "; 16x24: " << swapped.at("totals").at("cycles"));
  CHECK(cycles == own.at("totals").at("cycles").get<uint64_t>());
  CHECK(cycles != swapped.at("totals").at("cycles").get<uint64_t>());
  CHECK(part.at("area").at("total_mm2").get<double>() >
        own.at("area").at("total_mm2").get<double>());
  CHECK(part.at("hardware").at("compute").at("array_rows") == 32);
  CHECK(part.at("hardware").at("compiler").at("array_rows") == 24);
  const npusim::test::CliResult text = run_cli(net + array_sets(32, 32) + part_sets(24, 16));
  CHECK_THAT(text.out, Catch::Contains("1024 MACs/cycle; the program uses 24x16)"));
}

TEST_CASE(
    "where a smaller part of the array runs faster the trials take it: resnet18_binary on a "
    "48x48 array takes no more cycles than on 32x32, and the sweep's array_rows_used says so",
    "[trials][array][monotone]") {
  // 128 KiB, 32 B/cycle, 2 units: 32x32 -> 48x48 rose by 2.52 % before the
  // parts were tried (280,983 -> 288,068 cycles, 2026-11-28).
  const std::string net = "run -q --timing-only " + kArrayInUseNetworks +
                          "resnet18_binary.json --set cache.size_kib=128 "
                          "--set dram.bytes_per_cycle=32 --set compute.units=2";
  const nlohmann::json smaller = run_report(net + array_sets(32, 32));
  const nlohmann::json larger = run_report(net + array_sets(48, 48));
  const nlohmann::json& c = larger.at("compile_trials");
  INFO("32x32: " << smaller.at("totals").at("cycles")
                 << "; 48x48: " << larger.at("totals").at("cycles") << "\n"
                 << c.dump());
  CHECK(larger.at("totals").at("cycles").get<uint64_t>() <=
        smaller.at("totals").at("cycles").get<uint64_t>());
  // The 32x32 part is among the trials, with the 32x32 machine's cycles.
  const nlohmann::json* part = npusim::test::compile_trial(c, 2, 128, 32, 32);
  REQUIRE(part != nullptr);
  CHECK(part->at("cycles") == smaller.at("totals").at("cycles"));
  REQUIRE(c.at("array_rows") == 32);
  const std::vector<std::string>& names = npusim::sweep::metric_names();
  const auto metric = [&](const char* name) {
    return npusim::sweep::result_from_report(larger).metrics.at(
        size_t(std::find(names.begin(), names.end(), name) - names.begin()));
  };
  CHECK(metric("array_rows_used") == 32);
  CHECK(metric("array_cols_used") == 32);
  CHECK(metric("macs_per_cycle") == 2 * 48 * 48);
  // compiler.array_parts "whole": the whole array alone, as before.
  const nlohmann::json whole =
      run_report(net + array_sets(48, 48) + " --set compiler.array_parts=whole");
  for (const nlohmann::json& t : whole.at("compile_trials").at("trials"))
    CHECK(t.at("array_rows") == 48);
  CHECK(whole.at("totals").at("cycles").get<uint64_t>() >
        smaller.at("totals").at("cycles").get<uint64_t>());
}

TEST_CASE(
    "compile --explain-mapping for a part of the array names it and explains the mapping of a "
    "machine of that size",
    "[trials][array][explain]") {
  const std::string net = "compile " + kArrayInUseNetworks +
                          "resnet18.json --set compiler.trials=off --explain-mapping";
  const npusim::test::CliResult part = run_cli(net + array_sets(32, 32) + part_sets(24, 16));
  const npusim::test::CliResult own = run_cli(net + array_sets(24, 16));
  REQUIRE(part.exit_code == 0);
  REQUIRE(own.exit_code == 0);
  const auto after_first_line = [](const std::string& text) {
    return text.substr(text.find('\n'));
  };
  INFO(part.out << own.out);
  CHECK_THAT(part.out, Catch::Contains("1 of 1 units, array 24x16 of 32x32 in use\n"));
  CHECK(own.out.find("in use") == std::string::npos);
  CHECK(after_first_line(part.out) == after_first_line(own.out));
}
