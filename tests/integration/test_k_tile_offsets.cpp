// K-tile offsets in whole simulations: when a layer's kernels split into several k-tiles, the
// per-kernel data a later tile uses (weight zero points, zero-skip counts, the groups of its
// kernels) must be read at the absolute kernel index k_begin + k, not at the index inside the
// tile. Each test compiles a program, shows from it that the k-tiles happen, and replays it:
// the run checks every output bit for bit against the independent reference, and its array
// cycles are checked against figures worked by hand (the formulas alone:
// tests/unit/test_k_tile_offsets.cpp).
#include <catch2/catch.hpp>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

namespace {

// Both tests: a 1 KiB accumulator holds one output row of int32 sums for only a few kernels,
// so the greedy mapper cuts K into k-tiles; no compile trials.
const std::string kKtileSets =
    " --set compute.accumulator_kib=1 --set compiler.mapper=greedy --set compiler.trials=off";

// ConvInteger's per-kernel weight zero points, and how many of each kernel's 36 coefficients
// differ from its zero point (the rest equal it, so zero-skip skips them).
const int32_t kKtileZeroPoints[8] = {-3, 5, 0, 7, 11, -9, 2, -6};
const uint32_t kKtileKept[8] = {5, 1, 2, 3, 9, 4, 6, 7};

// x uint8 [1, 4, 2, 64] (zero point 128) -> ConvInteger, 8 kernels 3x3, pads 1 -> y int32:
// raw sums, so no requantisation can round or saturate a wrong sum away.
std::string ktile_zero_point_model() {
  npusim::test::OnnxModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, 4, 2, 64});
  // Kernel k in ONNX's OIHW order: its first kept[k] values zp[k] + 1 + i % 3, the rest zp[k].
  std::vector<int32_t> w;
  for (uint32_t k = 0; k < 8; ++k)
    for (uint32_t i = 0; i < 4 * 3 * 3; ++i)
      w.push_back(kKtileZeroPoints[k] + (i < kKtileKept[k] ? 1 + int32_t(i % 3) : 0));
  m.ints("w", onnx::TensorProto_DataType_INT8, {8, 4, 3, 3}, w);
  m.ints("xz", onnx::TensorProto_DataType_UINT8, {}, {128});
  m.ints("wz", onnx::TensorProto_DataType_INT8, {8},
         std::vector<int32_t>(std::begin(kKtileZeroPoints), std::end(kKtileZeroPoints)));
  auto* n = m.node("ConvInteger", {"x", "w", "xz", "wz"}, {"y"}, "conv");
  npusim::test::OnnxModelBuilder::ints_attribute(n, "pads", {1, 1, 1, 1});
  m.output("y", onnx::TensorProto_DataType_INT32);
  return m.save("k_tile_zero_points.onnx");
}

// A grouped conv: x uint8 [1, 3, 2, 128], K = 9 in 3 groups of 3 kernels ({0 1 2} {3 4 5}
// {6 7 8}), one channel each, 3x3, pads 1, seeded int8 weights with a zero point per kernel,
// raw int32 sums out.
const char* kKtileGroupedGraph = R"({"name": "ktile_groups",
  "inputs": [{"name": "x", "shape": [1, 3, 2, 128], "dtype": "uint8", "scale": 0.02,
              "zero_point": 128}],
  "operators": [
    {"name": "g3", "op": "conv", "inputs": ["x"], "output": "y", "K": 9, "kernel": 3,
     "group": 3, "pads": 1, "bias": false,
     "weights": {"dtype": "int8", "scale": 1, "zero_point": [-3, 5, 0, 7, 11, -9, 2, -6, 4]},
     "out": {"dtype": "int32"}}]})";

// Compiles `workload` with `sets` into the temp folder as `name`; the program's path.
std::string ktile_compile(const std::string& workload, const std::string& sets,
                          const std::string& name) {
  const std::string program = npusim::test::temp_dir() + "/" + name;
  const npusim::test::CliResult r =
      npusim::test::run_cli("compile " + workload + sets + " -o " + program);
  INFO("npusim compile " << workload << sets << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return program;
}

// A one-layer program: its layer line, and each compute instruction's [k_begin, k_end).
struct KtileProgram {
  nlohmann::json layer;
  std::vector<std::pair<uint32_t, uint32_t>> computes;
};

KtileProgram ktile_read_program(const std::string& path) {
  KtileProgram p;
  for (const nlohmann::json& line : npusim::test::read_json_lines(path)) {
    if (line.contains("layer") && line.contains("k_tile")) p.layer = line;
    if (line.contains("op") && line.at("op") == "compute")
      p.computes.emplace_back(line.at("k").at(0).get<uint32_t>(),
                              line.at("k").at(1).get<uint32_t>());
  }
  return p;
}

}  // namespace

TEST_CASE(
    "per-kernel weight zero points follow each kernel onto the second k-tile bit-exact, and "
    "that tile's zero-skip counts are its own kernels'",
    "[k-tile][onnx][zero-skip]") {
  // The mapping, by hand: one output row of int32 sums of k kernels takes 64 * 4 * k B, so the
  // 1 KiB accumulator holds k = 1024 / 256 = 4 (the 8 * 36 = 288 B of weights all fit the
  // weight region): 2 k-tiles of 4, [0, 4) and [4, 8). compiler.pieces equal takes at least 2
  // pieces: the 2 output rows are 2 pieces of 1 row, each 1 compute stage (a row's sums,
  // 64 * 4 * 4 = 1024 B, fill the accumulator). Zero-skip: 8 * 4 count bytes + 2 * 37 entry
  // bytes = 106 < 288 raw bytes, so the kernels stream as entries, whose skipped coefficients
  // the decompressor fills with the kernel's zero point before the engine subtracts it.
  // compute.fold matmul: no folded stages, the plain lockstep formula below.
  const std::string model = ktile_zero_point_model();
  const std::string sets = kKtileSets + " --set compute.mode=zero_skip --set compute.fold=matmul";
  const std::string program = ktile_compile(model, sets, "k_tile_zero_points.jsonl");
  const KtileProgram p = ktile_read_program(program);
  REQUIRE(p.layer.is_object());
  CHECK(p.layer.at("k_tile").get<uint32_t>() == 4);
  CHECK(p.layer.at("weight_format").get<std::string>() == "entries");
  // Each kernel's count of coefficients unequal to its own zero point: kept[k].
  CHECK(p.layer.at("kernel_nonzeros").get<std::vector<uint32_t>>() ==
        std::vector<uint32_t>{5, 1, 2, 3, 9, 4, 6, 7});
  // Weight-stationary: both pieces of k-tile [0, 4), then both of [4, 8).
  CHECK(p.computes == std::vector<std::pair<uint32_t, uint32_t>>{{0, 4}, {0, 4}, {4, 8}, {4, 8}});

  // The replay completes only with every int32 sum equal to the reference's, which applies
  // zp[k] to kernel k. Kernel 4 + j centred with zp[j] (the index inside the tile) instead of
  // zp[4 + j] is off by (zp[4 + j] - zp[j]) * sum(x - 128) over its window, and filling its
  // skipped coefficients with zp[j] is off by (zp[j] - zp[4 + j]) * the sum over the skipped
  // taps; zp[4 + j] != zp[j] for every j, so (worked out on this run's seeded input) 512 and
  // 511 of the 1024 sums would differ and the run would fail.
  const nlohmann::json report = npusim::test::run_report("run --program " + program);
  const nlohmann::json& layer = report.at("layers").at(0);
  CHECK(layer.at("check").at("checked").get<bool>());
  CHECK(layer.at("check").at("match").get<bool>());
  CHECK(layer.at("tiling").at("k_tile").get<uint32_t>() == 4);
  const nlohmann::json& c = layer.at("counters");
  CHECK(c.at("compute.instructions").get<uint64_t>() == 4);  // 2 k-tiles x 2 pieces
  CHECK(c.at("weights.nonzeros").get<uint64_t>() == 37);     // 5+1+2+3 + 9+4+6+7
  // Zero-skip array cycles: a stage's 64 pixels take ceil(64 / 32) = 2 passes and a k-tile's 4
  // kernels are one lockstep block of the 32 rows, so a stage costs its tile's most non-zeros
  // * 2 plus the 8-cycle fill:
  //   tile [0, 4): max(5, 1, 2, 3) = 5 -> 5 * 2 + 8 = 18
  //   tile [4, 8): max(9, 4, 6, 7) = 9 -> 9 * 2 + 8 = 26
  // two pieces each: 2 * (18 + 26) = 88. Reading kernel_nonzeros[k] (tile 0's counts) for
  // tile 1 would give 4 * 18 = 72.
  CHECK(c.at("compute.work_cycles").get<uint64_t>() == 88);
  // Dense: 36 coefficients * 2 passes + 8 = 80 per stage, 4 stages: 320.
  CHECK(c.at("compute.dense_work_cycles").get<uint64_t>() == 320);
  // MACs performed: each stage's 64 pixels * its tile's non-zeros, 2 pieces:
  //   2 * 64 * ((5 + 1 + 2 + 3) + (9 + 4 + 6 + 7)) = 128 * (11 + 26) = 4736
  // (tile 0's counts for tile 1: 128 * (11 + 11) = 2816). Useful: 128 pixels * 8 * 36 = 36864.
  CHECK(c.at("compute.macs_performed").get<uint64_t>() == 4736);
  CHECK(c.at("compute.macs_useful").get<uint64_t>() == 36864);
}

TEST_CASE(
    "a grouped operator's k-tiles that start mid-group are charged by the groups their own "
    "kernels span and stay bit-exact with per-kernel zero points",
    "[k-tile][graph]") {
  // The mapping, by hand: one output row of int32 sums of k kernels takes 128 * 4 * k B, so the
  // 1 KiB accumulator holds k = 2 (the 9 kernels of 3 * 3 * 1 = 9 B all fit the weight
  // region): ceil(9 / 2) = 5 k-tiles of ceil(9 / 5) = 2 kernels, [0, 2) [2, 4) [4, 6) [6, 8)
  // [8, 9). Tiles [2, 4) and [8, 9) start mid-group (2 and 8 are not multiples of 3). 2 output
  // rows: 2 pieces of 1 row, 1 stage each. compute.mode dense: every coefficient applied.
  const std::string graph = npusim::test::write_temp_file("k_tile_groups.json", kKtileGroupedGraph);
  const std::string sets = kKtileSets + " --set compute.mode=dense";
  const std::string program = ktile_compile(graph, sets, "k_tile_groups.jsonl");
  const KtileProgram p = ktile_read_program(program);
  REQUIRE(p.layer.is_object());
  CHECK(p.layer.at("k_tile").get<uint32_t>() == 2);
  CHECK(p.computes ==
        std::vector<std::pair<uint32_t, uint32_t>>{
            {0, 2}, {0, 2}, {2, 4}, {2, 4}, {4, 6}, {4, 6}, {6, 8}, {6, 8}, {8, 9}, {8, 9}});

  // Bit-exact: each kernel reads its own group's channel and is centred with its own zero
  // point (tile [2, 4) centred with zp[0], zp[1] = -3, 5 instead of 0, 7 would fail the run).
  const nlohmann::json report = npusim::test::run_report("run --program " + program);
  const nlohmann::json& layer = report.at("layers").at(0);
  CHECK(layer.at("check").at("checked").get<bool>());
  CHECK(layer.at("check").at("match").get<bool>());
  const nlohmann::json& c = layer.at("counters");
  CHECK(c.at("compute.instructions").get<uint64_t>() == 10);  // 5 k-tiles x 2 pieces
  // Array cycles: a stage of 128 pixels takes ceil(128 / 32) = 4 passes; a tile's kernels split
  // into runs of one group each (a run of at most 3 kernels is one block of the 32 rows), and a
  // run costs 9 coefficients * 4 = 36:
  //   [0, 2) {0 1}: 1 run   [2, 4) {2} | {3}: 2 runs   [4, 6) {4 5}: 1
  //   [6, 8) {6 7}: 1       [8, 9) {8}: 1              -> 6 runs
  // 2 pieces * 6 runs * 36 + 10 stages * 8 fill = 432 + 80 = 512.
  // Passing 0 as k_begin: every tile one run, 5 -> 2 * 5 * 36 + 80 = 440. Passing the tile's
  // k_end (the next tile's k_begin): [2, 4) {2} | {3}, [4, 6) {4 5}, [6, 8) {6 7},
  // [8, 10) {8} | {9}, [9, 10) {9} -> 7 runs -> 2 * 7 * 36 + 80 = 584.
  CHECK(c.at("compute.work_cycles").get<uint64_t>() == 512);
  CHECK(c.at("compute.dense_work_cycles").get<uint64_t>() == 512);
}
