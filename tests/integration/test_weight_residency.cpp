// Weights kept on chip (compiler.residency auto, docs/memory-plan.md#weights-kept-on-chip):
// decode steps that share their prefill's weights load them from the block
// the prefill's loads brought over the bus, with the bytes derived by hand
// from the decoder's shapes; the program check refuses operators that share
// a block but not its place, and a block over a live kept output; a program
// file carries the placement and replays it.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/compiler/program_emitter.h"
#include "sim/frontend/load_workload.h"
#include "sim/program/program_fit.h"
#include "tests/support/test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

// tools/gen-transformer --decoder --layers 1 --prefill 32 --decode 4 --hidden 64 --heads 4
// --kv-heads 2 --ffn 96: 18 operators per pass, the prefill then steps 1..4.
NetworkConfig decoder() {
  return load_workload(NPUSIM_SOURCE_DIR "/tests/data/transformer/decode_p32_d4.json");
}

// Each pass's weighted operators (the offset in its pass) and their weight
// bytes, K x C int8 (1x1 kernels), from hidden 64, kv_heads x dim = 32, FFN 96.
struct Projection {
  const char* suffix;
  size_t offset;
  uint64_t bytes;
};
const Projection kProjections[] = {
    {"q", 1, 64 * 64},     {"k", 2, 32 * 64},   {"v", 3, 32 * 64},    {"attn_out", 9, 64 * 64},
    {"gate", 12, 96 * 64}, {"up", 13, 96 * 64}, {"down", 16, 64 * 96}};

}  // namespace

TEST_CASE(
    "memory plan: decode steps load their weights from the block the prefill brought over the "
    "bus once, no weight byte of a step crosses the bus, and outputs stay bit-exact",
    "[memory_plan][transformer]") {
  const NetworkConfig net = decoder();
  REQUIRE(net.layers.size() == 5 * 18);
  const auto r = test::run_bit_exact(net, test::residency_hw(Residency::Auto));
  const Counter& kept = r->stats->get("load.weight_resident_bytes");
  const Counter& read = r->stats->get("dram.read_bytes");
  const Counter& input = r->stats->get("load.input_dram_bytes");
  uint64_t step_weights = 0;
  for (uint32_t pass = 0; pass <= 4; ++pass) {
    for (const Projection& p : kProjections) {
      const size_t l = size_t(pass) * 18 + p.offset;
      const LayerDescriptor& d = r->program.layers[l];
      INFO("operator " << d.name);
      REQUIRE(d.name.find(std::string(".l0.") + p.suffix) != std::string::npos);
      REQUIRE(d.weight_block_bytes() == p.bytes);
      CHECK(d.weights_resident);
      CHECK(std::string(r->summary.tiling[l].weights_in) == "cache");
      // DRAM reads: the input rows it loads, its parameters (K x 8 B) and its
      // weights, those only in the prefill.
      const uint64_t weights_over_bus = read.at(l) - input.at(l) - uint64_t(d.K) * 8;
      CHECK(weights_over_bus == (pass == 0 ? p.bytes : 0));
      CHECK(kept.at(l) == (pass == 0 ? 0 : p.bytes));
      if (pass > 0) step_weights += p.bytes;
    }
  }
  // 4 steps x (4096 + 2048 + 2048 + 4096 + 3 x 6144) B.
  CHECK(step_weights == 4 * 30720);
  CHECK(kept.total() == step_weights);
}

TEST_CASE(
    "memory plan: under residency off every decode step streams its weights over the bus again",
    "[memory_plan][transformer]") {
  const auto r = test::run_bit_exact(decoder(), test::residency_hw(Residency::Off));
  const Counter& read = r->stats->get("dram.read_bytes");
  const Counter& input = r->stats->get("load.input_dram_bytes");
  CHECK(r->stats->get("load.weight_resident_bytes").total() == 0);
  for (uint32_t pass = 0; pass <= 4; ++pass)
    for (const Projection& p : kProjections) {
      const size_t l = size_t(pass) * 18 + p.offset;
      INFO("operator " << r->program.layers[l].name);
      CHECK(!r->program.layers[l].weights_resident);
      // The bus moves whole bursts: a step's one input row of 64 or 96 B is
      // read as one or two 64 B bursts; weights and parameters are whole bursts.
      const uint64_t burst = r->hw.dram.burst_bytes;
      const uint64_t input_bursts = (input.at(l) + burst - 1) / burst * burst;
      CHECK(read.at(l) - input_bursts - uint64_t(r->program.layers[l].K) * 8 == p.bytes);
    }
}

TEST_CASE(
    "memory plan: the program check refuses operators that share a weight block but not its "
    "place, and a weight block over a kept output it is live with",
    "[memory_plan][bad_input]") {
  const NetworkConfig net = decoder();
  const HardwareConfig hw = test::residency_hw(Residency::Auto);
  const Program planned = compile_network(net, hw);
  REQUIRE(planned.layers[1].weights_resident);
  REQUIRE(planned.layers[18 + 1].weights_resident);
  REQUIRE_NOTHROW(check_program_fits(planned, net, hw));
  {
    Program p = planned;  // step 1's q projection keeps its own idea of the block's place
    p.layers[18 + 1].weights_offset += 64;
    REQUIRE_THROWS_WITH(check_program_fits(p, net, hw),
                        Contains("prefill.l0.q") && Contains("step1.l0.q") &&
                            Contains("share weights_address") && Contains("not its place"));
  }
  {
    Program p = planned;  // or loads it from DRAM while the prefill keeps it
    p.layers[18 + 1].weights_resident = false;
    REQUIRE_THROWS_WITH(check_program_fits(p, net, hw), Contains("step1.l0.q") && Contains("DRAM"));
  }
  {
    // q's block lives from the prefill to step 4, so a kept output of step
    // 2 may not take its bytes.
    Program p = planned;
    size_t kept = 0;
    for (size_t l = 2 * 18; l < 3 * 18 && kept == 0; ++l)
      if (p.layers[l].output_resident) kept = l;
    REQUIRE(kept != 0);
    p.layers[kept].resident_offset = p.layers[1].weights_offset;
    REQUIRE_THROWS_WITH(check_program_fits(p, net, hw),
                        Contains("layer prefill.l0.q: its weight block") &&
                            Contains("still to be read") && Contains("'s output"));
  }
}

TEST_CASE("memory plan: a program file carries kept weight blocks and replays them exactly",
          "[memory_plan][trace]") {
  const std::string workload =
      std::string(NPUSIM_SOURCE_DIR) + "/tests/data/transformer/decode_p32_d4.json";
  const std::string dir = test::temp_dir() + "/weights_replay";
  const std::string set = " --set compiler.residency=auto --set compiler.trials=off";
  REQUIRE(test::run_cli("compile " + workload + set + " -o " + dir + "/p.jsonl").exit_code == 0);
  std::ifstream program(dir + "/p.jsonl");
  std::string line;
  size_t lines_with_weights = 0;
  while (std::getline(program, line))
    if (line.find("\"weights_resident_offset\"") != std::string::npos) ++lines_with_weights;
  CHECK(lines_with_weights == 5 * 7);  // every projection of every pass
  const test::CliResult direct = test::run_cli("run " + workload + set + " -q --out " + dir + "/a");
  const test::CliResult replay =
      test::run_cli("run --program " + dir + "/p.jsonl -q --out " + dir + "/b");
  INFO(direct.err << replay.err);
  REQUIRE(direct.exit_code == 0);
  REQUIRE(replay.exit_code == 0);
  const auto report = [](const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
  };
  const nlohmann::json a = report(dir + "/a/report.json"), b = report(dir + "/b/report.json");
  CHECK(a["totals"]["cycles"] == b["totals"]["cycles"]);
  CHECK(a["totals"]["memory_plan"] == b["totals"]["memory_plan"]);
  CHECK(b["totals"]["memory_plan"]["weights_in_cache"] == 5 * 7);
  CHECK(b["totals"]["counters"]["load.weight_resident_bytes"] == 4 * 30720);
}
