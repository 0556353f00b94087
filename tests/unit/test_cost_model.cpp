// Cost model floor: every formula of models/cost_model.h against numbers
// worked out by hand (the arithmetic is in the comment beside each check).
// The formulas are pure functions of the config, so no SystemC is involved.
#include <catch2/catch.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/cost/cost_model.h"
#include "sim/config/hardware_config.h"

using namespace npusim;

namespace {

DramConfig dram(uint32_t bytes_per_cycle, uint32_t burst_bytes, uint32_t latency = 100) {
  DramConfig d;
  d.bytes_per_cycle = bytes_per_cycle;
  d.burst_bytes = burst_bytes;
  d.latency_cycles = latency;
  return d;
}

CacheConfig cache(uint32_t banks, uint32_t bank_bytes_per_cycle, uint32_t ports,
                  uint32_t port_bytes_per_cycle) {
  CacheConfig c;
  c.banks = banks;
  c.bank_bytes_per_cycle = bank_bytes_per_cycle;
  c.ports = ports;
  c.port_bytes_per_cycle = port_bytes_per_cycle;
  return c;
}

ComputeConfig array(uint32_t rows, uint32_t cols) {
  ComputeConfig c;
  c.array_rows = rows;
  c.array_cols = cols;
  return c;
}

HardwareConfig machine(uint32_t rows, uint32_t cols, SpareFoldGroups spare) {
  HardwareConfig hw;
  hw.compute = array(rows, cols);
  hw.spare_fold_groups = spare;
  return hw;
}

}  // namespace

TEST_CASE("ceil_div rounds up", "[cost]") {
  CHECK(cost::ceil_div(0, 5) == 0);    // 0 / 5 = 0 exactly
  CHECK(cost::ceil_div(1, 1) == 1);    // 1 / 1 = 1 exactly
  CHECK(cost::ceil_div(7, 2) == 4);    // 3.5 -> 4
  CHECK(cost::ceil_div(8, 2) == 4);    // 4 exactly, no extra
  CHECK(cost::ceil_div(65, 64) == 2);  // 1.02 -> 2
  // Large operands: (2^40 + 1) / 2^20 = 2^20 + 2^-20 -> 2^20 + 1.
  CHECK(cost::ceil_div((uint64_t(1) << 40) + 1, uint64_t(1) << 20) == (uint64_t(1) << 20) + 1);
}

TEST_CASE("dram_burst_bytes rounds every segment up to whole bursts", "[cost]") {
  const DramConfig d = dram(32, 64);
  CHECK(cost::dram_burst_bytes(d, 1, 100) == 128);  // ceil(100/64) = 2 bursts = 128 B
  CHECK(cost::dram_burst_bytes(d, 10, 20) == 640);  // 10 x ceil(20/64) = 10 bursts = 640 B
  CHECK(cost::dram_burst_bytes(d, 1, 64) == 64);    // exactly 1 burst
  CHECK(cost::dram_burst_bytes(d, 1, 65) == 128);   // 1 byte over -> 2 bursts
  CHECK(cost::dram_burst_bytes(d, 3, 128) == 384);  // 3 x 2 bursts = 6 x 64 B
  CHECK(cost::dram_burst_bytes(d, 0, 100) == 0);    // no segments, nothing moves
  CHECK(cost::dram_burst_bytes(d, 5, 0) == 0);      // empty segments: 0 bursts each
  // burst 32: ceil(1000/32) = ceil(31.25) = 32 bursts = 1024 B per segment, x3 = 3072 B.
  CHECK(cost::dram_burst_bytes(dram(16, 32), 3, 1000) == 3072);
}

TEST_CASE("dram_data_cycles divides the burst bytes by the bus width", "[cost]") {
  const DramConfig d = dram(32, 64);
  CHECK(cost::dram_data_cycles(d, 1, 100) == 4);   // 128 B / 32 B per cycle = 4
  CHECK(cost::dram_data_cycles(d, 10, 20) == 20);  // 640 B / 32 = 20
  CHECK(cost::dram_data_cycles(d, 1, 64) == 2);    // 64 / 32 = 2
  CHECK(cost::dram_data_cycles(d, 1, 1) == 2);     // 1 B still costs a 64 B burst: 2
  CHECK(cost::dram_data_cycles(d, 0, 100) == 0);   // nothing to move
  // 1 x 4096 B = 64 bursts = 4096 B / 32 = 128 cycles; as 64 segments of 64 B the same.
  CHECK(cost::dram_data_cycles(d, 1, 4096) == 128);
  CHECK(cost::dram_data_cycles(d, 64, 64) == 128);
  // ...but 64 segments of 65 B each take 2 bursts: 64 x 128 B = 8192 B / 32 = 256 cycles.
  CHECK(cost::dram_data_cycles(d, 64, 65) == 256);
  // A bus width that does not divide the burst: 48 B/cycle, burst 64.
  const DramConfig odd = dram(48, 64);
  CHECK(cost::dram_data_cycles(odd, 1, 64) == 2);   // 64 / 48 = 1.33 -> 2
  CHECK(cost::dram_data_cycles(odd, 3, 64) == 4);   // 192 / 48 = 4 exactly
  CHECK(cost::dram_data_cycles(odd, 1, 100) == 3);  // 128 / 48 = 2.67 -> 3
  // burst 32, 16 B/cycle: 3072 B (see the burst test) / 16 = 192 cycles.
  CHECK(cost::dram_data_cycles(dram(16, 32), 3, 1000) == 192);
  // Latency is charged per request elsewhere (models/dram.cpp), not in the data cycles.
  CHECK(cost::dram_data_cycles(dram(32, 64, 0), 1, 100) == 4);
  CHECK(cost::dram_data_cycles(dram(32, 64, 1000), 1, 100) == 4);
}

TEST_CASE("dram_data_cycles on a fractional bus rounds only the last cycle up", "[cost]") {
  // 34 GB/s at 700 MHz: 34e9 / 700e6 = 48.571428... B a cycle.
  DramConfig tpu = dram(32, 64);
  tpu.bytes_per_cycle = 34e9 / 700e6;
  CHECK(cost::dram_data_cycles(tpu, 1, 4096) == 85);  // 4096 / 48.571 = 84.33 -> 85
  CHECK(cost::dram_data_cycles(tpu, 1, 64) == 2);     // 64 / 48.571 = 1.32 -> 2
  CHECK(cost::dram_data_cycles(tpu, 17, 64) == 23);   // 1088 / 48.571 = 22.40 -> 23
  // A bus narrower than a byte a cycle: 0.5 GB/s at 1 GHz.
  DramConfig slow = dram(32, 64);
  slow.bytes_per_cycle = 0.5;
  CHECK(cost::dram_data_cycles(slow, 1, 64) == 128);  // 64 B / 0.5 = 128
  CHECK(cost::dram_data_cycles(slow, 3, 10) == 384);  // 3 bursts of 64 B = 192 B / 0.5
  // 2.5 B a cycle for 3 cycles uploads 7.5 B: the threshold is 7 whole bytes.
  DramConfig mid = dram(32, 64);
  mid.bytes_per_cycle = 2.5;
  CHECK(cost::upload_threshold_bytes(mid, 3) == 7);
  CHECK(cost::upload_threshold_bytes(dram(32, 64), 3) == 96);
}

TEST_CASE("cache_access_cycles streams bytes through one port", "[cost]") {
  const CacheConfig c = cache(8, 16, 2, 64);
  CHECK(cost::cache_access_cycles(c, 0) == 0);      // nothing to stream
  CHECK(cost::cache_access_cycles(c, 1) == 1);      // 1/64 -> 1
  CHECK(cost::cache_access_cycles(c, 64) == 1);     // 64/64 = 1
  CHECK(cost::cache_access_cycles(c, 65) == 2);     // 1.02 -> 2
  CHECK(cost::cache_access_cycles(c, 1000) == 16);  // 15.6 -> 16
  CHECK(cost::cache_access_cycles(c, 4096) == 64);  // 4096/64 = 64
  // 16 B/cycle port: 1000/16 = 62.5 -> 63.
  CHECK(cost::cache_access_cycles(cache(8, 16, 2, 16), 1000) == 63);
}

TEST_CASE("cache_parallel_accesses: ports limited by what the banks sustain", "[cost]") {
  // min(ports, max(1, floor(banks * bank_bytes_per_cycle / port_bytes_per_cycle)))
  // Defaults: 8 banks x 16 B = 128 B/cycle = 2 ports of 64 B -> min(2, 2) = 2.
  CHECK(cost::cache_parallel_accesses(CacheConfig{}) == 2);
  CHECK(cost::cache_parallel_accesses(cache(8, 16, 2, 64)) == 2);
  // Banks starve the ports: 2 x 16 = 32 B < 64 B -> floor 0 -> at least 1.
  CHECK(cost::cache_parallel_accesses(cache(2, 16, 2, 64)) == 1);
  // Plenty of bank bandwidth: 16 x 16 = 256 B = 4 ports' worth, but only 2 ports -> 2.
  CHECK(cost::cache_parallel_accesses(cache(16, 16, 2, 64)) == 2);
  // Same banks, 8 ports: min(8, 4) = 4.
  CHECK(cost::cache_parallel_accesses(cache(16, 16, 8, 64)) == 4);
  // Bank bandwidth not a multiple of a port: 3 x 32 = 96 B -> floor(96/64) = 1.
  CHECK(cost::cache_parallel_accesses(cache(3, 32, 4, 64)) == 1);
  // 5 x 32 = 160 B -> floor(160/64) = 2, under 4 ports -> 2.
  CHECK(cost::cache_parallel_accesses(cache(5, 32, 4, 64)) == 2);
  // One port is one access whatever the banks: min(1, 32) = 1.
  CHECK(cost::cache_parallel_accesses(cache(32, 64, 1, 64)) == 1);
  // Narrow ports: 4 x 8 = 32 B / 8 B = 4 ports' worth; 6 ports -> 4.
  CHECK(cost::cache_parallel_accesses(cache(4, 8, 6, 8)) == 4);
}

TEST_CASE("compute_stage_cycles: channel groups x coefficients x pixel groups", "[cost]") {
  // ceil(k / array_rows) * C*R*S * ceil(pixels / array_cols)
  const ComputeConfig a32 = array(32, 32);
  // Exactly one of everything: 1 * 1 * 1 = 1.
  CHECK(cost::compute_stage_cycles(a32, 32, 32, 1) == 1);
  // k = 40 -> 2 groups of 32; pixels 100 -> 4 groups of 32; 2 * 27 * 4 = 216.
  CHECK(cost::compute_stage_cycles(a32, 100, 40, 27) == 216);
  // One over in both: k 33 -> 2, pixels 33 -> 2; 2 * 9 * 2 = 36.
  CHECK(cost::compute_stage_cycles(a32, 33, 33, 9) == 36);
  // Fewer than one group in both still costs a full group: 1 * 576 * 1 = 576.
  CHECK(cost::compute_stage_cycles(a32, 5, 3, 576) == 576);
  // A 3x3x64 kernel on a 14-wide row pair (28 pixels), 64 channels:
  // ceil(64/32) = 2, C*R*S = 576, ceil(28/32) = 1 -> 1152.
  CHECK(cost::compute_stage_cycles(a32, 28, 64, 576) == 1152);
  // Non-square array, rows 16 (channels), cols 8 (pixels):
  // pixels 56 -> 7 groups; k 64 -> 4 groups; 4 * 576 * 7 = 16128.
  const ComputeConfig a16x8 = array(16, 8);
  CHECK(cost::compute_stage_cycles(a16x8, 56, 64, 576) == 16128);
  // pixels 57 -> 8 groups; k 65 -> 5 groups; 5 * 576 * 8 = 23040.
  CHECK(cost::compute_stage_cycles(a16x8, 57, 65, 576) == 23040);
  // Rows and columns are not interchangeable: swap them (8 rows, 16 cols):
  // k 64 -> 8 groups, pixels 56 -> 4 groups; 8 * 576 * 4 = 18432.
  CHECK(cost::compute_stage_cycles(array(8, 16), 56, 64, 576) == 18432);
  // No pixels, no cycles.
  CHECK(cost::compute_stage_cycles(a32, 0, 64, 576) == 0);
  // The pipeline fill is added per instruction by the compute engine, not here.
  ComputeConfig slow = a32;
  slow.pipeline_latency_cycles = 1000;
  CHECK(cost::compute_stage_cycles(slow, 100, 40, 27) == 216);
}

TEST_CASE(
    "zero_skip_stage_cycles on a 16x64 array: lockstep groups of 16 kernels, 64 pixels a pass",
    "[cost]") {
  // sum over groups of array_rows kernels of max nonzeros * ceil(pixels / array_cols).
  // 20 kernels on 16 rows: group 0 = kernels 0..15, group 1 = kernels 16..19.
  uint32_t nz[20];
  for (uint32_t k = 0; k < 20; ++k) nz[k] = 10 + k;  // 10 .. 29
  nz[3] = 40;                                        // group 0's densest kernel
  const ComputeConfig a16x64 = array(16, 64);
  // 100 pixels -> ceil(100/64) = 2 passes; groups: max 40 (kernels 0..15), max 29 (16..19):
  // (40 + 29) * 2 = 138.
  CHECK(cost::zero_skip_stage_cycles(a16x64, 100, nz, 20) == 138);
  // Rows and columns swapped (64 rows, 16 cols): one group of 20 (max 40),
  // ceil(100/16) = 7 passes: 280. A formula that mixes them up gives this.
  CHECK(cost::zero_skip_stage_cycles(array(64, 16), 100, nz, 20) == 280);
  // 64 pixels exactly: one pass; 65: two.
  CHECK(cost::zero_skip_stage_cycles(a16x64, 64, nz, 20) == 69);
  CHECK(cost::zero_skip_stage_cycles(a16x64, 65, nz, 20) == 138);
  // 16 kernels fill one group: max 40, one pass at 64 pixels.
  CHECK(cost::zero_skip_stage_cycles(a16x64, 64, nz, 16) == 40);
  // 17 kernels: a second group of one kernel (nz[16] = 26): 40 + 26 = 66.
  CHECK(cost::zero_skip_stage_cycles(a16x64, 64, nz, 17) == 66);
}

TEST_CASE("compute_stage_macs counts every pixel x channel x coefficient", "[cost]") {
  CHECK(cost::compute_stage_macs(100, 40, 27) == 108000);  // 100 * 40 * 27
  CHECK(cost::compute_stage_macs(1, 1, 1) == 1);
  CHECK(cost::compute_stage_macs(0, 40, 27) == 0);
  // 56 * 56 * 64 pixels-channels x 576 = 3136 * 64 * 576 = 115605504.
  CHECK(cost::compute_stage_macs(3136, 64, 576) == 115605504);
  // The array does at most rows*cols MACs a cycle, so MACs <= cycles * peak:
  // 216 cycles * 1024 = 221184 >= 108000 (the rest is idle array slots).
  CHECK(cost::compute_stage_macs(100, 40, 27) <=
        cost::compute_stage_cycles(array(32, 32), 100, 40, 27) * 32 * 32);
  // With everything a multiple of the array, the bound is met exactly:
  // 64 px, 64 ch, 9 coef: macs 36864 = cycles (2*9*2 = 36) * 1024.
  CHECK(cost::compute_stage_macs(64, 64, 9) ==
        cost::compute_stage_cycles(array(32, 32), 64, 64, 9) * 32 * 32);
}

TEST_CASE("binary_stage_cycles: the dense stage with C replaced by ceil(C/b) words",
          "[cost][binary]") {
  ComputeConfig c;
  c.array_rows = 32;
  c.array_cols = 32;
  // 64 pixels, 40 kernels, 3x3, C = 100, b = 32: ceil(40/32) = 2 row groups,
  // 9 taps * ceil(100/32) = 4 words, ceil(64/32) = 2 pixel steps -> 2*36*2 = 144.
  CHECK(cost::binary_stage_cycles(c, 64, 40, 9, 4) == 144);
  // b = 64: 2 words per tap -> 2*18*2 = 72, half the b = 32 cycles.
  CHECK(cost::binary_stage_cycles(c, 64, 40, 9, 2) == 72);
  // The same stage in int8: 2 * 900 * 2 = 3600, 25x the b = 32 figure (100/4).
  CHECK(cost::compute_stage_cycles(c, 64, 40, 900) == 3600);
}

TEST_CASE("grouped stage: rows share work only within a group (depthwise uses one row)", "[cost]") {
  const ComputeConfig c = array(4, 8);  // 4 rows (kernels), 8 columns (pixels)
  // Depthwise: 6 kernels, one per group, 9 coefficients each, 20 pixels.
  // Each kernel alone: 9 * ceil(20 / 8) = 9 * 3 = 27; six of them: 162.
  const uint32_t dw[6] = {9, 9, 9, 9, 9, 9};
  CHECK(cost::grouped_stage_cycles(c, 20, dw, 0, 6, 1) == 162);
  // Four groups of 3 kernels each (12 kernels), tile [2, 9): kernels 2 | 3 4 5 | 6 7 8.
  // Runs: {2} -> max 5; {3,4,5} -> one 4-row block, max 7; {6,7,8} -> max 3.
  // (5 + 7 + 3) * ceil(20 / 8) = 15 * 3 = 45.
  const uint32_t nz[7] = {5, 7, 1, 2, 3, 1, 2};
  CHECK(cost::grouped_stage_cycles(c, 20, nz, 2, 7, 3) == 45);
  // One group equals the zero-skip formula: blocks {5,7,1,2} max 7, {3,1,2} max 3 -> 10 * 3.
  CHECK(cost::grouped_stage_cycles(c, 20, nz, 0, 7, 64) == 30);
  CHECK(cost::grouped_stage_cycles(c, 20, nz, 0, 7, 64) ==
        cost::zero_skip_stage_cycles(c, 20, nz, 7));
}

TEST_CASE("uniform stage formulas equal the per-kernel ones when every kernel has the same count",
          "[cost]") {
  // Hand-worked: a 4 x 8 array, tile [2, 11) of groups of 3 kernels, 5 coefficients, 20 pixels.
  // Runs {2} | {3,4,5} | {6,7,8} | {9,10}: 4 row blocks -> 4 * 5 * ceil(20 / 8) = 60.
  CHECK(cost::uniform_grouped_stage_cycles(array(4, 8), 20, 5, 2, 9, 3) == 60);
  // A 1 x 5 matmul stage (M = 3 rows) on 4 x 8: fold = floor(8 / 3) = 2, lockstep 8 features,
  // 8 / 2 = 4 columns each: ceil(10 / 8) * 5 * ceil(3 / 4) = 2 * 5 * 1 = 10.
  CHECK(cost::uniform_matmul_stage_cycles(array(4, 8), 3, 5, 10) == 10);
  // Broadcast: 10 kernels * 5 * ceil(40 / 32) = 100.
  CHECK(cost::uniform_broadcast_stage_cycles(array(4, 8), 40, 5, 10) == 100);
  // Against the general formulas over a grid of non-square arrays, odd tiles and groups.
  for (const auto& [rows, cols] : {std::pair{4u, 8u}, {5u, 3u}, {32u, 32u}, {16u, 64u}})
    for (uint32_t per_group : {1u, 3u, 7u, 40u, 64u})
      for (uint32_t k_begin : {0u, 1u, 5u, 13u})
        for (uint32_t k_count : {1u, 2u, 9u, 33u, 70u})
          for (uint64_t pixels : {1u, 3u, 8u, 31u, 65u}) {
            const ComputeConfig c = array(rows, cols);
            const std::vector<uint32_t> counts(k_count, 7);
            INFO(rows << "x" << cols << " group " << per_group << " tile [" << k_begin << ", +"
                      << k_count << ") pixels " << pixels);
            CHECK(
                cost::uniform_grouped_stage_cycles(c, pixels, 7, k_begin, k_count, per_group) ==
                cost::grouped_stage_cycles(c, pixels, counts.data(), k_begin, k_count, per_group));
            for (uint32_t split : {1u, 3u})
              CHECK(cost::uniform_matmul_stage_cycles(c, pixels, 7, k_count, split) ==
                    cost::matmul_stage_cycles(c, pixels, counts.data(), k_count, split));
            CHECK(cost::uniform_broadcast_stage_cycles(c, pixels, 7, k_count) ==
                  cost::broadcast_stage_cycles(c, pixels, counts.data(), k_count));
          }
}

TEST_CASE("matmul stage: few input rows fold the idle columns onto more output features",
          "[cost]") {
  const ComputeConfig c = array(4, 8);
  uint32_t nz[40];
  for (uint32_t& n : nz) n = 16;  // 16 coefficients per output feature (K = 16)
  // M = 1: fold = 8 / 1 = 8, 4 * 8 = 32 features at once on 1 column each:
  // ceil(40 / 32) = 2 blocks * 16 * ceil(1 / 1) = 32 cycles.
  CHECK(cost::matmul_stage_cycles(c, 1, nz, 40) == 32);
  // M = 3: fold = floor(8 / 3) = 2, 8 features at once on floor(8 / 2) = 4 columns:
  // 5 blocks * 16 * ceil(3 / 4) = 80.
  CHECK(cost::matmul_stage_cycles(c, 3, nz, 40) == 80);
  // M = 8 (no idle columns): the conv formula, 10 blocks of 4 rows * 16 * 1 = 160.
  CHECK(cost::matmul_stage_cycles(c, 8, nz, 40) == 160);
  CHECK(cost::matmul_stage_cycles(c, 8, nz, 40) == cost::zero_skip_stage_cycles(c, 8, nz, 40));
  CHECK(cost::matmul_stage_cycles(c, 5, nz, 40) == 10 * 16 * 1);
  // Rows and columns are not interchangeable: 16 features at M = 5 on a 2x8
  // array (fold 1): ceil(16 / 2) = 8 blocks * 16 * ceil(5 / 8) = 128; on 8x2
  // (fold 1): 2 blocks * 16 * ceil(5 / 2) = 96.
  CHECK(cost::matmul_stage_cycles(array(2, 8), 5, nz, 16) == 128);
  CHECK(cost::matmul_stage_cycles(array(8, 2), 5, nz, 16) == 96);
}

TEST_CASE(
    "folded stage: the columns split into the groups with the fewest passes, worked by hand on "
    "32x32 and 16x24 against 24x16",
    "[cost]") {
  const auto idle = [](uint32_t rows, uint32_t cols) {
    return machine(rows, cols, SpareFoldGroups::Idle);
  };
  // 49 pixels (7x7) and 256 kernels on 32x32, passes ceil(256 / 32f) * ceil(49 / floor(32 / f)):
  // f 1: 8 x 2 = 16, 2: 4 x 4 = 16, 3: 3 x 5 = 15, 4: 2 x 7 = 14, 5: 2 x 9 = 18, 8: 1 x 13 = 13.
  CHECK(cost::stage_fold(idle(32, 32), 49, 256, 9).fold == 8);
  // 30 pixels, 40 kernels on 16 rows x 24 columns: f 1: 3 x 2 = 6, 2: 2 x 3 = 6, 3: 1 x 4 = 4.
  CHECK(cost::stage_fold(idle(16, 24), 30, 40, 9).fold == 3);
  // On 24 rows x 16 columns: f 1: 2 x 2 = 4, f 2: 1 x 4 = 4; the tie keeps 1.
  CHECK(cost::stage_fold(idle(24, 16), 30, 40, 9).fold == 1);
  // Full passes gain nothing: 64 pixels, 64 kernels on 32x32.
  CHECK(cost::stage_fold(idle(32, 32), 64, 64, 9).fold == 1);
  // Per-kernel counts 1..7 over 40 kernels: fold 3 on 16x24 takes all 40 in one block of 48
  // (max 7) over ceil(30 / 8) = 4 passes: 28; fold 1 is the zero-skip formula.
  uint32_t nz[40];
  for (uint32_t i = 0; i < 40; ++i) nz[i] = i % 7 + 1;
  CHECK(cost::folded_stage_cycles(array(16, 24), 30, nz, 40, 3) == 7 * 4);
  CHECK(cost::folded_stage_cycles(array(16, 24), 30, nz, 40, 1) ==
        cost::zero_skip_stage_cycles(array(16, 24), 30, nz, 40));
  // Fold 2 on 16x24: blocks of 32 kernels (max 7, then kernels 32..39: max 7) x ceil(30 / 12) = 3.
  CHECK(cost::folded_stage_cycles(array(16, 24), 30, nz, 40, 2) == (7 + 7) * 3);
  // The closed form: 9 coefficients each, fold 3: 1 block x 9 x 4 = 36; fold 2: 2 x 9 x 3 = 54.
  CHECK(cost::uniform_folded_stage_cycles(array(16, 24), 30, 9, 40, 3) == 36);
  CHECK(cost::uniform_folded_stage_cycles(array(16, 24), 30, 9, 40, 2) == 54);
  // The matmul's own fold is the same formula: M = 3 on 4x8 folds 2 (matmul test above).
  uint32_t sixteen[40];
  for (uint32_t& n : sixteen) n = 16;
  CHECK(cost::folded_stage_cycles(array(4, 8), 3, sixteen, 40, 2) ==
        cost::matmul_stage_cycles(array(4, 8), 3, sixteen, 40));
}

TEST_CASE(
    "coefficient split: a short k-tile's spare fold groups share its kernels' coefficients, "
    "worked by hand on 2x12 against 12x2 and on 32x32",
    "[cost]") {
  const HardwareConfig wide = machine(2, 12, SpareFoldGroups::SplitCoefficients);
  const HardwareConfig tall = machine(12, 2, SpareFoldGroups::SplitCoefficients);
  // A batch-1 matmul (M = 1), 3 kernels of 16 coefficients. On 2 rows x 12 columns the fold
  // has 12 groups; the 3 kernels need ceil(3 / 2) = 2, so each kernel's coefficients split
  // floor(12 / 2) = 6 ways: ceil(16 / 6) = 3 passes + a tree of ceil(log2 6) = 3 = 6 cycles.
  CHECK(cost::coefficient_split(wide, cost::matmul_fold(wide.compute, 1), 3) == 6);
  CHECK(cost::split_tree_cycles(6) == 3);
  CHECK(cost::uniform_matmul_stage_cycles(wide.compute, 1, 16, 3, 6) == 6);
  // On 12 rows x 2 columns: fold 2, one group holds the 3 kernels, split 2:
  // ceil(16 / 2) = 8 passes + 1 = 9.
  CHECK(cost::coefficient_split(tall, cost::matmul_fold(tall.compute, 1), 3) == 2);
  CHECK(cost::uniform_matmul_stage_cycles(tall.compute, 1, 16, 3, 2) == 9);
  // Zero-skip: non-zeros 5, 16, 7 dealt 6 ways: the densest takes ceil(16 / 6) = 3 passes.
  const uint32_t nz[3] = {5, 16, 7};
  CHECK(cost::matmul_stage_cycles(wide.compute, 1, nz, 3, 6) == 3 + 3);
  // Idle spare groups, or seed 001's data registers, keep split 1 (the plain fold: 16 cycles).
  CHECK(cost::coefficient_split(machine(2, 12, SpareFoldGroups::Idle), 12, 3) == 1);
  HardwareConfig registers = wide;
  registers.data_registers = DataRegisters::Double;
  CHECK(cost::coefficient_split(registers, 12, 3) == 1);
  CHECK(cost::matmul_stage_cycles(wide.compute, 1, nz, 3, 1) == 16);
  // ResNet-50's FC on 32x32: a k-tile of 64 of its 1000 features, 2048 coefficients each.
  // Fold 32, 2 groups of kernels, split 16: 128 passes + a tree of 4 = 132 cycles, where idle
  // groups take 2048: 64 x 2048 MACs / (132 x 1024) = 97 % of the array.
  const HardwareConfig a32 = machine(32, 32, SpareFoldGroups::SplitCoefficients);
  CHECK(cost::coefficient_split(a32, 32, 64) == 16);
  CHECK(cost::uniform_matmul_stage_cycles(a32.compute, 1, 2048, 64, 16) == 132);
  // A split of a tile with more kernels than the fold holds never happens: 1100 kernels need
  // all 32 groups.
  CHECK(cost::coefficient_split(a32, 32, 1100) == 1);
  // Folded stages may split too: 49 pixels (7x7), 256 kernels of 1024 coefficients on 32x32.
  // Without a split fold 8 is best (13 passes x 1024 = 13,312); with one, fold 16 gives each
  // of the 8 kernel groups 2 groups of 2 columns (25 x 512 + 1 = 12,801) and fold 32 each 4
  // groups of one column: 49 x 256 + 2 = 12,546, the fewest (folds 24..31: split 3, 49 x 342 + 2).
  const cost::StageFold f = cost::stage_fold(a32, 49, 256, 1024);
  CHECK(f.fold == 32);
  CHECK(f.split == 4);
  CHECK(cost::uniform_folded_stage_cycles(a32.compute, 49, 1024, 256, 32, 4) == 12546);
  CHECK(cost::uniform_folded_stage_cycles(a32.compute, 49, 1024, 256, 16, 2) == 12801);
  CHECK(cost::stage_fold(machine(32, 32, SpareFoldGroups::Idle), 49, 256, 1024).fold == 8);
  // stage_fold skips the folds that cannot win; it answers as trying every f in 1 .. cols.
  for (const auto spare : {SpareFoldGroups::SplitCoefficients, SpareFoldGroups::Idle})
    for (const auto& [rows, cols] :
         {std::pair{4u, 8u}, {5u, 3u}, {32u, 32u}, {16u, 64u}, {48u, 48u}})
      for (uint32_t k : {1u, 3u, 20u, 64u, 97u, 300u})
        for (uint64_t pixels : {1u, 5u, 22u, 49u, 200u})
          for (uint64_t c : {9u, 64u, 2048u}) {
            const HardwareConfig hw = machine(rows, cols, spare);
            cost::StageFold brute;
            uint64_t fewest = UINT64_MAX;
            for (uint32_t f = 1; f <= cols; ++f) {
              const uint32_t s = cost::coefficient_split(hw, f, k);
              const uint64_t cycles =
                  cost::uniform_folded_stage_cycles(hw.compute, pixels, c, k, f, s);
              if (cycles < fewest) brute = {f, s}, fewest = cycles;
            }
            const cost::StageFold fast = cost::stage_fold(hw, pixels, k, c);
            INFO(rows << "x" << cols << " k " << k << " pixels " << pixels << " c " << c);
            CHECK(fast.fold == brute.fold);
            CHECK(fast.split == brute.split);
          }
}

TEST_CASE("vector stage: element operations over the lanes, rounded up", "[cost]") {
  VectorConfig v;
  v.lanes = 24;
  CHECK(cost::vector_stage_cycles(v, 0) == 0);
  CHECK(cost::vector_stage_cycles(v, 24) == 1);
  CHECK(cost::vector_stage_cycles(v, 25) == 2);
  // A 3x3 max pool row of 56 outputs x 64 channels: 56 * 64 * 9 = 32256 ops / 24 = 1344.
  CHECK(cost::vector_stage_cycles(v, 56 * 64 * 9) == 1344);
}

TEST_CASE("broadcast stage: every coefficient over all rows x cols multipliers, no lockstep",
          "[cost]") {
  const ComputeConfig c = array(4, 8);  // 32 multipliers
  // Non-zeros 5, 7, 1, 2, 3, 1, 2 (21 in all) on 20 pixels: ceil(20 / 32) = 1 cycle each: 21.
  const uint32_t nz[7] = {5, 7, 1, 2, 3, 1, 2};
  CHECK(cost::broadcast_stage_cycles(c, 20, nz, 7) == 21);
  // 33 pixels need two passes of the 32 multipliers: 21 * 2 = 42. (Lockstep on the same
  // array: blocks {5,7,1,2} max 7 and {3,1,2} max 3, times ceil(33 / 8) = 5 passes: 50.)
  CHECK(cost::broadcast_stage_cycles(c, 33, nz, 7) == 42);
  CHECK(cost::zero_skip_stage_cycles(c, 33, nz, 7) == 50);
  // A 1-pixel matmul row: one multiplier busy per coefficient, 21 cycles on any array size.
  CHECK(cost::broadcast_stage_cycles(array(32, 32), 1, nz, 7) == 21);
  // 64 pixels on a 2 x 16 array (32 multipliers): 2 passes; on 16 x 2 the same product.
  CHECK(cost::broadcast_stage_cycles(array(2, 16), 64, nz, 7) == 42);
}

TEST_CASE("vector operators: element and special work per row, worked by hand", "[cost]") {
  // One row of BERT-base scores: 12 heads x 128 keys = 1536 elements.
  const cost::VectorWork softmax = cost::vector_row_work(OpKind::Softmax, 1, 1536, 1);
  CHECK(softmax.element_ops == 4608);
  CHECK(softmax.special_ops == 1536);
  VectorConfig v;  // 32 lanes, 4 special results per cycle
  CHECK(cost::vector_stage_cycles(v, softmax.element_ops) +
            cost::vector_special_cycles(v, softmax.special_ops) ==
        144 + 384);
  // 3 pixels x 7 channels tells pixels from channels: n = 21.
  const cost::VectorWork ln = cost::vector_row_work(OpKind::LayerNorm, 3, 7, 1);
  CHECK(ln.element_ops == 84);
  CHECK(ln.special_ops == 24);  // 21 divisions + 3 roots
  const cost::VectorWork rms = cost::vector_row_work(OpKind::RmsNorm, 3, 7, 1);
  CHECK(rms.element_ops == 63);
  CHECK(rms.special_ops == 24);
  CHECK(cost::vector_row_work(OpKind::Gelu, 3, 7, 1).element_ops == 21);
  CHECK(cost::vector_row_work(OpKind::Silu, 3, 7, 1).special_ops == 0);
  CHECK(cost::vector_row_work(OpKind::Mul, 3, 7, 1).element_ops == 42);
  CHECK(cost::vector_row_work(OpKind::Rope, 3, 7, 1).element_ops == 63);
  // The map operators, 3 pixels x 7 channels with a 2x3 window (6 taps).
  CHECK(cost::vector_row_work(OpKind::MaxPool, 3, 7, 6).element_ops == 126);
  CHECK(cost::vector_row_work(OpKind::GlobalAveragePool, 3, 7, 6).special_ops == 0);
  CHECK(cost::vector_row_work(OpKind::Add, 3, 7, 1).element_ops == 42);
  CHECK(cost::vector_row_work(OpKind::Concat, 3, 7, 1).element_ops == 21);
  // gather: one copy per output element, 3 pixels x 5 picked channels.
  CHECK(cost::vector_row_work(OpKind::Gather, 3, 5, 1).element_ops == 15);
  CHECK(cost::vector_row_work(OpKind::Gather, 3, 5, 1).special_ops == 0);
  // resize: one copy per output element, 6 output pixels of a row x 7 channels.
  CHECK(cost::vector_row_work(OpKind::Resize, 6, 7, 1).element_ops == 42);
  // The array's operators cost the vector unit nothing.
  CHECK(cost::vector_row_work(OpKind::Conv, 3, 7, 6).element_ops == 0);
  v.special_per_cycle = 5;
  CHECK(cost::vector_special_cycles(v, 24) == 5);  // ceil(24 / 5)
  CHECK(cost::vector_special_cycles(v, 25) == 5);
  CHECK(cost::vector_special_cycles(v, 26) == 6);
}

TEST_CASE("register_fed_stage_cycles: seed 001's data register sets on a 5x3 array, worked by hand",
          "[cost]") {
  ComputeConfig c;
  c.array_rows = 5;
  c.array_cols = 3;  // fetch rate defaults to 3 B/cycle, one byte per column
  // 7 pixels = passes of 3, 3 and 1 pixels; 4-byte lowered rows (C*R*S = 4).
  // Fetch: ceil(12 / 3) = 4, 4, ceil(4 / 3) = 2. Array 30 = 10 + 10 + 10.
  CHECK(cost::register_fed_stage_cycles(c, DataRegisters::InPlace, 7, 4, 30) == 30);
  // single: (4 + 10) + (4 + 10) + (2 + 10)
  CHECK(cost::register_fed_stage_cycles(c, DataRegisters::Single, 7, 4, 30) == 40);
  // double: 4 + max(10, 4) + max(10, 2) + max(10, 0): only the first burst shows
  CHECK(cost::register_fed_stage_cycles(c, DataRegisters::Double, 7, 4, 30) == 34);

  // Fetch-bound at 1 B/cycle: bursts 12, 12, 4; array 20 splits 6, 7, 7.
  c.register_fetch_bytes_per_cycle = 1;
  // double: 12 + max(6, 12) + max(7, 4) + max(7, 0)
  CHECK(cost::register_fed_stage_cycles(c, DataRegisters::Double, 7, 4, 20) == 38);
  // single: (12 + 6) + (12 + 7) + (4 + 7)
  CHECK(cost::register_fed_stage_cycles(c, DataRegisters::Single, 7, 4, 20) == 48);

  // Rows and columns are not interchangeable: on a 3x5 array the 7 pixels
  // are 2 passes (5, 2) at 5 B/cycle: bursts 4, ceil(8 / 5) = 2; array 30 = 15 + 15.
  ComputeConfig t;
  t.array_rows = 3;
  t.array_cols = 5;
  CHECK(cost::register_fed_stage_cycles(t, DataRegisters::Single, 7, 4, 30) == 36);
  CHECK(cost::register_fed_stage_cycles(t, DataRegisters::Double, 7, 4, 30) == 34);
}
