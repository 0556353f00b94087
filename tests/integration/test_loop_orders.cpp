// Seed 004 rule 1's two loop orders on whole runs (compiler.loop_order,
// docs/scheduler.md#loop-orders): a feature-stationary program keeps a
// piece's rows in the cache across its weight tiles and is bit-exact like
// the weight-stationary one, with early <= strict.
#include <catch2/catch.hpp>
#include <string>

#include "tests/support/test_support.h"

using npusim::test::run_report;

namespace {

nlohmann::json loop_orders_run(const std::string& workload, const std::string& order,
                               const std::string& policy, const std::string& extra = "") {
  return run_report("run " + std::string(NPUSIM_SOURCE_DIR) + "/" + workload +
                    " --set compiler.loop_order=" + order + " --set scheduler.policy=" + policy +
                    extra);
}

}  // namespace

TEST_CASE(
    "feature-stationary programs are bit-exact, read each piece's rows once, and early <= strict",
    "[seed004][loop_order]") {
  // tiny3: three chained layers; 4 KiB makes several pieces, and conv_b
  // (K 16) and conv1x1 (K 64) take several k-tiles, so each piece's rows
  // must stay for every weight tile.
  const std::string small = " --set cache.size_kib=4";
  for (const std::string workload :
       {"configs/networks/tiny3.json", "configs/layers/conv1x1.json"}) {
    INFO(workload);
    const nlohmann::json ws = loop_orders_run(workload, "weight_stationary", "strict", small);
    const nlohmann::json fs = loop_orders_run(workload, "feature_stationary", "strict", small);
    const nlohmann::json fs_early = loop_orders_run(workload, "feature_stationary", "early", small);
    for (const nlohmann::json* r : {&ws, &fs, &fs_early})
      for (const auto& layer : r->at("layers")) CHECK(layer.at("check").at("match") == true);
    bool several_tiles = false;
    for (const auto& layer : fs.at("layers"))
      several_tiles = several_tiles || layer.at("tiling").at("k_tile").get<uint32_t>() <
                                           layer.at("shape").at("K").get<uint32_t>();
    REQUIRE(several_tiles);
    CHECK(fs_early.at("totals").at("cycles").get<uint64_t>() <=
          fs.at("totals").at("cycles").get<uint64_t>());
    // Feature-stationary reads each piece's rows once; weight-stationary
    // once per weight tile (the rows of a one-tile layer: the same).
    for (size_t l = 0; l < ws.at("layers").size(); ++l) {
      const auto& w = ws.at("layers")[l].at("counters");
      const auto& f = fs.at("layers")[l].at("counters");
      INFO("layer " << l);
      CHECK(f.at("load.input_rows_bytes").get<uint64_t>() <=
            w.at("load.input_rows_bytes").get<uint64_t>());
    }
  }
}

TEST_CASE("feature_stationary with input_loads after_weights is refused naming the key",
          "[seed004][loop_order]") {
  const auto r = npusim::test::run_cli("run " + std::string(NPUSIM_SOURCE_DIR) +
                                       "/configs/layers/conv1x1.json --set "
                                       "compiler.loop_order=feature_stationary --set "
                                       "compiler.input_loads=after_weights");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("loop_order"));
  CHECK_THAT(r.err, Catch::Contains("after_weights"));
}
