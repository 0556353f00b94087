// The memory plan (compiler.residency auto, docs/memory-plan.md): which
// outputs stay in the cache, the DRAM bytes that saves derived by hand on
// small graphs (a chain, a tensor larger than the cache, a fan-out that keeps
// a tensor live across a branch, a named graph output), the program check
// that refuses placements a planner bug would make, replay of a program's
// placements, and bit-exact whole networks under the plan.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "sim/compiler/program_emitter.h"
#include "sim/frontend/load_workload.h"
#include "sim/program/program_fit.h"
#include "sim/program/residency.h"
#include "sim/program/trace_io.h"
#include "tests/support/test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

// A chain of three 1x1 convolutions on a 16 x 12 map (rows differ from
// columns): t1 = 16*12*16 = 3072 B, t2 = 16*12*24 = 4608 B, y the output.
std::string chain(uint32_t h, uint32_t w, const std::string& outputs = "") {
  return R"({"name": "chain",)" + outputs + R"(
  "inputs": [{"name": "x", "shape": [1, 8, )" +
         std::to_string(h) + ", " + std::to_string(w) +
         R"(], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "c1", "op": "conv", "inputs": ["x"], "output": "t1", "K": 16, "kernel": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 10}, "activation": "relu"},
    {"name": "c2", "op": "conv", "inputs": ["t1"], "output": "t2", "K": 24, "kernel": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 3}},
    {"name": "c3", "op": "conv", "inputs": ["t2"], "output": "y", "K": 8, "kernel": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "int8", "scale": 0.06, "zero_point": 0}}
  ]})";
}

// a feeds two convolutions whose outputs an add joins: a is read at c2 and
// at c3, so it must stay live across c2.
const char* kFanOut = R"({"name": "fan_out",
  "inputs": [{"name": "x", "shape": [1, 8, 10, 14], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "c1", "op": "conv", "inputs": ["x"], "output": "a", "K": 16, "kernel": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 10}},
    {"name": "c2", "op": "conv", "inputs": ["a"], "output": "b", "K": 16, "kernel": 3, "pads": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 3}},
    {"name": "c3", "op": "conv", "inputs": ["a"], "output": "c", "K": 16, "kernel": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 5}},
    {"name": "sum", "op": "add", "inputs": ["b", "c"], "output": "y",
     "out": {"dtype": "uint8", "scale": 0.06, "zero_point": 7}}
  ]})";

std::string plan_file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

// Compiles `workload` under the plan into DIR/p.jsonl, runs it directly and
// replays the program, and requires the same cycles, the same memory plan
// (two outputs kept) and bit-exact outputs; returns the replay's report.
nlohmann::json replayed_matches_direct(const std::string& workload, const std::string& name) {
  const std::string dir = test::temp_dir() + "/" + name;
  const std::string set = " --set compiler.residency=auto --set compiler.trials=off";
  REQUIRE(test::run_cli("compile " + workload + set + " -o " + dir + "/p.jsonl").exit_code == 0);
  const test::CliResult direct = test::run_cli("run " + workload + set + " -q --out " + dir + "/a");
  const test::CliResult replay =
      test::run_cli("run --program " + dir + "/p.jsonl -q --out " + dir + "/b");
  INFO(direct.out << direct.err << replay.out << replay.err);
  REQUIRE(direct.exit_code == 0);
  REQUIRE(replay.exit_code == 0);
  const nlohmann::json a = nlohmann::json::parse(plan_file_text(dir + "/a/report.json"));
  const nlohmann::json b = nlohmann::json::parse(plan_file_text(dir + "/b/report.json"));
  CHECK(a["totals"]["cycles"] == b["totals"]["cycles"]);
  CHECK(a["totals"]["memory_plan"] == b["totals"]["memory_plan"]);
  CHECK(b["totals"]["memory_plan"]["outputs_in_cache"] == 2);
  CHECK(b["totals"]["all_layers_match"] == true);
  return b;
}

uint64_t plan_counter(const RunResult& r, const char* name, size_t layer) {
  return r.stats->get(name).at(layer);
}
uint64_t plan_dram_bytes(const RunResult& r) {
  return r.stats->get("dram.read_bytes").total() + r.stats->get("dram.write_bytes").total();
}

// Times an array operator reads its whole input: once per weight tile
// (weight-stationary), once in all (feature-stationary). 1x1 kernels, no halo.
uint64_t input_passes(const LayerDescriptor& d) {
  if (d.loop_order == LoopOrder::FeatureStationary) return 1;
  return (d.K + d.k_tile - 1) / d.k_tile;
}

}  // namespace

TEST_CASE(
    "memory plan: a chain keeps both intermediate outputs in the cache, and the saved bytes equal "
    "one store plus every read of each, derived by hand, and the occupancy counts them",
    "[memory_plan]") {
  // residency off in a process of its own (one simulation per process).
  const std::string dir = test::temp_dir() + "/memory_plan_chain_off";
  const std::string graph = test::write_temp_file("memory_plan_chain_off.json", chain(16, 12));
  const test::CliResult cli = test::run_cli(
      "run " + graph + " --set compiler.residency=off --set compiler.trials=off -q --out " + dir);
  INFO(cli.out << cli.err);
  REQUIRE(cli.exit_code == 0);
  const nlohmann::json off = nlohmann::json::parse(plan_file_text(dir + "/report.json"));
  const auto on =
      test::run_bit_exact(test::workload(chain(16, 12)), test::residency_hw(Residency::Auto));
  REQUIRE(std::string(on->summary.tiling[0].output_in) == "cache");
  REQUIRE(std::string(on->summary.tiling[1].output_in) == "cache");
  REQUIRE(std::string(on->summary.tiling[2].output_in) == "dram");  // the graph output
  const uint64_t t1 = 16 * 12 * 16, t2 = 16 * 12 * 24;
  CHECK(plan_counter(*on, "store.resident_bytes", 0) == t1);
  CHECK(plan_counter(*on, "store.resident_bytes", 1) == t2);
  const uint64_t reads1 = t1 * input_passes(on->program.layers[1]);
  const uint64_t reads2 = t2 * input_passes(on->program.layers[2]);
  CHECK(plan_counter(*on, "load.resident_bytes", 1) == reads1);
  CHECK(plan_counter(*on, "load.resident_bytes", 2) == reads2);
  // The same mapping, so DRAM moved exactly that much less.
  for (size_t l : {size_t(1), size_t(2)}) {
    REQUIRE(off["layers"][l]["tiling"]["k_tile"] == on->program.layers[l].k_tile);
    REQUIRE(off["layers"][l]["tiling"].value("loop_order", "weight_stationary") ==
            to_string(on->program.layers[l].loop_order));
  }
  const nlohmann::json& counters = off["totals"]["counters"];
  const uint64_t off_dram =
      counters["dram.read_bytes"].get<uint64_t>() + counters["dram.write_bytes"].get<uint64_t>();
  // The bus moves whole bursts: a store batch of t2's 288-byte rows ends
  // mid-burst, so DRAM saves what the engines moved plus at most one burst's
  // rounding per store batch of t1 and t2.
  const uint64_t saved = t1 + reads1 + t2 + reads2;
  CHECK(off["layers"][1]["counters"]["load.input_dram_bytes"] == reads1);
  CHECK(off["layers"][2]["counters"]["load.input_dram_bytes"] == reads2);
  const uint64_t batches = off["layers"][0]["counters"]["store.batches"].get<uint64_t>() +
                           off["layers"][1]["counters"]["store.batches"].get<uint64_t>();
  CHECK(off_dram - plan_dram_bytes(*on) >= saved);
  CHECK(off_dram - plan_dram_bytes(*on) < saved + batches * on->hw.dram.burst_bytes);
  CHECK(off["totals"]["memory_plan"]["dram_bytes_saved"] == 0);
  CHECK(plan_counter(*on, "dram.write_bytes", 0) == 0);
  CHECK(on->summary.total_cycles <= off["totals"]["cycles"].get<uint64_t>());
  // The occupancy counts each kept output from its producer to its last
  // reader beside the same tile buffers: t1 over c1 and c2, t2 over c2 and c3.
  // c3's peak under off also holds c2's last tiles, which under auto it
  // overlaps differently, so there it is a bound.
  const auto peak = [&](size_t l) {
    return off["layers"][l]["counters"]["cache.peak_occupancy_bytes"].get<uint64_t>();
  };
  CHECK(plan_counter(*on, "cache.peak_occupancy_bytes", 0) == peak(0) + t1);
  CHECK(plan_counter(*on, "cache.peak_occupancy_bytes", 1) == peak(1) + t1 + t2);
  CHECK(plan_counter(*on, "cache.peak_occupancy_bytes", 2) > t2);
  CHECK(plan_counter(*on, "cache.peak_occupancy_bytes", 2) <= peak(2) + t2);
}

TEST_CASE("memory plan: an output larger than the cache stays in DRAM", "[memory_plan]") {
  // t1 = 64*48*16 = 49152 B and t2 = 64*48*24 = 73728 B, in a 32 KiB cache.
  HardwareConfig hw = test::residency_hw(Residency::Auto);
  hw.cache.size_kib = 32;
  const auto r = test::run_bit_exact(test::workload(chain(64, 48)), hw);
  CHECK(std::string(r->summary.tiling[0].output_in) == "dram");
  CHECK(std::string(r->summary.tiling[1].output_in) == "dram");
  CHECK(plan_counter(*r, "store.resident_bytes", 0) == 0);
  CHECK(plan_counter(*r, "load.resident_bytes", 1) == 0);
  CHECK(plan_counter(*r, "dram.write_bytes", 0) >= 49152);
}

TEST_CASE("memory plan: the same chain on a 4 x 6 map fits a 32 KiB cache and is kept",
          "[memory_plan]") {
  HardwareConfig hw = test::residency_hw(Residency::Auto);
  hw.cache.size_kib = 32;
  const auto small = test::run_bit_exact(test::workload(chain(4, 6)), hw);
  CHECK(std::string(small->summary.tiling[0].output_in) == "cache");
  CHECK(plan_counter(*small, "store.resident_bytes", 0) == 4 * 6 * 16);
}

TEST_CASE(
    "memory plan: a graph output named in outputs reaches DRAM even when a later operator "
    "reads it",
    "[memory_plan]") {
  const auto r = test::run_bit_exact(test::workload(chain(16, 12, R"( "outputs": ["t1", "y"],)")),
                                     test::residency_hw(Residency::Auto));
  CHECK(std::string(r->summary.tiling[0].output_in) == "dram");
  CHECK(plan_counter(*r, "dram.write_bytes", 0) >= 16 * 12 * 16);
  CHECK(std::string(r->summary.tiling[1].output_in) == "cache");
}

TEST_CASE(
    "memory plan: a fan-out keeps its tensor live across the branch, stored once and read "
    "by both readers through the cache",
    "[memory_plan]") {
  const auto r = test::run_bit_exact(test::workload(kFanOut), test::residency_hw(Residency::Auto));
  const Program& p = r->program;
  REQUIRE(p.layers[0].output_resident);
  const uint64_t a = 10 * 14 * 16;
  CHECK(plan_counter(*r, "store.resident_bytes", 0) == a);
  CHECK(plan_counter(*r, "load.resident_bytes", 2) == a * input_passes(p.layers[2]));
  // c2 reads a 3x3 window: each piece also reads its halo rows, never fewer than a.
  CHECK(plan_counter(*r, "load.resident_bytes", 1) >= a * input_passes(p.layers[1]));
  // b and c, kept too, never share bytes with a while a is live (c3 reads it last).
  const TensorLifetime life = tensor_lifetimes(p, r->network)[0];
  CHECK(life.last_reader == 2);
  for (size_t l : {size_t(1), size_t(2)}) {
    if (!p.layers[l].output_resident) continue;
    const bool apart =
        p.layers[l].resident_offset >= p.layers[0].resident_offset + p.layers[0].output_bytes() ||
        p.layers[0].resident_offset >= p.layers[l].resident_offset + p.layers[l].output_bytes();
    CHECK(apart);
  }
  // The add reads b and c from the cache when they are kept there.
  if (p.layers[1].output_resident && p.layers[2].output_resident)
    CHECK(plan_counter(*r, "vector.resident_read_bytes", 3) == 2 * 10 * 14 * 16);
}

TEST_CASE(
    "memory plan: the program check refuses a graph output in the cache, two live outputs "
    "sharing bytes and an output over the buffers of an operator it spans",
    "[memory_plan][bad_input]") {
  const NetworkConfig net = test::workload(chain(16, 12));
  const HardwareConfig hw = test::residency_hw(Residency::Auto);
  const Program planned = compile_network(net, hw);
  REQUIRE(planned.layers[0].output_resident);
  REQUIRE(planned.layers[1].output_resident);
  REQUIRE_NOTHROW(check_program_fits(planned, net, hw));
  {
    Program p = planned;  // the output of the workload
    p.layers[2].output_resident = true;
    REQUIRE_THROWS_WITH(check_program_fits(p, net, hw),
                        Contains("layer c3") && Contains("output of the workload"));
  }
  {
    // A planner that freed t1 one operator early would put t2 over it
    // while c2 still reads t1.
    Program p = planned;
    p.layers[1].resident_offset = p.layers[0].resident_offset + 1;
    REQUIRE_THROWS_WITH(check_program_fits(p, net, hw), Contains("layer c2") &&
                                                            Contains("layer c1") &&
                                                            Contains("still to be read"));
  }
  {
    Program p = planned;
    p.layers[0].resident_offset = hw.tile_cache_bytes() - p.layers[0].output_bytes();
    REQUIRE_THROWS_WITH(check_program_fits(p, net, hw), Contains("layer c1") &&
                                                            Contains("buffers use") &&
                                                            Contains("of the cache's"));
  }
}

TEST_CASE("memory plan: a program file carries the placements and replays them exactly",
          "[memory_plan][trace]") {
  const std::string graph = test::write_temp_file("memory_plan_chain.json", chain(16, 12));
  const nlohmann::json b = replayed_matches_direct(graph, "memory_plan_replay");
  CHECK(b["layers"][0]["tiling"]["output_in"] == "cache");
  CHECK_THAT(plan_file_text(test::temp_dir() + "/memory_plan_replay/p.jsonl"),
             Contains("\"resident_offset\""));
}

TEST_CASE(
    "memory plan: a layer-list network's program file carries the placements and replays "
    "them exactly",
    "[memory_plan][trace]") {
  replayed_matches_direct(NPUSIM_SOURCE_DIR "/configs/networks/tiny3.json",
                          "memory_plan_layers_replay");
}

TEST_CASE(
    "memory plan: MobileNetV2 and ResNet-18 run bit-exact under the plan from 256 KiB to "
    "16 MiB, and DRAM bytes never rise with more cache",
    "[memory_plan][slow]") {
  for (const char* name : {"mobilenet_v2", "resnet18_full"}) {
    uint64_t previous = UINT64_MAX;
    for (const uint32_t kib : {256u, 1024u, 4096u, 16384u}) {
      INFO(name << " at " << kib << " KiB");
      const std::string dir = test::temp_dir() + "/memory_plan_" + name + "_" + std::to_string(kib);
      const test::CliResult cli = test::run_cli(
          std::string("run " NPUSIM_SOURCE_DIR "/configs/networks/") + name +
          ".json --set compiler.residency=auto --set cache.size_kib=" + std::to_string(kib) +
          " -q --out " + dir);
      INFO(cli.out << cli.err);
      REQUIRE(cli.exit_code == 0);
      const nlohmann::json report = nlohmann::json::parse(plan_file_text(dir + "/report.json"));
      CHECK(report["totals"]["all_layers_match"] == true);
      const uint64_t dram = report["totals"]["memory_plan"]["dram_bytes"].get<uint64_t>();
      CHECK(report["totals"]["memory_plan"]["outputs_in_cache"].get<uint32_t>() > 0);
      CHECK(dram <= previous);
      previous = dram;
    }
  }
}

TEST_CASE(
    "memory plan: a BERT encoder layer runs bit-exact with its activations kept in the cache, "
    "keys and values read by batch_matmul through the cache",
    "[memory_plan][heavy]") {
  const std::string dir = test::temp_dir() + "/memory_plan_bert";
  const test::CliResult cli =
      test::run_cli("run " NPUSIM_SOURCE_DIR
                    "/configs/networks/bert_base_1layer.json --set compiler.residency=auto -q "
                    "--out " +
                    dir);
  INFO(cli.out << cli.err);
  REQUIRE(cli.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(plan_file_text(dir + "/report.json"));
  CHECK(report["totals"]["all_layers_match"] == true);
  CHECK(report["totals"]["memory_plan"]["outputs_in_cache"].get<uint32_t>() > 0);
  // Some batch_matmul read its second operand (keys or values) from a kept output.
  uint64_t operand_in_cache = 0;
  for (const auto& layer : report["layers"])
    if (layer["shape"].value("op", "") == "batch_matmul")
      operand_in_cache += layer["counters"]["load.operand_on_chip_bytes"].get<uint64_t>();
  CHECK(operand_in_cache > 0);
}

TEST_CASE(
    "memory plan: the compile trials also run each program without the plan, so residency auto "
    "never takes more cycles than off, and keeps the plan where it is faster",
    "[memory_plan]") {
  // tiny3 with a 256 B/cycle bus: at 8 B/cycle cache ports a kept input's port reads
  // cost more than the bus loads they save; at 64 B/cycle the plan wins.
  const auto run = [](uint32_t port, const char* residency) {
    return test::run_report("run " NPUSIM_SOURCE_DIR
                            "/configs/networks/tiny3.json --timing-only --set "
                            "dram.bytes_per_cycle=256 --set cache.port_bytes_per_cycle=" +
                            std::to_string(port) + " --set compiler.residency=" + residency);
  };
  const nlohmann::json slow_ports_off = run(8, "off");
  const nlohmann::json slow_ports = run(8, "auto");
  CHECK(slow_ports["totals"]["cycles"] == slow_ports_off["totals"]["cycles"]);
  CHECK(slow_ports["compile_trials"].value("residency", "") == "off");
  CHECK(slow_ports["totals"]["memory_plan"]["outputs_in_cache"] == 0);
  // The program with the plan ran too, and slower.
  uint64_t with_plan = 0;
  for (const nlohmann::json& t : slow_ports["compile_trials"]["trials"])
    if (!t.contains("residency") && t.contains("cycles")) with_plan = t["cycles"].get<uint64_t>();
  CHECK(with_plan > slow_ports["totals"]["cycles"].get<uint64_t>());

  const nlohmann::json fast_ports_off = run(64, "off");
  const nlohmann::json fast_ports = run(64, "auto");
  CHECK(fast_ports["totals"]["cycles"].get<uint64_t>() <
        fast_ports_off["totals"]["cycles"].get<uint64_t>());
  CHECK_FALSE(fast_ports["compile_trials"].contains("residency"));
  CHECK(fast_ports["totals"]["memory_plan"]["outputs_in_cache"] == 2);
}
