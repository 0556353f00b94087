// What the banked DRAM (banked_dram.h) has placed, and where a new command may
// go among it (docs/dram.md#the-banked-model), in the device's command clocks:
// a rank's activates (tRRD, tFAW) and a channel's column commands with their
// data on the bus (tCCD, data in command order, turnaround, tWTR, the rank
// switch tRTRS), its idle data-bus slots and its controller's queue. A new
// command goes at the earliest clock every rule allows against those placed,
// which may be before some of them (a first-ready controller's reordering);
// none placed ever moves. Only recent commands are kept: none goes before the
// reach of the dropped ones again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/dram_address_map.h"
#include "sim/config/dram_device.h"

namespace npusim {

// One rank's activates.
class DramActivateSchedule {
 public:
  explicit DramActivateSchedule(const DramDevice& d) : d_(d) {}
  struct Activate {
    uint64_t at = 0;
    uint32_t group = 0;
  };
  // The earliest activate in bank group `group` from `from` (tRRD, tFAW).
  uint64_t place(uint64_t from, uint32_t group) const;
  void record(const Activate& a);

 private:
  DramDevice d_;
  std::vector<Activate> activates_;  // recent ones, by clock (tRRD, tFAW)
  uint64_t floor_ = 0;               // none earlier (older ones were dropped)
};

// One channel's column commands and data bus.
class DramChannelSchedule {
 public:
  explicit DramChannelSchedule(const DramDevice& d);
  // The controller's queue per channel: a burst goes once one of the
  // kQueueDepth before it has.
  static constexpr size_t kQueueDepth = 32;
  // A placed column command and its data.
  struct Column {
    uint64_t at = 0, data_end = 0;
    uint32_t rank = 0, group = 0;
    bool write = false;
  };

  // Forgets the idle slots that end before `soonest` (no burst requested
  // from now on can move data in them).
  void drop_gaps_before(uint64_t soonest) {
    if (!gaps_.empty() && gaps_.front().end < soonest) drop_gaps(soonest);
  }
  // The earliest clock the queue lets the next burst's column command go
  // (one of the kQueueDepth before it has gone); 0 while it is not full.
  uint64_t queue_ready() const {
    return bursts_ >= kQueueDepth ? queue_min_[queue_head_].second + 1 : 0;
  }
  // The earliest column command from `from`: an idle slot before placed
  // bursts, else after all of them. Remembers the idle slots that cannot take such a burst.
  uint64_t place(uint64_t from, bool write, const DramLocation& loc);
  void record(const Column& c);

  uint64_t data_free() const { return data_free_; }
  uint32_t data_rank() const { return data_rank_; }
  uint64_t bursts() const { return bursts_; }

 private:
  // The data bus is idle over [begin, end), at least one burst long.
  struct Gap {
    uint64_t begin = 0, end = 0;
    // Per direction, a bit per rank and bank group: a burst of that kind
    // found no clock in the whole slot from its start. Placed bursts only add
    // rules, so it never will (a memo: place skips the slot).
    uint64_t no_fit[2] = {0, 0};
  };
  // drop_gaps_before's work, when the oldest slot is past.
  void drop_gaps(uint64_t soonest);
  // Another rank's data after every placed burst: the earliest column command
  // that starts it tRTRS after the latest data (0 for the same rank).
  uint64_t rank_switch_ready(const DramLocation& loc, bool write) const;
  // `t` moved on until it keeps every rule against the placed column
  // commands near it; past `limit` when there is none up to it.
  uint64_t clear_of_columns(uint64_t t, uint64_t limit, bool write, const DramLocation& loc) const;

  DramDevice d_;
  uint64_t burst_clocks_ = 0;  // the data bus clocks of a burst
  // How far apart two column commands can constrain each other, in clocks.
  uint64_t column_reach_ = 0;
  std::vector<Column> columns_;  // recent column commands, by clock
  std::vector<Gap> gaps_;        // idle data-bus slots before data_free_, oldest first
  uint64_t floor_ = 0;           // no column command earlier (older ones were dropped)
  uint64_t data_free_ = 0;       // end of the latest data
  uint32_t data_rank_ = 0;       // the rank whose data that is
  // A column command after every placed one goes no earlier than these.
  uint64_t any_ok_ = 0;             // tCCD_S after the latest
  std::vector<uint64_t> group_ok_;  // per rank and group: tCCD_L
  uint64_t write_ok_ = 0;           // tRTW after the latest read
  std::vector<uint64_t> read_ok_;   // per rank and group: tWTR after write data
  // The clocks of the last kQueueDepth bursts' column commands, as a
  // sliding minimum: (burst number, clock), from queue_head_ on.
  std::vector<std::pair<uint64_t, uint64_t>> queue_min_;
  size_t queue_head_ = 0;
  uint64_t bursts_ = 0;  // placed so far
};

}  // namespace npusim
