// Zero-skip against the dense ablation on the same hardware (two runs, two
// processes): never slower, and on a memory-bound layer the speed-up stops at
// the memory bound however sparse the kernels are.
#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using npusim::test::run_report;
using npusim::test::write_temp_file;

namespace {

nlohmann::json zero_skip_runs_report(const std::string& workload, const std::string& mode) {
  return run_report("run " + workload + " --timing-only --set compute.mode=" + mode);
}

uint64_t zero_skip_runs_cycles(const nlohmann::json& r) {
  return r.at("totals").at("cycles").get<uint64_t>();
}

}  // namespace

TEST_CASE("zero-skip total cycles never exceed dense on the integration workloads", "[zero-skip]") {
  const std::string sparse = write_temp_file("sparse.json", R"({"name":"s","layers":[
      {"name":"a","C":32,"H":16,"W":16,"K":64,"R":3,"S":3,"padding":1,
       "sparsity":{"pattern":"unstructured","density":0.3}},
      {"name":"b","C":64,"H":16,"W":16,"K":32,"R":3,"S":3,"padding":1,
       "sparsity":{"pattern":"nm","n":2,"m":4}},
      {"name":"c","C":32,"H":16,"W":16,"K":16,"R":1,"S":1,
       "sparsity":{"pattern":"channel","density":0.5}}]})");
  const std::string src = std::string(NPUSIM_SOURCE_DIR) + "/";
  for (const std::string& w :
       {sparse, src + "configs/networks/tiny3.json", src + "configs/layers/conv3x3.json",
        src + "configs/layers/conv7x7_s2.json"}) {
    INFO(w);
    CHECK(zero_skip_runs_cycles(zero_skip_runs_report(w, "zero_skip")) <=
          zero_skip_runs_cycles(zero_skip_runs_report(w, "dense")));
  }
  CHECK(zero_skip_runs_cycles(zero_skip_runs_report(sparse, "zero_skip")) <
        zero_skip_runs_cycles(zero_skip_runs_report(sparse, "dense")));
}

TEST_CASE("a memory-bound layer's speed-up stops at the memory bound", "[zero-skip]") {
  // 1x1, 8 -> 8 channels on 64x64 pixels: 64 coefficients per kernel against
  // 32 KiB in and 32 KiB out per image; DRAM time dominates the array's.
  const std::string layer = write_temp_file("membound.json", R"({"type":"conv2d",
      "name":"m","C":8,"H":64,"W":64,"K":8,"R":1,"S":1,
      "sparsity":{"pattern":"unstructured","density":0.1}})");
  const auto zs = zero_skip_runs_report(layer, "zero_skip");
  const auto dense = zero_skip_runs_report(layer, "dense");
  const auto& counters = zs.at("totals").at("counters");
  const double array_speedup = double(counters.at("compute.dense_work_cycles").get<uint64_t>()) /
                               double(counters.at("compute.work_cycles").get<uint64_t>());
  CHECK(array_speedup > 2.0);  // the array itself skips most coefficients ...
  // ... but the run takes at least the bus time either way.
  const uint64_t memory = counters.at("bound.memory_cycles").get<uint64_t>();
  CHECK(zero_skip_runs_cycles(zs) >= memory);
  CHECK(zero_skip_runs_cycles(dense) >= memory);
  CHECK(double(zero_skip_runs_cycles(zs)) >= 0.9 * double(zero_skip_runs_cycles(dense)));
}
