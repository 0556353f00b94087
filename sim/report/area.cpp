#include "sim/report/area.h"

#include <stdexcept>

namespace npusim {

namespace {

constexpr double kMm2PerUm2 = 1e-6;

AreaComponent component(const HardwareConfig& hw, const char* name, bool sram, double mm2) {
  AreaComponent c;
  c.name = name;
  c.sram = sram;
  c.mm2 = mm2;
  c.leakage_mw = mm2 * (sram ? hw.area.sram_leakage_mw_per_mm2 : hw.area.logic_leakage_mw_per_mm2);
  return c;
}

}  // namespace

double AreaEstimate::total_mm2() const {
  double sum = 0;
  for (const AreaComponent& c : components) sum += c.mm2;
  return sum;
}

double AreaEstimate::leakage_mw() const {
  double sum = 0;
  for (const AreaComponent& c : components) sum += c.leakage_mw;
  return sum;
}

const AreaComponent& AreaEstimate::at(const std::string& name) const {
  for (const AreaComponent& c : components)
    if (c.name == name) return c;
  throw std::out_of_range("no area component named " + name);
}

double sram_area_mm2(const AreaConfig& a, double kib, uint32_t banks, uint32_t ports) {
  // CACTI-style: area linear in capacity; every port beyond the first adds
  // word and bit lines to each cell, taken as a fixed fraction of its area.
  const double port_factor = 1.0 + a.sram_port_overhead * (double(ports) - 1.0);
  return kib / 1024.0 * a.sram_mm2_per_mib * port_factor + double(banks) * a.sram_bank_mm2;
}

double dram_gbps(const HardwareConfig& hw) {
  return double(hw.dram.bytes_per_cycle) * hw.clock_mhz / 1000.0;
}

AreaEstimate estimate_area(const HardwareConfig& hw) {
  const AreaConfig& a = hw.area;
  const double units = hw.compute.units;
  // Every MAC also does binary word steps (docs/binary.md#timing): up to 64 bits.
  const double macs = units * hw.compute.array_rows * hw.compute.array_cols;
  const double mac_array = macs * (a.mac_um2 + a.binary_lane_um2) * kMm2PerUm2;
  // One accumulation buffer per unit; it reads and writes a sum each cycle.
  const double accumulators =
      units * sram_area_mm2(a, hw.compute.accumulator_kib, /*banks=*/1, /*ports=*/2);
  const double cache = sram_area_mm2(a, hw.cache.size_kib, hw.cache.banks, hw.cache.ports);
  const double vector = double(hw.vector.lanes) * a.vector_lane_um2 * kMm2PerUm2;
  // Ping-pong buffering writes the next layer's registers while this one streams.
  const double register_sets = hw.buffering == Buffering::PingPong ? 2 : 1;
  const double agu = (register_sets * a.agu_register_set_um2 + a.agu_logic_um2) * kMm2PerUm2;
  const double dram = dram_gbps(hw) * a.dram_mm2_per_gbps;

  AreaEstimate e;
  e.components = {component(hw, "mac_array", false, mac_array),
                  component(hw, "accumulators", true, accumulators),
                  component(hw, "cache", true, cache),
                  component(hw, "vector_unit", false, vector),
                  component(hw, "address_generator", false, agu),
                  component(hw, "dram_interface", false, dram)};
  return e;
}

}  // namespace npusim
