// Single-module tests (the `model` tier): one SystemC module driven by a scripted initiator,
// its cycles worked out by hand. Here the shared DRAM bus (models/dram.h, dram.model bus): whole
// bursts, first come first served, the bus held only while data moves; each transfer's data
// cycles are its burst bytes over bytes_per_cycle, rounded up per transfer.
#include <catch2/catch.hpp>
#include <systemc>
#include <vector>

#include "models/dram.h"
#include "models/sim_time.h"

using namespace npusim;

namespace {

// One scripted request: at cycle `at`, move `access` for `layer`.
struct Request {
  uint64_t at = 0;
  uint32_t layer = 0;
  bool write = false;
  DramAccess access;
};

// An initiator that issues its script in order, each request at its cycle (or as soon as the
// one before it was issued), and keeps the grants.
class Initiator : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Initiator);
  Initiator(sc_core::sc_module_name name, DramIf& dram, std::vector<Request> script)
      : sc_module(name), dram_(dram), script_(std::move(script)) {
    SC_THREAD(run);
  }
  std::vector<Grant> grants;

 private:
  void run() {
    for (const Request& r : script_) {
      wait_until_cycle(r.at);
      grants.push_back(dram_.transfer(r.layer, r.write, r.access));
    }
  }
  DramIf& dram_;
  std::vector<Request> script_;
};

// A program of two layers (the counters' rows); no image.
Program two_layers() {
  Program p;
  for (int l = 0; l < 2; ++l) {
    LayerDescriptor d;
    d.N = 1, d.K = 8, d.out_h = 4, d.out_w = 4;
    p.layers.push_back(d);
  }
  return p;
}

DramAccess contiguous(uint64_t address, uint64_t bytes) { return {address, 1, bytes, 0}; }

}  // namespace

TEST_CASE(
    "DRAM bus module: a request arriving while the bus moves another waits for it, whole bursts "
    "counted, and the stall and busy cycles add up by hand",
    "[model]") {
  DramConfig config;  // bus, 32 B/cycle, 64 B bursts
  config.bytes_per_cycle = 32;
  config.burst_bytes = 64;
  const Program program = two_layers();
  StatsRegistry stats(2);
  Timeline timeline;
  Dram dram("dram", config, 1000, program, stats, timeline, /*with_image=*/false);
  // A: 256 B at 0 -> 4 bursts, 8 cycles: [0, 8). Then 3 segments of 10 B, 100 B apart, written
  // at 20 -> 3 whole bursts, 192 B, 6 cycles: [20, 26).
  Initiator a("a", dram,
              {{0, 0, false, contiguous(0, 256)}, {20, 0, true, DramAccess{4096, 3, 10, 100}}});
  // B: 100 B at 2 -> 2 bursts, 4 cycles, behind A's: [8, 12), 6 cycles of stall.
  Initiator b("b", dram, {{2, 1, false, contiguous(8192, 100)}});
  sc_core::sc_start();
  REQUIRE(a.grants.size() == 2);
  REQUIRE(b.grants.size() == 1);
  CHECK(a.grants[0].start == 0);
  CHECK(a.grants[0].end == 8);
  CHECK(b.grants[0].start == 8);
  CHECK(b.grants[0].end == 12);
  CHECK(a.grants[1].start == 20);
  CHECK(a.grants[1].end == 26);
  CHECK(stats.get("dram.read_bytes").at(0) == 256);
  CHECK(stats.get("dram.read_bytes").at(1) == 128);
  CHECK(stats.get("dram.write_bytes").at(0) == 192);
  CHECK(stats.get("dram.bus_busy_cycles").total() == 8 + 4 + 6);
  CHECK(stats.get("stall.bus_cycles").at(1) == 6);
  CHECK(stats.get("stall.bus_cycles").at(0) == 0);
}

TEST_CASE(
    "DRAM bus module: at a fractional 48 B per cycle each transfer rounds its data cycles up, so "
    "two one-burst reads take 4 cycles where one two-burst read takes 3",
    "[model]") {
  DramConfig config;
  config.bytes_per_cycle = 48;  // 34 GB/s at 700 MHz, as a GB/s figure gives it
  config.burst_bytes = 64;
  const Program program = two_layers();
  StatsRegistry stats(2);
  Timeline timeline;
  Dram dram("dram", config, 700, program, stats, timeline, /*with_image=*/false);
  // 64 B / 48 = 1.33 -> 2 cycles each: [0, 2) and [2, 4). 128 B / 48 = 2.67 -> 3 cycles:
  // [10, 13). 65 B -> 2 bursts, 128 B: [20, 23).
  Initiator a("a", dram,
              {{0, 0, false, contiguous(0, 64)},
               {1, 0, false, contiguous(64, 64)},
               {10, 1, false, contiguous(128, 128)},
               {20, 1, false, contiguous(256, 65)}});
  sc_core::sc_start();
  REQUIRE(a.grants.size() == 4);
  CHECK(a.grants[0].start == 0);
  CHECK(a.grants[0].end == 2);
  CHECK(a.grants[1].start == 2);
  CHECK(a.grants[1].end == 4);
  CHECK(a.grants[2].start == 10);
  CHECK(a.grants[2].end == 13);
  CHECK(a.grants[3].start == 20);
  CHECK(a.grants[3].end == 23);
  CHECK(stats.get("stall.bus_cycles").at(0) == 1);  // the second read waited from 1 to 2
  CHECK(stats.get("dram.read_bytes").at(1) == 256);
}
