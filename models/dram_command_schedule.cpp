#include "models/dram_command_schedule.h"

#include <algorithm>

namespace npusim {

uint64_t DramActivateSchedule::place(uint64_t from, uint32_t group) const {
  uint64_t t = std::max(from, floor_);
  const uint64_t span = std::max(d_.trrd_l, d_.tfaw);
  const std::vector<Activate>& acts = activates_;
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

void DramActivateSchedule::record(const Activate& a) {
  std::vector<Activate>& acts = activates_;
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
    floor_ = std::max(floor_, acts[kKept - 1].at + std::max(d_.trrd_l, d_.tfaw));
    acts.erase(acts.begin(), acts.begin() + kKept);
  }
}

DramChannelSchedule::DramChannelSchedule(const DramDevice& d)
    : d_(d),
      burst_clocks_(d.burst_clocks()),
      group_ok_(size_t(d.ranks) * d.bank_groups, 0),
      read_ok_(size_t(d.ranks) * d.bank_groups, 0) {
  const uint64_t burst = burst_clocks_;
  column_reach_ = std::max<uint64_t>({d_.tccd_l, d_.trtw, d_.cl + burst + d_.trtrs,
                                      d_.cwl + burst + std::max(d_.twtr_l, d_.trtrs)});
}

void DramChannelSchedule::drop_gaps(uint64_t soonest) {
  size_t past = 0;
  while (past < gaps_.size() && gaps_[past].end < soonest) ++past;
  if (past > 0) gaps_.erase(gaps_.begin(), gaps_.begin() + ptrdiff_t(past));
}

uint64_t DramChannelSchedule::clear_of_columns(uint64_t t, uint64_t limit, bool write,
                                               const DramLocation& loc) const {
  const uint64_t latency = write ? d_.cwl : d_.cl, burst = burst_clocks_;
  const auto by_clock = [](const Column& c, uint64_t clock) { return c.at < clock; };
  auto near = std::lower_bound(columns_.begin(), columns_.end(),
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
  // Those before `t` hold it back until their `after`. Each such bound stays
  // kept as `t` grows, so a column is checked once, in clock order: `c` is the
  // first not yet checked.
  auto c = near;
  for (;;) {
    for (; c != columns_.end() && c->at < t && t <= limit; ++c) {
      const bool same_rank = c->rank == loc.rank;
      t = std::max(t, after(*c, same_rank, same_rank && c->group == loc.bankgroup));
    }
    if (t > limit) break;
    // Those from `t` on must keep their place after this one, else it goes
    // after them (and they are checked among those before it).
    const uint64_t data_end = t + latency + burst;
    bool moved = false;
    for (auto k = c; k != columns_.end() && k->at < t + column_reach_; ++k) {
      const bool same_rank = k->rank == loc.rank;
      const bool same_group = same_rank && k->group == loc.bankgroup;
      const uint64_t data_start = k->at + (k->write ? d_.cwl : d_.cl);
      bool before = k->at >= t + (same_group ? d_.tccd_l : d_.tccd_s) &&
                    data_start >= data_end + (same_rank ? 0 : d_.trtrs);
      if (k->write && !write) before = before && k->at >= t + d_.trtw;
      if (!k->write && write && same_rank)
        before = before && k->at >= data_end + (same_group ? d_.twtr_l : d_.twtr_s);
      if (before) continue;
      t = after(*k, same_rank, same_group);
      moved = true;
      break;
    }
    if (!moved) break;
  }
  return t;
}

uint64_t DramChannelSchedule::rank_switch_ready(const DramLocation& loc, bool write) const {
  const uint64_t latency = write ? d_.cwl : d_.cl;
  if (bursts_ == 0 || data_rank_ == loc.rank || data_free_ + d_.trtrs <= latency) return 0;
  return data_free_ + d_.trtrs - latency;
}

uint64_t DramChannelSchedule::place(uint64_t from, bool write, const DramLocation& loc) {
  const uint64_t latency = write ? d_.cwl : d_.cl, burst = burst_clocks_;
  const size_t group = size_t(loc.rank) * d_.bank_groups + loc.bankgroup;
  from = std::max(from, floor_);
  // After every placed burst: the latest of each rule's bound.
  const uint64_t tail =
      std::max({from, any_ok_, group_ok_[group], write ? write_ok_ : read_ok_[group],
                data_free_ > latency ? data_free_ - latency : 0, rank_switch_ready(loc, write)});
  // Else the first idle slot of the data bus it fits in (they end in order:
  // none can take it when the last ends too soon).
  if (gaps_.empty() || gaps_.back().end < from + latency + burst) return tail;
  for (auto g = gaps_.begin(); g != gaps_.end(); ++g) {
    if (g->end < from + latency + burst) continue;
    const uint64_t start = g->begin > latency ? g->begin - latency : 0;
    const uint64_t t = std::max(from, start);
    if (t >= tail) break;
    const uint64_t kind = group < 64 ? uint64_t(1) << group : 0;
    if (g->no_fit[write] & kind) continue;
    const uint64_t whole = g->end - latency - burst;  // the last that fits
    const uint64_t last = std::min(tail - 1, whole);
    const uint64_t clear = clear_of_columns(t, last, write, loc);
    if (clear <= last) return clear;
    if (t == start && last == whole) g->no_fit[write] |= kind;
  }
  return tail;
}

void DramChannelSchedule::record(const Column& c) {
  const uint64_t burst = burst_clocks_;
  const uint64_t data = c.data_end - burst;
  bool slots_changed = true;  // else the pruning below has nothing to drop
  if (data >= data_free_) {   // after every placed burst
    slots_changed = data - data_free_ >= burst;
    if (slots_changed) gaps_.push_back({data_free_, data});
    data_free_ = c.data_end;
    data_rank_ = c.rank;
    columns_.push_back(c);
  } else {  // into an idle slot: what is left either side stays one if a burst fits
    auto g = std::find_if(gaps_.begin(), gaps_.end(),
                          [&](const Gap& x) { return x.begin <= data && c.data_end <= x.end; });
    const Gap after{c.data_end, g->end};
    g->end = data;
    if (g->end - g->begin < burst)
      g = gaps_.erase(g);
    else
      ++g;
    if (after.end - after.begin >= burst) gaps_.insert(g, after);
    const auto later = std::upper_bound(columns_.begin(), columns_.end(), c.at,
                                        [](uint64_t t, const Column& x) { return t < x.at; });
    columns_.insert(later, c);
  }
  const size_t group = size_t(c.rank) * d_.bank_groups + c.group;
  any_ok_ = std::max(any_ok_, c.at + d_.tccd_s);
  group_ok_[group] = std::max(group_ok_[group], c.at + d_.tccd_l);
  if (c.write) {
    for (uint32_t g = 0; g < d_.bank_groups; ++g) {
      uint64_t& ok = read_ok_[size_t(c.rank) * d_.bank_groups + g];
      ok = std::max(ok, c.data_end + (g == c.group ? d_.twtr_l : d_.twtr_s));
    }
  } else {
    write_ok_ = std::max(write_ok_, c.at + d_.trtw);
  }
  // The queue's sliding minimum over the last kQueueDepth bursts.
  while (queue_min_.size() > queue_head_ && queue_min_.back().second >= c.at) queue_min_.pop_back();
  queue_min_.emplace_back(bursts_++, c.at);
  while (queue_min_[queue_head_].first + kQueueDepth < bursts_) ++queue_head_;
  if (queue_head_ > 64) {
    queue_min_.erase(queue_min_.begin(), queue_min_.begin() + ptrdiff_t(queue_head_));
    queue_head_ = 0;
  }
  // Keep the recent commands and idle slots: none goes before the dropped ones' reach again.
  constexpr size_t kKept = 64, kGaps = 16;
  if (columns_.size() > 2 * kKept) {
    floor_ = std::max(floor_, columns_[kKept - 1].at + column_reach_);
    columns_.erase(columns_.begin(), columns_.begin() + kKept);
    slots_changed = true;
  }
  if (!slots_changed) return;
  const uint64_t usable = floor_ + std::min(d_.cl, d_.cwl) + burst;
  size_t stale = 0;
  while (stale < gaps_.size() && (gaps_[stale].end < usable || gaps_.size() - stale > kGaps))
    ++stale;
  if (stale > 0) gaps_.erase(gaps_.begin(), gaps_.begin() + ptrdiff_t(stale));
}

}  // namespace npusim
