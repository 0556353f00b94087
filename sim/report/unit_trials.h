// What a run reports about the compute units its program uses, when the
// runner settled the count by simulating each one (sim/runner/unit_choice.h,
// docs/mapping.md#units-chosen-by-simulation): data only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim {

struct UnitTrial {
  uint32_t units = 0;
  bool ok = false;
  uint64_t cycles = 0;    // timing-only total, when ok
  uint64_t estimate = 0;  // the compiler's estimate of the same (npusim estimate), when ok
  std::string failure;    // why not, when !ok (does not fit, a simulation error)
};

struct UnitChoice {
  // The count the compiler was given (compiler.units); 0 when nothing was
  // tried (one unit, the greedy mapper, compiler.units set,
  // units_chosen_by = "estimate") or no count compiled and ran.
  uint32_t units = 0;
  // The count the estimate alone would take (choose_partition), 0 when none.
  uint32_t estimated_units = 0;
  std::vector<UnitTrial> trials;  // in unit_counts order, most units first
};

}  // namespace npusim
