// The banked DRAM's address mapping (docs/dram.md#address-mapping): which
// channel, rank, bank group, bank, row and column of a DramDevice a byte
// address names, from the mapping's list of fields, most significant first
// ("row:rank:bankgroup:bank:column:channel"). Also the next burst's location
// from the one before it, for a walk through consecutive bursts.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config/dram_device.h"

namespace npusim {

// What a decoded address names (docs/dram.md#address-mapping).
struct DramLocation {
  uint32_t channel = 0, rank = 0, bankgroup = 0, bank = 0;
  uint64_t row = 0, column = 0;
};

class DramAddressMap {
 public:
  DramAddressMap(const std::string& mapping, const DramDevice& d);

  DramLocation decode(uint64_t address) const;
  // log2 of the burst's bytes: an address's burst number is address >> burst_shift().
  uint32_t burst_shift() const { return burst_shift_; }
  // Moves `loc`, burst `b`'s location, on to burst b + 1's when the two differ
  // in the lowest field of the mapping alone; false (and `loc` unchanged)
  // when that field wraps, so b + 1 must be decoded.
  bool step(uint64_t b, DramLocation& loc) const {
    if (lowest_mask_ == 0 || (b & lowest_mask_) == lowest_mask_) return false;
    switch (lowest_) {
      case Lowest::Channel:
        ++loc.channel;
        break;
      case Lowest::Rank:
        ++loc.rank;
        break;
      case Lowest::Bankgroup:
        ++loc.bankgroup;
        break;
      case Lowest::Bank:
        ++loc.bank;
        break;
      case Lowest::Column:
        ++loc.column;
        break;
    }
    return true;
  }

 private:
  // Field positions of the mapping: shift and mask of each field above the burst offset.
  struct Field {
    uint32_t shift = 0;
    uint64_t mask = 0;
  };
  Field channel_, rank_, bankgroup_, bank_, column_;
  uint32_t row_shift_ = 0;
  uint32_t burst_shift_ = 0;
  // The lowest field of the mapping (its shift is 0, its mask not), which a
  // step moves on by one; lowest_mask_ 0 when there is none.
  enum class Lowest { Channel, Rank, Bankgroup, Bank, Column };
  Lowest lowest_ = Lowest::Column;
  uint64_t lowest_mask_ = 0;
};

}  // namespace npusim
