// How many compute units a network's pieces use, settled by simulation
// (compiler.units_chosen_by = "simulation", the default;
// docs/mapping.md#units-chosen-by-simulation).
//
// The cost mapper ranks partitions by its analytic estimate, which errs by a
// few per cent, so on its own it may give a machine with one more unit a
// partition that runs slower than the smaller machine's. Here each unit count
// the mapper weighs (unit_counts) is compiled with compiler.units set to it,
// simulated timing only in a child process (SystemC elaborates once per
// process), and the fastest count is kept. A machine with U units tries every
// count a machine with U - 1 tries, with the same programs (the partition of
// u units does not depend on the units the hardware has), so for up to 10
// units it never takes more cycles than the smaller machine.
#pragma once

#include "sim/config/hardware_config.h"
#include "sim/config/workload_config.h"
#include "sim/report/unit_trials.h"

namespace npusim {

// Whether choose_units_by_simulation simulates anything for this hardware.
bool chooses_units_by_simulation(const HardwareConfig& hw);

// Tries each unit count, `jobs` children at a time (0: one per CPU), and
// returns the fastest; on a tie, the estimate's count, else the fewest units.
UnitChoice choose_units_by_simulation(const NetworkConfig& network, const HardwareConfig& hw,
                                      unsigned jobs = 0);

// hw with compiler.units set to the choice (unchanged when choice.units is 0).
HardwareConfig with_units(const HardwareConfig& hw, const UnitChoice& choice);

}  // namespace npusim
