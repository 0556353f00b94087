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

// The graph's file, written once.
const std::string& banked_graph() {
  static const std::string graph = test::write_temp_file("banked.json", kBankedGraph);
  return graph;
}

// Runs the graph through the CLI (one simulation per process) with `sets`,
// requires it bit-exact, and returns report.json's totals.
nlohmann::json run_banked(const std::string& sets) {
  const nlohmann::json report = test::run_report("run " + banked_graph() + " " + sets);
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

TEST_CASE(
    "banked DRAM: report.json's channels split the run's bytes, activates and row hits, and a "
    "layer's GB/s is its DRAM bytes over its time",
    "[dram]") {
  const std::string& graph = banked_graph();
  const nlohmann::json report = test::run_report("run " + graph + " --set dram.preset=lpddr5_6400");
  const nlohmann::json& dram = report["dram"];
  REQUIRE(dram["model"] == "banked");
  REQUIRE(dram["channels"].size() == 4);
  uint64_t read = 0, written = 0, activates = 0, hits = 0, conflicts = 0;
  for (const nlohmann::json& c : dram["channels"]) {
    CHECK(c["read_bytes"].get<uint64_t>() > 0);  // the interleaving reaches every channel
    read += c["read_bytes"].get<uint64_t>();
    written += c["write_bytes"].get<uint64_t>();
    activates += c["activates"].get<uint64_t>();
    hits += c["row_hits"].get<uint64_t>();
    conflicts += c["row_conflicts"].get<uint64_t>();
    CHECK(c["busy_cycles"].get<uint64_t>() <= report["totals"]["cycles"].get<uint64_t>());
  }
  const nlohmann::json& t = report["totals"];
  CHECK(read == bank_counter(t, "dram.read_bytes"));
  CHECK(written == bank_counter(t, "dram.write_bytes"));
  CHECK(activates == bank_counter(t, "dram.activates"));
  CHECK(hits == bank_counter(t, "dram.row_hits"));
  CHECK(conflicts == bank_counter(t, "dram.row_conflicts"));
  // LPDDR5-6400, 4 x 16 bit: 51.2 GB/s; a stream sustains less, refresh taking 7.2 %.
  CHECK(dram["peak_gbps"].get<double>() == Approx(51.2));
  CHECK(dram["sustained_gbps"].get<double>() < 51.2 * (1 - 224.0 / 3124.0));
  CHECK(dram["sustained_gbps"].get<double>() > 0.9 * 51.2 * (1 - 224.0 / 3124.0));
  for (const nlohmann::json& l : report["layers"]) {
    INFO(l["name"]);
    const double bytes = double(l["counters"]["dram.read_bytes"].get<uint64_t>() +
                                l["counters"]["dram.write_bytes"].get<uint64_t>());
    // At the default 1000 MHz a cycle is a nanosecond: bytes per cycle are GB/s.
    const double gbps = bytes / l["cycles"].get<double>();
    CHECK(l["dram_gbps"].get<double>() == Approx(gbps));
    CHECK(l["dram_peak_share"].get<double>() == Approx(gbps / 51.2));
  }
}

TEST_CASE("banked DRAM: the summary gives the channels' spread, and --wide a row per channel",
          "[dram]") {
  const std::string& graph = banked_graph();
  const test::CliResult r =
      test::run_cli("run " + graph + " --timing-only --wide --set dram.preset=lpddr5_6400");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Matches(
                        "[\\s\\S]*\nDRAM channels    : 4, [^\n]* each; busiest data bus [0-9.]+ "
                        "% of the run, refresh "
                        "[0-9.]+ %; a long read stream sustains 47.0 GB/s \\(91.8 % of peak\\)\n"
                        "channel +read +written +busy% +activates +row hit% +conflicts +"
                        "refreshes\n0 [^\n]*\n1 [^\n]*\n2 [^\n]*\n3 [^\n]*\n[\\s\\S]*"));
  const test::CliResult bus = test::run_cli("run " + graph + " --timing-only --wide");
  REQUIRE(bus.exit_code == 0);
  CHECK(bus.out.find("DRAM channels") == std::string::npos);
}
