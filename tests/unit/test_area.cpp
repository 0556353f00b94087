// The area and leakage formulas (sim/report/area.h, leakage_pj in
// sim/report/energy.h) against numbers worked by hand, and the hardware
// config's "area" section.
#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/report/area.h"
#include "sim/report/energy.h"
#include "tests/support/test_support.h"

using nlohmann::json;
using namespace npusim;

namespace {

double mm2(const HardwareConfig& hw, const char* component) {
  return estimate_area(hw).at(component).mm2;
}

}  // namespace

TEST_CASE("area: the default hardware is the docs/area.md example, 11.734595 mm2 and 54.91595 mW",
          "[area]") {
  const HardwareConfig hw;
  const AreaEstimate a = estimate_area(hw);
  // 32 x 32 MACs of 419 + 274 um2.
  CHECK(a.at("mac_array").mm2 == Approx(0.709632));
  // 64 KiB, 2 ports, 1 bank: 0.0625 * 4.84 * 1.5 + 0.01.
  CHECK(a.at("accumulators").mm2 == Approx(0.46375));
  // 1 MiB, 2 ports, 8 banks: 4.84 * 1.5 + 8 * 0.01.
  CHECK(a.at("cache").mm2 == Approx(7.34));
  CHECK(a.at("vector_unit").mm2 == Approx(0.013408));        // 32 lanes * 419 um2
  CHECK(a.at("address_generator").mm2 == Approx(0.007805));  // 2 * 1881 + 4043 um2
  CHECK(a.at("dram_interface").mm2 == Approx(3.2));          // 32 B * 1000 MHz = 32 GB/s * 0.1
  CHECK(a.total_mm2() == Approx(11.734595));
  // Logic 3.930845 mm2 at 10 mW/mm2, SRAM 7.80375 mm2 at 2 mW/mm2.
  CHECK(a.at("mac_array").leakage_mw == Approx(7.09632));
  CHECK(a.at("cache").leakage_mw == Approx(14.68));
  CHECK(a.leakage_mw() == Approx(39.30845 + 15.6075));
  CHECK(a.components.size() == 6);
  CHECK_THROWS_AS(a.at("controller"), std::out_of_range);
}

TEST_CASE("area: each component follows its formula on a non-square array with odd sizes",
          "[area]") {
  HardwareConfig hw;
  hw.compute.units = 3;
  hw.compute.array_rows = 7;
  hw.compute.array_cols = 5;
  hw.compute.accumulator_kib = 3;
  hw.cache.size_kib = 1536;
  hw.cache.banks = 3;
  hw.cache.ports = 3;
  hw.vector.lanes = 11;
  hw.buffering = Buffering::Single;
  hw.dram.bytes_per_cycle = 24;
  hw.clock_mhz = 750;
  AreaEstimate a = estimate_area(hw);
  CHECK(a.at("mac_array").mm2 == Approx(105 * 693e-6));  // 3 * 7 * 5 MACs
  // Per unit: 3/1024 MiB * 4.84 * (1 + 0.5) + one bank's 0.01.
  CHECK(a.at("accumulators").mm2 == Approx(3 * (3.0 / 1024 * 4.84 * 1.5 + 0.01)));
  CHECK(a.at("cache").mm2 == Approx(1.5 * 4.84 * 2.0 + 3 * 0.01));  // 3 ports: 1 + 2 * 0.5
  CHECK(a.at("vector_unit").mm2 == Approx(11 * 419e-6));
  CHECK(a.at("address_generator").mm2 == Approx((1881 + 4043) * 1e-6));  // one register set
  CHECK(a.at("dram_interface").mm2 == Approx(1.8));                      // 24 B * 750 MHz = 18 GB/s
  CHECK(dram_gbps(hw) == Approx(18));
  CHECK(a.at("dram_interface").leakage_mw == Approx(18));  // logic: 10 mW/mm2
  CHECK(a.at("cache").leakage_mw == Approx(14.55 * 2));    // SRAM: 2 mW/mm2

  // Every figure is the config's: set each one and the components follow.
  hw.area.mac_um2 = 100;
  hw.area.binary_lane_um2 = 0;  // an int8-only array
  hw.area.sram_mm2_per_mib = 2;
  hw.area.sram_port_overhead = 0.25;
  hw.area.sram_bank_mm2 = 0.5;
  hw.area.vector_lane_um2 = 1000;
  hw.area.agu_register_set_um2 = 3000;
  hw.area.agu_logic_um2 = 0;
  hw.area.dram_mm2_per_gbps = 0.5;
  hw.area.logic_leakage_mw_per_mm2 = 4;
  hw.area.sram_leakage_mw_per_mm2 = 1;
  a = estimate_area(hw);
  CHECK(a.at("mac_array").mm2 == Approx(105 * 100e-6));
  CHECK(a.at("accumulators").mm2 == Approx(3 * (3.0 / 1024 * 2 * 1.25 + 0.5)));
  CHECK(a.at("cache").mm2 == Approx(1.5 * 2 * 1.5 + 3 * 0.5));
  CHECK(a.at("vector_unit").mm2 == Approx(0.011));
  CHECK(a.at("address_generator").mm2 == Approx(0.003));
  CHECK(a.at("dram_interface").mm2 == Approx(9));
  CHECK(a.at("dram_interface").leakage_mw == Approx(36));
  CHECK(a.at("cache").leakage_mw == Approx(6));
}

TEST_CASE("area: grows with every component's size", "[area]") {
  const HardwareConfig base;
  const double total = estimate_area(base).total_mm2();
  struct Change {
    const char* what;
    const char* component;
    std::function<void(HardwareConfig&)> apply;
  };
  const std::vector<Change> changes = {
      {"array rows", "mac_array", [](HardwareConfig& h) { h.compute.array_rows = 33; }},
      {"array cols", "mac_array", [](HardwareConfig& h) { h.compute.array_cols = 33; }},
      {"compute units", "mac_array", [](HardwareConfig& h) { h.compute.units = 2; }},
      {"accumulator size", "accumulators",
       [](HardwareConfig& h) { h.compute.accumulator_kib = 65; }},
      {"cache size", "cache", [](HardwareConfig& h) { h.cache.size_kib = 1025; }},
      {"cache ports", "cache", [](HardwareConfig& h) { h.cache.ports = 3; }},
      {"cache banks", "cache", [](HardwareConfig& h) { h.cache.banks = 9; }},
      {"vector lanes", "vector_unit", [](HardwareConfig& h) { h.vector.lanes = 33; }},
      {"DRAM bandwidth", "dram_interface", [](HardwareConfig& h) { h.dram.bytes_per_cycle = 33; }},
      {"clock (DRAM GB/s)", "dram_interface", [](HardwareConfig& h) { h.clock_mhz = 1001; }},
  };
  for (const Change& c : changes) {
    INFO(c.what);
    HardwareConfig bigger;
    c.apply(bigger);
    CHECK(mm2(bigger, c.component) > mm2(base, c.component));
    CHECK(estimate_area(bigger).total_mm2() > total);
    CHECK(estimate_area(bigger).leakage_mw() > estimate_area(base).leakage_mw());
  }
  // Ping-pong buffering holds a second address generator register set.
  HardwareConfig single;
  single.buffering = Buffering::Single;
  CHECK(mm2(base, "address_generator") - mm2(single, "address_generator") ==
        Approx(base.area.agu_register_set_um2 * 1e-6));
}

TEST_CASE("leakage energy is leakage power times cycles / clock_mhz", "[area][energy]") {
  HardwareConfig hw;
  hw.clock_mhz = 500;
  const double mw = estimate_area(hw).leakage_mw();
  // 3000 cycles at 500 MHz: 6 us; mW * us = nJ = 1000 pJ.
  CHECK(leakage_pj(hw, 3000) == Approx(mw * 6 * 1000));
  CHECK(leakage_pj(hw, 0) == 0);
  // The default hardware (54.91595 mW at 1 GHz) leaks 54.91595 pJ per cycle.
  CHECK(leakage_pj(HardwareConfig{}, 1) == Approx(54.91595));
}

TEST_CASE("the area section parses, round-trips and names bad values and unknown keys",
          "[area][config]") {
  const HardwareConfig hw = parse_hardware_config(
      {{"area", {{"mac_um2", 250}, {"sram_port_overhead", 0}, {"dram_mm2_per_gbps", 0.05}}}},
      "hw.json");
  CHECK(hw.area.mac_um2 == 250);
  CHECK(hw.area.sram_port_overhead == 0);
  CHECK(hw.area.dram_mm2_per_gbps == 0.05);
  CHECK(hw.area.vector_lane_um2 == 419);  // absent keys keep their defaults
  CHECK(to_json(hw).at("area").at("mac_um2") == 250);
  CHECK(parse_hardware_config(to_json(hw), "back").area.dram_mm2_per_gbps == 0.05);

  const auto error = [](const json& j) {
    return test::config_error_from([&] { parse_hardware_config(j, "hw.json"); });
  };
  ConfigError e = error({{"area", {{"mac_um2", -1}}}});
  CHECK(e.pointer() == "/area/mac_um2");
  CHECK(e.expected() == "number >= 0 and <= 1000000");
  CHECK(e.found() == "number -1");
  e = error({{"area", {{"sram_mm2_per_mib", "4.84"}}}});
  CHECK(e.pointer() == "/area/sram_mm2_per_mib");
  CHECK(e.found() == "string \"4.84\"");
  CHECK(error({{"area", {{"sram_bank_mm2", 2e6}}}}).pointer() == "/area/sram_bank_mm2");
  e = error({{"area", {{"mac_um", 300}}}});
  CHECK(e.pointer() == "/area/mac_um");
  CHECK(e.found() == "unknown key \"mac_um\"");
  CHECK(e.hint() == "mac_um2");
  CHECK(std::string(e.what()).rfind("hw.json: at /area/mac_um: expected one of the keys mac_um2, ",
                                    0) == 0);
  CHECK(error({{"aera", json::object()}}).hint() == "area");
}
