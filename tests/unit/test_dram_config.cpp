// The dram section's banked keys (docs/dram.md): a preset fills the device and
// switches to the banked model, keys beside it override, the bus figures the
// rest of the simulator reads follow the device, and bad values are refused
// at their key.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/cli/workload_options.h"
#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "tests/support/test_support.h"

using nlohmann::json;
using namespace npusim;
using npusim::test::config_error_from;

namespace {
ConfigError dram_error(const json& dram) {
  return config_error_from([&] { parse_hardware_config({{"dram", dram}}, "hw.json"); });
}
}  // namespace

TEST_CASE("dram config: without a dram section the memory is the ideal bus at 32 B/cycle",
          "[config][dram]") {
  const HardwareConfig hw = parse_hardware_config(json::object(), "hw.json");
  CHECK(hw.dram.model == DramModel::Bus);
  CHECK(hw.dram.bytes_per_cycle == 32);
  CHECK(hw.dram.burst_bytes == 64);
}

TEST_CASE(
    "dram config: a preset alone means the banked model, with the bus figures from its device",
    "[config][dram]") {
  const HardwareConfig hw = parse_hardware_config({{"dram", {{"preset", "ddr4_3200"}}}}, "hw.json");
  CHECK(hw.dram.model == DramModel::Banked);
  CHECK(hw.dram.device.label == "DDR4-3200");
  // One 64-bit channel at 3200 MT/s: 25.6 GB/s, 25.6 B per 1 GHz cycle, rounded to 26;
  // bursts of 8 beats of 8 bytes.
  CHECK(hw.dram.bytes_per_cycle == 26);
  CHECK(hw.dram.burst_bytes == 64);
}

TEST_CASE("dram config: keys beside a preset override its fields, whatever their order in the file",
          "[config][dram]") {
  const HardwareConfig hw = parse_hardware_config(
      json::parse(R"({"clock_mhz": 800, "dram": {"channels": 4, "preset": "ddr4_3200"}})"),
      "hw.json");
  CHECK(hw.dram.device.channels == 4);
  // 4 x 25.6 GB/s = 102.4 GB/s at 800 MHz: 128 B/cycle.
  CHECK(hw.dram.bytes_per_cycle == 128);
}

TEST_CASE("dram config: a bus bandwidth given as a rate is converted at the clock",
          "[config][dram]") {
  // 34 GB/s at 700 MHz: 34e9 / 700e6 = 48.571428... B a cycle, kept fractional.
  const HardwareConfig tpu = parse_hardware_config(
      {{"clock_mhz", 700}, {"dram", {{"bytes_per_cycle", "34 GB/s"}}}}, "hw.json");
  CHECK(tpu.dram.bytes_per_cycle == Approx(48.5714285714).epsilon(1e-9));
  // The same rate at 1 GHz is 34 B a cycle; 500 MB/s is half a byte; 1.2 TB/s at 2 GHz 600.
  CHECK(parse_hardware_config({{"dram", {{"bytes_per_cycle", "34 GB/s"}}}}, "hw.json")
            .dram.bytes_per_cycle == 34);
  CHECK(parse_hardware_config({{"dram", {{"bytes_per_cycle", "500 MB/s"}}}}, "hw.json")
            .dram.bytes_per_cycle == 0.5);
  CHECK(parse_hardware_config({{"clock_mhz", 2000}, {"dram", {{"bytes_per_cycle", "1.2 TB/s"}}}},
                              "hw.json")
            .dram.bytes_per_cycle == 600);
  // A plain number may be fractional too; a whole one is written back as an integer.
  CHECK(parse_hardware_config({{"dram", {{"bytes_per_cycle", 12.5}}}}, "hw.json")
            .dram.bytes_per_cycle == 12.5);
  CHECK(to_json(tpu)["dram"]["bytes_per_cycle"].get<double>() == tpu.dram.bytes_per_cycle);
  CHECK(to_json(parse_hardware_config(json::object(), "hw.json"))["dram"]["bytes_per_cycle"]
            .is_number_unsigned());
}

TEST_CASE("dram config: a bandwidth with an unknown unit or out of range is refused at its key",
          "[config][dram]") {
  const ConfigError unit = dram_error({{"bytes_per_cycle", "34 GBps"}});
  CHECK(unit.pointer() == "/dram/bytes_per_cycle");
  CHECK(unit.expected().find("\"34 GB/s\"") != std::string::npos);
  CHECK(unit.found() == "string \"34 GBps\"");
  // 100 TB/s at 1 GHz is 100000 B a cycle, above 65536: the error shows the conversion.
  const ConfigError big = dram_error({{"bytes_per_cycle", "100 TB/s"}});
  CHECK(big.found() == "string \"100 TB/s\" = 100000 B/cycle at 1000 MHz");
  CHECK(dram_error({{"bytes_per_cycle", 0}}).pointer() == "/dram/bytes_per_cycle");
  CHECK(dram_error({{"bytes_per_cycle", true}}).pointer() == "/dram/bytes_per_cycle");
}

TEST_CASE("dram config: a preset selects the banked model even where the file says bus",
          "[config][dram]") {
  const HardwareConfig hw =
      parse_hardware_config({{"dram", {{"preset", "hbm3"}, {"model", "bus"}}}}, "hw.json");
  CHECK(hw.dram.model == DramModel::Banked);
  CHECK(hw.dram.device.label == "HBM3");
}

TEST_CASE(
    "dram config: a bus config written out leaves the device keys out, and a preset added "
    "to it is refused at the bus figure it contradicts",
    "[config][dram]") {
  nlohmann::json j = to_json(parse_hardware_config(json::object(), "hw.json"));
  CHECK(j["dram"].find("channels") == j["dram"].end());
  CHECK(j["dram"].find("preset") == j["dram"].end());
  j["dram"]["preset"] = "hbm3";
  const ConfigError e = config_error_from([&] { parse_hardware_config(j, "hw.json"); });
  CHECK(e.pointer() == "/dram/bytes_per_cycle");
  // HBM3, one stack: 819.2 GB/s, 819 B per 1 GHz cycle.
  CHECK(e.expected().find("819 or nothing") == 0);
}

TEST_CASE("dram config: --set dram.preset on the built-in defaults gives that memory",
          "[config][dram]") {
  cli::WorkloadOptions options;
  options.overrides = {"dram.preset=hbm3", "dram.channels=64"};
  const HardwareConfig hw = cli::resolve_hardware(options, {}, nullptr, "");
  CHECK(hw.dram.model == DramModel::Banked);
  CHECK(hw.dram.device.label == "HBM3");
  CHECK(hw.dram.device.channels == 64);
  CHECK(hw.dram.bytes_per_cycle == 1638);  // 2 x 819.2 GB/s at 1 GHz
}

TEST_CASE("dram config: a banked config written out reads back the same", "[config][dram]") {
  const HardwareConfig hw = parse_hardware_config(
      {{"dram", {{"preset", "hbm2e"}, {"channels", 32}, {"page_policy", "closed"}}}}, "hw.json");
  const HardwareConfig again = parse_hardware_config(to_json(hw), "again.json");
  CHECK(to_json(again) == to_json(hw));
  CHECK(again.dram.device.channels == 32);
  CHECK(again.dram.page_policy == PagePolicy::Closed);
}

TEST_CASE("dram config: an unknown preset is refused at its key, naming every preset",
          "[config][dram]") {
  const ConfigError e = dram_error({{"preset", "ddr3"}});
  CHECK(e.pointer() == "/dram/preset");
  CHECK(e.expected().find("hbm3") != std::string::npos);
  CHECK(e.expected().find("lpddr5_6400") != std::string::npos);
}

TEST_CASE("dram config: a mapping that misses, repeats or misplaces a field is refused",
          "[config][dram]") {
  CHECK(dram_error({{"model", "banked"}, {"mapping", "row:bank:column:channel"}}).found() ==
        "\"row:bank:column:channel\": 4 of the 6 fields");
  CHECK(
      dram_error({{"model", "banked"}, {"mapping", "row:bank:bank:column:channel:rank"}}).found() ==
      "\"row:bank:bank:column:channel:rank\": \"bank\" twice");
  CHECK(dram_error({{"model", "banked"}, {"mapping", "bank:row:rank:bankgroup:column:channel"}})
            .found() == "\"bank:row:rank:bankgroup:column:channel\": row is not first");
  CHECK(dram_error({{"mapping", "row:rank:bank:column:bankgroup:chan"}}).pointer() ==
        "/dram/mapping");
}

TEST_CASE("dram config: geometry the mapping cannot split into bits is refused at its key",
          "[config][dram]") {
  const ConfigError channels = dram_error({{"preset", "ddr4_3200"}, {"channels", 3}});
  CHECK(channels.pointer() == "/dram/channels");
  CHECK(channels.found() == "3");
  const ConfigError burst = dram_error({{"preset", "ddr4_3200"}, {"burst_length", 3}});
  CHECK(burst.pointer() == "/dram/burst_length");
  const ConfigError refresh = dram_error({{"preset", "ddr4_3200"}, {"trfc", 20000}});
  CHECK(refresh.pointer() == "/dram/trfc");
}

TEST_CASE("dram config: a bus figure that contradicts the banked device is refused, not ignored",
          "[config][dram]") {
  const ConfigError e = dram_error({{"preset", "ddr4_3200"}, {"bytes_per_cycle", 64}});
  CHECK(e.pointer() == "/dram/bytes_per_cycle");
  CHECK(e.found() == "64");
  CHECK(e.expected().find("26 or nothing") == 0);
}
