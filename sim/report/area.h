// The area estimate and the leakage power that follows from it, one formula
// per component here (docs/area.md). Each unit's figure is the hardware
// config's "area" section; the defaults are 45 nm figures.
//   MAC array     = units * rows * cols * (mac_um2 + binary_lane_um2)
//   accumulators  = units * sram(accumulator_kib, 1 bank, 2 ports)
//   cache         = sram(cache.size_kib, cache.banks, cache.ports)
//   vector unit   = lanes * vector_lane_um2
//   address gen.  = register sets (2 pingpong, 1 single) * agu_register_set_um2 + agu_logic_um2
//   DRAM iface    = bus GB/s (bytes_per_cycle * clock_mhz / 1000) * dram_mm2_per_gbps
//   sram(kib, banks, ports) = kib / 1024 * sram_mm2_per_mib
//                             * (1 + sram_port_overhead * (ports - 1)) + banks * sram_bank_mm2
// Leakage power is each component's area times its kind's density (logic or SRAM).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/hardware_config.h"

namespace npusim {

struct AreaComponent {
  std::string name;   // report.json key: "mac_array", "cache", ...
  bool sram = false;  // leaks at the SRAM density, else at the logic one
  double mm2 = 0;
  double leakage_mw = 0;
};

struct AreaEstimate {
  // In report order: mac_array, accumulators, cache, vector_unit,
  // address_generator, dram_interface.
  std::vector<AreaComponent> components;
  double total_mm2() const;
  double leakage_mw() const;
  // The component named `name`; throws std::out_of_range when there is none.
  const AreaComponent& at(const std::string& name) const;
};

// Area of an SRAM of `kib` KiB in `banks` banks with `ports` ports, in mm2.
double sram_area_mm2(const AreaConfig& a, double kib, uint32_t banks, uint32_t ports);

// DRAM bus bandwidth in GB/s (10^9 bytes per second) at the configured clock.
double dram_gbps(const HardwareConfig& hw);

AreaEstimate estimate_area(const HardwareConfig& hw);

}  // namespace npusim
