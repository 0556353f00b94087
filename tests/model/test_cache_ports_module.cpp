// Single-module tests (the `model` tier): the internal cache's ports (models/internal_cache.h,
// models/port_calendar.h) driven by a scripted initiator, cycles worked by hand. An access of
// `bytes` holds one port for ceil(bytes / port_bytes_per_cycle) cycles; as many accesses run at
// once as there are ports, or fewer when the banks cannot feed them
// (min(ports, banks * bank_bytes_per_cycle / port_bytes_per_cycle)); each takes the earliest
// gap that starts no earlier than it asks, before later bookings when it fits.
#include <catch2/catch.hpp>
#include <systemc>
#include <vector>

#include "models/internal_cache.h"
#include "models/sim_time.h"

using namespace npusim;

namespace {

// One access asked at cycle `at`, for a slot from `earliest`.
struct CacheRequest {
  uint64_t at = 0;
  uint64_t bytes = 0;
  uint64_t earliest = 0;
};

class CacheInitiator : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(CacheInitiator);
  CacheInitiator(sc_core::sc_module_name name, CacheIf& cache, std::vector<CacheRequest> script)
      : sc_module(name), cache_(cache), script_(std::move(script)) {
    SC_THREAD(run);
  }
  std::vector<Grant> grants;

 private:
  void run() {
    for (const CacheRequest& r : script_) {
      wait_until_cycle(r.at);
      grants.push_back(cache_.access(0, false, r.bytes, r.earliest));
    }
  }
  CacheIf& cache_;
  std::vector<CacheRequest> script_;
};

Program one_layer() {
  Program p;
  LayerDescriptor d;
  d.N = 1, d.K = 8, d.out_h = 4, d.out_w = 4;
  p.layers.push_back(d);
  return p;
}

}  // namespace

TEST_CASE(
    "cache ports module: two ports at 64 B per cycle serve two accesses at once and the third "
    "waits for the first free port",
    "[model]") {
  // 8 banks x 16 B/cycle = 128 B/cycle: both ports can stream at once.
  const HardwareConfig hw = parse_hardware_config(
      {{"cache",
        {{"ports", 2}, {"port_bytes_per_cycle", 64}, {"banks", 8}, {"bank_bytes_per_cycle", 16}}}},
      "<test>");
  const Program program = one_layer();
  StatsRegistry stats(1);
  Timeline timeline;
  InternalCache cache("cache", hw, program, stats, timeline);
  // 128 B: 2 cycles on each port, [0, 2) twice; 64 B: 1 cycle, [2, 3) (2 cycles of stall);
  // 100 B at 5: 2 cycles, [5, 7).
  CacheInitiator a("a", cache, {{0, 128, 0}, {0, 128, 0}, {0, 64, 0}, {5, 100, 5}});
  sc_core::sc_start();
  REQUIRE(a.grants.size() == 4);
  CHECK(a.grants[0].start == 0);
  CHECK(a.grants[0].end == 2);
  CHECK(a.grants[1].start == 0);
  CHECK(a.grants[1].end == 2);
  CHECK(a.grants[2].start == 2);
  CHECK(a.grants[2].end == 3);
  CHECK(a.grants[3].start == 5);
  CHECK(a.grants[3].end == 7);
  CHECK(stats.get("stall.cache_port_cycles").at(0) == 2);
  CHECK(stats.get("cache.read_bytes").at(0) == 128 + 128 + 64 + 100);
}

TEST_CASE(
    "cache ports module: banks that feed only one port serialise two ports, and an access "
    "asked later takes a gap before a booking made ahead when it fits",
    "[model]") {
  // 1 bank x 64 B/cycle feeds one 64 B/cycle port: one access at a time despite 2 ports.
  const HardwareConfig hw = parse_hardware_config(
      {{"cache",
        {{"ports", 2}, {"port_bytes_per_cycle", 64}, {"banks", 1}, {"bank_bytes_per_cycle", 64}}}},
      "<test>");
  const Program program = one_layer();
  StatsRegistry stats(1);
  Timeline timeline;
  InternalCache cache("cache", hw, program, stats, timeline);
  // A load books its write ahead for when its data arrives: 128 B from 10, [10, 12). Then a
  // 64 B read from 0 fits before it, [0, 1); a second from 0 waits for the one port, [1, 2);
  // 640 B (10 cycles) from 5 does not fit the gap [5, 10), so it goes after the booking,
  // [12, 22), 7 cycles of stall.
  CacheInitiator a("a", cache, {{0, 128, 10}, {0, 64, 0}, {0, 64, 0}, {0, 640, 5}});
  sc_core::sc_start();
  REQUIRE(a.grants.size() == 4);
  CHECK(a.grants[0].start == 10);
  CHECK(a.grants[0].end == 12);
  CHECK(a.grants[1].start == 0);
  CHECK(a.grants[1].end == 1);
  CHECK(a.grants[2].start == 1);
  CHECK(a.grants[2].end == 2);
  CHECK(a.grants[3].start == 12);
  CHECK(a.grants[3].end == 22);
  CHECK(stats.get("stall.cache_port_cycles").at(0) == 1 + 7);
}
