// An estimate with a limit (estimate_network's and choose_partition's `limit`, what the compile
// trials pass for a smaller cache budget or part of the array): the trials only need such an
// estimate when it is within their margin, so the cost mapper abandons partitions once their sum
// passes the limit. That must never change an estimate within the limit, and an estimate above
// it must be reported as such, not as another partition's.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/compiler/estimate_memo.h"
#include "sim/compiler/network_estimate.h"
#include "sim/config/hardware_config.h"
#include "sim/frontend/load_workload.h"
#include "sim/graph/workload.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

const std::string kLimitNetworks = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/";

// Rows told from columns, several units, caches from roomy to so small that parameters per
// weight tile and smaller vector regions are weighed, per-layer loop orders.
std::vector<std::pair<std::string, HardwareConfig>> limit_points() {
  std::vector<std::pair<std::string, HardwareConfig>> points;
  HardwareConfig hw;
  points.emplace_back("default", hw);
  HardwareConfig odd = hw;
  odd.compute.units = 3, odd.compute.array_rows = 16, odd.compute.array_cols = 24;
  odd.cache.size_kib = 96;
  points.emplace_back("3 units of 16x24 in 96 KiB", odd);
  HardwareConfig auto_order = hw;
  auto_order.loop_order = LoopOrder::Auto, auto_order.cache.size_kib = 128;
  points.emplace_back("loop_order auto in 128 KiB", auto_order);
  for (const uint32_t kib : {48u, 24u}) {
    HardwareConfig small = hw;
    small.compute.units = 2, small.compute.array_rows = 40, small.compute.array_cols = 16;
    small.cache.size_kib = kib;
    points.emplace_back("2 units of 40x16 in " + std::to_string(kib) + " KiB", small);
  }
  return points;
}

}  // namespace

TEST_CASE(
    "an estimate given a limit at or above it equals the one without, operator for operator, "
    "and one cycle below it is reported over the limit, weighing fewer plans",
    "[mapper][compile_trials]") {
  size_t within = 0, over = 0, fewer_plans = 0;
  for (const std::string name : {"tiny3.json", "mixed_small.json", "resnet18_full.json"}) {
    const NetworkConfig net = load_workload(kLimitNetworks + name);
    for (const auto& [point, hw] : limit_points()) {
      INFO(name << " on " << point);
      NetworkEstimate plain;
      try {
        plain = estimate_network(net, hw);
      } catch (const CompileError&) {
        CHECK_THROWS_AS(estimate_network(net, hw, nullptr, 1e18), CompileError);
        continue;
      }
      REQUIRE(!plain.over_limit);
      for (const double limit : {double(plain.cycles), double(plain.cycles) * 1.05}) {
        const NetworkEstimate limited = estimate_network(net, hw, nullptr, limit);
        CHECK(!limited.over_limit);
        CHECK(limited.cycles == plain.cycles);
        CHECK(limited.partition.units == plain.partition.units);
        CHECK(limited.partition.weight_region_bytes == plain.partition.weight_region_bytes);
        CHECK(limited.partition.half_bytes == plain.partition.half_bytes);
        CHECK(limited.partition.params_per_tile == plain.partition.params_per_tile);
        CHECK(limited.partition.vector_region_bytes == plain.partition.vector_region_bytes);
        CHECK(limited.mappings.size() == plain.mappings.size());
        REQUIRE(limited.operators.size() == plain.operators.size());
        for (size_t o = 0; o < plain.operators.size(); ++o) {
          CHECK(limited.operators[o].cycles == plain.operators[o].cycles);
          CHECK(limited.operators[o].k_tile == plain.operators[o].k_tile);
          CHECK(limited.operators[o].pieces == plain.operators[o].pieces);
          CHECK(limited.operators[o].rows == plain.operators[o].rows);
        }
        ++within;
      }
      // Below the estimate: over the limit, whichever partition would have come first.
      MachineEstimates all, limited_memo;
      estimate_network(net, hw, &all);
      const NetworkEstimate below =
          estimate_network(net, hw, &limited_memo, double(plain.cycles) - 1);
      CHECK(below.over_limit);
      CHECK(below.cycles == UINT64_MAX);
      CHECK(limited_memo.estimates() <= all.estimates());
      fewer_plans += limited_memo.estimates() < all.estimates();
      ++over;
    }
  }
  // Every network was estimated within and over a limit on most points, and abandoning
  // partitions at the limit spared some estimates somewhere.
  CHECK(within >= 2 * 12);
  CHECK(over >= 12);
  CHECK(fewer_plans > 0);
}
