// The cache's record of what the memory plan keeps in it
// (docs/memory-plan.md#the-hardware-side): kept outputs and kept weight
// blocks, and which of them owns each kept byte range now. An operator's
// first store to its kept output takes its bytes, and so does the first load
// of any part of a kept weight block; anything else kept that shared one of
// those bytes is overwritten from then on. A reader of an overwritten output
// (or of one not yet written), or a load of weights the block held before it
// was overwritten, is a program error the run stops on, as a reader of an
// overwritten tile is. The program check (check_residency) refuses such
// placements before a run; this is the hardware's own check, for what runs
// at the same time beyond a block's guarded span. For weights it also keeps
// which bytes of each block have come over the bus (and so are on chip).
#pragma once

#include <cstdint>
#include <map>
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

  // Operator `layer` (weights_resident) loads bytes [begin, end) of its weight
  // block (offsets from weights_address). True: the block holds them all, so
  // they come through the cache ports; false: they come over the bus, and the
  // block holds them from now on. Ask weights_problem first.
  bool weights_on_chip(uint32_t layer, uint64_t begin, uint64_t end);
  // "" when `layer`'s kept weight block may be loaded from now, else why not:
  // something has overwritten it since its first load.
  std::string weights_problem(uint32_t layer) const;

 private:
  struct Region {
    std::string name;  // "layer X's output", "layer X's weights"
    uint64_t offset = 0, bytes = 0;
    bool written = false;
    int32_t overwritten_by = -1;  // the region that took its bytes since, or -1
  };
  // Region r takes its bytes: every held region sharing one is overwritten.
  void take(uint32_t r);
  // Who took region r's bytes, for the error: "layer Y's store" or "layer Y's weight load".
  std::string taker(uint32_t r) const;

  const Program& program_;
  // Regions 0..L-1: the operators' outputs (bytes 0 when not kept); then one
  // per kept weight block.
  std::vector<Region> regions_;
  std::vector<uint32_t> block_of_;  // per operator: its weight block's region (weights_resident)
  // Per weight block region: byte ranges [begin, end) on chip, keyed by begin.
  std::map<uint32_t, std::map<uint64_t, uint64_t>> loaded_;
  std::vector<uint32_t> holding_;  // regions written and not overwritten
};

}  // namespace npusim
