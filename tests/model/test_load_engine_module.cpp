// Single-module tests (the `model` tier): the load engine (models/load_engine.h) driven by a
// scripted scheduler (tests/support/scripted_scheduler.h) that hands it the load instructions the
// compiler emits for one small convolution and records when each starts, frees the engine and
// has its data in the cache, stage by stage. The engine's other ports go to the real DRAM bus
// (models/dram.h) and the real internal cache (models/internal_cache.h); cycles are worked by
// hand from docs/stage-timing.md#load-stages and docs/timing.md:
//   - a stage's DRAM bytes cross the bus as one transfer (a LoadInput's real rows, W*C B each),
//     rounded up to whole bursts, over dram.bytes_per_cycle (cost::dram_data_cycles), first
//     come first served from the cycle the engine asks;
//   - its first data is in the cache dram.latency_cycles (L) after the bus starts moving it; the
//     cache write (a LoadInput's new rows at padded width, (W+2p)*C B each) then takes a port
//     for ceil(bytes / port_bytes_per_cycle) cycles, in the earliest gap, ties to port 0;
//   - the stage is ready at max(bus end + L, write end); the engine asks for the next stage's
//     bus at the bus end (the latency overlaps), and is free of the instruction at the last
//     stage's bus end; the instruction is complete at its latest ready.
#include <catch2/catch.hpp>
#include <cstdint>
#include <systemc>
#include <utility>
#include <vector>

#include "models/dram.h"
#include "models/internal_cache.h"
#include "models/load_engine.h"
#include "models/sim_time.h"
#include "sim/compiler/program_emitter.h"
#include "tests/support/scripted_scheduler.h"
#include "tests/support/test_support.h"

using namespace npusim;
using npusim::test::InstructionTimes;
using npusim::test::ScriptedScheduler;

namespace {

// The machine of every case: a 4 x 4 array (so a weight stage is 4 kernels); a bus of 8 B/cycle,
// 16 B bursts and 20 cycles of latency; a cache of two 8 B/cycle ports that the banks can feed
// together (8 x 16 B/cycle). The greedy mapper with greedy pieces keeps the whole image in one
// piece and every kernel in one tile; a 1 KiB accumulator holds 1024 / (7 x 8 x 4) = 4 output
// rows of sums, so the piece's 5 rows compute (and load) in 2 stages.
HardwareConfig load_hw() {
  return parse_hardware_config(
      {{"compute", {{"array_rows", 4}, {"array_cols", 4}, {"units", 1}, {"accumulator_kib", 1}}},
       {"dram", {{"bytes_per_cycle", 8}, {"latency_cycles", 20}, {"burst_bytes", 16}}},
       {"cache",
        {{"ports", 2}, {"port_bytes_per_cycle", 8}, {"banks", 8}, {"bank_bytes_per_cycle", 16}}},
       {"compiler", {{"mapper", "greedy"}, {"pieces", "greedy"}}}},
      "<test>");
}

void check_load_hw(const HardwareConfig& hw) {
  REQUIRE(hw.compute.array_rows == 4);
  REQUIRE(hw.dram.model == DramModel::Bus);
  REQUIRE(hw.dram.bytes_per_cycle == 8);
  REQUIRE(hw.dram.latency_cycles == 20);
  REQUIRE(hw.dram.burst_bytes == 16);
  REQUIRE(hw.cache.ports == 2);
  REQUIRE(hw.cache.port_bytes_per_cycle == 8);
}

// The layer: 2 input channels of 5 rows x 7 columns (NHWC int8), 8 kernels of 3 x 3 x 2 (18 B
// each, raw), stride 1, padding 1: a 5 x 7 x 8 output.
constexpr const char* kConv =
    R"({"type": "conv2d", "name": "conv", "N": 1, "C": 2, "H": 5, "W": 7, "K": 8, "R": 3,
        "S": 3, "stride": 1, "padding": 1, "seed": 3})";
constexpr uint32_t kC = 2, kH = 5, kW = 7, kK = 8, kKernelBytes = 3 * 3 * kC;

// The compiled program of the layer, its premises required: one piece of 5 rows, one k-tile of
// 8 kernels, raw kernels, and the load instructions AGU_INIT, LOAD_PARAMS, LOAD_WEIGHTS (2
// stages) and LOAD_INPUT (2 stages, after the AGU_INIT) in that order.
Program compiled(const HardwareConfig& hw) {
  Program p = compile_network(test::workload(kConv), hw);
  REQUIRE(p.layers.size() == 1);
  const LayerDescriptor& L = p.layers[0];
  REQUIRE(L.weight_format == WeightFormat::Raw);
  REQUIRE(L.kernel_bytes(0) == kKernelBytes);
  REQUIRE(L.k_tile == kK);
  REQUIRE(L.rows_per_piece == kH);
  REQUIRE(L.rows_per_compute_stage == 4);
  REQUIRE(p.instructions.size() >= 4);
  REQUIRE(p.instructions[0].op == Opcode::AguInit);
  REQUIRE(p.instructions[1].op == Opcode::LoadParams);
  REQUIRE(p.instructions[2].op == Opcode::LoadWeights);
  REQUIRE(p.instructions[2].stages == 2);
  REQUIRE(p.instructions[3].op == Opcode::LoadInput);
  REQUIRE(p.instructions[3].stages == 2);
  REQUIRE(p.instructions[3].deps.size() == 1);
  REQUIRE(p.instructions[3].deps[0].producer == 0);
  return p;
}

// A program of `from`'s layers and its instructions `ids`, in that order, renumbered 0, 1, ...;
// each keeps its dependencies, which must all be among `ids`.
Program pick(const Program& from, const std::vector<uint32_t>& ids) {
  Program p;
  p.layers = from.layers;
  p.dram_bytes = from.dram_bytes;
  for (const uint32_t id : ids) {
    Instruction in = from.instructions.at(id);
    in.id = uint32_t(p.instructions.size());
    for (Dependency& d : in.deps) {
      uint32_t at = 0;
      while (at < ids.size() && ids[at] != d.producer) ++at;
      REQUIRE(at < in.id);
      d.producer = at;
    }
    p.instructions.push_back(in);
  }
  return p;
}

// The load engine wired to a scripted scheduler, the bus and the cache, all functional.
struct LoadMachine {
  LoadMachine(const HardwareConfig& hw, const Program& program,
              std::vector<uint64_t> earliest_start = {})
      : stats(uint32_t(program.layers.size())),
        dram("dram", hw.dram, hw.clock_mhz, program, stats, timeline, /*with_image=*/true),
        cache("cache", hw, program, stats, timeline),
        scheduler("scheduler", program, EngineKind::Load, std::move(earliest_start)),
        engine("load", hw, EngineOptions{}, stats) {
    engine.scheduler(scheduler);
    engine.dram(dram);
    engine.cache(cache);
  }
  uint64_t counter(const char* name, uint32_t layer = 0) const { return stats.get(name).at(layer); }
  StatsRegistry stats;
  Timeline timeline;
  Dram dram;
  InternalCache cache;
  ScriptedScheduler scheduler;
  LoadEngine engine;
};

// Fills `bytes` of the DRAM image from `address` with 1, 2, 3, ... (never 0, so a zero in a
// tile is padding, not data) and returns them.
std::vector<int8_t> fill(DramIf& dram, uint64_t address, uint64_t bytes) {
  int8_t* p = dram.image(address, bytes);
  for (uint64_t i = 0; i < bytes; ++i) p[i] = int8_t(1 + i % 120);
  return std::vector<int8_t>(p, p + bytes);
}

std::vector<int8_t> tile_row(const ByteTile& tile, uint32_t r) {
  return std::vector<int8_t>(tile.row(r), tile.row(r) + tile.row_elements());
}

}  // namespace

TEST_CASE(
    "load engine module: a 2-stage weight load of 8 kernels on a 4x4 array asks for its second "
    "stage's bus at cycle 10 as the first's data crosses it, 20 cycles before that stage is "
    "ready at 30, is free at 20 and complete at 40, and its tile holds the kernels put in DRAM",
    "[model]") {
  const HardwareConfig hw = load_hw();
  check_load_hw(hw);
  const Program program = pick(compiled(hw), {2});  // the LOAD_WEIGHTS alone
  const LayerDescriptor& L = program.layers[0];
  LoadMachine m(hw, program);
  const std::vector<int8_t> kernels = fill(m.dram, L.weights_address, uint64_t(kK) * kKernelBytes);
  // Stage 0, kernels 0..3: 4 x 18 = 72 B, one segment, 5 bursts = 80 B, 10 cycles: [0, 10).
  // First data at 0 + 20; cache write of 72 B, ceil(72 / 8) = 9 cycles on p0: [20, 29).
  // ready = max(10 + 20, 29) = 30.
  // Stage 1, kernels 4..7, asks at 10 (not at 30): [10, 20); first data at 30, write p0
  // [30, 39); ready = max(20 + 20, 39) = 40. Free at 20, complete at 40.
  sc_core::sc_start();
  REQUIRE(m.scheduler.error.empty());
  const InstructionTimes& t = m.scheduler.times[0];
  REQUIRE(t.done);
  REQUIRE(t.stages.size() == 2);
  CHECK(t.started == 0);
  CHECK(t.stages[0].begin == 0);
  CHECK(t.stages[0].engine_end == 10);
  CHECK(t.stages[0].ready == 30);
  CHECK(t.stages[1].begin == 10);
  CHECK(t.stages[1].engine_end == 20);
  CHECK(t.stages[1].ready == 40);
  CHECK(t.released == 20);
  CHECK(t.complete == 40);
  CHECK(m.counter("load.busy_cycles") == 20);
  // Alone: one latency, then each stage's bus (10 > its 9 write cycles).
  CHECK(m.counter("load.standalone_cycles") == 20 + 10 + 10);
  CHECK(m.counter("dram.read_bytes") == 80 + 80);
  CHECK(m.counter("dram.bus_busy_cycles") == 10 + 10);
  CHECK(m.counter("cache.write_bytes") == 72 + 72);
  CHECK(m.counter("stall.bus_cycles") == 0);
  CHECK(m.counter("stall.cache_port_cycles") == 0);
  // One row per kernel, its 18 B as DRAM holds them; rows valid when their stage is ready.
  const ByteTile& w = m.cache.weights(0);
  REQUIRE(w.rows() == kK);
  REQUIRE(w.row_elements() == kKernelBytes);
  for (uint32_t k = 0; k < kK; ++k) {
    INFO("kernel " << k);
    CHECK(tile_row(w, k) == std::vector<int8_t>(kernels.begin() + k * kKernelBytes,
                                                kernels.begin() + (k + 1) * kKernelBytes));
    CHECK(w.valid_at(k) == (k < 4 ? 30u : 40u));
  }
}

TEST_CASE(
    "load engine module: a 2-stage input load of a 5x7x2 map with padding 1 moves its real rows "
    "unpadded over the bus and its new rows at padded width into the cache, ready at 45 and 46 "
    "after its AGU_INIT, with zero padding rows and columns around the DRAM pixels",
    "[model]") {
  const HardwareConfig hw = load_hw();
  check_load_hw(hw);
  const Program program = pick(compiled(hw), {0, 3});  // AGU_INIT, then LOAD_INPUT after it
  const LayerDescriptor& L = program.layers[0];
  REQUIRE(L.padded_w() == kW + 2);
  LoadMachine m(hw, program);
  const std::vector<int8_t> input = fill(m.dram, L.input_address, uint64_t(kH) * kW * kC);
  // AGU_INIT: 13 registers (a plain layer), one a cycle: [0, 13), no bus. Free at 0, complete
  // at 13. The LOAD_INPUT waits for it (data dependency), so starts at 13.
  // Stage 0: output rows [0, 3) (ceil(5 / 2) = 3 a stage) read input rows [-1, 4): 5 tile rows,
  // row -1 padding. DRAM: the 4 real rows, 4 x 7 x 2 = 56 B, one segment (NHWC rows abut), 4
  // bursts = 64 B, 8 cycles: [13, 21). First data at 33; cache: 5 rows x (7 + 2) x 2 = 90 B,
  // ceil(90 / 8) = 12 cycles on p0: [33, 45). ready = max(21 + 20, 45) = 45.
  // Stage 1 at 21: output rows [3, 5) read input rows [2, 6), of which [4, 6) are new: row 4
  // real, row 5 padding. DRAM: 1 x 14 = 14 B, one burst, 2 cycles: [21, 23). First data at
  // 21 + 20 = 41; cache: 2 x 18 = 36 B, ceil(36 / 8) = 5 cycles; p0 is busy until 45, so p1:
  // [41, 46). ready = max(23 + 20, 46) = 46. Free at 23, complete at 46.
  sc_core::sc_start();
  REQUIRE(m.scheduler.error.empty());
  const InstructionTimes& agu = m.scheduler.times[0];
  const InstructionTimes& t = m.scheduler.times[1];
  REQUIRE(agu.done);
  REQUIRE(t.done);
  CHECK(agu.released == 0);
  CHECK(agu.complete == 13);
  REQUIRE(t.stages.size() == 2);
  CHECK(t.started == 13);
  CHECK(t.stages[0].begin == 13);
  CHECK(t.stages[0].engine_end == 21);
  CHECK(t.stages[0].ready == 45);
  CHECK(t.stages[1].begin == 21);
  CHECK(t.stages[1].engine_end == 23);
  CHECK(t.stages[1].ready == 46);
  CHECK(t.released == 23);
  CHECK(t.complete == 46);
  CHECK(m.counter("load.agu_inits") == 1);
  CHECK(m.counter("load.input_dram_bytes") == 56 + 14);  // real rows x unpadded columns
  CHECK(m.counter("dram.read_bytes") == 64 + 16);        // whole bursts
  CHECK(m.counter("cache.write_bytes") == 90 + 36);      // new rows x padded columns
  CHECK(m.counter("stall.cache_port_cycles") == 0);
  // Alone: the AGU_INIT's 13 register writes; the load's latency, then each stage's longer
  // part, here the cache write (12 > 8 and 5 > 2 cycles).
  CHECK(m.counter("load.standalone_cycles") == 13 + (20 + 12 + 5));
  // The ping-pong half: input rows -1..5, each 9 padded columns of 2 channels.
  const ByteTile& half = m.cache.input_half(0, 0);
  REQUIRE(half.rows() == kH + 2);
  REQUIRE(half.row_elements() == (kW + 2) * kC);
  for (uint32_t tr = 0; tr < kH + 2; ++tr) {
    const int64_t y = int64_t(tr) - 1;  // the input row
    std::vector<int8_t> expected((kW + 2) * kC, 0);
    for (uint32_t x = 0; y >= 0 && y < int64_t(kH) && x < kW; ++x)
      for (uint32_t c = 0; c < kC; ++c)
        expected[(x + 1) * kC + c] = input[(uint64_t(y) * kW + x) * kC + c];
    INFO("input row " << y);
    CHECK(tile_row(half, tr) == expected);
    CHECK(half.valid_at(tr) == (tr < 5 ? 45u : 46u));
  }
}

namespace {

// Another initiator on the same bus: it asks for each scripted read at its cycle.
class BusHog : public sc_core::sc_module {
 public:
  struct Read {
    uint64_t at = 0;
    uint64_t bytes = 0;
  };
  SC_HAS_PROCESS(BusHog);
  BusHog(sc_core::sc_module_name name, DramIf& dram, uint32_t layer, std::vector<Read> script)
      : sc_module(name), dram_(dram), layer_(layer), script_(std::move(script)) {
    SC_THREAD(run);
  }
  std::vector<Grant> grants;

 private:
  void run() {
    for (const Read& r : script_) {
      wait_until_cycle(r.at);
      grants.push_back(dram_.transfer(layer_, false, DramAccess{0, 1, r.bytes, 0}));
    }
  }
  DramIf& dram_;
  uint32_t layer_;
  std::vector<Read> script_;
};

}  // namespace

TEST_CASE(
    "load engine module: a parameter load then a weight load sharing the bus with another "
    "initiator wait 25 cycles for its read issued first and 2 for its read issued during the "
    "weights' first stage, and stall.bus_cycles counts those 27 by hand",
    "[model]") {
  const HardwareConfig hw = load_hw();
  check_load_hw(hw);
  // LOAD_PARAMS, then LOAD_WEIGHTS; a second layer stands for the other initiator's traffic,
  // so each counts its own stalls.
  Program program = pick(compiled(hw), {1, 2});
  LayerDescriptor other;
  other.name = "other";
  other.N = 1, other.K = 8, other.out_h = 4, other.out_w = 4;
  program.layers.push_back(other);
  const LayerDescriptor& L = program.layers[0];
  // The first load may start at cycle 1, so the other initiator's read at 0 is first on the bus.
  LoadMachine m(hw, program, {1});
  BusHog hog("hog", m.dram, 1, {{0, 200}, {40, 16}});
  const std::vector<int8_t> params = fill(m.dram, L.params_address, uint64_t(kK) * 8);
  // Other: 200 B at 0, 13 bursts = 208 B, 26 cycles: [0, 26).
  // LOAD_PARAMS at 1: 8 x 8 = 64 B, 4 bursts, 8 cycles, the bus free at 26: [26, 34), 25 cycles
  // of stall. First data at 46; write 64 B, 8 cycles, p0 [46, 54). ready = max(54, 54) = 54.
  // Free at 34.
  // LOAD_WEIGHTS at 34 (as in the first case, 10 bus cycles a stage): stage 0 [34, 44); first
  // data at 54, write 9 cycles p0 [54, 63); ready = max(64, 63) = 64.
  // Other, at 40: 16 B, one burst, 2 cycles, behind stage 0: [44, 46), 4 cycles of stall.
  // Stage 1 asks at 44, behind it: [46, 56), 2 cycles of stall; first data at 66, write p0
  // [66, 75); ready = max(76, 75) = 76. Free at 56, complete at 76.
  sc_core::sc_start();
  REQUIRE(m.scheduler.error.empty());
  REQUIRE(hog.grants.size() == 2);
  CHECK(hog.grants[0].start == 0);
  CHECK(hog.grants[0].end == 26);
  CHECK(hog.grants[1].start == 44);
  CHECK(hog.grants[1].end == 46);
  const InstructionTimes& p = m.scheduler.times[0];
  const InstructionTimes& w = m.scheduler.times[1];
  REQUIRE(p.done);
  REQUIRE(w.done);
  CHECK(p.started == 1);
  CHECK(p.stage_begin == 1);
  CHECK(p.stage_engine_end == 34);
  CHECK(p.released == 34);
  CHECK(p.complete == 54);
  REQUIRE(w.stages.size() == 2);
  CHECK(w.started == 34);
  CHECK(w.stages[0].begin == 34);
  CHECK(w.stages[0].engine_end == 44);
  CHECK(w.stages[0].ready == 64);
  CHECK(w.stages[1].begin == 44);
  CHECK(w.stages[1].engine_end == 56);
  CHECK(w.stages[1].ready == 76);
  CHECK(w.released == 56);
  CHECK(w.complete == 76);
  CHECK(m.counter("stall.bus_cycles", 0) == 25 + 2);
  CHECK(m.counter("stall.bus_cycles", 1) == 4);
  CHECK(m.counter("stall.cache_port_cycles") == 0);
  CHECK(m.counter("load.busy_cycles") == (34 - 1) + (56 - 34));
  // Alone the loads would not wait: 20 + 8, then 20 + 10 + 10.
  CHECK(m.counter("load.standalone_cycles") == 28 + 40);
  CHECK(m.counter("dram.read_bytes", 0) == 64 + 80 + 80);
  CHECK(m.counter("dram.read_bytes", 1) == 208 + 16);
  // The parameter bank holds each channel's {bias, scale} as DRAM does.
  const SumTile& bank = m.cache.params(program.instructions[0].half);
  REQUIRE(bank.rows() == kK);
  for (uint32_t k = 0; k < kK; ++k) {
    INFO("channel " << k);
    const int8_t* row = reinterpret_cast<const int8_t*>(bank.row(k));
    CHECK(std::vector<int8_t>(row, row + 8) ==
          std::vector<int8_t>(params.begin() + k * 8, params.begin() + (k + 1) * 8));
    CHECK(bank.valid_at(k) == 54);
  }
}
