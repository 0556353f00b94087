// The cache's record of the outputs the memory plan keeps in it
// (docs/memory-plan.md#the-hardware-side): which output owns each kept byte
// range now. An operator's first store to its kept output takes its bytes,
// and any other kept output that shared one of them is overwritten from then
// on; a reader of an overwritten output (or of one not yet written) is a
// program error the run stops on, as a reader of an overwritten tile is. The
// program check (check_residency) refuses such placements before a run; this
// is the hardware's own check, for what runs at the same time beyond an
// output's guarded span.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/program/program.h"

namespace npusim {

class ResidentRegions {
 public:
  explicit ResidentRegions(const Program& program);

  // Operator `layer` stores to its kept output (only the first store takes the bytes).
  void written(uint32_t layer);
  // "" when `producer`'s kept output may be read now, else why not (for the error).
  std::string problem(uint32_t producer) const;

 private:
  const Program& program_;
  std::vector<bool> written_;         // per operator: its kept output has been stored to
  std::vector<int32_t> overwritten_;  // per operator: who took its bytes since, or -1
  std::vector<uint32_t> holding_;     // kept outputs written and not overwritten
};

}  // namespace npusim
