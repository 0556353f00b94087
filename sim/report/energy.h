// The energy estimate, one formula here (docs/energy.md). Dynamic energy
// from event counts: each event costs what the hardware config's "energy"
// section says; the defaults are 45 nm figures (Horowitz, ISSCC 2014).
//   compute = MACs performed * mac_pj
//             (binary layers: b-bit word steps * binary_word_pj * b / 32)
//   cache   = (cache bytes read + written) * cache_pj_per_byte_at_1mib * sqrt(size_kib / 1024)
//   DRAM    = (DRAM bytes read + written, whole bursts) * dram_pj_per_byte;
//             banked (docs/dram.md#energy): activates * activate_pj
//             + bytes read * read_pj_per_byte + bytes written * write_pj_per_byte
// Leakage energy = the area model's leakage power (sim/report/area.h) * time.
// The host's work is not modelled.
#pragma once

#include <cstdint>

#include "sim/config/hardware_config.h"

namespace npusim {

// Dynamic energy of a layer, or of several summed.
struct Energy {
  double compute_pj = 0, cache_pj = 0, dram_pj = 0;
  double total_pj() const { return compute_pj + cache_pj + dram_pj; }
  Energy& operator+=(const Energy& o);
};

// Picojoules per cache byte at the configured cache size.
double cache_pj_per_byte(const HardwareConfig& hw);

// What a layer asked of DRAM.
struct DramEvents {
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t activates = 0;  // banked only
};

// The energy of one layer's events; `binary_bits` is b for a binary layer
// (its MAC counter counts b-bit word steps), 0 for an int8 layer.
Energy layer_energy(const HardwareConfig& hw, uint32_t binary_bits, uint64_t macs_performed,
                    uint64_t cache_bytes, const DramEvents& dram);

// Leakage (static) energy in picojoules over `cycles` at hw.clock_mhz:
// estimate_area(hw).leakage_mw() * cycles / clock_mhz (mW * us = nJ).
double leakage_pj(const HardwareConfig& hw, uint64_t cycles);

}  // namespace npusim
