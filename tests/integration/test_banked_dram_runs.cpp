// Whole runs on the banked DRAM (docs/dram.md): every preset runs a graph
// bit-exact and fills the bank counters; more channels make a memory-bound
// layer faster; no run moves its bytes faster than the memory's peak; an
// open page hits rows that a closed page must activate again.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/config/dram_device.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

// Conv 3x3 (12 x 20 map: rows differ from columns), two branches and an add.
const char* kBankedGraph = R"({"name": "banked",
  "inputs": [{"name": "x", "shape": [1, 8, 12, 20], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "c1", "op": "conv", "inputs": ["x"], "output": "a", "K": 40, "kernel": 3, "pads": 1,
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

// Runs the graph through the CLI (one simulation per process) with `sets`,
// requires it bit-exact, and returns report.json's totals.
nlohmann::json run_banked(const std::string& sets) {
  static const std::string graph = test::write_temp_file("banked.json", kBankedGraph);
  const nlohmann::json report = test::run_report("run " + graph + " " + sets);
  REQUIRE(report["totals"]["all_layers_match"] == true);
  return report["totals"];
}

uint64_t bank_counter(const nlohmann::json& totals, const char* name) {
  return totals["counters"][name].get<uint64_t>();
}

}  // namespace

TEST_CASE("banked DRAM: every preset runs a graph bit-exact, its bytes in activated rows",
          "[dram]") {
  for (const DramPreset& preset : dram_presets()) {
    INFO(preset.name);
    const nlohmann::json t = run_banked("--set dram.preset=" + preset.name);
    const uint64_t bursts = bank_counter(t, "dram.row_hits") + bank_counter(t, "dram.row_misses") +
                            bank_counter(t, "dram.row_conflicts");
    // Every byte moved is a burst of the device's, and every burst found or opened a row.
    CHECK(bursts * preset.device.burst_bytes() ==
          bank_counter(t, "dram.read_bytes") + bank_counter(t, "dram.write_bytes"));
    CHECK(bank_counter(t, "dram.activates") > 0);
    CHECK(bank_counter(t, "dram.activates") ==
          bank_counter(t, "dram.row_misses") + bank_counter(t, "dram.row_conflicts"));
  }
}

TEST_CASE("banked DRAM: no run moves its bytes faster than the channels' peak", "[dram]") {
  for (const char* preset : {"ddr4_3200", "lpddr5_6400", "hbm3"}) {
    INFO(preset);
    const nlohmann::json t = run_banked(std::string("--set dram.preset=") + preset);
    const double bytes =
        double(bank_counter(t, "dram.read_bytes") + bank_counter(t, "dram.write_bytes"));
    const double seconds = t["cycles"].get<double>() / 1e9;  // the default 1000 MHz clock
    CHECK(bytes / seconds < find_dram_preset(preset)->device.peak_bytes_per_second());
  }
}

TEST_CASE("banked DRAM: four channels run a memory-bound graph faster than one", "[dram]") {
  const nlohmann::json one = run_banked("--set dram.preset=ddr4_3200 --set dram.channels=1");
  const nlohmann::json four = run_banked("--set dram.preset=ddr4_3200 --set dram.channels=4");
  CHECK(four["cycles"].get<uint64_t>() < one["cycles"].get<uint64_t>());
}

TEST_CASE("banked DRAM: the closed page policy activates once per burst, the open one far less",
          "[dram]") {
  const nlohmann::json open = run_banked("--set dram.preset=ddr4_3200");
  const nlohmann::json closed =
      run_banked("--set dram.preset=ddr4_3200 --set dram.page_policy=closed");
  CHECK(bank_counter(closed, "dram.row_hits") == 0);
  CHECK(bank_counter(closed, "dram.activates") ==
        (bank_counter(closed, "dram.read_bytes") + bank_counter(closed, "dram.write_bytes")) / 64);
  CHECK(bank_counter(open, "dram.activates") * 4 < bank_counter(closed, "dram.activates"));
}
