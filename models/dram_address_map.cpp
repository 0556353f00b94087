#include "models/dram_address_map.h"

#include <sstream>
#include <utility>
#include <vector>

namespace npusim {
namespace {

uint32_t log2_of(uint64_t power_of_two) {
  uint32_t bits = 0;
  while ((uint64_t(1) << bits) < power_of_two) ++bits;
  return bits;
}

}  // namespace

DramAddressMap::DramAddressMap(const std::string& mapping, const DramDevice& d) {
  // Fields from the least significant (the last named) up (docs/dram.md#address-mapping).
  std::vector<std::string> names;
  std::istringstream in(mapping);
  for (std::string f; std::getline(in, f, ':');) names.push_back(f);
  uint32_t shift = 0;
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    const std::string& f = *it;
    if (f == "row") continue;  // the bits above all others
    Field& field = f == "channel"     ? channel_
                   : f == "rank"      ? rank_
                   : f == "bankgroup" ? bankgroup_
                   : f == "bank"      ? bank_
                                      : column_;
    const uint64_t size = f == "channel"     ? d.channels
                          : f == "rank"      ? d.ranks
                          : f == "bankgroup" ? d.bank_groups
                          : f == "bank"      ? d.banks_per_group
                                             : d.row_bytes / d.burst_bytes();
    field = {shift, size - 1};
    shift += log2_of(size);
  }
  // The row is the rest, wherever "row" stands in the list: the fields named
  // above it are placed first, which the configuration requires be none
  // (it is the most significant by convention; docs/dram.md).
  row_shift_ = shift;
  burst_shift_ = log2_of(d.burst_bytes());
  const std::pair<Lowest, const Field*> fields[] = {{Lowest::Channel, &channel_},
                                                    {Lowest::Rank, &rank_},
                                                    {Lowest::Bankgroup, &bankgroup_},
                                                    {Lowest::Bank, &bank_},
                                                    {Lowest::Column, &column_}};
  for (const auto& f : fields)
    if (f.second->shift == 0 && f.second->mask != 0)
      lowest_ = f.first, lowest_mask_ = f.second->mask;
}

DramLocation DramAddressMap::decode(uint64_t address) const {
  const uint64_t b = address >> burst_shift_;
  const auto field = [b](const Field& f) { return (b >> f.shift) & f.mask; };
  DramLocation at;
  at.channel = uint32_t(field(channel_));
  at.rank = uint32_t(field(rank_));
  at.bankgroup = uint32_t(field(bankgroup_));
  at.bank = uint32_t(field(bank_));
  at.column = field(column_);
  at.row = b >> row_shift_;
  return at;
}

}  // namespace npusim
