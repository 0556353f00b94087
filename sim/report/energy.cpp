#include "sim/report/energy.h"

#include <cmath>

#include "sim/report/area.h"

namespace npusim {

Energy& Energy::operator+=(const Energy& o) {
  compute_pj += o.compute_pj;
  cache_pj += o.cache_pj;
  dram_pj += o.dram_pj;
  return *this;
}

double cache_pj_per_byte(const HardwareConfig& hw) {
  // SRAM access energy grows about with the square root of capacity (longer
  // word and bit lines): Horowitz's 8 KB / 32 KB / 1 MB figures of 10 / 20 /
  // 100 pJ per 64 bits follow sqrt(size) within 15 %.
  return hw.energy.cache_pj_per_byte_at_1mib * std::sqrt(double(hw.cache.size_kib) / 1024.0);
}

Energy layer_energy(const HardwareConfig& hw, uint32_t binary_bits, uint64_t macs_performed,
                    uint64_t cache_bytes, const DramEvents& dram) {
  Energy e;
  // binary_word_pj is for a 32-bit word: XOR and popcount grow with the width.
  const double per_step =
      binary_bits != 0 ? hw.energy.binary_word_pj * binary_bits / 32.0 : hw.energy.mac_pj;
  e.compute_pj = double(macs_performed) * per_step;
  e.cache_pj = double(cache_bytes) * cache_pj_per_byte(hw);
  const DramDevice& d = hw.dram.device;
  e.dram_pj = hw.dram.model == DramModel::Bus
                  ? double(dram.read_bytes + dram.write_bytes) * hw.energy.dram_pj_per_byte
                  : double(dram.activates) * d.activate_pj +
                        double(dram.read_bytes) * d.read_pj_per_byte +
                        double(dram.write_bytes) * d.write_pj_per_byte;
  return e;
}

double leakage_pj(const HardwareConfig& hw, uint64_t cycles) {
  const double time_us = double(cycles) / hw.clock_mhz;
  return estimate_area(hw).leakage_mw() * time_us * 1e3;  // mW * us = nJ = 1000 pJ
}

}  // namespace npusim
