// Single-module tests (the `model` tier): the vector unit (models/vector_unit.h) driven by a
// scripted scheduler (tests/support/scripted_scheduler.h) that hands it hand-built VECTOR
// instructions and records when each starts, frees the unit and reaches memory. The unit's
// other ports go to the real DRAM bus (models/dram.h) and the real internal cache
// (models/internal_cache.h); cycles are worked by hand from docs/timing.md#vector-unit:
//   - each input tensor crosses the bus as one transfer: its bytes rounded up to whole bursts,
//     over dram.bytes_per_cycle (cost::dram_data_cycles), first come first served; its data is
//     in the cache dram.latency_cycles after the bus lets it go;
//   - the cache fill is booked from the instruction's start + latency, the read of the inputs and
//     the write of the outputs from the data's arrival, each ceil(bytes / port_bytes_per_cycle);
//   - the lanes take cost::vector_stage_cycles = ceil(element ops / vector.lanes) plus
//     vector.latency_cycles (pooling: out_w * K * R*S ops a row, add: 2 * out_w * K);
//   - computed = max(arrival + lanes, the cache read's and write's ends); the outputs then drain
//     from the cache and cross the bus to DRAM; the unit is free when both are done, and the
//     rows are in memory dram.latency_cycles later.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <systemc>
#include <vector>

#include "models/dram.h"
#include "models/internal_cache.h"
#include "models/sim_time.h"
#include "models/vector_unit.h"
#include "tests/support/scripted_scheduler.h"

using namespace npusim;
using npusim::test::InstructionTimes;
using npusim::test::ScriptedScheduler;

namespace {

// The machine of every case: 4 lanes with 3 cycles of pipeline fill; a bus of 8 B/cycle, 16 B
// bursts and 20 cycles of latency; a cache of two 64 B/cycle ports that the banks can feed
// together (8 x 16 B/cycle), so every access below takes 1 cycle on a port of its own.
// `cache_port_bytes` and `cache_ports` narrow the cache for case 4.
HardwareConfig machine(uint32_t cache_port_bytes = 64, uint32_t cache_ports = 2) {
  return parse_hardware_config(
      {{"vector", {{"lanes", 4}, {"latency_cycles", 3}}},
       {"dram", {{"bytes_per_cycle", 8}, {"latency_cycles", 20}, {"burst_bytes", 16}}},
       {"cache",
        {{"ports", cache_ports},
         {"port_bytes_per_cycle", cache_port_bytes},
         {"banks", 8},
         {"bank_bytes_per_cycle", 16}}}},
      "<test>");
}

void check_machine(const HardwareConfig& hw) {
  REQUIRE(hw.vector.lanes == 4);
  REQUIRE(hw.vector.latency_cycles == 3);
  REQUIRE(hw.dram.model == DramModel::Bus);
  REQUIRE(hw.dram.bytes_per_cycle == 8);
  REQUIRE(hw.dram.latency_cycles == 20);
  REQUIRE(hw.dram.burst_bytes == 16);
}

Instruction vector_instruction(uint32_t id, uint32_t k_count, uint32_t row_begin,
                               uint32_t row_end) {
  Instruction in;
  in.id = id;
  in.op = Opcode::Vector;
  in.layer = 0;
  in.k_begin = 0, in.k_end = k_count;
  in.out_row_begin = row_begin, in.out_row_end = row_end;
  return in;
}

// A 2x2 max pool, stride 1, no padding, of a 2-channel 3x5 (H x W) int8 map: a 2x4 output. The
// input lies at 0 (30 B, NHWC), the output at 64 (16 B).
constexpr uint32_t kPoolC = 2, kPoolH = 3, kPoolW = 5, kPoolOutW = 4;
constexpr uint64_t kPoolOutput = 64;

LayerDescriptor max_pool_layer() {
  LayerDescriptor d;
  d.name = "pool";
  d.op = OpKind::MaxPool;
  d.quantized = true;
  d.quant.inputs = {TensorQuant{}};  // int8, scale 1, zero point 0
  d.N = 1, d.C = kPoolC, d.H = kPoolH, d.W = kPoolW, d.K = kPoolC, d.R = 2, d.S = 2;
  d.stride = 1, d.padding = 0, d.out_h = 2, d.out_w = kPoolOutW;
  d.input_address = 0;
  d.output_address = kPoolOutput;
  return d;
}

Program max_pool_program(std::vector<Instruction> instructions) {
  Program p;
  p.layers.push_back(max_pool_layer());
  p.instructions = std::move(instructions);
  p.dram_bytes = 256;
  return p;
}

// The pool's input, one H x W grid per channel, written NHWC: (h * W + w) * C + c.
void write_pool_input(DramIf& dram) {
  const int8_t channel[kPoolC][kPoolH][kPoolW] = {{{1, 5, -3, 2, 0},  //
                                                   {4, -2, 7, 1, 6},
                                                   {-8, 3, 0, 9, -1}},
                                                  {{-5, -6, -7, -8, -9},  //
                                                   {-1, -4, 10, -3, -2},
                                                   {12, -10, -11, -12, 20}}};
  int8_t* image = dram.image(0, uint64_t(kPoolH) * kPoolW * kPoolC);
  for (uint32_t c = 0; c < kPoolC; ++c)
    for (uint32_t h = 0; h < kPoolH; ++h)
      for (uint32_t w = 0; w < kPoolW; ++w) image[(h * kPoolW + w) * kPoolC + c] = channel[c][h][w];
}

// The pool's output by hand, NHWC (ow * K + k within a row). Each is the max of the 2x2 window
// of rows oh, oh+1 and columns ow, ow+1:
//   channel 0, row 0: max(1,5,4,-2)=5  max(5,-3,-2,7)=7  max(-3,2,7,1)=7  max(2,0,1,6)=6
//   channel 0, row 1: max(4,-2,-8,3)=4  max(-2,7,3,0)=7  max(7,1,0,9)=9  max(1,6,9,-1)=9
//   channel 1, row 0: max(-5,-6,-1,-4)=-1  max(-6,-7,-4,10)=10  max(-7,-8,10,-3)=10
//                     max(-8,-9,-3,-2)=-2
//   channel 1, row 1: max(-1,-4,12,-10)=12  max(-4,10,-10,-11)=10  max(10,-3,-11,-12)=10
//                     max(-3,-2,-12,20)=20
const std::vector<int8_t> kPoolExpected = {5, -1, 7, 10, 7, 10, 6, -2,   // row 0
                                           4, 12, 7, 10, 9, 10, 9, 20};  // row 1

// One vector unit wired to its own bus, cache and scripted scheduler (functional: the DRAM holds
// an image and the unit computes values); `tag` keeps two rigs' module names apart.
struct VectorRig {
  VectorRig(const HardwareConfig& hw, const Program& program, bool functional = true,
            const std::string& tag = "")
      : stats(1),
        dram(("dram" + tag).c_str(), hw.dram, hw.clock_mhz, program, stats, timeline, functional),
        cache(("cache" + tag).c_str(), hw, program, stats, timeline),
        scheduler(("scheduler" + tag).c_str(), program, EngineKind::Vector),
        unit(("vector" + tag).c_str(), hw, EngineOptions{functional, nullptr}, stats) {
    unit.scheduler(scheduler);
    unit.dram(dram);
    unit.cache(cache);
  }
  StatsRegistry stats;
  Timeline timeline;
  Dram dram;
  InternalCache cache;
  ScriptedScheduler scheduler;
  VectorUnit unit;
};

}  // namespace

TEST_CASE(
    "vector unit module: a 2x2 max pool over a 2-channel 3x5 map is in memory at cycle 65 by "
    "hand and writes the window maxima computed by hand",
    "[model]") {
  const HardwareConfig hw = machine();
  check_machine(hw);
  const Program program = max_pool_program({vector_instruction(0, kPoolC, 0, 2)});
  VectorRig rig(hw, program);
  Dram& dram = rig.dram;
  StatsRegistry& stats = rig.stats;
  ScriptedScheduler& scheduler = rig.scheduler;
  write_pool_input(dram);
  // Output rows [0, 2) read input rows [0, 3): 3 x 5 x 2 = 30 B, 2 bursts = 32 B, 4 cycles on
  // the bus, [0, 4); in the cache at 4 + 20 = 24 (the fill, from 0 + 20, takes [20, 21)).
  // Lanes: 2 rows x 4 columns x 2 channels x 4 taps = 64 ops, ceil(64 / 4) = 16, + 3 = 19.
  // Cache read of the 30 B and write of the 16 B output: [24, 25) each, one per port.
  // computed = max(24 + 19, 25, 25) = 43. Drain [43, 44); the 16 B output is one burst, 2
  // cycles on the bus, [43, 45). Free at max(45, 44) = 45, in memory at 45 + 20 = 65.
  sc_core::sc_start();
  REQUIRE(scheduler.error.empty());
  const InstructionTimes& t = scheduler.times[0];
  REQUIRE(t.done);
  CHECK(t.started == 0);
  CHECK(t.stage_begin == 0);
  CHECK(t.stage_engine_end == 45);
  CHECK(t.released == 45);
  CHECK(t.complete == 65);
  CHECK(t.stage_ready == 65);
  CHECK(stats.get("vector.work_cycles").at(0) == 19);
  CHECK(stats.get("vector.busy_cycles").at(0) == 45);
  // Alone: 2 latencies + 4 read + 19 lanes + 2 write bus cycles.
  CHECK(stats.get("vector.standalone_cycles").at(0) == 2 * 20 + 4 + 19 + 2);
  CHECK(stats.get("dram.read_bytes").at(0) == 32);
  CHECK(stats.get("dram.write_bytes").at(0) == 16);
  CHECK(stats.get("dram.bus_busy_cycles").at(0) == 4 + 2);
  CHECK(test::dram_bytes(dram, kPoolOutput, kPoolExpected.size()) == kPoolExpected);
}

TEST_CASE(
    "vector unit module: a quantised add of two 2x2x3 inputs is in memory at cycle 55 by hand, "
    "the second input waiting 2 cycles for the bus, and its values round half to even and "
    "saturate as worked by hand",
    "[model]") {
  const HardwareConfig hw = machine();
  check_machine(hw);
  // a (scale 0.5, zp 0) at 0, b (scale 0.125, zp 10) at 64, y (scale 0.25, zp -5) at 128; all
  // NHWC 1 x 2 x 2 x 3. ra = 0.5 / 0.25 = 2, rb = 0.125 / 0.25 = 0.5,
  // c = -5 - (2 * 0 + 0.5 * 10) = -10: y = nearbyint(2a + 0.5b - 10) clamped to [-128, 127].
  Program program;
  LayerDescriptor d;
  d.name = "add";
  d.op = OpKind::Add;
  d.quantized = true;
  d.quant.inputs = {TensorQuant{QuantType::Int8, 0.5f, 0},
                    TensorQuant{QuantType::Int8, 0.125f, 10}};
  d.quant.output = TensorQuant{QuantType::Int8, 0.25f, -5};
  d.N = 1, d.C = 3, d.H = 2, d.W = 2, d.K = 3, d.R = 1, d.S = 1, d.out_h = 2, d.out_w = 2;
  d.input_address = 0;
  d.more_inputs = {LayerDescriptor::MoreInput{64, -1, 3, 4}};
  d.output_address = 128;
  program.layers.push_back(d);
  program.instructions = {vector_instruction(0, 3, 0, 2)};
  program.dram_bytes = 256;
  VectorRig rig(hw, program);
  Dram& dram = rig.dram;
  StatsRegistry& stats = rig.stats;
  ScriptedScheduler& scheduler = rig.scheduler;
  const std::vector<int8_t> a = {3, 0, 0, 100, -100, 7, 1, -2, 5, 10, 20, -3};
  const std::vector<int8_t> b = {4, 1, 3, 100, -100, -7, 0, 2, -1, 10, 21, 5};
  std::memcpy(dram.image(0, 12), a.data(), 12);
  std::memcpy(dram.image(64, 12), b.data(), 12);
  // Element by element, 2a + 0.5b - 10:
  //   6+2-10=-2   0+0.5-10=-9.5->-10 (even)   0+1.5-10=-8.5->-8 (even)   200+50-10=240->127
  //   -200-50-10=-260->-128   14-3.5-10=0.5->0 (even)   2+0-10=-8   -4+1-10=-13
  //   10-0.5-10=-0.5->0 (even)   20+5-10=15   40+10.5-10=40.5->40 (even)   -6+2.5-10=-13.5->-14
  const std::vector<int8_t> expected = {-2, -10, -8, 127, -128, 0, -8, -13, 0, 15, 40, -14};
  // a: 12 B, one 16 B burst, 2 cycles, [0, 2); b asked at 0 too waits for it: [2, 4), 2 cycles
  // of stall; in the cache at 4 + 20 = 24 (the 24 B fill from 20 takes [20, 21)).
  // Lanes: 2 rows x 2 x (2 columns x 3 channels) = 24 ops, ceil(24 / 4) = 6, + 3 = 9.
  // Cache read (24 B) and write (12 B): [24, 25) each. computed = max(24 + 9, 25, 25) = 33.
  // Drain [33, 34); the 12 B output is one burst, [33, 35). Free at 35, in memory at 55.
  sc_core::sc_start();
  REQUIRE(scheduler.error.empty());
  const InstructionTimes& t = scheduler.times[0];
  REQUIRE(t.done);
  CHECK(t.started == 0);
  CHECK(t.released == 35);
  CHECK(t.complete == 55);
  CHECK(stats.get("vector.work_cycles").at(0) == 9);
  CHECK(stats.get("stall.bus_cycles").at(0) == 2);
  CHECK(stats.get("dram.read_bytes").at(0) == 16 + 16);
  CHECK(stats.get("dram.write_bytes").at(0) == 16);
  CHECK(stats.get("cache.read_bytes").at(0) == 24 + 12);   // the inputs, then the drain
  CHECK(stats.get("cache.write_bytes").at(0) == 24 + 12);  // the fill, then the outputs
  CHECK(test::dram_bytes(dram, 128, 12) == expected);
}

TEST_CASE(
    "vector unit module: of two max pool instructions back to back the second starts when the "
    "first's output has left on the bus at cycle 37, before it reaches memory at 57, and ends "
    "at 74, in memory at 94",
    "[model]") {
  const HardwareConfig hw = machine();
  check_machine(hw);
  const Program program =
      max_pool_program({vector_instruction(0, kPoolC, 0, 1), vector_instruction(1, kPoolC, 1, 2)});
  VectorRig rig(hw, program);
  Dram& dram = rig.dram;
  StatsRegistry& stats = rig.stats;
  ScriptedScheduler& scheduler = rig.scheduler;
  write_pool_input(dram);
  // #0, output row 0, reads input rows [0, 2): 20 B, 2 bursts, 4 cycles, [0, 4); in the cache
  // at 24. Lanes: 4 x 2 x 4 = 32 ops, 8 + 3 = 11. Cache read and write [24, 25).
  // computed = 35. Drain [35, 36); 8 B output, one burst, [35, 37). Free at 37, in memory 57.
  // #1 starts at 37 (one instruction at a time; the first's write latency overlaps it), output
  // row 1, input rows [1, 3): 20 B at 37, [37, 41); in the cache at 61 (the fill, from
  // 37 + 20, takes [57, 58)). Cache read and write [61, 62). computed = 61 + 11 = 72.
  // Drain [72, 73), bus [72, 74). Free at 74, in memory at 94.
  sc_core::sc_start();
  REQUIRE(scheduler.error.empty());
  REQUIRE(scheduler.times[0].done);
  REQUIRE(scheduler.times[1].done);
  CHECK(scheduler.times[0].started == 0);
  CHECK(scheduler.times[0].released == 37);
  CHECK(scheduler.times[0].complete == 57);
  CHECK(scheduler.times[1].started == 37);
  CHECK(scheduler.times[1].stage_begin == 37);
  CHECK(scheduler.times[1].released == 74);
  CHECK(scheduler.times[1].complete == 94);
  CHECK(stats.get("vector.instructions").at(0) == 2);
  CHECK(stats.get("vector.busy_cycles").at(0) == 37 + (74 - 37));
  CHECK(stats.get("vector.work_cycles").at(0) == 11 + 11);
  // Each reads 2 input rows (the middle one twice): 2 x 32 B of bursts; writes 2 x 16 B.
  CHECK(stats.get("dram.read_bytes").at(0) == 64);
  CHECK(stats.get("dram.write_bytes").at(0) == 32);
  // The two halves make the same output as the one instruction of the first case.
  CHECK(test::dram_bytes(dram, kPoolOutput, kPoolExpected.size()) == kPoolExpected);
}

TEST_CASE(
    "vector unit module: a functional and a timing-only unit side by side give the same cycles "
    "for a max pool whose narrow cache port binds its start and end",
    "[model]") {
  // One 4 B/cycle cache port: the fill, not the bus, decides when the data is in the cache.
  const HardwareConfig hw = machine(/*cache_port_bytes=*/4, /*cache_ports=*/1);
  check_machine(hw);
  REQUIRE(hw.cache.port_bytes_per_cycle == 4);
  REQUIRE(hw.cache.ports == 1);
  const Program program = max_pool_program({vector_instruction(0, kPoolC, 0, 2)});
  // Two independent machines in one simulation: each its own bus, cache, scheduler and counters.
  VectorRig functional(hw, program, true, "_f"), timing_only(hw, program, false, "_t");
  Dram& dram_f = functional.dram;
  StatsRegistry &stats_f = functional.stats, &stats_t = timing_only.stats;
  ScriptedScheduler &scheduler_f = functional.scheduler, &scheduler_t = timing_only.scheduler;
  write_pool_input(dram_f);
  // Bus read of 32 B [0, 4), data at 24; but the 30 B fill, from 20, takes ceil(30 / 4) = 8
  // cycles: [20, 28), so the data is in the cache at 28. Lanes 19 (as in the first case).
  // Read of 30 B [28, 36); write of 16 B, 4 cycles, behind it on the one port: [36, 40).
  // computed = max(28 + 19, 36, 40) = 47. Drain [47, 51); bus [47, 49). Free at 51, in
  // memory at 71.
  sc_core::sc_start();
  REQUIRE(scheduler_f.error.empty());
  REQUIRE(scheduler_t.error.empty());
  const InstructionTimes& f = scheduler_f.times[0];
  const InstructionTimes& t = scheduler_t.times[0];
  REQUIRE(f.done);
  REQUIRE(t.done);
  CHECK(f.released == 51);
  CHECK(f.complete == 71);
  CHECK(t.started == f.started);
  CHECK(t.stage_engine_end == f.stage_engine_end);
  CHECK(t.released == f.released);
  CHECK(t.complete == f.complete);
  for (const char* counter : {"vector.busy_cycles", "vector.work_cycles", "dram.read_bytes",
                              "dram.write_bytes", "stall.cache_port_cycles"}) {
    INFO(counter);
    CHECK(stats_t.get(counter).at(0) == stats_f.get(counter).at(0));
  }
  // The read waited 28 -> 28 (none), the write 28 -> 36, the drain none: 8 cycles of stall.
  CHECK(stats_f.get("stall.cache_port_cycles").at(0) == 8);
  CHECK(test::dram_bytes(dram_f, kPoolOutput, kPoolExpected.size()) == kPoolExpected);
}
