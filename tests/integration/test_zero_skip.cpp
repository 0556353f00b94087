// Seed 002's zero-skip array: outputs stay bit-exact at any density, array
// cycles follow the documented formula (docs/zero-skip.md), zero skipping
// never costs time, and a memory-bound layer gains nothing from it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "sim/tensor/tensor.h"
#include "sim/workload/layer_data.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

// Four unchained layers of one shape at densities 1.0, 0.5, 0.1 and 0.0.
std::string densities_network(const std::string& shape) {
  std::string layers;
  const char* densities[] = {"1.0", "0.5", "0.1", "0.0"};
  for (int i = 0; i < 4; ++i) {
    layers += std::string(i ? "," : "") + R"({"name":"d)" + std::to_string(i) + "\"," + shape +
              R"(,"sparsity":{"pattern":"unstructured","density":)" + densities[i] + "}}";
  }
  return R"({"name":"densities","layers":[)" + layers + "]}";
}

void run_densities(const std::string& shape) {
  const NetworkConfig net = test::workload(densities_network(shape));
  RunOptions options;
  options.progress = false;
  options.keep_outputs = true;
  HardwareConfig hw = parse_hardware_config(nlohmann::json::object(), "<test>");
  hw.mapper = Mapper::Greedy;  // the formula checks below follow the greedy tiling
  const auto r = run_network(net, hw, options);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  for (size_t l = 0; l < 4; ++l) {
    INFO("layer " << net.layers[l].name << " " << r->summary.checks[l].mismatch);
    CHECK(r->summary.checks[l].match);
  }
  // Density 0: every sum is zero, so each output is the requantised bias,
  // worked out here directly: round((bias * scale) / 2^shift), clamp, ReLU.
  const LayerConfig& L = net.layers[3];
  const LayerData data = make_layer_data(L, true);
  const TensorI8& out = r->outputs[3];
  for (uint64_t i = 0; i < out.size(); ++i) {
    const uint32_t k = uint32_t(i % L.K);
    const int64_t scaled = int64_t(data.bias[k]) * L.requant.scale[k];
    const int64_t rounded = (scaled + (int64_t(1) << (L.requant.shift - 1))) >> L.requant.shift;
    const int64_t expected = std::clamp<int64_t>(rounded, L.relu ? 0 : -128, 127);
    REQUIRE(int(out.data[i]) == int(expected));
  }
  test::check_invariants(*r);
  CHECK(r->stats->get("compute.macs_skipped").at(3) == r->stats->get("compute.macs_useful").at(3));
}

}  // namespace

TEST_CASE("zero-skip is bit-exact at densities 1 0.5 0.1 0 for a 1x1 layer", "[zero-skip]") {
  run_densities(R"("C":24,"H":9,"W":11,"K":40,"R":1,"S":1)");
}

TEST_CASE("zero-skip is bit-exact at densities 1 0.5 0.1 0 for 3x3 stride 1 padding 1",
          "[zero-skip]") {
  run_densities(R"("C":19,"H":10,"W":9,"K":33,"R":3,"S":3,"padding":1)");
}

TEST_CASE("zero-skip is bit-exact at densities 1 0.5 0.1 0 for 3x3 stride 2 padding 1",
          "[zero-skip]") {
  run_densities(R"("C":16,"H":13,"W":12,"K":36,"R":3,"S":3,"stride":2,"padding":1)");
}

TEST_CASE("zero-skip array cycles follow the lockstep formula and its bounds", "[zero-skip]") {
  // One piece, one compute stage (default hardware): the array works
  // sum over groups of 32 kernels of (max non-zeros in the group) x
  // ceil(pixels / 32) cycles, plus the 8-cycle pipeline fill.
  const NetworkConfig net = test::workload(R"({"name":"nm","layers":[
      {"name":"nm24","C":64,"H":8,"W":8,"K":64,"R":3,"S":3,"padding":1,
       "sparsity":{"pattern":"nm","n":2,"m":4}},
      {"name":"u30","C":64,"H":8,"W":8,"K":64,"R":3,"S":3,"padding":1,
       "sparsity":{"pattern":"unstructured","density":0.3}}]})");
  RunOptions options;
  options.progress = false;
  HardwareConfig hw = parse_hardware_config(nlohmann::json::object(), "<test>");
  hw.mapper = Mapper::Greedy;      // the formula checks below follow the greedy tiling
  hw.pieces = PieceSplit::Greedy;  // one piece, as the formula above assumes
  const auto r = run_network(net, hw, options);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  const uint64_t taps = 64 * 9, passes = (64 + 31) / 32, fill = 8;
  for (uint32_t l = 0; l < 2; ++l) {
    INFO(net.layers[l].name);
    const TensorI8 w = make_layer_data(net.layers[l], false).weights;
    uint64_t expected = fill, nonzeros = 0;
    for (uint32_t g = 0; g < 64; g += 32) {
      uint64_t most = 0;
      for (uint32_t k = g; k < g + 32; ++k) {
        uint64_t n = 0;
        for (uint64_t i = 0; i < taps; ++i) n += w.data[k * taps + i] != 0;
        most = std::max(most, n);
        nonzeros += n;
      }
      expected += most * passes;
    }
    const uint64_t work = r->stats->get("compute.work_cycles").at(l);
    const uint64_t dense = r->stats->get("compute.dense_work_cycles").at(l);
    CHECK(work == expected);
    CHECK(dense == fill + 2 * taps * passes);
    // density x dense <= zero-skip <= dense (array cycles, fill excluded) ...
    const double density = double(nonzeros) / double(64 * taps);
    CHECK(double(work - fill) >= density * double(dense - fill) - 1e-9);
    CHECK(work <= dense);
    // ... and N:M keeps at most n of every m coefficients in every kernel,
    // so no group is slower than n/m of dense: exactly half or less for 2:4.
    if (l == 0) CHECK(2 * (work - fill) <= dense - fill);
  }
}

TEST_CASE(
    "zero-skip: each k-tile's lockstep groups wait for their own kernels' non-zeros, on two "
    "k-tiles of uneven kernels",
    "[zero-skip]") {
  // A 1x1 layer, C512, 2x2 map, K8, whose kernels keep the first
  // 512, 1, 1, 1, 3, 5, 2 and 7 coefficients (the rest zero). A 2x4 array
  // (lockstep groups of 2 kernels, 4 pixels a pass) in a 6 KiB cache, folds
  // off: the greedy mapping takes k-tiles of 4 and two pieces of one row.
  // Each compute stage (one piece, 2 pixels: one pass) costs the 8-cycle fill
  // plus each group's most non-zeros:
  //   k-tile 0: max(512, 1) + max(1, 1) = 513;  k-tile 1: max(3, 5) + max(2, 7) = 12
  // Two pieces each: 2 * (513 + 12) + 4 * 8 = 1082 (dense: 4 * (2 * 512 + 8) = 4128).
  // Reading k-tile 0's counts for k-tile 1 would give 2 * (513 + 513) + 32 = 2084.
  const std::string dir = test::temp_dir() + "/zero_skip_k_tiles";
  std::filesystem::create_directories(dir);
  TensorI8 weights({8, 1, 1, 512});
  const uint32_t kept[8] = {512, 1, 1, 1, 3, 5, 2, 7};
  for (uint32_t k = 0; k < 8; ++k)
    for (uint32_t c = 0; c < kept[k]; ++c) weights.data[k * 512 + c] = int8_t(1 + (c + k) % 5);
  write_npy(dir + "/weights.npy", weights);
  const std::string layer = test::write_temp_file(
      "zero_skip_k_tiles.json", R"({"name":"zs","layers":[{"name":"l","C":512,"H":2,"W":2,"K":8,)"
                                R"("R":1,"S":1,"weights_npy":")" +
                                    dir + R"(/weights.npy"}]})");
  const std::string set =
      " --set cache.size_kib=6 --set compute.array_rows=2 --set compute.array_cols=4"
      " --set compute.fold=matmul --set compiler.mapper=greedy";
  const auto report = test::run_report("run " + layer + set);
  const auto& tiling = report.at("layers").at(0).at("tiling");
  REQUIRE(tiling.at("k_tile").get<uint32_t>() == 4);
  REQUIRE(tiling.at("pieces").get<uint32_t>() == 2);
  REQUIRE(tiling.at("rows_per_piece").get<uint32_t>() == 1);
  REQUIRE(!tiling.contains("channels_per_part"));  // kernel parts apply every coefficient
  const auto& c = report.at("totals").at("counters");
  CHECK(c.at("compute.instructions").get<uint64_t>() == 4);
  CHECK(c.at("compute.work_cycles").get<uint64_t>() == 1082);
  CHECK(c.at("compute.dense_work_cycles").get<uint64_t>() == 4128);
  // Each kernel's non-zeros times its pixels (4), once per piece (2 pixels).
  CHECK(c.at("compute.macs_performed").get<uint64_t>() == (512 + 1 + 1 + 1 + 3 + 5 + 2 + 7) * 4);
}
