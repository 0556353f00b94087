// The energy formula (sim/report/energy.h) against numbers worked by hand.
#include <catch2/catch.hpp>

#include "sim/report/energy.h"

using namespace npusim;

TEST_CASE("energy: each event costs its configured picojoules", "[energy]") {
  HardwareConfig hw;  // 0.3 pJ/MAC, 0.2 pJ/word step, 12.5 pJ/B at 1 MiB, 162.5 pJ/B DRAM
  const Energy e = layer_energy(hw, /*binary_bits=*/0, 1000, 2000, {640});
  CHECK(e.compute_pj == Approx(300));
  CHECK(e.cache_pj == Approx(25000));
  CHECK(e.dram_pj == Approx(104000));
  CHECK(e.total_pj() == Approx(129300));
  CHECK(layer_energy(hw, /*binary_bits=*/32, 1000, 0, {}).compute_pj == Approx(200));
  // A 64-bit word step does twice a 32-bit one's XOR and popcount work.
  CHECK(layer_energy(hw, /*binary_bits=*/64, 1000, 0, {}).compute_pj == Approx(400));

  hw.energy.mac_pj = 1.5;
  hw.energy.dram_pj_per_byte = 10;
  const Energy custom = layer_energy(hw, 0, 1000, 0, {640});
  CHECK(custom.compute_pj == Approx(1500));
  CHECK(custom.dram_pj == Approx(6400));

  Energy sum = e;
  sum += custom;
  CHECK(sum.total_pj() == Approx(129300 + 7900));
}

TEST_CASE("energy: a cache byte costs in proportion to sqrt(capacity)", "[energy]") {
  HardwareConfig hw;
  CHECK(cache_pj_per_byte(hw) == Approx(12.5));  // 1024 KiB
  hw.cache.size_kib = 256;
  CHECK(cache_pj_per_byte(hw) == Approx(6.25));
  hw.cache.size_kib = 4096;
  CHECK(cache_pj_per_byte(hw) == Approx(25.0));
  // Horowitz's 32 KB figure is 20 pJ per 64 bits, 2.5 pJ/B; the sqrt rule
  // gives 12.5 / sqrt(32) = 2.21 pJ/B, within 15 %.
  hw.cache.size_kib = 32;
  CHECK(cache_pj_per_byte(hw) == Approx(2.5).epsilon(0.15));
}

TEST_CASE("banked DRAM energy counts activates and reads and writes at the device's own figures",
          "[energy]") {
  HardwareConfig hw;
  hw.dram.model = DramModel::Banked;
  hw.dram.device.activate_pj = 1000;
  hw.dram.device.read_pj_per_byte = 2;
  hw.dram.device.write_pj_per_byte = 3;
  // 10 x 1000 + 640 x 2 + 64 x 3 = 11472 pJ; the bus's flat per-byte figure is not used.
  CHECK(layer_energy(hw, 0, 0, 0, {640, 64, 10}).dram_pj == Approx(11472));
  hw.dram.model = DramModel::Bus;
  CHECK(layer_energy(hw, 0, 0, 0, {640, 64, 10}).dram_pj == Approx(704 * 162.5));
}
