// What each channel of the banked DRAM did over a run (docs/dram.md#per-channel-figures):
// the banked model (models/banked_dram.h) counts them, the report prints them. The
// per-operator counters of the stats registry sum over channels; these split the run's
// totals by channel, so an address mapping that leaves channels idle shows.
#pragma once

#include <cstdint>
#include <vector>

namespace npusim {

struct DramChannelFigures {
  uint64_t read_bytes = 0, write_bytes = 0;  // whole bursts
  uint64_t activates = 0;                    // row misses + row conflicts
  uint64_t row_hits = 0, row_conflicts = 0;  // bursts
  uint64_t refreshes = 0;                    // all-bank refreshes of its ranks
  uint64_t busy_cycles = 0;     // accelerator cycles its data bus moved data (rounded up)
  uint64_t refresh_cycles = 0;  // accelerator cycles its ranks spent refreshing (tRFC each)
};

using DramChannelTable = std::vector<DramChannelFigures>;

}  // namespace npusim
