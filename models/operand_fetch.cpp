#include "models/operand_fetch.h"

#include <cstring>
#include <string>

#include "models/sim_time.h"

namespace npusim {

AddressGeneratorInit tile_lowering(const LayerDescriptor& L, uint64_t row_bytes,
                                   int64_t piece_first_row, uint32_t row_begin, uint32_t rows) {
  AddressGeneratorInit init;
  init.channels = L.C;
  init.filters = L.K;
  init.row_stride = row_bytes;
  init.padding = 0;  // the tile holds its zero border already
  int64_t first_tile_row = 0;
  switch (L.access) {
    case LoadAccess::Im2col:  // padded input rows; the filter slides over them
    case LoadAccess::Mec:     // padded input rows across OW strips of S pixels each
      first_tile_row = int64_t(row_begin) * L.stride - L.padding - piece_first_row;
      init.input_h = (rows - 1) * L.stride + L.R;
      init.filter_h = L.R, init.filter_w = L.S;
      init.stride = L.stride;
      if (L.access == LoadAccess::Im2col) {
        init.input_w = L.padded_w();
      } else {  // strip ox holds pixels ox*S .. ox*S + S - 1 of the row
        init.input_w = L.out_w * L.S;
        init.stride_x = L.S;
      }
      break;
    case LoadAccess::HostIm2col:  // one output row's OW im2col rows, R*S pixels each
      first_tile_row = int64_t(row_begin) - piece_first_row;
      init.input_h = rows;
      init.filter_h = 1, init.filter_w = L.R * L.S;
      init.input_w = L.out_w * L.R * L.S;
      init.stride = 1;
      init.stride_x = L.R * L.S;
      break;
  }
  init.input_base = uint64_t(first_tile_row) * row_bytes;
  return init;
}

const int8_t* DataRegisterSets::fetch(InputAddressGenerator& generator, const int8_t* tile,
                                      uint64_t tile_bytes, uint64_t pixels, uint64_t row_entries) {
  std::vector<int8_t>& set = sets_[next_];
  next_ ^= 1;  // the next burst loads the other set
  set.resize(pixels * row_entries);
  runs_.clear();
  generator.fetch_runs(set.size(), runs_);
  int8_t* to = set.data();
  for (const AddressRun& run : runs_) {
    if (run.start.is_padding()) {
      std::memset(to, 0, run.length);
    } else {
      if (uint64_t(run.start.byte) + run.length > tile_bytes)
        throw SimulationError("data register fetch: entries at byte " +
                              std::to_string(run.start.byte) + " lie outside the " +
                              std::to_string(tile_bytes) + "-byte input tile");
      std::memcpy(to, tile + run.start.byte, run.length);
    }
    to += run.length;
  }
  if (to != set.data() + set.size())
    throw SimulationError("data register fetch: the address generator ended " +
                          std::to_string(set.data() + set.size() - to) + " entries early");
  return set.data();
}

}  // namespace npusim
