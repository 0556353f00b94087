// A whole network's DRAM traffic, as the banked model served it, replayed
// through the command-level reference controller (tests/support/
// dram_command_model.h): each transfer's bursts arrive when the engine asked
// for them. Open loop: the arrival times are the fast model's run's, so this
// measures the memory's error on real traffic, not the feedback of that error
// on the engines. NPUSIM_PRINT_DRAM_ERRORS=1 prints the figures docs/dram.md
// quotes.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "sim/runner/runner.h"
#include "tests/support/dram_command_model.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

// Conv 3x3 on a 24 x 40 map (rows differ from columns), two branches and an add.
const char* kNetworkGraph = R"({"name": "replayed",
  "inputs": [{"name": "x", "shape": [1, 16, 24, 40], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "c1", "op": "conv", "inputs": ["x"], "output": "a", "K": 64, "kernel": 3, "pads": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.04, "zero_point": 10}},
    {"name": "c2", "op": "conv", "inputs": ["a"], "output": "b", "K": 32, "kernel": 3, "pads": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 3}},
    {"name": "c3", "op": "conv", "inputs": ["a"], "output": "c", "K": 32, "kernel": 1,
     "weights": {"dtype": "int8", "scale": 0.01, "zero_point": 0},
     "out": {"dtype": "uint8", "scale": 0.05, "zero_point": 5}},
    {"name": "sum", "op": "add", "inputs": ["b", "c"], "output": "y",
     "out": {"dtype": "uint8", "scale": 0.06, "zero_point": 7}}
  ]})";

struct Replay {
  uint64_t transfers = 0;
  double fast_busy = 0, reference_busy = 0;  // summed request-to-last-data, command clocks
  uint64_t fast_end = 0, reference_end = 0;  // the last data of the run, command clocks
};

Replay replay(const char* preset, uint32_t write_queue = 0) {
  HardwareConfig hw = parse_hardware_config(
      {{"dram", {{"preset", preset}, {"write_queue", write_queue}}}}, "<test>");
  hw.trial_mode = TrialMode::Off;
  RunOptions options;
  options.progress = false;
  options.timing_only = true;
  options.record_dram_transfers = true;
  const auto r = run_network(test::workload(kNetworkGraph), hw, options);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  const DramDevice& d = hw.dram.device;
  const double clocks_per_cycle = d.clock_mhz / hw.clock_mhz;
  const auto clocks = [&](uint64_t cycles) {
    return uint64_t(std::ceil(double(cycles) * clocks_per_cycle - 1e-9));
  };
  std::vector<test::RefRequest> requests;
  std::vector<size_t> first_request;  // per transfer
  const uint32_t burst = d.burst_bytes();
  for (const DramTransferRecord& t : r->dram_transfers) {
    first_request.push_back(requests.size());
    const uint64_t stride = t.access.stride ? t.access.stride : t.access.segment_bytes;
    uint64_t previous = ~uint64_t(0);
    for (uint64_t s = 0; s < t.access.segments && t.access.segment_bytes > 0; ++s) {
      const uint64_t a = t.access.address + s * stride;
      for (uint64_t b = a / burst; b <= (a + t.access.segment_bytes - 1) / burst; ++b)
        if (b != previous)
          requests.push_back({b * burst, t.write, clocks(t.requested)}), previous = b;
    }
  }
  first_request.push_back(requests.size());
  const auto ref = test::simulate_commands(d, test::RefPagePolicy::Open, hw.dram.mapping, requests,
                                           32, false, hw.dram.write_queue);
  Replay out;
  for (size_t i = 0; i < r->dram_transfers.size(); ++i) {
    const DramTransferRecord& t = r->dram_transfers[i];
    if (first_request[i] == first_request[i + 1]) continue;
    uint64_t end = 0;
    for (size_t q = first_request[i]; q < first_request[i + 1]; ++q)
      end = std::max(end, ref.data_end[q]);
    ++out.transfers;
    out.reference_busy += double(end - clocks(t.requested));
    // A held write's data reaches the DRAM at `written`, after its grant.
    out.fast_busy += double(clocks(t.written) - clocks(t.requested));
    out.reference_end = std::max(out.reference_end, end);
    out.fast_end = std::max(out.fast_end, clocks(t.written));
  }
  if (std::getenv("NPUSIM_PRINT_DRAM_ERRORS"))
    std::printf(
        "| %s%s | %llu | %+.1f %% | %+.1f %% |\n", preset,
        write_queue > 0 ? (", write queue " + std::to_string(write_queue)).c_str() : "",
        (unsigned long long)out.transfers,
        100.0 * (out.fast_busy - out.reference_busy) / out.reference_busy,
        100.0 * (double(out.fast_end) - double(out.reference_end)) / double(out.reference_end));
  return out;
}

// Transfer times (request to last data, summed) within `busy` of the
// reference's, the run's last data within 5 percent.
void check_replay(const Replay& r, double busy) {
  REQUIRE(r.transfers > 50);
  CHECK(std::fabs(r.fast_busy - r.reference_busy) < busy * r.reference_busy);
  CHECK(std::fabs(double(r.fast_end) - double(r.reference_end)) < 0.05 * double(r.reference_end));
}

}  // namespace

TEST_CASE(
    "banked DRAM replayed through the reference: DDR4-3200's transfer times agree within "
    "5 percent over a network",
    "[dram]") {
  check_replay(replay("ddr4_3200"), 0.05);
}

TEST_CASE(
    "banked DRAM replayed through the reference: HBM3's transfer times agree within 5 "
    "percent over a network",
    "[dram]") {
  check_replay(replay("hbm3"), 0.05);
}

// Both with a 32-burst write queue per channel: the fast model places held
// writes at the earliest clock they fit, so their data lands sooner than the
// reference's; the bound is the measured gap (DDR4-3200 -9.3 %), rounded up.
TEST_CASE(
    "banked DRAM replayed through the reference, both with a write queue: DDR4-3200's transfer "
    "times agree within 10 percent over a network, the run's last data within 5",
    "[dram]") {
  check_replay(replay("ddr4_3200", 32), 0.10);
}

TEST_CASE(
    "banked DRAM replayed through the reference, both with a write queue: HBM3's transfer times "
    "agree within 10 percent over a network, the run's last data within 5",
    "[dram]") {
  check_replay(replay("hbm3", 32), 0.10);
}
