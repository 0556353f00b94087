// Seed 001's fetch stream as the compute engine's data path. For each stage
// of a plain int8 convolution, the address generator walks the stage's rows
// of the input tile as the lowered matrix (one row of R*S*C entries per
// output pixel), and fetch_ml bursts copy each array pass's rows (array_cols
// pixels) into one of two data register sets, which the array multiplies.
// The tile's layout depends on the access mode; tile_lowering says how the
// generator sees each (docs/address-generator.md#the-compute-engines-fetch-stream).
// Functional only: the bursts' time is cost::register_fed_stage_cycles.
#pragma once

#include <cstdint>
#include <vector>

#include "models/address_generator.h"
#include "sim/program/program.h"

namespace npusim {

// The generator's init for output rows [row_begin, row_begin + rows) of a
// piece whose tile starts at input row `piece_first_row` (padded-row
// coordinates; host_im2col: output rows), with tile rows `row_bytes` apart.
// Byte addresses are offsets from the start of the tile. Plain layers only
// (symmetric padding, no groups or dilation).
AddressGeneratorInit tile_lowering(const LayerDescriptor& L, uint64_t row_bytes,
                                   int64_t piece_first_row, uint32_t row_begin, uint32_t rows);

class DataRegisterSets {
 public:
  // fetch_ml: the next `pixels` lowered rows of `row_entries` entries each,
  // from the tile at `tile` (`tile_bytes` long) into the set not loaded last;
  // returns the set's first entry. Padding entries are zero. Throws
  // SimulationError when the generator runs short or points outside the tile.
  const int8_t* fetch(InputAddressGenerator& generator, const int8_t* tile, uint64_t tile_bytes,
                      uint64_t pixels, uint64_t row_entries);

 private:
  std::vector<int8_t> sets_[2];
  uint32_t next_ = 0;
  std::vector<AddressRun> runs_;
};

}  // namespace npusim
