// The banked DRAM's timing (docs/dram.md#the-banked-model): channels of
// ranks, bank groups and banks, each bank with a row buffer, under the JEDEC
// constraints of a DramDevice. Bursts are placed one at a time, in the order
// they are asked for, each at the earliest clock every constraint allows
// against what is already placed: a column command may take a data-bus slot
// left idle before bursts placed earlier (while their bank precharges and
// activates, say), and an activate may go between activates placed earlier,
// so a first-ready controller's reordering, within a transfer and across
// transfers, is modelled without ever moving a burst once placed: a
// transfer's grant is final when it is returned. A bank's commands keep the
// order they came in, and a burst goes no earlier than one of the 32 bursts
// before it on its channel has been issued (the controller's queue). On a
// device of several ranks, a transfer's burst of another rank than the one
// whose data the channel moves last waits (up to 32 per channel) while
// bursts of that rank go, so a switch of rank (tRTRS) comes once per group.
// Time is in the device's command clocks inside; the interface speaks
// accelerator cycles.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/stats/dram_channels.h"

namespace npusim {

// Where a transfer's bytes lie: `segments` runs of `segment_bytes`, the
// first at `address`, each `stride` bytes after the one before.
struct DramAccess {
  uint64_t address = 0;
  uint64_t segments = 1;
  uint64_t segment_bytes = 0;
  uint64_t stride = 0;  // 0: contiguous (segment_bytes)
};

// One transfer as the memory served it (RunOptions::record_dram_transfers):
// requested and served in accelerator cycles.
struct DramTransferRecord {
  uint64_t requested = 0;
  bool write = false;
  DramAccess access;
  uint64_t first_data = 0, last_data = 0;
};

// What a decoded address names (docs/dram.md#address-mapping).
struct DramLocation {
  uint32_t channel = 0, rank = 0, bankgroup = 0, bank = 0;
  uint64_t row = 0, column = 0;
};

class BankedDramTiming {
 public:
  BankedDramTiming(const DramConfig& config, double accelerator_mhz);

  struct Result {
    uint64_t first_data = 0, last_data = 0;  // accelerator cycles: [first beat, after the last)
    uint64_t bursts = 0, hits = 0, misses = 0, conflicts = 0, refreshes = 0;
  };
  // Moves every burst `access` touches, requested at accelerator cycle `now`.
  Result transfer(uint64_t now, bool write, const DramAccess& access);

  DramLocation decode(uint64_t address) const;
  // What each channel did since construction, in bytes and accelerator
  // cycles (docs/dram.md#per-channel-figures).
  DramChannelTable channel_figures() const;
  // Accelerator cycles <-> command clocks (rounded up: nothing happens early).
  uint64_t to_clocks(uint64_t cycles) const;
  uint64_t to_cycles(uint64_t clocks) const;

 private:
  struct Bank {
    uint64_t open_row = kNoRow;
    uint64_t activated = 0;       // clock of the last activate
    uint64_t activate_ready = 0;  // earliest next activate (after precharge + tRP)
    uint64_t read_command = 0;    // latest read command (tRTP)
    uint64_t write_end = 0;       // end of the latest write's data (tWR)
  };
  // A placed command: an activate (group) or a column command (and its data).
  struct Activate {
    uint64_t at = 0;
    uint32_t group = 0;
  };
  struct Column {
    uint64_t at = 0, data_end = 0;
    uint32_t rank = 0, group = 0;
    bool write = false;
  };
  struct Rank {
    std::vector<Activate> activates;  // recent ones, by clock (tRRD, tFAW)
    uint64_t activate_floor = 0;      // none earlier (older ones were dropped)
    uint64_t next_refresh = 0;
    uint64_t blocked_until = 0;  // end of a refresh
  };
  // The data bus is idle over [begin, end), at least one burst long.
  struct Gap {
    uint64_t begin = 0, end = 0;
    // Per direction, a bit per rank and bank group: a burst of that kind
    // found no clock in the whole slot from its start. Placed bursts only add
    // rules, so it never will (a memo: place_column skips the slot).
    uint64_t no_fit[2] = {0, 0};
  };
  struct Channel {
    std::vector<Column> columns;  // recent column commands, by clock
    std::vector<Gap> gaps;        // idle data-bus slots before data_free, oldest first
    uint64_t floor = 0;           // no column command earlier (older ones were dropped)
    uint64_t data_free = 0;       // end of the latest data
    uint32_t data_rank = 0;       // the rank whose data that is
    // A column command after every placed one goes no earlier than these.
    uint64_t any_ok = 0;             // tCCD_S after the latest
    std::vector<uint64_t> group_ok;  // per rank and group: tCCD_L
    uint64_t write_ok = 0;           // tRTW after the latest read
    std::vector<uint64_t> read_ok;   // per rank and group: tWTR after write data
    // The clocks of the last kQueueDepth bursts' column commands, as a
    // sliding minimum: (burst number, clock), from queue_head on.
    std::vector<std::pair<uint64_t, uint64_t>> queue_min;
    size_t queue_head = 0;
    uint64_t bursts = 0;  // placed so far
  };
  static constexpr uint64_t kNoRow = ~uint64_t(0);
  // The controller's queue per channel: a burst goes once one of the
  // kQueueDepth before it has.
  static constexpr size_t kQueueDepth = 32;

  // Schedules the burst at `loc`, requested at `at` (clocks); returns its data end.
  uint64_t burst(uint64_t at, bool write, const DramLocation& loc, Result& out);
  // The earliest activate of `rank` in bank group `group` from `from` (tRRD, tFAW).
  uint64_t place_activate(const Rank& rank, uint64_t from, uint32_t group) const;
  // The earliest column command from `from`: an idle slot before placed
  // bursts, else after all of them. Remembers the idle slots that cannot take such a burst.
  uint64_t place_column(Channel& ch, uint64_t from, bool write, const DramLocation& loc);
  // Another rank's data after every placed burst: the earliest column command
  // that starts it tRTRS after the latest data (0 for the same rank).
  uint64_t rank_switch_ready(const Channel& ch, const DramLocation& loc, bool write) const;
  // `t` moved on until it keeps every rule against the placed column
  // commands near it; past `limit` when there is none up to it.
  uint64_t clear_of_columns(const Channel& ch, uint64_t t, uint64_t limit, bool write,
                            const DramLocation& loc) const;
  void record_column(Channel& ch, const Column& c);
  void record_activate(Rank& rank, const Activate& a);
  void refresh(Rank& rank, uint32_t channel, uint32_t rank_index, uint64_t due, Result& out);
  size_t bank_index(const DramLocation& at) const;
  Bank& bank_at(const DramLocation& at);
  // The earliest clock `b`'s open row may close: tRAS after its activate,
  // tRTP after its last read command, tWR after its last write data.
  uint64_t may_precharge(const Bank& b) const;

  DramDevice d_;
  bool closed_ = false;
  double clocks_per_cycle_ = 1;
  uint64_t burst_clocks_ = 0;  // the data bus clocks of a burst
  // How far apart two column commands can constrain each other, in clocks.
  uint64_t column_reach_ = 0;
  // Field positions of the mapping: shift and mask of each field above the burst offset.
  struct Field {
    uint32_t shift = 0;
    uint64_t mask = 0;
  };
  Field channel_, rank_, bankgroup_, bank_, column_;
  uint32_t row_shift_ = 0;
  uint32_t burst_shift_ = 0;
  std::vector<Bank> banks_;
  std::vector<Rank> ranks_;
  std::vector<Channel> channels_;
  // Per channel, in bursts: channel_figures converts them.
  struct ChannelCounts {
    uint64_t read_bursts = 0, write_bursts = 0, hits = 0, misses = 0, conflicts = 0;
    uint64_t refreshes = 0;
  };
  std::vector<ChannelCounts> counts_;
  // Per channel: a transfer's bursts waiting for their rank's turn (transfer).
  std::vector<std::vector<uint64_t>> waiting_;
};

// The bandwidth a long read stream sustains on `config`'s banked device, in
// bytes per accelerator cycle (docs/dram.md#sustained-bandwidth): the stream
// from address 0 over 16 refresh intervals, its bytes over the cycles
// to its last data, refresh and row changes included. The roofline's bandwidth
// roof under the banked model. For a mapping with the channel lowest every
// channel sees the same bursts, so one channel's share is timed.
double sustained_read_bytes_per_cycle(const DramConfig& config, double accelerator_mhz);

}  // namespace npusim
