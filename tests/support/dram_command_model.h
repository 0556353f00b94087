// Reference DRAM controller for the tests: a slow, command-by-command model of a JEDEC-style
// memory controller, one per channel. Each command clock it issues at most one ACT, PRE, RD, WR
// or REF, scheduling queued requests first-ready, first-come-first-served (FR-FCFS) under an open
// or closed page policy, and refreshes each rank (all-bank) every tREFI. The fast banked DRAM
// model (models/) is tested against it; the two share no code.
//
// Rules beyond the JEDEC constraints (documented here so the fast model can match them):
// - Each clock a channel tries, in this order: a due refresh (REF, or a PRE closing one of the
//   refreshing rank's open banks; lower rank first), then the oldest queued request whose RD/WR
//   is legal, then the oldest queued request whose ACT or PRE is legal.
// - ACT and PRE are issued only for the oldest queued request to a bank. A bank is precharged for
//   a request to another row only when no queued request hits its open row.
// - While a rank's refresh is due (from k x tREFI until its REF issues) the rank issues no ACT and
//   no RD/WR; after REF it issues nothing for tRFC, and all its banks are closed.
// - Requests enter their channel's queue in input order (a request that has not arrived yet
//   holds back later ones of its channel), when their arrival <= clock and the queue has room.
// - tRTW (read to write turnaround) applies channel-wide; tWTR per rank; tCCD_S between any two
//   column commands on the channel, tCCD_L within a rank's bank group; no two bursts overlap,
//   and a burst of another rank than the last one's starts at least tRTRS after its end.
// - Closed policy: every RD/WR is RDA/WRA (no extra command slot, logged as "RDA"/"WRA"); it
//   counts as a precharge and closes the bank at once, which may activate again tRP after the
//   auto-precharge point (see the .cpp). A request still hits when it reaches a row activated
//   for another one first (a read overtaking a write held back by tRTW, say).
// - `refreshes` sums over channels the REFs issued before each channel's last column command (a
//   channel with no requests refreshes none).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/dram_device.h"

namespace npusim::test {

enum class RefPagePolicy { Open, Closed };

struct RefRequest {
  uint64_t address = 0;  // byte address; the request moves the one burst containing it
  bool write = false;
  uint64_t arrival = 0;  // command clock at which the controller sees it
};

struct RefResult {
  std::vector<uint64_t> data_end;  // per request, in input order: the clock after its last beat
  uint64_t activates = 0, precharges = 0, refreshes = 0;
  uint64_t row_hits = 0;       // column commands to an already open row
  uint64_t row_misses = 0;     // to a bank with no open row (needed an activate only)
  uint64_t row_conflicts = 0;  // to a bank with another row open (needed precharge + activate)
  // When `trace` is true: one line per command, in clock order (channels in order within a
  // clock), "clk ch rank bg bank CMD row col" with CMD one of ACT PRE RD WR RDA WRA REF and "-"
  // for fields that do not apply (REF: bg, bank, row, col; ACT and PRE: col).
  std::vector<std::string> log;
};

// Address decode: `mapping` names the six fields from most to least significant, separated by
// ':', each exactly once: row, rank, bankgroup, bank, column, channel (e.g.
// "row:rank:bank:column:bankgroup:channel"). Decode: v = address / burst_bytes(); then for each
// field from the LEAST significant (the last named) upwards: field = v % size; v /= size; where
// size is channels, ranks, bank_groups, banks_per_group, row_bytes / burst_bytes() (column, in
// bursts), and row takes whatever remains (unbounded; fields named before row then decode as 0).
// Throws std::invalid_argument on a bad string or a device with a zero size.
struct RefAddress {
  uint64_t channel, rank, bankgroup, bank, row, column;
};
RefAddress decode_address(const DramDevice& d, const std::string& mapping, uint64_t address);

// Simulates `requests` command by command (see the top of this file). Throws
// std::invalid_argument naming the field for a device it cannot model (a zero size, a burst that
// is not a whole number of clocks, a row that is not a whole number of bursts, tREFI = 0 or
// tRFC >= tREFI) or queue_depth = 0, and std::logic_error if a queue makes no progress for more
// than 100000 clocks plus the sum of all timings.
//
// write_queue_depth > 0: writes wait in a queue of their own of that depth (per channel),
// entering it in input order as reads enter theirs. Each clock the channel tries the reads
// (FR-FCFS as above) and the writes only while it drains: from when the write queue is full, or
// a queued read's address is that of a queued write, until no write is queued; or while no read
// is queued. 0: one queue for reads and writes, as above.
RefResult simulate_commands(const DramDevice& d, RefPagePolicy policy, const std::string& mapping,
                            const std::vector<RefRequest>& requests, uint32_t queue_depth = 32,
                            bool trace = false, uint32_t write_queue_depth = 0);

}  // namespace npusim::test
