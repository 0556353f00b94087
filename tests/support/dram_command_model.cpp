// Reference DRAM command model (rules in dram_command_model.h). Deliberately plain: each channel
// is simulated on its own, one command clock at a time, jumping over clocks at which nothing can
// issue. For every constraint the state keeps the earliest clock it allows; a command is legal
// once the clock reaches the largest of the ones that apply to it. Since the state only changes
// when a command issues, the smallest such clock over all candidates (with the next arrival and
// the next refresh due) is exactly the next clock at which anything can happen.
#include "tests/support/dram_command_model.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <utility>

namespace npusim::test {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("DRAM reference model: " + what);
}

void check_geometry(const DramDevice& d) {
  require(d.channels > 0, "DramDevice.channels must be > 0");
  require(d.ranks > 0, "DramDevice.ranks must be > 0");
  require(d.bank_groups > 0, "DramDevice.bank_groups must be > 0");
  require(d.banks_per_group > 0, "DramDevice.banks_per_group must be > 0");
  require(d.channel_bits > 0 && d.channel_bits % 8 == 0,
          "DramDevice.channel_bits must be a positive multiple of 8");
  require(d.burst_length > 0, "DramDevice.burst_length must be > 0");
  require(d.row_bytes > 0 && d.row_bytes % d.burst_bytes() == 0,
          "DramDevice.row_bytes must be a positive multiple of burst_bytes()");
}

void check_device(const DramDevice& d) {
  check_geometry(d);
  require(d.beats_per_clock > 0, "DramDevice.beats_per_clock must be > 0");
  require(d.burst_length % d.beats_per_clock == 0,
          "DramDevice.burst_length must be a multiple of beats_per_clock");
  require(d.trefi > 0, "DramDevice.trefi must be > 0");
  require(d.trfc < d.trefi, "DramDevice.trfc must be < trefi");
}

struct FieldSpec {
  const char* name;
  uint64_t RefAddress::*member;
  uint32_t DramDevice::*count;  // the values it takes; nullptr for column and row (see below)
};
constexpr FieldSpec kFields[] = {{"row", &RefAddress::row, nullptr},
                                 {"rank", &RefAddress::rank, &DramDevice::ranks},
                                 {"bankgroup", &RefAddress::bankgroup, &DramDevice::bank_groups},
                                 {"bank", &RefAddress::bank, &DramDevice::banks_per_group},
                                 {"column", &RefAddress::column, nullptr},
                                 {"channel", &RefAddress::channel, &DramDevice::channels}};

// The named fields, most significant first.
std::vector<const FieldSpec*> parse_mapping(const std::string& mapping) {
  const std::string where = "address mapping '" + mapping + "': ";
  std::vector<const FieldSpec*> fields;
  size_t start = 0;
  while (true) {
    const size_t end = mapping.find(':', start);
    const std::string name =
        mapping.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const FieldSpec* f = std::find_if(std::begin(kFields), std::end(kFields),
                                      [&](const FieldSpec& s) { return name == s.name; });
    require(f != std::end(kFields), where + "unknown field '" + name + "'");
    require(std::find(fields.begin(), fields.end(), f) == fields.end(),
            where + "field '" + name + "' named twice");
    fields.push_back(f);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  require(fields.size() == 6, where + "must name row, rank, bankgroup, bank, column, channel");
  return fields;
}

// Values a field takes: row_bytes / burst_bytes() for column, 0 for row (unbounded).
uint64_t field_size(const DramDevice& d, const FieldSpec& f) {
  if (f.count != nullptr) return d.*f.count;
  return f.member == &RefAddress::column ? d.row_bytes / d.burst_bytes() : 0;
}

RefAddress decode_fields(const DramDevice& d, const std::vector<const FieldSpec*>& fields,
                         uint64_t address) {
  RefAddress a{0, 0, 0, 0, 0, 0};
  uint64_t v = address / d.burst_bytes();
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) {
    const uint64_t size = field_size(d, **it);
    a.*((*it)->member) = size == 0 ? v : v % size;
    v = size == 0 ? 0 : v / size;  // row takes all that remains
  }
  return a;
}

enum class Kind { kHit, kMiss, kConflict };  // what a request has needed so far (in this order)

struct Pending {
  size_t index;  // in the input
  uint64_t address;
  RefAddress a;
  size_t bank;  // index of its bank within the channel
  bool write;
  uint64_t arrival;
  Kind kind;
};

struct BankState {
  bool open = false;
  uint64_t row = 0;
  uint64_t next_act = 0;  // tRP after a precharge, tRC after an activate, tRFC after a refresh
  uint64_t next_pre = 0;  // tRAS after the activate, tRTP after a read, tWR after write data
  uint64_t next_col = 0;  // tRCD after the activate
};

struct RankState {
  std::vector<uint64_t> act_ok;  // per bank group: tRRD_S / tRRD_L after the last activates
  std::vector<uint64_t> col_ok;  // per bank group: tCCD_L after its last column command
  std::vector<uint64_t> rd_ok;   // per bank group: tWTR_S / tWTR_L after write data
  std::array<uint64_t, 4> recent_acts{};  // the last four activates (tFAW), a ring
  uint64_t act_count = 0;                 // activates so far; act_count % 4 is the oldest
  uint64_t busy_until = 0;                // end of the last refresh (tRFC)
  uint64_t next_ref_due = 0;
};

using LogLine = std::pair<uint64_t, std::string>;  // clock, text

class ChannelSim {
 public:
  ChannelSim(const DramDevice& d, RefPagePolicy policy, uint32_t channel, uint32_t queue_depth,
             uint32_t write_queue_depth, RefResult& out, std::vector<LogLine>* log)
      : d_(d),
        policy_(policy),
        channel_(channel),
        depth_(queue_depth),
        write_depth_(write_queue_depth),
        out_(out),
        log_(log),
        per_rank_(size_t(d.bank_groups) * d.banks_per_group),
        banks_(per_rank_ * d.ranks),
        ranks_(d.ranks),
        hits_(banks_.size()),
        write_hits_(banks_.size()),
        seen_(banks_.size()) {
    for (RankState& r : ranks_) {
      r.act_ok.assign(d.bank_groups, 0);
      r.col_ok.assign(d.bank_groups, 0);
      r.rd_ok.assign(d.bank_groups, 0);
      r.next_ref_due = d.trefi;
    }
    watchdog_ = 100000;
    for (uint32_t t :
         {d.cl, d.cwl, d.trcd, d.trp, d.tras, d.trrd_s, d.trrd_l, d.tfaw, d.tccd_s, d.tccd_l,
          d.twtr_s, d.twtr_l, d.trtw, d.trtrs, d.twr, d.trtp, d.trefi, d.trfc}) {
      watchdog_ += t;
    }
    watchdog_ += d.burst_clocks();
  }

  void run(std::vector<Pending>& requests) {
    size_t next_in = 0, done = 0;
    uint64_t progress = 0;  // last clock the queue moved (a command, or a first request)
    while (done < requests.size()) {
      while (next_in < requests.size() && has_room(requests[next_in]) &&
             requests[next_in].arrival <= clk_) {
        Pending* p = &requests[next_in++];
        if (queue_.empty() && write_queue_.empty()) progress = clk_;
        queue_of(*p).push_back(p);
        hits_of(*p)[p->bank] += banks_[p->bank].open && banks_[p->bank].row == p->a.row;
        // A read of a burst a queued write holds: the writes go first.
        if (write_depth_ > 0 && !p->write)
          for (const Pending* w : write_queue_) draining_ = draining_ || w->address == p->address;
      }
      if (write_depth_ > 0 && write_queue_.size() >= write_depth_) draining_ = true;
      if (write_queue_.empty()) draining_ = false;
      next_event_ = kNever;
      const size_t queued = queue_.size() + write_queue_.size();
      // Reads first; writes while draining, or while no read is queued.
      const bool writes = draining_ || queue_.empty();
      if (try_refresh() || try_queue(writes && write_depth_ > 0 ? write_queue_ : queue_,
                                     writes && write_depth_ > 0 ? write_hits_ : hits_)) {
        done += queued - queue_.size() - write_queue_.size();
        progress = clk_++;
        continue;
      }
      if (next_in < requests.size() && has_room(requests[next_in])) {
        next_event_ = std::min(next_event_, requests[next_in].arrival);
        if (queue_.empty() && write_queue_.empty() &&
            skip_idle_refreshes(requests[next_in].arrival))
          continue;
      }
      for (const RankState& r : ranks_) {
        if (r.next_ref_due > clk_) next_event_ = std::min(next_event_, r.next_ref_due);
      }
      if ((!queue_.empty() || !write_queue_.empty()) &&
          (next_event_ == kNever || next_event_ - progress > watchdog_)) {
        const Pending& p = queue_.empty() ? *write_queue_.front() : *queue_.front();
        throw std::logic_error("DRAM reference model: request " + std::to_string(p.index) +
                               " (address " + std::to_string(p.address) + ", channel " +
                               std::to_string(channel_) + ") made no progress from clock " +
                               std::to_string(progress));
      }
      clk_ = next_event_;
    }
  }

 private:
  // True when `earliest` has been reached; otherwise notes it as a future event.
  bool ready(uint64_t earliest) {
    if (earliest <= clk_) return true;
    next_event_ = std::min(next_event_, earliest);
    return false;
  }
  bool refresh_due(uint64_t rank) const { return clk_ >= ranks_[rank].next_ref_due; }

  // With the queue empty until `arrival`, every bank closed and every rank's refresh due at the
  // same clock d with nothing in its way, rank r refreshes at d + r + k x tREFI (k = 0, 1, ...):
  // jumps over all but the last such round before the arrival. Not while tracing.
  bool skip_idle_refreshes(uint64_t arrival) {
    const uint64_t d = ranks_[0].next_ref_due;
    if (log_ != nullptr || arrival <= d || (arrival - d) / d_.trefi < 2 ||
        ranks_.size() + d_.trfc >= d_.trefi) {
      return false;
    }
    for (const RankState& r : ranks_) {
      if (r.next_ref_due != d || r.busy_until > d) return false;
    }
    for (const BankState& b : banks_) {
      if (b.open || b.next_act > d) return false;
    }
    const uint64_t rounds = (arrival - d) / d_.trefi - 1;
    for (uint64_t r = 0; r < ranks_.size(); ++r) {
      ranks_[r].busy_until = d + (rounds - 1) * d_.trefi + r + d_.trfc;
      ranks_[r].next_ref_due = d + rounds * d_.trefi;
      for (size_t b = r * per_rank_; b < (r + 1) * per_rank_; ++b) {
        banks_[b].next_act = ranks_[r].busy_until;
      }
    }
    out_.refreshes += rounds * ranks_.size();
    return true;
  }

  // One trace line; kNever stands for "-". `bank` indexes the channel's banks (kNever for REF).
  void emit(const char* cmd, uint64_t rank, size_t bank, uint64_t row, uint64_t col) {
    if (log_ == nullptr) return;
    auto text = [](uint64_t v) { return v == kNever ? std::string("-") : std::to_string(v); };
    const size_t in_rank = bank % per_rank_;
    const bool b = bank != kNever;
    log_->emplace_back(clk_, text(clk_) + " " + text(channel_) + " " + text(rank) + " " +
                                 text(b ? in_rank / d_.banks_per_group : kNever) + " " +
                                 text(b ? in_rank % d_.banks_per_group : kNever) + " " + cmd + " " +
                                 text(row) + " " + text(col));
  }

  bool try_refresh() {
    for (uint64_t r = 0; r < ranks_.size(); ++r) {
      RankState& rank = ranks_[r];
      if (!refresh_due(r)) continue;
      uint64_t earliest = rank.busy_until;
      bool all_closed = true;
      for (size_t b = r * per_rank_; b < (r + 1) * per_rank_; ++b) {
        if (!banks_[b].open) {
          earliest = std::max(earliest, banks_[b].next_act);
          continue;
        }
        all_closed = false;
        if (ready(std::max(banks_[b].next_pre, rank.busy_until))) {
          precharge(b);
          return true;
        }
      }
      if (all_closed && ready(earliest)) {
        emit("REF", r, kNever, kNever, kNever);
        ++out_.refreshes;
        rank.busy_until = clk_ + d_.trfc;
        for (size_t b = r * per_rank_; b < (r + 1) * per_rank_; ++b) {
          banks_[b].next_act = std::max(banks_[b].next_act, rank.busy_until);
        }
        rank.next_ref_due += d_.trefi;
        return true;
      }
    }
    return false;
  }

  // FR-FCFS, oldest first: the oldest queued request whose RD/WR is legal now, else the oldest
  // whose ACT or PRE is legal now. Only the oldest request to a bank asks for its ACT or PRE, and
  // a PRE only while no queued request hits the open row.
  bool try_queue(std::vector<Pending*>& queue, const std::vector<uint32_t>& hits) {
    ++stamp_;
    Pending* row_command = nullptr;
    for (size_t i = 0; i < queue.size(); ++i) {
      Pending& p = *queue[i];
      if (refresh_due(p.a.rank)) continue;
      const BankState& bank = banks_[p.bank];
      const RankState& rank = ranks_[p.a.rank];
      const uint64_t bg = p.a.bankgroup;
      const bool oldest_to_bank = seen_[p.bank] != stamp_;
      seen_[p.bank] = stamp_;
      if (bank.open && bank.row == p.a.row) {
        const uint64_t latency = p.write ? d_.cwl : d_.cl;
        const uint64_t earliest = std::max(
            {bank.next_col, rank.busy_until, col_any_ok_, rank.col_ok[bg],
             bus_free_ > latency ? bus_free_ - latency : 0,  // data starts after the last burst
             // and tRTRS after it when the last burst was another rank's
             bus_used_ && bus_rank_ != p.a.rank && bus_free_ + d_.trtrs > latency
                 ? bus_free_ + d_.trtrs - latency
                 : 0,
             p.write ? wr_ok_ : rank.rd_ok[bg]});
        if (!ready(earliest)) continue;
        column(p, latency);
        queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(i));
        return true;
      }
      if (!oldest_to_bank || row_command != nullptr) continue;
      if (!bank.open) {
        const uint64_t faw =
            rank.act_count < 4 ? 0 : rank.recent_acts[rank.act_count % 4] + d_.tfaw;
        if (ready(std::max({bank.next_act, rank.busy_until, rank.act_ok[bg], faw}))) {
          row_command = &p;
        }
      } else if (hits[p.bank] == 0 && ready(std::max(bank.next_pre, rank.busy_until))) {
        row_command = &p;
      }
    }
    if (row_command == nullptr) return false;
    if (banks_[row_command->bank].open) {
      precharge(row_command->bank);
      if (row_command->kind == Kind::kHit) row_command->kind = Kind::kConflict;
    } else {
      activate(*row_command);
    }
    return true;
  }

  void column(Pending& p, uint64_t latency) {
    BankState& bank = banks_[p.bank];
    RankState& rank = ranks_[p.a.rank];
    const uint64_t bg = p.a.bankgroup;
    const uint64_t end = clk_ + latency + d_.burst_clocks();
    out_.data_end[p.index] = end;
    bus_free_ = end;
    bus_rank_ = p.a.rank;
    bus_used_ = true;
    col_any_ok_ = clk_ + d_.tccd_s;
    rank.col_ok[bg] = std::max(rank.col_ok[bg], clk_ + d_.tccd_l);
    if (p.write) {
      for (uint64_t g = 0; g < d_.bank_groups; ++g) {
        rank.rd_ok[g] = std::max(rank.rd_ok[g], end + (g == bg ? d_.twtr_l : d_.twtr_s));
      }
      bank.next_pre = std::max(bank.next_pre, end + d_.twr);
    } else {
      wr_ok_ = std::max(wr_ok_, clk_ + d_.trtw);
      bank.next_pre = std::max(bank.next_pre, clk_ + d_.trtp);
    }
    uint64_t* const counts[] = {&out_.row_hits, &out_.row_misses, &out_.row_conflicts};
    ++*counts[static_cast<int>(p.kind)];
    const bool auto_pre = policy_ == RefPagePolicy::Closed;
    emit(auto_pre ? (p.write ? "WRA" : "RDA") : (p.write ? "WR" : "RD"), p.a.rank, p.bank, p.a.row,
         p.a.column);
    --hits_of(p)[p.bank];
    if (auto_pre) {
      hits_[p.bank] = write_hits_[p.bank] = 0;
      // The auto-precharge happens at bank.next_pre: max(read + tRTP or write data end + tWR,
      // activate + tRAS). The bank takes no other column command; it may activate tRP later.
      bank.open = false;
      bank.next_act = std::max(bank.next_act, bank.next_pre + d_.trp);
      ++out_.precharges;
    }
  }

  void activate(Pending& p) {
    BankState& bank = banks_[p.bank];
    RankState& rank = ranks_[p.a.rank];
    emit("ACT", p.a.rank, p.bank, p.a.row, kNever);
    ++out_.activates;
    bank.open = true;
    bank.row = p.a.row;
    bank.next_col = clk_ + d_.trcd;
    bank.next_pre = clk_ + d_.tras;
    bank.next_act = clk_ + d_.tras + d_.trp;
    for (uint64_t g = 0; g < d_.bank_groups; ++g) {
      rank.act_ok[g] =
          std::max(rank.act_ok[g], clk_ + (g == p.a.bankgroup ? d_.trrd_l : d_.trrd_s));
    }
    rank.recent_acts[rank.act_count++ % 4] = clk_;
    if (p.kind == Kind::kHit) p.kind = Kind::kMiss;
    hits_[p.bank] = write_hits_[p.bank] = 0;
    for (const Pending* q : queue_) hits_[p.bank] += q->bank == p.bank && q->a.row == p.a.row;
    for (const Pending* q : write_queue_)
      write_hits_[p.bank] += q->bank == p.bank && q->a.row == p.a.row;
  }

  void precharge(size_t b) {
    BankState& bank = banks_[b];
    emit("PRE", b / per_rank_, b, bank.row, kNever);
    ++out_.precharges;
    bank.open = false;
    bank.next_act = std::max(bank.next_act, clk_ + d_.trp);
    hits_[b] = write_hits_[b] = 0;
  }

  // With a write queue, writes wait in their own; else every request in one.
  std::vector<Pending*>& queue_of(const Pending& p) {
    return write_depth_ > 0 && p.write ? write_queue_ : queue_;
  }
  std::vector<uint32_t>& hits_of(const Pending& p) {
    return write_depth_ > 0 && p.write ? write_hits_ : hits_;
  }
  bool has_room(const Pending& p) const {
    return write_depth_ > 0 && p.write ? write_queue_.size() < write_depth_
                                       : queue_.size() < depth_;
  }

  const DramDevice& d_;
  const RefPagePolicy policy_;
  const uint32_t channel_;
  const uint32_t depth_;
  const uint32_t write_depth_;  // 0: no write queue
  RefResult& out_;
  std::vector<LogLine>* log_;
  const size_t per_rank_;  // banks per rank
  std::vector<BankState> banks_;
  std::vector<RankState> ranks_;
  std::vector<uint32_t> hits_;        // per bank: queued requests to its open row
  std::vector<uint32_t> write_hits_;  // the same, of the write queue
  std::vector<uint64_t> seen_;        // per bank: the try_queue call (stamp_) that last met it
  uint64_t stamp_ = 0;
  std::vector<Pending*> queue_;        // oldest first
  std::vector<Pending*> write_queue_;  // oldest first (write_depth_ > 0)
  bool draining_ = false;              // writes go first until none is queued
  uint64_t clk_ = 0;
  uint64_t next_event_ = kNever;
  uint64_t watchdog_ = 0;
  uint64_t col_any_ok_ = 0;  // tCCD_S after the last column command on the channel
  uint64_t wr_ok_ = 0;       // tRTW after the last read on the channel
  uint64_t bus_free_ = 0;    // end of the last burst on the data bus
  uint64_t bus_rank_ = 0;    // the rank whose burst that was
  bool bus_used_ = false;
};

}  // namespace

RefAddress decode_address(const DramDevice& d, const std::string& mapping, uint64_t address) {
  check_geometry(d);
  return decode_fields(d, parse_mapping(mapping), address);
}

RefResult simulate_commands(const DramDevice& d, RefPagePolicy policy, const std::string& mapping,
                            const std::vector<RefRequest>& requests, uint32_t queue_depth,
                            bool trace, uint32_t write_queue_depth) {
  check_device(d);
  require(queue_depth > 0, "queue_depth must be > 0");
  const std::vector<const FieldSpec*> fields = parse_mapping(mapping);
  RefResult result;
  result.data_end.assign(requests.size(), 0);
  std::vector<std::vector<Pending>> per_channel(d.channels);
  for (size_t i = 0; i < requests.size(); ++i) {
    const RefAddress a = decode_fields(d, fields, requests[i].address);
    const size_t bank = (a.rank * d.bank_groups + a.bankgroup) * d.banks_per_group + a.bank;
    per_channel[a.channel].push_back(Pending{i, requests[i].address, a, bank, requests[i].write,
                                             requests[i].arrival, Kind::kHit});
  }
  std::vector<LogLine> lines;
  for (uint32_t ch = 0; ch < d.channels; ++ch) {
    if (per_channel[ch].empty()) continue;
    ChannelSim(d, policy, ch, queue_depth, write_queue_depth, result, trace ? &lines : nullptr)
        .run(per_channel[ch]);
  }
  // Each channel's lines are in clock order and channels ran in order: a stable sort interleaves.
  std::stable_sort(lines.begin(), lines.end(),
                   [](const LogLine& x, const LogLine& y) { return x.first < y.first; });
  for (LogLine& l : lines) result.log.push_back(std::move(l.second));
  return result;
}

}  // namespace npusim::test
