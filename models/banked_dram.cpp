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
  for (Channel& ch : channels_) {
    ch.group_ok.assign(size_t(d_.ranks) * d_.bank_groups, 0);
    ch.read_ok.assign(size_t(d_.ranks) * d_.bank_groups, 0);
  }
  counts_.resize(d_.channels);
  waiting_.resize(d_.channels);
  const uint64_t burst = d_.burst_clocks();
  burst_clocks_ = burst;
  column_reach_ = std::max<uint64_t>({d_.tccd_l, d_.trtw, d_.cl + burst + d_.trtrs,
                                      d_.cwl + burst + std::max(d_.twtr_l, d_.trtrs)});
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

uint64_t BankedDramTiming::place_activate(const Rank& rank, uint64_t from, uint32_t group) const {
  uint64_t t = std::max(from, rank.activate_floor);
  const uint64_t span = std::max(d_.trrd_l, d_.tfaw);
  const std::vector<Activate>& acts = rank.activates;
  if (acts.empty() || acts.back().at < t) {
    // After every placed one: each rule is a lower bound (tRRD after the
    // recent ones, tFAW after the fourth latest).
    const size_t n = acts.size();
    for (size_t i = n; i > 0 && acts[i - 1].at + span > t; --i)
      t = std::max(t, acts[i - 1].at + (acts[i - 1].group == group ? d_.trrd_l : d_.trrd_s));
    if (n >= 4) t = std::max(t, acts[n - 4].at + d_.tfaw);
    return t;
  }
  const auto by_clock = [](const Activate& a, uint64_t clock) { return a.at < clock; };
  auto near = std::lower_bound(acts.begin(), acts.end(), t > span ? t - span : 0, by_clock);
  for (bool moved = true; moved;) {
    moved = false;
    while (near != acts.end() && near->at + span < t) ++near;  // t only grows
    // tRRD to every activate either side.
    for (auto a = near; a != acts.end() && a->at < t + span && !moved; ++a) {
      const uint64_t rrd = a->group == group ? d_.trrd_l : d_.trrd_s;
      if (a->at + rrd > t && t + rrd > a->at) t = a->at + rrd, moved = true;
    }
    if (moved) continue;
    // tFAW: no five activates, this one among them, within tFAW.
    uint64_t w[20];
    size_t n = 0, self = 0;
    for (auto a = near; a != acts.end() && a->at < t + d_.tfaw && n < 19; ++a) {
      if (a->at + d_.tfaw <= t) continue;
      if (a->at > t && self == 0 && (n == 0 || w[n - 1] < t)) self = n, w[n++] = t;
      w[n++] = a->at;
    }
    if (n == 0 || w[n - 1] < t) self = n, w[n++] = t;
    for (size_t j = self >= 4 ? self - 4 : 0; j <= self && j + 4 < n && !moved; ++j) {
      if (w[j + 4] - w[j] >= d_.tfaw) continue;
      t = j < self ? w[j] + d_.tfaw : w[j + 1];  // after the window's first, or past the next
      moved = true;
    }
  }
  return t;
}

uint64_t BankedDramTiming::clear_of_columns(const Channel& ch, uint64_t t, uint64_t limit,
                                            bool write, const DramLocation& loc) const {
  const uint64_t latency = write ? d_.cwl : d_.cl, burst = burst_clocks_;
  const auto by_clock = [](const Column& c, uint64_t clock) { return c.at < clock; };
  auto near = std::lower_bound(ch.columns.begin(), ch.columns.end(),
                               t > column_reach_ ? t - column_reach_ : 0, by_clock);
  // The earliest clock after `c` (tCCD, data in command order and tRTRS
  // after another rank's, turnaround).
  const auto after = [&](const Column& c, bool same_rank, bool same_group) {
    uint64_t clock = c.at + (same_group ? d_.tccd_l : d_.tccd_s);
    const uint64_t data_after = c.data_end + (same_rank ? 0 : d_.trtrs);
    if (data_after > latency) clock = std::max(clock, data_after - latency);
    if (write && !c.write) clock = std::max(clock, c.at + d_.trtw);
    if (!write && c.write && same_rank)
      clock = std::max(clock, c.data_end + (same_group ? d_.twtr_l : d_.twtr_s));
    return clock;
  };
  for (bool moved = true; moved && t <= limit;) {
    moved = false;
    while (near != ch.columns.end() && near->at + column_reach_ < t) ++near;  // t only grows
    auto c = near;
    // Those before `t` hold it back until their `after`.
    for (; c != ch.columns.end() && c->at < t; ++c) {
      const bool same_rank = c->rank == loc.rank;
      const uint64_t clock = after(*c, same_rank, same_rank && c->group == loc.bankgroup);
      if (t < clock) {
        t = clock;
        moved = true;
        break;
      }
    }
    if (moved) continue;
    // Those from `t` on must keep their place after this one, else it goes after them.
    const uint64_t data_end = t + latency + burst;
    for (; c != ch.columns.end() && c->at < t + column_reach_; ++c) {
      const bool same_rank = c->rank == loc.rank;
      const bool same_group = same_rank && c->group == loc.bankgroup;
      const uint64_t data_start = c->at + (c->write ? d_.cwl : d_.cl);
      bool before = c->at >= t + (same_group ? d_.tccd_l : d_.tccd_s) &&
                    data_start >= data_end + (same_rank ? 0 : d_.trtrs);
      if (c->write && !write) before = before && c->at >= t + d_.trtw;
      if (!c->write && write && same_rank)
        before = before && c->at >= data_end + (same_group ? d_.twtr_l : d_.twtr_s);
      if (before) continue;
      t = after(*c, same_rank, same_group);
      moved = true;
      break;
    }
  }
  return t;
}

uint64_t BankedDramTiming::rank_switch_ready(const Channel& ch, const DramLocation& loc,
                                             bool write) const {
  const uint64_t latency = write ? d_.cwl : d_.cl;
  if (ch.bursts == 0 || ch.data_rank == loc.rank || ch.data_free + d_.trtrs <= latency) return 0;
  return ch.data_free + d_.trtrs - latency;
}

uint64_t BankedDramTiming::place_column(Channel& ch, uint64_t from, bool write,
                                        const DramLocation& loc) {
  const uint64_t latency = write ? d_.cwl : d_.cl, burst = burst_clocks_;
  const size_t group = size_t(loc.rank) * d_.bank_groups + loc.bankgroup;
  from = std::max(from, ch.floor);
  // After every placed burst: the latest of each rule's bound.
  const uint64_t tail = std::max(
      {from, ch.any_ok, ch.group_ok[group], write ? ch.write_ok : ch.read_ok[group],
       ch.data_free > latency ? ch.data_free - latency : 0, rank_switch_ready(ch, loc, write)});
  // Else the first idle slot of the data bus it fits in (they end in order:
  // none can take it when the last ends too soon).
  if (ch.gaps.empty() || ch.gaps.back().end < from + latency + burst) return tail;
  for (auto g = ch.gaps.begin(); g != ch.gaps.end(); ++g) {
    if (g->end < from + latency + burst) continue;
    const uint64_t start = g->begin > latency ? g->begin - latency : 0;
    const uint64_t t = std::max(from, start);
    if (t >= tail) break;
    const uint64_t kind = group < 64 ? uint64_t(1) << group : 0;
    if (g->no_fit[write] & kind) continue;
    const uint64_t whole = g->end - latency - burst;  // the last that fits
    const uint64_t last = std::min(tail - 1, whole);
    const uint64_t clear = clear_of_columns(ch, t, last, write, loc);
    if (clear <= last) return clear;
    if (t == start && last == whole) g->no_fit[write] |= kind;
  }
  return tail;
}

void BankedDramTiming::record_activate(Rank& rank, const Activate& a) {
  std::vector<Activate>& acts = rank.activates;
  if (acts.empty() || acts.back().at <= a.at) {
    acts.push_back(a);
  } else {
    const auto later = std::upper_bound(acts.begin(), acts.end(), a.at,
                                        [](uint64_t t, const Activate& x) { return t < x.at; });
    acts.insert(later, a);
  }
  // Keep the recent ones: none goes before the dropped ones' reach again.
  constexpr size_t kKept = 32;
  if (acts.size() > 2 * kKept) {
    rank.activate_floor =
        std::max(rank.activate_floor, acts[kKept - 1].at + std::max(d_.trrd_l, d_.tfaw));
    acts.erase(acts.begin(), acts.begin() + kKept);
  }
}

void BankedDramTiming::record_column(Channel& ch, const Column& c) {
  const uint64_t burst = burst_clocks_;
  const uint64_t data = c.data_end - burst;
  bool slots_changed = true;   // else the pruning below has nothing to drop
  if (data >= ch.data_free) {  // after every placed burst
    slots_changed = data - ch.data_free >= burst;
    if (slots_changed) ch.gaps.push_back({ch.data_free, data});
    ch.data_free = c.data_end;
    ch.data_rank = c.rank;
    ch.columns.push_back(c);
  } else {  // into an idle slot: what is left either side stays one if a burst fits
    auto g = std::find_if(ch.gaps.begin(), ch.gaps.end(),
                          [&](const Gap& x) { return x.begin <= data && c.data_end <= x.end; });
    const Gap after{c.data_end, g->end};
    g->end = data;
    if (g->end - g->begin < burst)
      g = ch.gaps.erase(g);
    else
      ++g;
    if (after.end - after.begin >= burst) ch.gaps.insert(g, after);
    const auto later = std::upper_bound(ch.columns.begin(), ch.columns.end(), c.at,
                                        [](uint64_t t, const Column& x) { return t < x.at; });
    ch.columns.insert(later, c);
  }
  const size_t group = size_t(c.rank) * d_.bank_groups + c.group;
  ch.any_ok = std::max(ch.any_ok, c.at + d_.tccd_s);
  ch.group_ok[group] = std::max(ch.group_ok[group], c.at + d_.tccd_l);
  if (c.write) {
    for (uint32_t g = 0; g < d_.bank_groups; ++g) {
      uint64_t& ok = ch.read_ok[size_t(c.rank) * d_.bank_groups + g];
      ok = std::max(ok, c.data_end + (g == c.group ? d_.twtr_l : d_.twtr_s));
    }
  } else {
    ch.write_ok = std::max(ch.write_ok, c.at + d_.trtw);
  }
  // The queue's sliding minimum over the last kQueueDepth bursts.
  while (ch.queue_min.size() > ch.queue_head && ch.queue_min.back().second >= c.at)
    ch.queue_min.pop_back();
  ch.queue_min.emplace_back(ch.bursts++, c.at);
  while (ch.queue_min[ch.queue_head].first + kQueueDepth < ch.bursts) ++ch.queue_head;
  if (ch.queue_head > 64) {
    ch.queue_min.erase(ch.queue_min.begin(), ch.queue_min.begin() + ptrdiff_t(ch.queue_head));
    ch.queue_head = 0;
  }
  // Keep the recent commands and idle slots: none goes before the dropped ones' reach again.
  constexpr size_t kKept = 64, kGaps = 16;
  if (ch.columns.size() > 2 * kKept) {
    ch.floor = std::max(ch.floor, ch.columns[kKept - 1].at + column_reach_);
    ch.columns.erase(ch.columns.begin(), ch.columns.begin() + kKept);
    slots_changed = true;
  }
  if (!slots_changed) return;
  const uint64_t usable = ch.floor + std::min(d_.cl, d_.cwl) + burst;
  size_t stale = 0;
  while (stale < ch.gaps.size() && (ch.gaps[stale].end < usable || ch.gaps.size() - stale > kGaps))
    ++stale;
  if (stale > 0) ch.gaps.erase(ch.gaps.begin(), ch.gaps.begin() + ptrdiff_t(stale));
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

  // Idle slots that end before this burst could move data are past.
  const uint64_t soonest = at + std::min(d_.cl, d_.cwl) + burst_clocks_;
  size_t past = 0;
  while (past < ch.gaps.size() && ch.gaps[past].end < soonest) ++past;
  if (past > 0) ch.gaps.erase(ch.gaps.begin(), ch.gaps.begin() + ptrdiff_t(past));

  // The controller's queue: it holds this burst once one of the kQueueDepth
  // before it on the channel has gone.
  uint64_t from = std::max(at, rk.blocked_until);
  if (ch.bursts >= kQueueDepth) from = std::max(from, ch.queue_min[ch.queue_head].second + 1);

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
    activate = place_activate(rk, activate, loc.bankgroup);
    record_activate(rk, {activate, loc.bankgroup});
    bk.open_row = loc.row;
    bk.activated = activate;
    column_ready = activate + d_.trcd;
  }

  const uint64_t latency = write ? d_.cwl : d_.cl;
  const uint64_t column = place_column(ch, std::max(column_ready, from), write, loc);
  const uint64_t data_end = column + latency + burst_clocks_;
  record_column(ch, {column, data_end, loc.rank, loc.bankgroup, write});
  if (write) {
    bk.write_end = std::max(bk.write_end, data_end);
  } else {
    bk.read_command = std::max(bk.read_command, column);
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

BankedDramTiming::Result BankedDramTiming::transfer(uint64_t now, bool write,
                                                    const DramAccess& access) {
  Result out;
  const uint64_t at = to_clocks(now);
  const uint64_t stride = access.stride != 0 ? access.stride : access.segment_bytes;
  uint64_t first = ~uint64_t(0), last = 0;
  const auto serve = [&](const DramLocation& loc) {
    const uint64_t data_end = burst(at, write, loc, out);
    first = std::min(first, data_end - burst_clocks_);
    last = std::max(last, data_end);
  };
  // A burst of another rank than the one whose data the channel moves last
  // waits in its channel's queue (up to kQueueDepth) while bursts of that
  // rank go, as a first-ready controller serves them: a transfer's bursts
  // group by rank, a switch (tRTRS) once per group.
  const bool group_ranks = d_.ranks > 1 && d_.trtrs > 0;
  // The channel's oldest waiting burst goes, then the others of its rank.
  const auto release_oldest = [&](uint32_t channel) {
    std::vector<uint64_t>& waiting = waiting_[channel];
    const DramLocation oldest = decode(waiting.front() << burst_shift_);
    serve(oldest);
    size_t kept = 0;
    for (size_t i = 1; i < waiting.size(); ++i) {
      const DramLocation loc = decode(waiting[i] << burst_shift_);
      if (loc.rank == oldest.rank)
        serve(loc);
      else
        waiting[kept++] = waiting[i];
    }
    waiting.resize(kept);
  };
  // The next burst's location differs from this one's in the lowest field
  // of the mapping alone unless that field wraps.
  enum class Lowest { Channel, Rank, Bankgroup, Bank, Column };
  Lowest lowest = Lowest::Column;
  uint64_t lowest_mask = 0;
  const std::pair<Lowest, const Field*> fields[] = {{Lowest::Channel, &channel_},
                                                    {Lowest::Rank, &rank_},
                                                    {Lowest::Bankgroup, &bankgroup_},
                                                    {Lowest::Bank, &bank_},
                                                    {Lowest::Column, &column_}};
  for (const auto& f : fields)
    if (f.second->shift == 0 && f.second->mask != 0) lowest = f.first, lowest_mask = f.second->mask;
  const auto step = [&](DramLocation& loc) {
    switch (lowest) {
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
  };
  uint64_t previous = ~uint64_t(0);  // a burst two segments share moves once
  DramLocation loc;                  // previous's
  for (uint64_t s = 0; access.segment_bytes != 0 && s < access.segments; ++s) {
    const uint64_t begin = access.address + s * stride;
    const uint64_t end = begin + access.segment_bytes - 1;
    for (uint64_t b = begin >> burst_shift_; b <= end >> burst_shift_; ++b) {
      if (b == previous) continue;
      if (b == previous + 1 && lowest_mask != 0 && (previous & lowest_mask) != lowest_mask)
        step(loc);
      else
        loc = decode(b << burst_shift_);
      previous = b;
      if (!group_ranks) {
        serve(loc);
        continue;
      }
      const Channel& ch = channels_[loc.channel];
      std::vector<uint64_t>& waiting = waiting_[loc.channel];
      if (ch.bursts > 0 && loc.rank != ch.data_rank) {
        if (waiting.size() < kQueueDepth) {
          waiting.push_back(b);
          continue;
        }
        release_oldest(loc.channel);  // the queue is full
        if (loc.rank != ch.data_rank) {
          waiting.push_back(b);
          continue;
        }
      }
      serve(loc);
    }
  }
  for (uint32_t c = 0; group_ranks && c < d_.channels; ++c)
    while (!waiting_[c].empty()) release_oldest(c);
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
