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
// accelerator cycles. The address mapping is dram_address_map.h's; where a
// command may go among those placed, dram_command_schedule.h's. Writes are
// posted (docs/dram.md#the-write-queue): each channel's controller takes
// write bursts at the channel's data rate into a queue of dram.write_queue,
// holds them while reads are in flight, and places them, grouped by bank and
// row, when no read is, when its queue is full, when a read wants a burst it
// holds, or when the run ends (flush).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "models/dram_address_map.h"
#include "models/dram_command_schedule.h"
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
// `written`: when its last data reached the DRAM (a held write's is later
// than last_data, when its controller took it; docs/dram.md#the-write-queue).
struct DramTransferRecord {
  uint64_t requested = 0;
  bool write = false;
  DramAccess access;
  uint64_t first_data = 0, last_data = 0;
  uint64_t written = 0;
};

class BankedDramTiming {
 public:
  BankedDramTiming(const DramConfig& config, double accelerator_mhz);

  // What the bursts of one call did to the banks.
  struct Counts {
    uint64_t bursts = 0, hits = 0, misses = 0, conflicts = 0, refreshes = 0;
    Counts& operator+=(const Counts& o) {
      bursts += o.bursts, hits += o.hits, misses += o.misses;
      conflicts += o.conflicts, refreshes += o.refreshes;
      return *this;
    }
  };
  // Held write bursts of one earlier (or this) write transfer that a call
  // placed: their counts, when the last of them reached the DRAM (accelerator
  // cycles), and whether none of that transfer is held any more.
  struct WritesPlaced {
    uint64_t transfer = 0;
    Counts counts;
    uint64_t last_data = 0;
    bool last = false;
  };
  struct Result : Counts {
    // A read, or a write under write_queue 0: [first beat, after the last) on
    // the DRAM. A held write: when its controller took its bursts.
    uint64_t first_data = 0, last_data = 0;  // accelerator cycles
    uint64_t id = 0;                         // this transfer's number, from 0
    std::vector<WritesPlaced> writes_placed;
  };
  // Moves every burst `access` touches, requested at accelerator cycle
  // `now`. Result's counts are this transfer's placed bursts (a held write's
  // come later, in writes_placed) and `bursts` all it moves.
  Result transfer(uint64_t now, bool write, const DramAccess& access);
  // Places every held write (the end of a run): their counts in writes_placed.
  Result flush();

  DramLocation decode(uint64_t address) const { return map_.decode(address); }
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
  struct Rank {
    DramActivateSchedule activates;
    uint64_t next_refresh = 0;
    uint64_t blocked_until = 0;  // end of a refresh
  };
  static constexpr uint64_t kNoRow = ~uint64_t(0);
  static constexpr size_t kQueueDepth = DramChannelSchedule::kQueueDepth;

  // Schedules the burst at `loc`, requested at `at` (clocks); returns its data end.
  uint64_t burst(uint64_t at, bool write, const DramLocation& loc, Counts& out);
  void refresh(Rank& rank, uint32_t channel, uint32_t rank_index, uint64_t due, Counts& out);
  // A write burst the controller of its channel holds: burst number, the
  // clock it took it, the transfer it came in.
  struct HeldWrite {
    uint64_t burst = 0, at = 0, transfer = 0;
  };
  // Places every write `channel` holds, grouped by bank (in the order their
  // first write came) and within a bank by row, each from the clock it was
  // taken; returns the earliest data end among them (clocks). `writing`: the
  // write transfer whose bursts are still being taken (never its last here).
  uint64_t drain(uint32_t channel, Result& out, uint64_t writing = ~uint64_t(0));
  // Calls fn(b, loc) for every burst `access` touches, in address order, with
  // its burst number and location; a burst two segments share comes once.
  template <typename Fn>
  void for_each_burst(const DramAccess& access, Fn&& fn) const;
  // The transfer's grant from its bursts' first and last clocks; `now` when it moved none.
  void set_grant(Result& out, uint64_t now, uint64_t first, uint64_t last) const;
  // Whether `channel` holds a write of burst `b` (a read of it must wait for it).
  bool holds(uint32_t channel, uint64_t b) const;
  size_t bank_index(const DramLocation& at) const;
  Bank& bank_at(const DramLocation& at);
  // The earliest clock `b`'s open row may close: tRAS after its activate,
  // tRTP after its last read command, tWR after its last write data.
  uint64_t may_precharge(const Bank& b) const;

  DramDevice d_;
  bool closed_ = false;
  double clocks_per_cycle_ = 1;
  uint64_t burst_clocks_ = 0;  // the data bus clocks of a burst
  DramAddressMap map_;
  std::vector<Bank> banks_;
  std::vector<Rank> ranks_;
  std::vector<DramChannelSchedule> channels_;
  // Per channel, in bursts: channel_figures converts them.
  struct ChannelCounts {
    uint64_t read_bursts = 0, write_bursts = 0, hits = 0, misses = 0, conflicts = 0;
    uint64_t refreshes = 0;
  };
  std::vector<ChannelCounts> counts_;
  // Per channel: a transfer's bursts waiting for their rank's turn (transfer).
  std::vector<std::vector<uint64_t>> waiting_;
  // The write queue: per channel the held writes, the lowest and highest
  // burst among them, and the clock its controller takes the next one.
  uint32_t write_queue_ = 0;
  // reads_until: the end of the channel's latest read data; a controller
  // holds writes only while reads wait (its writes go while none does).
  struct WriteQueue {
    std::vector<HeldWrite> held;
    uint64_t lowest = ~uint64_t(0), highest = 0;
    uint64_t takes_next = 0;
    uint64_t reads_until = 0;
  };
  std::vector<WriteQueue> write_queues_;
  uint32_t holding_channels_ = 0;  // channels with held writes
  // Places the writes of every channel with no read in flight at `at` (clocks).
  void drain_idle(uint64_t at, Result& out);
  uint64_t transfers_ = 0;
  // Per write transfer with bursts held: how many.
  std::unordered_map<uint64_t, uint64_t> held_of_;
};

// The bandwidth a long read stream sustains on `config`'s banked device, in
// bytes per accelerator cycle (docs/dram.md#sustained-bandwidth): the stream
// from address 0 over 16 refresh intervals, its bytes over the cycles
// to its last data, refresh and row changes included. The roofline's bandwidth
// roof under the banked model. For a mapping with the channel lowest every
// channel sees the same bursts, so one channel's share is timed.
double sustained_read_bytes_per_cycle(const DramConfig& config, double accelerator_mhz);

}  // namespace npusim
