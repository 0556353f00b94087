#include "models/banked_dram.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace npusim {
namespace {

uint32_t log2_of(uint64_t power_of_two) {
  uint32_t bits = 0;
  while ((uint64_t(1) << bits) < power_of_two) ++bits;
  return bits;
}

}  // namespace

BankedDramTiming::BankedDramTiming(const DramConfig& config, double accelerator_mhz)
    : d_(config.device),
      closed_(config.page_policy == PagePolicy::Closed),
      clocks_per_cycle_(config.device.clock_mhz / accelerator_mhz) {
  // Fields from the least significant (the last named) up (docs/dram.md#address-mapping).
  std::vector<std::string> names;
  std::istringstream in(config.mapping);
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
    const uint64_t size = f == "channel"     ? d_.channels
                          : f == "rank"      ? d_.ranks
                          : f == "bankgroup" ? d_.bank_groups
                          : f == "bank"      ? d_.banks_per_group
                                             : d_.row_bytes / d_.burst_bytes();
    field = {shift, size - 1};
    shift += log2_of(size);
  }
  // The row is the rest, wherever "row" stands in the list: the fields named
  // above it are placed first, which the configuration requires be none
  // (it is the most significant by convention; docs/dram.md).
  row_shift_ = shift;
  burst_shift_ = log2_of(d_.burst_bytes());
  banks_.resize(size_t(d_.channels) * d_.ranks * d_.bank_groups * d_.banks_per_group);
  ranks_.resize(size_t(d_.channels) * d_.ranks);
  for (Rank& r : ranks_) r.next_refresh = d_.trefi;
  channels_.resize(d_.channels);
  counts_.resize(d_.channels);
  waiting_.resize(d_.channels);
  next_look_.resize(d_.channels);
}

uint64_t BankedDramTiming::to_clocks(uint64_t cycles) const {
  return uint64_t(std::ceil(double(cycles) * clocks_per_cycle_ - 1e-9));
}

uint64_t BankedDramTiming::to_cycles(uint64_t clocks) const {
  return uint64_t(std::ceil(double(clocks) / clocks_per_cycle_ - 1e-9));
}

DramLocation BankedDramTiming::decode(uint64_t address) const {
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
                               Result& out) {
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

uint64_t BankedDramTiming::rank_switch_ready(const Channel& ch, const DramLocation& loc,
                                             bool write) const {
  const uint64_t latency = write ? d_.cwl : d_.cl;
  if (!ch.any_column || ch.column_rank == loc.rank || ch.data_free + d_.trtrs <= latency) return 0;
  return ch.data_free + d_.trtrs - latency;
}

uint64_t BankedDramTiming::burst_ready(uint64_t at, const DramLocation& loc, bool write) const {
  const uint64_t switched = rank_switch_ready(channels_[loc.channel], loc, write);
  const Bank& bk = banks_[bank_index(loc)];
  if (bk.open_row == loc.row) return std::max({at, bk.activated + d_.trcd, switched});
  const Rank& rk = ranks_[size_t(loc.channel) * d_.ranks + loc.rank];
  uint64_t activate = std::max({at, bk.activate_ready, rk.blocked_until});
  if (bk.open_row != kNoRow) activate = std::max(activate, may_precharge(bk) + d_.trp);
  if (rk.activate_count > 0) activate = std::max(activate, rk.last_activate + d_.trrd_s);
  if (rk.activate_count >= 4) activate = std::max(activate, rk.activates[0] + d_.tfaw);
  return std::max(activate + d_.trcd, switched);
}

uint64_t BankedDramTiming::channel_ready(const Channel& ch, bool write) const {
  const uint64_t latency = write ? d_.cwl : d_.cl;
  uint64_t t = ch.any_column ? ch.column + d_.tccd_s : 0;
  if (ch.data_free > latency) t = std::max(t, ch.data_free - latency);
  return t;
}

uint64_t BankedDramTiming::burst(uint64_t at, bool write, const DramLocation& loc, Result& out) {
  Channel& ch = channels_[loc.channel];
  Rank& rk = ranks_[size_t(loc.channel) * d_.ranks + loc.rank];
  Bank& bk = bank_at(loc);

  // Refreshes due before this burst is served.
  const uint64_t served = std::max(at, ch.data_free);
  if (served >= rk.next_refresh + d_.trefi) {  // an idle stretch: skip all but the last
    const uint64_t skipped = (served - rk.next_refresh) / d_.trefi;
    out.refreshes += skipped;
    counts_[loc.channel].refreshes += skipped;
    rk.next_refresh += skipped * d_.trefi;
  }
  while (rk.next_refresh <= served) refresh(rk, loc.channel, loc.rank, rk.next_refresh, out);

  ChannelCounts& counts = counts_[loc.channel];
  uint64_t column_ready = 0;
  if (bk.open_row == loc.row) {
    ++out.hits;
    ++counts.hits;
    column_ready = bk.activated + d_.trcd;
  } else {
    uint64_t activate = std::max({at, bk.activate_ready, rk.blocked_until});
    if (bk.open_row != kNoRow) {  // another row is open: precharge it first
      ++out.conflicts;
      ++counts.conflicts;
      const uint64_t precharge = std::max(at, may_precharge(bk));
      activate = std::max(activate, precharge + d_.trp);
    } else {
      ++out.misses;
      ++counts.misses;
    }
    if (rk.activate_count > 0)
      activate =
          std::max(activate, rk.last_activate +
                                 (rk.last_activate_group == loc.bankgroup ? d_.trrd_l : d_.trrd_s));
    if (rk.activate_count >= 4) activate = std::max(activate, rk.activates[0] + d_.tfaw);
    std::rotate(rk.activates.begin(), rk.activates.begin() + 1, rk.activates.end());
    rk.activates[3] = activate;
    ++rk.activate_count;
    rk.last_activate = activate;
    rk.last_activate_group = loc.bankgroup;
    bk.open_row = loc.row;
    bk.activated = activate;
    column_ready = activate + d_.trcd;
  }

  const uint64_t latency = write ? d_.cwl : d_.cl;
  uint64_t column = std::max({column_ready, at, rk.blocked_until});
  if (ch.any_column) {
    const bool same_group = ch.column_rank == loc.rank && ch.column_group == loc.bankgroup;
    column = std::max(column, ch.column + (same_group ? d_.tccd_l : d_.tccd_s));
  }
  if (ch.data_free > latency) column = std::max(column, ch.data_free - latency);
  column = std::max(column, rank_switch_ready(ch, loc, write));
  if (!write && rk.write_end != 0)
    column =
        std::max(column, rk.write_end + (rk.write_group == loc.bankgroup ? d_.twtr_l : d_.twtr_s));
  if (write && ch.read_command != 0) column = std::max(column, ch.read_command + d_.trtw);
  const uint64_t data_end = column + latency + d_.burst_clocks();

  ch.data_free = data_end;
  ch.column = column;
  ch.column_rank = loc.rank;
  ch.column_group = loc.bankgroup;
  ch.any_column = true;
  if (write) {
    bk.write_end = data_end;
    rk.write_end = data_end;
    rk.write_group = loc.bankgroup;
  } else {
    bk.read_command = column;
    ch.read_command = column;
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
    f.busy_cycles = to_cycles((n.read_bursts + n.write_bursts) * d_.burst_clocks());
    f.refresh_cycles = to_cycles(n.refreshes * d_.trfc);
  }
  return out;
}

BankedDramTiming::Result BankedDramTiming::transfer(uint64_t now, bool write,
                                                    const DramAccess& access) {
  Result out;
  const uint64_t at = to_clocks(now);
  const uint64_t stride = access.stride != 0 ? access.stride : access.segment_bytes;
  uint64_t first = ~uint64_t(0), last = 0;
  const auto serve = [&](const DramLocation& loc) {
    const uint64_t data_end = burst(at, write, loc, out);
    first = std::min(first, data_end - d_.burst_clocks());
    last = std::max(last, data_end);
  };
  // The channel's waiting bursts whose bank is ready by the time it could
  // take them go first, oldest first.
  const auto serve_ready = [&](uint32_t channel) {
    std::vector<uint64_t>& waiting = waiting_[channel];
    size_t kept = 0;
    uint64_t next = ~uint64_t(0);
    for (size_t i = 0; i < waiting.size(); ++i) {
      const DramLocation loc = decode(waiting[i] << burst_shift_);
      const uint64_t ready = burst_ready(at, loc, write);
      if (ready <= channel_ready(channels_[channel], write)) {
        serve(loc);
      } else {
        waiting[kept++] = waiting[i];
        next = std::min(next, ready);
      }
    }
    waiting.resize(kept);
    next_look_[channel] = next;
  };
  uint64_t previous = ~uint64_t(0);  // a burst two segments share moves once
  bool any_waiting = false;
  if (access.segment_bytes != 0) {
    for (uint64_t s = 0; s < access.segments; ++s) {
      const uint64_t begin = access.address + s * stride;
      const uint64_t end = begin + access.segment_bytes - 1;
      for (uint64_t b = begin >> burst_shift_; b <= end >> burst_shift_; ++b) {
        if (b == previous) continue;
        previous = b;
        const DramLocation loc = decode(b << burst_shift_);
        std::vector<uint64_t>& waiting = waiting_[loc.channel];
        const Bank& bank = bank_at(loc);
        const Channel& ch = channels_[loc.channel];
        if (waiting.empty() && bank.open_row == loc.row && bank.activated + d_.trcd <= ch.column &&
            (d_.trtrs == 0 || ch.column_rank == loc.rank)) {
          serve(loc);  // a hit on a quiet queue: the common case, no look at the queue
          continue;
        }
        const uint64_t channel_free = channel_ready(channels_[loc.channel], write);
        if (!waiting.empty() && channel_free >= next_look_[loc.channel]) serve_ready(loc.channel);
        if (waiting.size() < kQueueDepth) {
          const uint64_t ready = burst_ready(at, loc, write);
          if (ready > channel_free) {
            if (waiting.empty()) next_look_[loc.channel] = ready;
            next_look_[loc.channel] = std::min(next_look_[loc.channel], ready);
            waiting.push_back(b);
            any_waiting = true;
            continue;
          }
        }
        serve(loc);
      }
    }
  }
  // The rest of the queues, oldest first, each when its bank is ready.
  for (uint32_t c = 0; any_waiting && c < d_.channels; ++c) {
    while (!waiting_[c].empty()) {
      serve_ready(c);
      if (waiting_[c].empty()) break;
      serve(decode(waiting_[c].front() << burst_shift_));
      waiting_[c].erase(waiting_[c].begin());
    }
  }
  if (out.bursts == 0) {
    out.first_data = out.last_data = now;
    return out;
  }
  out.first_data = std::max(now, to_cycles(first));
  out.last_data = std::max(out.first_data, to_cycles(last));
  return out;
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
