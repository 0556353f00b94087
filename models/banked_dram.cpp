#include "models/banked_dram.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace npusim {

BankedDramTiming::BankedDramTiming(const DramConfig& config, double accelerator_mhz)
    : d_(config.device),
      closed_(config.page_policy == PagePolicy::Closed),
      clocks_per_cycle_(config.device.clock_mhz / accelerator_mhz),
      burst_clocks_(config.device.burst_clocks()),
      map_(config.mapping, config.device) {
  banks_.resize(size_t(d_.channels) * d_.ranks * d_.bank_groups * d_.banks_per_group);
  ranks_.assign(size_t(d_.channels) * d_.ranks, Rank{DramActivateSchedule(d_), d_.trefi, 0});
  channels_.assign(d_.channels, DramChannelSchedule(d_));
  counts_.resize(d_.channels);
  waiting_.resize(d_.channels);
  write_queue_ = config.write_queue;
  if (write_queue_ > 0) write_queues_.resize(d_.channels);
}

uint64_t BankedDramTiming::to_clocks(uint64_t cycles) const {
  return uint64_t(std::ceil(double(cycles) * clocks_per_cycle_ - 1e-9));
}

uint64_t BankedDramTiming::to_cycles(uint64_t clocks) const {
  return uint64_t(std::ceil(double(clocks) / clocks_per_cycle_ - 1e-9));
}

size_t BankedDramTiming::bank_index(const DramLocation& at) const {
  return ((size_t(at.channel) * d_.ranks + at.rank) * d_.bank_groups + at.bankgroup) *
             d_.banks_per_group +
         at.bank;
}

BankedDramTiming::Bank& BankedDramTiming::bank_at(const DramLocation& at) {
  return banks_[bank_index(at)];
}

uint64_t BankedDramTiming::may_precharge(const Bank& b) const {
  return std::max({b.activated + d_.tras, b.read_command + d_.trtp, b.write_end + d_.twr});
}

// An all-bank refresh of one rank, due at `due`: its open banks precharge as
// early as they may, the refresh starts once all are, and the rank does
// nothing else for tRFC. Refreshes long past (an idle stretch) only count.
void BankedDramTiming::refresh(Rank& rank, uint32_t channel, uint32_t rank_index, uint64_t due,
                               Counts& out) {
  uint64_t start = std::max(due, rank.blocked_until);
  const size_t first =
      (size_t(channel) * d_.ranks + rank_index) * d_.bank_groups * d_.banks_per_group;
  const size_t count = size_t(d_.bank_groups) * d_.banks_per_group;
  for (size_t i = first; i < first + count; ++i) {
    const Bank& b = banks_[i];
    const uint64_t closed = b.open_row == kNoRow ? b.activate_ready : may_precharge(b) + d_.trp;
    start = std::max(start, closed);
  }
  rank.blocked_until = start + d_.trfc;
  for (size_t i = first; i < first + count; ++i) {
    banks_[i].open_row = kNoRow;
    banks_[i].activate_ready = std::max(banks_[i].activate_ready, rank.blocked_until);
  }
  rank.next_refresh = due + d_.trefi;
  ++out.refreshes;
  ++counts_[channel].refreshes;
}

uint64_t BankedDramTiming::burst(uint64_t at, bool write, const DramLocation& loc, Counts& out) {
  DramChannelSchedule& ch = channels_[loc.channel];
  Rank& rk = ranks_[size_t(loc.channel) * d_.ranks + loc.rank];
  Bank& bk = bank_at(loc);

  // Refreshes due before this burst is served.
  const uint64_t served = std::max(at, ch.data_free());
  if (served >= rk.next_refresh + d_.trefi) {  // an idle stretch: skip all but the last
    const uint64_t skipped = (served - rk.next_refresh) / d_.trefi;
    out.refreshes += skipped;
    counts_[loc.channel].refreshes += skipped;
    rk.next_refresh += skipped * d_.trefi;
  }
  while (rk.next_refresh <= served) refresh(rk, loc.channel, loc.rank, rk.next_refresh, out);

  // Idle slots that end before this burst could move data are past.
  const uint64_t soonest = at + std::min(d_.cl, d_.cwl) + burst_clocks_;
  ch.drop_gaps_before(soonest);

  // The controller's queue: it holds this burst once one of the kQueueDepth
  // before it on the channel has gone.
  uint64_t from = std::max(at, rk.blocked_until);
  from = std::max(from, ch.queue_ready());

  ChannelCounts& counts = counts_[loc.channel];
  uint64_t column_ready = 0;
  if (bk.open_row == loc.row) {
    ++out.hits;
    ++counts.hits;
    column_ready = bk.activated + d_.trcd;
  } else {
    uint64_t activate = std::max(from, bk.activate_ready);
    if (bk.open_row != kNoRow) {  // another row is open: precharge it first
      ++out.conflicts;
      ++counts.conflicts;
      activate = std::max(activate, std::max(from, may_precharge(bk)) + d_.trp);
    } else {
      ++out.misses;
      ++counts.misses;
    }
    activate = rk.activates.place(activate, loc.bankgroup);
    rk.activates.record({activate, loc.bankgroup});
    bk.open_row = loc.row;
    bk.activated = activate;
    column_ready = activate + d_.trcd;
  }

  const uint64_t latency = write ? d_.cwl : d_.cl;
  const uint64_t column = ch.place(std::max(column_ready, from), write, loc);
  const uint64_t data_end = column + latency + burst_clocks_;
  ch.record({column, data_end, loc.rank, loc.bankgroup, write});
  if (write) {
    bk.write_end = std::max(bk.write_end, data_end);
  } else {
    bk.read_command = std::max(bk.read_command, column);
    if (!write_queues_.empty()) {
      uint64_t& until = write_queues_[loc.channel].reads_until;
      until = std::max(until, data_end);
    }
  }
  if (closed_) {  // auto-precharge
    const uint64_t precharge =
        std::max(write ? data_end + d_.twr : column + d_.trtp, bk.activated + d_.tras);
    bk.activate_ready = precharge + d_.trp;
    bk.open_row = kNoRow;
  }
  ++out.bursts;
  ++(write ? counts.write_bursts : counts.read_bursts);
  return data_end;
}

DramChannelTable BankedDramTiming::channel_figures() const {
  DramChannelTable out(counts_.size());
  const uint64_t burst = d_.burst_bytes();
  for (size_t c = 0; c < counts_.size(); ++c) {
    const ChannelCounts& n = counts_[c];
    DramChannelFigures& f = out[c];
    f.read_bytes = n.read_bursts * burst;
    f.write_bytes = n.write_bursts * burst;
    f.activates = n.misses + n.conflicts;
    f.row_hits = n.hits;
    f.row_conflicts = n.conflicts;
    f.refreshes = n.refreshes;
    f.busy_cycles = to_cycles((n.read_bursts + n.write_bursts) * burst_clocks_);
    f.refresh_cycles = to_cycles(n.refreshes * d_.trfc);
  }
  return out;
}

bool BankedDramTiming::holds(uint32_t channel, uint64_t b) const {
  const WriteQueue& q = write_queues_[channel];
  if (q.held.empty() || b < q.lowest || b > q.highest) return false;
  for (const HeldWrite& w : q.held)
    if (w.burst == b) return true;
  return false;
}

uint64_t BankedDramTiming::drain(uint32_t channel, Result& out, uint64_t writing) {
  WriteQueue& q = write_queues_[channel];
  const uint32_t burst_shift = map_.burst_shift();
  // Group by bank, in the order each bank's first write came, then by row
  // within the bank: a first-ready controller's write batch, row hits together.
  struct Entry {
    HeldWrite w;
    DramLocation loc;
    size_t bank_rank = 0, row_rank = 0;
  };
  std::vector<Entry> entries;
  entries.reserve(q.held.size());
  std::vector<std::pair<size_t, uint64_t>> firsts;  // (bank, row) in order of first sight
  for (const HeldWrite& w : q.held) {
    Entry e{w, map_.decode(w.burst << burst_shift)};
    const size_t bank = bank_index(e.loc);
    size_t bank_rank = firsts.size(), row_rank = firsts.size();
    for (size_t i = 0; i < firsts.size(); ++i) {
      if (firsts[i].first == bank) {
        bank_rank = std::min(bank_rank, i);
        if (firsts[i].second == e.loc.row) row_rank = i;
      }
    }
    if (row_rank == firsts.size()) firsts.emplace_back(bank, e.loc.row);
    e.bank_rank = bank_rank, e.row_rank = row_rank;
    entries.push_back(e);
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.bank_rank, a.row_rank) < std::tie(b.bank_rank, b.row_rank);
  });
  uint64_t earliest = ~uint64_t(0);
  // A batch, as a controller switched to writing serves it: no command of it
  // goes before the clock a write issued then would move its data as the
  // channel's placed data ends (the bus turns around once, not per gap).
  const uint64_t after = channels_[channel].data_free();
  const uint64_t lead = d_.cwl + burst_clocks_;
  const uint64_t batch_from = after > lead ? after - lead : 0;
  for (const Entry& e : entries) {
    Counts c;
    const uint64_t data_end = burst(std::max(e.w.at, batch_from), true, e.loc, c);
    earliest = std::min(earliest, data_end);
    WritesPlaced* placed = nullptr;
    for (WritesPlaced& p : out.writes_placed)
      if (p.transfer == e.w.transfer) placed = &p;
    if (placed == nullptr) {
      placed = &out.writes_placed.emplace_back();
      placed->transfer = e.w.transfer;
    }
    placed->counts += c;
    placed->last_data = std::max(placed->last_data, to_cycles(data_end));
    const auto held = held_of_.find(e.w.transfer);
    // The transfer still being taken (`writing`) holds its next burst after this.
    if (--held->second == 0 && e.w.transfer != writing) {
      placed->last = true;
      held_of_.erase(held);
    }
  }
  q.held.clear();
  q.lowest = ~uint64_t(0), q.highest = 0;
  --holding_channels_;
  return earliest;
}

void BankedDramTiming::drain_idle(uint64_t at, Result& out) {
  for (uint32_t c = 0; holding_channels_ > 0 && c < write_queues_.size(); ++c) {
    const WriteQueue& q = write_queues_[c];
    if (!q.held.empty() && q.reads_until <= at) drain(c, out);
  }
}

BankedDramTiming::Result BankedDramTiming::flush() {
  Result out;
  for (uint32_t c = 0; c < write_queues_.size(); ++c)
    if (!write_queues_[c].held.empty()) drain(c, out);
  return out;
}

template <typename Fn>
void BankedDramTiming::for_each_burst(const DramAccess& access, Fn&& fn) const {
  const uint64_t stride = access.stride != 0 ? access.stride : access.segment_bytes;
  const uint32_t burst_shift = map_.burst_shift();
  uint64_t previous = ~uint64_t(0);
  DramLocation loc;  // previous's
  for (uint64_t s = 0; access.segment_bytes != 0 && s < access.segments; ++s) {
    const uint64_t begin = access.address + s * stride;
    const uint64_t end = begin + access.segment_bytes - 1;
    for (uint64_t b = begin >> burst_shift; b <= end >> burst_shift; ++b) {
      if (b == previous) continue;
      // The next burst's location differs from this one's in the lowest field
      // of the mapping alone unless that field wraps.
      if (b != previous + 1 || !map_.step(previous, loc)) loc = map_.decode(b << burst_shift);
      previous = b;
      fn(b, loc);
    }
  }
}

BankedDramTiming::Result BankedDramTiming::transfer(uint64_t now, bool write,
                                                    const DramAccess& access) {
  Result out;
  out.id = transfers_++;
  const uint64_t at = to_clocks(now);
  uint64_t first = ~uint64_t(0), last = 0;
  const auto serve = [&](const DramLocation& loc) {
    const uint64_t data_end = burst(at, write, loc, out);
    first = std::min(first, data_end - burst_clocks_);
    last = std::max(last, data_end);
  };
  drain_idle(at, out);  // writes a controller held while reads were in flight
  if (write && write_queue_ > 0) {
    // Posted: each channel's controller takes the bursts at its data rate into
    // its queue, placing what it holds first when the queue is full.
    for_each_burst(access, [&](uint64_t b, const DramLocation& loc) {
      WriteQueue& q = write_queues_[loc.channel];
      uint64_t taken = std::max(at, q.takes_next);
      if (q.held.size() >= write_queue_) taken = std::max(taken, drain(loc.channel, out, out.id));
      if (q.held.empty()) ++holding_channels_;
      q.held.push_back({b, taken, out.id});
      q.lowest = std::min(q.lowest, b), q.highest = std::max(q.highest, b);
      q.takes_next = taken + burst_clocks_;
      ++held_of_[out.id];
      ++out.bursts;
      first = std::min(first, taken);
      last = std::max(last, taken + burst_clocks_);
    });
    drain_idle(at, out);  // channels with no read in flight write at once
    set_grant(out, now, first, last);
    return out;
  }
  // A burst of another rank than the one whose data the channel moves last
  // waits in its channel's queue (up to kQueueDepth) while bursts of that
  // rank go, as a first-ready controller serves them: a transfer's bursts
  // group by rank, a switch (tRTRS) once per group.
  const bool group_ranks = d_.ranks > 1 && d_.trtrs > 0;
  const uint32_t burst_shift = map_.burst_shift();
  // The channel's oldest waiting burst goes, then the others of its rank.
  const auto release_oldest = [&](uint32_t channel) {
    std::vector<uint64_t>& waiting = waiting_[channel];
    const DramLocation oldest = map_.decode(waiting.front() << burst_shift);
    serve(oldest);
    size_t kept = 0;
    for (size_t i = 1; i < waiting.size(); ++i) {
      const DramLocation loc = map_.decode(waiting[i] << burst_shift);
      if (loc.rank == oldest.rank)
        serve(loc);
      else
        waiting[kept++] = waiting[i];
    }
    waiting.resize(kept);
  };
  for_each_burst(access, [&](uint64_t b, const DramLocation& loc) {
    // A burst a write queue holds is placed before this one reads or writes it.
    if (!write_queues_.empty() && holds(loc.channel, b)) drain(loc.channel, out);
    if (!group_ranks) {
      serve(loc);
      return;
    }
    const DramChannelSchedule& ch = channels_[loc.channel];
    std::vector<uint64_t>& waiting = waiting_[loc.channel];
    if (ch.bursts() > 0 && loc.rank != ch.data_rank()) {
      if (waiting.size() < kQueueDepth) {
        waiting.push_back(b);
        return;
      }
      release_oldest(loc.channel);  // the queue is full
      if (loc.rank != ch.data_rank()) {
        waiting.push_back(b);
        return;
      }
    }
    serve(loc);
  });
  for (uint32_t c = 0; group_ranks && c < d_.channels; ++c)
    while (!waiting_[c].empty()) release_oldest(c);
  set_grant(out, now, first, last);
  return out;
}

void BankedDramTiming::set_grant(Result& out, uint64_t now, uint64_t first, uint64_t last) const {
  if (out.bursts == 0) {
    out.first_data = out.last_data = now;
    return;
  }
  out.first_data = std::max(now, to_cycles(first));
  out.last_data = std::max(out.first_data, to_cycles(last));
}

double sustained_read_bytes_per_cycle(const DramConfig& config, double accelerator_mhz) {
  const DramDevice& d = config.device;
  BankedDramTiming timing(config, accelerator_mhz);
  const uint64_t burst = d.burst_bytes();
  // Bursts one channel moves at its peak in 16 refresh intervals (the first
  // has no refresh: the figure is at most 1/16 of tRFC/tREFI above the steady
  // stream's), at least 4096.
  const uint64_t per_channel = std::max<uint64_t>(4096, 16 * uint64_t(d.trefi) / d.burst_clocks());
  const bool channel_lowest = config.mapping.size() >= 8 &&
                              config.mapping.compare(config.mapping.size() - 8, 8, ":channel") == 0;
  const DramAccess stream = channel_lowest ? DramAccess{0, per_channel, burst, burst * d.channels}
                                           : DramAccess{0, 1, per_channel * d.channels * burst, 0};
  const BankedDramTiming::Result r = timing.transfer(0, false, stream);
  // The whole stream: with the channel lowest each channel moves what channel 0 did.
  const double bytes = double(per_channel * burst) * d.channels;
  return r.last_data == 0 ? 0.0 : bytes / double(r.last_data);
}

}  // namespace npusim
