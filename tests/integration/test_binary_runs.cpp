// Binary layers through the SystemC model (docs/binary.md): bit-exact against
// the reference across shapes, padding modes, channel counts and word sizes;
// mixed int8/binary networks; compute cycles by the documented formula.
// Each TEST_CASE simulates once (one SystemC elaboration per process), so the
// shape sweep is one network of unchained layers, each with its own input.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "sim/tensor/tensor.h"
#include "tests/support/test_support.h"

using namespace npusim;
using npusim::test::check_invariants;
using npusim::test::workload;

namespace {

// The cycle counts below follow the greedy tiling (compiler.mapper=greedy).
std::unique_ptr<RunResult> binary_runs_run(const std::string& workload_json,
                                           const std::string& hw = "{}") {
  RunOptions options;
  options.progress = false;
  HardwareConfig config = parse_hardware_config(nlohmann::json::parse(hw), "<test>");
  config.mapper = Mapper::Greedy;
  config.pieces = PieceSplit::Greedy;  // the checks below count one piece per small layer
  return run_network(workload(workload_json), config, options);
}

void require_bit_exact(const RunResult& r) {
  INFO(r.outcome.message);
  REQUIRE(r.outcome.status == RunOutcome::Status::Completed);
  for (size_t l = 0; l < r.network.layers.size(); ++l) {
    INFO("layer " << r.network.layers[l].name << ": " << r.summary.checks[l].mismatch);
    CHECK(r.summary.checks[l].checked);
    CHECK(r.summary.checks[l].match);
  }
  check_invariants(r);
}

// One binary layer object; `extra` is spliced into its "binary" object.
std::string layer(const std::string& name, uint32_t C, uint32_t H, uint32_t K, uint32_t R,
                  uint32_t stride, uint32_t padding, const std::string& extra) {
  return R"({"name":")" + name + R"(","C":)" + std::to_string(C) + R"(,"H":)" + std::to_string(H) +
         R"(,"W":)" + std::to_string(H + 1) + R"(,"K":)" + std::to_string(K) + R"(,"R":)" +
         std::to_string(R) + R"(,"S":)" + std::to_string(R) + R"(,"stride":)" +
         std::to_string(stride) + R"(,"padding":)" + std::to_string(padding) +
         R"(,"dtype":"binary","binary":{)" + extra + "}}";
}

}  // namespace

TEST_CASE(
    "binary layers match the reference: 1x1, 3x3, stride 2, every padding mode, "
    "C = 31..100, b = 32 and 64",
    "[binary][e2e]") {
  std::string layers;
  int i = 0;
  for (uint32_t C : {31u, 32u, 33u, 64u, 100u}) {
    for (uint32_t b : {32u, 64u}) {
      const std::string bits = "\"bits\":" + std::to_string(b);
      const std::string tag = "c" + std::to_string(C) + "b" + std::to_string(b);
      // Consecutive layers differ in shape, so none chains to the one before.
      layers += (i++ ? "," : "") + layer(tag + "_1x1", C, 5, 37, 1, 1, 0, bits) + ",";
      layers += layer(tag + "_skip", C, 6, 33, 3, 1, 1, bits + R"(,"padding":"skip")") + ",";
      layers += layer(tag + "_plus", C, 7, 40, 3, 1, 1,
                      bits + R"(,"padding":"plus_one","batch_norm":{"seed":3})") +
                ",";
      layers += layer(tag + "_minus_s2", C, 9, 35, 3, 2, 1,
                      bits + R"(,"padding":"minus_one","batch_norm":{"seed":4})");
    }
  }
  const auto r = binary_runs_run(R"({"name":"sweep","layers":[)" + layers + "]}");
  REQUIRE(r->network.layers.size() == 40);
  for (size_t l = 1; l < r->network.chained.size(); ++l) REQUIRE_FALSE(r->network.chained[l]);
  require_bit_exact(*r);
}

TEST_CASE("binary layers with k-tiles and several pieces", "[binary][e2e]") {
  // A 32 KiB cache: a's kernels (200 x 9 x 12 B) exceed the 16 KiB weight
  // region, so a gets two k-tiles of whole 64-channel words (its consumer
  // b's format), and one output row per piece.
  const auto r = binary_runs_run(R"({"name":"tiles","layers":[
      {"name":"a","C":70,"H":10,"W":8,"K":200,"R":3,"S":3,"padding":1,"dtype":"binary",
       "binary":{"batch_norm":{"seed":8}}},
      {"name":"b","C":200,"H":10,"W":8,"K":40,"R":3,"S":3,"stride":2,"padding":1,
       "dtype":"binary","binary":{"bits":64,"padding":"plus_one"}}]})",
                                 R"({"cache":{"size_kib":32}})");
  REQUIRE(r->program.layers[0].k_tile < 200);
  CHECK(r->program.layers[0].k_tile % 64 == 0);
  CHECK(r->program.layers[0].rows_per_piece < 10);
  require_bit_exact(*r);
}

TEST_CASE("mixed network int8 -> binary -> binary -> int8 is bit-exact", "[binary][e2e]") {
  const auto r = binary_runs_run(R"({"name":"mixed","seed":5,"layers":[
      {"name":"stem","C":3,"H":12,"W":12,"K":40,"R":3,"S":3,"padding":1,"relu":false},
      {"name":"b1","C":40,"H":12,"W":12,"K":33,"R":3,"S":3,"padding":1,"dtype":"binary",
       "binary":{"batch_norm":{"seed":1}}},
      {"name":"b2","C":33,"H":12,"W":12,"K":70,"R":3,"S":3,"stride":2,"padding":1,
       "dtype":"binary","binary":{"bits":64,"padding":"minus_one","batch_norm":{"seed":2}}},
      {"name":"head","C":70,"H":6,"W":6,"K":10,"R":1,"S":1,"relu":false}]})");
  REQUIRE(r->network.chained == std::vector<bool>{false, true, true, true});
  // Each store writes its consumer's format: stem packs b1's 32-bit words,
  // b1 packs b2's 64-bit words, b2 writes int8 for the head, which writes int8.
  CHECK(r->program.layers[0].output_bits == 32);
  CHECK(r->program.layers[1].output_bits == 64);
  CHECK(r->program.layers[2].output_bits == 0);
  CHECK(r->program.layers[3].output_bits == 0);
  require_bit_exact(*r);
}

TEST_CASE("compute cycles of a binary layer follow cost::binary_stage_cycles", "[binary][e2e]") {
  // One compute instruction of one stage: 8x8 outputs, K = 40, 3x3, C = 100,
  // b = 32, a 32x32 array: ceil(40/32) = 2 row groups * 9 taps * ceil(100/32)
  // = 4 words * ceil(64/32) = 2 pixel steps = 144 cycles, plus the 8-cycle
  // pipeline fill = 152. The int8 layer would take 2 * 900 * 2 + 8 = 3608.
  const auto r =
      binary_runs_run(R"({"type":"conv2d","name":"b","C":100,"H":8,"W":8,"K":40,"R":3,"S":3,
                         "padding":1,"dtype":"binary"})");
  require_bit_exact(*r);
  CHECK(r->stats->get("compute.instructions").total() == 1);
  CHECK(r->stats->get("compute.work_cycles").total() == 152);
  CHECK(r->stats->get("compute.macs_skipped").total() == 0);  // binary layers never skip
  // DRAM: the packed input (8*8 pixels * 4 words * 4 B) and kernels (40*9*16 B)
  // are what the loads read.
  CHECK(r->stats->get("load.input_dram_bytes").total() == 8 * 8 * 16);
}

TEST_CASE("a binary output that differs from the reference is reported with its place",
          "[binary][e2e]") {
  // The program's pad mode drifts from the workload's: the array adds +1 for
  // every tap outside the input while the reference skips them, so border
  // outputs move and the check must say where and by how much.
  RunOptions options;
  options.progress = false;
  options.edit_program = [](Program& p) { p.layers[0].pad_mode = BinaryPadMode::PlusOne; };
  const auto r = run_network(
      workload("{\"layers\":[" + layer("edge", 32, 6, 32, 3, 1, 1, R"("threshold":0)") + "]}"),
      HardwareConfig{}, options);
  INFO(r->outcome.message);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  const LayerCheck& check = r->summary.checks[0];
  CHECK(check.checked);
  CHECK_FALSE(check.match);
  CHECK_FALSE(r->ok());
  // Only border pixels (h or w at 0 or 5) have taps outside; values are +-1.
  INFO(check.mismatch);
  CHECK_THAT(check.mismatch,
             Catch::Matches("at \\[n=0, h=[0-5], w=[0-5], k=[0-9]+\\]: simulator -?1, "
                            "reference -?1") &&
                 Catch::Matches(".*(h=0|h=5|w=0|w=5).*"));
}

TEST_CASE(
    "binary ties: a dot equal to the threshold gives -1 by default (seed 000's vote) and +1 "
    "with tie plus_one, in the model and the reference",
    "[binary][e2e]") {
  // Two pixels of 32 channels: p0 all +1, p1 16 x +1 then 16 x -1; kernel 0
  // all +1, kernel 1 like p1. Dots, worked by hand: p0.k0 = 32, p0.k1 = 0,
  // p1.k0 = 0, p1.k1 = 32 (equal signs count +1, different ones -1).
  const std::string dir = test::temp_dir() + "/binary_ties";
  std::filesystem::create_directories(dir);
  TensorI8 input({1, 1, 2, 32}), weights({2, 1, 1, 32});
  for (uint32_t c = 0; c < 32; ++c) {
    input.data[c] = 1;
    input.data[32 + c] = weights.data[32 + c] = c < 16 ? 1 : -1;
    weights.data[c] = 1;
  }
  write_npy(dir + "/input.npy", input);
  write_npy(dir + "/weights.npy", weights);
  // Four unchained layers (each reads the files; a 2-channel output chains to
  // no 32-channel input): thresholds 0 and 32 under each tie rule.
  std::string layers;
  for (const std::string tie : {"minus_one", "plus_one"})
    for (const std::string t : {"0", "32"})
      layers += std::string(layers.empty() ? "" : ",") + R"({"name":")" + tie + "_t" + t +
                R"(","C":32,"H":1,"W":2,"K":2,"R":1,"S":1,"dtype":"binary","input_npy":")" + dir +
                R"(/input.npy","weights_npy":")" + dir + R"(/weights.npy","binary":{"tie":")" +
                tie + R"(","threshold":)" + t + "}}";
  RunOptions options;
  options.progress = false;
  options.keep_outputs = true;
  const auto r = run_network(workload(R"({"name":"ties","layers":[)" + layers + "]}"),
                             HardwareConfig{}, options);
  require_bit_exact(*r);
  // Outputs N,H,W,K: {p0.k0, p0.k1, p1.k0, p1.k1}.
  const std::vector<std::vector<int8_t>> want = {{1, -1, -1, 1},  // minus_one, t 0: only dot 32 > 0
                                                 {-1, -1, -1, -1},  // minus_one, t 32: no dot > 32
                                                 {1, 1, 1, 1},      // plus_one, t 0: every dot >= 0
                                                 {1, -1, -1, 1}};   // plus_one, t 32: dot 32 >= 32
  REQUIRE(r->outputs.size() == 4);
  for (size_t l = 0; l < 4; ++l) {
    INFO("layer " << r->network.layers[l].name);
    CHECK(r->outputs[l].data == want[l]);
  }
}
