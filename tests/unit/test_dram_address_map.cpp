// The banked DRAM's address mapping (models/dram_address_map.h): a walk
// through consecutive bursts that moves the lowest field by one (step) lands
// where decoding each burst's address does, for every field as the lowest,
// across the wrap of that field and of the fields above it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/dram_address_map.h"

using namespace npusim;

namespace {

DramDevice two_rank_device() {
  DramDevice d;
  d.channels = 4;
  d.ranks = 2;
  d.bank_groups = 4;
  d.banks_per_group = 2;
  d.channel_bits = 64;
  d.burst_length = 8;  // 64 B bursts
  d.row_bytes = 1024;  // 16 bursts a row
  return d;
}

bool same_location(const DramLocation& a, const DramLocation& b) {
  return a.channel == b.channel && a.rank == b.rank && a.bankgroup == b.bankgroup &&
         a.bank == b.bank && a.row == b.row && a.column == b.column;
}

}  // namespace

TEST_CASE("DRAM address map: stepping burst to burst lands where decoding each address does",
          "[dram]") {
  const DramDevice d = two_rank_device();
  const std::vector<std::string> mappings = {
      "row:rank:bank:column:bankgroup:channel", "row:channel:bankgroup:bank:column:rank",
      "row:rank:bank:column:channel:bankgroup", "row:channel:rank:column:bankgroup:bank",
      "row:channel:rank:bankgroup:bank:column"};
  for (const std::string& mapping : mappings) {
    INFO(mapping);
    const DramAddressMap map(mapping, d);
    const uint32_t shift = map.burst_shift();
    REQUIRE(shift == 6);
    // Three rows of every bank of every channel: each field wraps many times.
    const uint64_t bursts = 3ull * 16 * 2 * 4 * 2 * 4;
    uint64_t stepped = 0;
    DramLocation loc = map.decode(0);
    for (uint64_t b = 1; b < bursts; ++b) {
      const DramLocation want = map.decode(b << shift);
      if (map.step(b - 1, loc)) {
        ++stepped;
      } else {
        loc = map.decode(b << shift);
      }
      REQUIRE(same_location(loc, want));
    }
    // The lowest field moves by one on all but the bursts where it wraps.
    const uint64_t lowest = mapping.substr(mapping.rfind(':') + 1) == "channel"     ? 4
                            : mapping.substr(mapping.rfind(':') + 1) == "rank"      ? 2
                            : mapping.substr(mapping.rfind(':') + 1) == "bankgroup" ? 4
                            : mapping.substr(mapping.rfind(':') + 1) == "bank"      ? 2
                                                                                    : 16;
    REQUIRE(stepped == (bursts - 1) - (bursts / lowest - 1));
  }
}
