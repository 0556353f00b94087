// Whether a given program (compiled here or read from a trace file, perhaps
// edited by hand) suits its workload and the hardware before it runs: the
// shapes match, every buffer fits the cache, every instruction names a unit,
// half, weight tile, parameter bank and vector region that exist. The runner
// calls it on every program; validate_program (program.h) checks the
// instruction stream alone.
#pragma once

#include <stdexcept>

#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"

namespace npusim {

class ProgramError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ProgramError naming the layer or instruction that does not fit and why.
void check_program_fits(const Program& program, const NetworkConfig& network,
                        const HardwareConfig& hw);

}  // namespace npusim
