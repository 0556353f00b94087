// The banked DRAM's timing (docs/dram.md#the-banked-model): channels of
// ranks, bank groups and banks, each bank with a row buffer, under the JEDEC
// constraints of a DramDevice. A transfer of many bursts is reasoned about
// burst by burst in address order, with each bank's activate issued as early
// as its constraints allow (a controller that looks ahead through its queue),
// so bank preparation overlaps other banks' data; a burst whose bank is not
// ready waits in its channel's queue (up to kQueueDepth) while later bursts of
// the transfer go first, as a first-ready controller serves them. Transfers
// are served in the order they come (a transfer's grant is final when it is
// asked for). Time is in the device's command clocks inside; the interface
// speaks accelerator cycles.
#pragma once

#include <array>
#include <cstdint>
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
    uint64_t read_command = 0;    // last read command (tRTP)
    uint64_t write_end = 0;       // end of the last write's data (tWR)
  };
  struct Rank {
    std::array<uint64_t, 4> activates{};  // the last four, oldest first (tFAW)
    uint32_t activate_count = 0;
    uint64_t last_activate = 0;
    uint32_t last_activate_group = 0;
    uint64_t next_refresh = 0;
    uint64_t blocked_until = 0;  // end of a refresh
    uint64_t write_end = 0;      // last write data end (tWTR)
    uint32_t write_group = 0;
  };
  struct Channel {
    uint64_t data_free = 0;  // the data bus is free from this clock
    uint64_t column = 0;     // last column command
    uint32_t column_rank = 0, column_group = 0;
    bool any_column = false;
    uint64_t read_command = 0;  // last read command (read to write turnaround)
  };
  static constexpr uint64_t kNoRow = ~uint64_t(0);
  // Bursts of a transfer that may wait per channel for their bank.
  static constexpr size_t kQueueDepth = 32;

  // Schedules the burst at `loc`, requested at `at` (clocks); returns its data end.
  uint64_t burst(uint64_t at, bool write, const DramLocation& loc, Result& out);
  // When the bank side (activate, tRCD) and a switch of rank (tRTRS) let
  // `loc`'s column command go, and when the channel would next take one: a
  // burst that would hold the channel idle waits in the queue (so a queue
  // groups its bursts by rank, as a first-ready controller does).
  uint64_t burst_ready(uint64_t at, const DramLocation& loc, bool write) const;
  // Another rank's data: the earliest column command that starts it tRTRS
  // after the channel's last burst's data (0 for the same rank).
  uint64_t rank_switch_ready(const Channel& ch, const DramLocation& loc, bool write) const;
  uint64_t channel_ready(const Channel& ch, bool write) const;
  void refresh(Rank& rank, uint32_t channel, uint32_t rank_index, uint64_t due, Result& out);
  size_t bank_index(const DramLocation& at) const;
  Bank& bank_at(const DramLocation& at);
  // The earliest clock `b`'s open row may close: tRAS after its activate,
  // tRTP after its last read command, tWR after its last write data.
  uint64_t may_precharge(const Bank& b) const;

  DramDevice d_;
  bool closed_ = false;
  double clocks_per_cycle_ = 1;
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
  std::vector<std::vector<uint64_t>> waiting_;  // per channel: burst indices in the queue
  // Per channel: the earliest bank-ready clock among the waiting bursts at
  // the last look (a burst whose row another opens meanwhile waits until then).
  std::vector<uint64_t> next_look_;
};

// The bandwidth a long read stream sustains on `config`'s banked device, in
// bytes per accelerator cycle (docs/dram.md#sustained-bandwidth): the stream
// from address 0 over 16 refresh intervals, its bytes over the cycles
// to its last data, refresh and row changes included. The roofline's bandwidth
// roof under the banked model. For a mapping with the channel lowest every
// channel sees the same bursts, so one channel's share is timed.
double sustained_read_bytes_per_cycle(const DramConfig& config, double accelerator_mhz);

}  // namespace npusim
