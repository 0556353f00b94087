#include "models/dram.h"

#include <algorithm>

#include "models/cost/cost_model.h"

namespace npusim {
namespace {

// Pages are zeroed on first touch (dram_image.h); an image the host cannot
// reserve at all is a clear error, not a raw std::bad_alloc.
DramImage allocate_image(uint64_t bytes) {
  try {
    return DramImage(bytes);
  } catch (const std::bad_alloc&) {
    throw SimulationError("cannot allocate the " + std::to_string(bytes) +
                          "-byte DRAM image on the host (the program's dram_bytes)");
  } catch (const std::length_error&) {
    throw SimulationError("cannot allocate the " + std::to_string(bytes) +
                          "-byte DRAM image on the host (the program's dram_bytes)");
  }
}

}  // namespace

Dram::Dram(sc_core::sc_module_name name, const DramConfig& config, double clock_mhz,
           const Program& program, StatsRegistry& stats, Timeline& timeline, bool with_image,
           std::vector<DramTransferRecord>* record)
    : sc_module(name),
      config_(config),
      timeline_(timeline),
      program_(program),
      // Timing-only runs move no bytes: no image (and no page faults zeroing it).
      image_(allocate_image(with_image ? program.dram_bytes : 0)),
      read_bytes_(stats.declare("dram.read_bytes", "bytes", "bytes read from DRAM (whole bursts)")),
      write_bytes_(
          stats.declare("dram.write_bytes", "bytes", "bytes written to DRAM (whole bursts)")),
      bus_busy_(
          stats.declare("dram.bus_busy_cycles", "cycles", "cycles the shared bus moved data")),
      bus_stall_(stats.declare("stall.bus_cycles", "cycles",
                               "cycles engines waited for the shared bus (arbitration)")),
      record_(record) {
  if (config.model == DramModel::Banked) {
    banked_ = std::make_unique<BankedDramTiming>(config, clock_mhz);
    banked_counters_ = {
        &stats.declare("dram.activates", "", "row activates (banked DRAM)"),
        &stats.declare("dram.row_hits", "bursts", "bursts to an open row (banked DRAM)"),
        &stats.declare("dram.row_misses", "bursts",
                       "bursts to a bank with no open row: an activate (banked DRAM)"),
        &stats.declare("dram.row_conflicts", "bursts",
                       "bursts to a bank with another row open: precharge and activate (banked "
                       "DRAM)"),
        &stats.declare("dram.refreshes", "",
                       "all-bank refreshes while the layer ran (banked DRAM)")};
  }
  for (const LayerDescriptor& L : program.layers) {
    stored_rows_.emplace_back(uint64_t(L.N) * L.out_h);
    unstored_.push_back(uint64_t(L.N) * L.out_h * L.K * L.out_w);
    total_ += unstored_.back();
  }
}

int8_t* Dram::image(uint64_t address, uint64_t bytes) {
  if (address + bytes > image_.size() || address + bytes < address)
    throw SimulationError("DRAM access [" + std::to_string(address) + ", +" +
                          std::to_string(bytes) + ") outside the " + std::to_string(image_.size()) +
                          "-byte image");
  return image_.data() + address;
}

Grant Dram::transfer(uint32_t layer, bool write, const DramAccess& access) {
  const uint64_t now = now_cycles();
  Grant g;
  uint64_t bytes = 0;
  std::vector<BankedDramTiming::WritesPlaced> placed;
  if (banked_) {
    BankedDramTiming::Result r = banked_->transfer(now, write, access);
    g = {r.first_data, r.last_data};
    bytes = r.bursts * config_.burst_bytes;
    count_banks(layer, r);
    if (write && config_.write_queue > 0 && r.bursts > 0)
      held_[r.id] = {layer, record_ != nullptr ? record_->size() : 0};
    placed = std::move(r.writes_placed);
  } else {
    g.start = std::max(now, bus_free_at_);
    g.end = g.start + cost::dram_data_cycles(config_, access.segments, access.segment_bytes);
    bus_free_at_ = g.end;
    bytes = cost::dram_burst_bytes(config_, access.segments, access.segment_bytes);
  }
  (write ? write_bytes_ : read_bytes_).add(layer, bytes);
  if (record_ != nullptr) record_->push_back({now, write, access, g.start, g.end, g.end});
  writes_placed(placed);  // after the record: this transfer's own bursts may be among them
  if (banked_) {
    // Transfers overlap on the channels: busy counts the cycles some data
    // moves, stall the wait for transfers still moving when this one came.
    bus_busy_.add(layer, g.end - std::min(g.end, std::max(g.start, bus_free_at_)));
    bus_stall_.add(layer, std::min(g.start, std::max(now, bus_free_at_)) - now);
    bus_free_at_ = std::max(bus_free_at_, g.end);
  } else {
    bus_busy_.add(layer, g.end - g.start);
    bus_stall_.add(layer, g.start - now);
  }
  if (timeline_.enabled() && g.end > g.start) {
    const char* track = write ? "DRAM write (bytes/cycle)" : "DRAM read (bytes/cycle)";
    timeline_.counter(track, g.start, double(bytes) / double(g.end - g.start));
    timeline_.counter(track, g.end, 0.0);
  }
  return g;
}

void Dram::count_banks(uint32_t layer, const BankedDramTiming::Counts& c) {
  banked_counters_.activates->add(layer, c.misses + c.conflicts);
  banked_counters_.hits->add(layer, c.hits);
  banked_counters_.misses->add(layer, c.misses);
  banked_counters_.conflicts->add(layer, c.conflicts);
  banked_counters_.refreshes->add(layer, c.refreshes);
}

void Dram::writes_placed(const std::vector<BankedDramTiming::WritesPlaced>& placed) {
  for (const BankedDramTiming::WritesPlaced& p : placed) {
    const auto it = held_.find(p.transfer);
    if (it == held_.end())
      throw SimulationError("DRAM: placed writes of transfer " + std::to_string(p.transfer) +
                            ", which no operator asked for");
    count_banks(it->second.layer, p.counts);
    if (record_ != nullptr && it->second.record < record_->size()) {
      uint64_t& written = (*record_)[it->second.record].written;
      written = std::max(written, p.last_data);
    }
    if (p.last) held_.erase(it);
  }
}

void Dram::finish() {
  if (banked_) writes_placed(banked_->flush().writes_placed);
}

void Dram::rows_stored(uint32_t layer, uint32_t batch, uint32_t row_begin, uint32_t row_end,
                       uint32_t k_count, uint32_t cols, uint64_t at) {
  const LayerDescriptor& L = program_.layers.at(layer);
  for (uint32_t r = row_begin; r < row_end; ++r) {
    RowState& s = stored_rows_[layer][uint64_t(batch) * L.out_h + r];
    s.channel_cols += uint64_t(k_count) * cols;
    s.ready_at = std::max(s.ready_at, at);
  }
  const uint64_t stored = uint64_t(row_end - row_begin) * k_count * cols;
  stored_.fetch_add(stored, std::memory_order_relaxed);
  uint64_t& left = unstored_[layer];
  left -= std::min(left, stored);
  if (left == 0 && stored != 0) layers_done_.fetch_add(1, std::memory_order_relaxed);
}

namespace {
// What part of an output row is stored: "only 8 of 16 channels are stored"
// (whole-row stores), else in channel-columns (column pieces).
std::string stored_share(uint64_t channel_cols, const LayerDescriptor& L) {
  if (L.cols_per_piece == 0 && L.out_w != 0 && channel_cols % L.out_w == 0)
    return "only " + std::to_string(channel_cols / L.out_w) + " of " + std::to_string(L.K) +
           " channels are stored";
  return "only " + std::to_string(channel_cols) + " of " + std::to_string(uint64_t(L.K) * L.out_w) +
         " channel-columns are stored";
}
}  // namespace

void Dram::require_rows_stored(const StageName& reader, uint32_t layer, GlobalRows rows) {
  const LayerDescriptor& L = program_.layers.at(layer);
  const uint64_t now = now_cycles();
  const uint64_t total = uint64_t(L.N) * L.out_h;
  for (uint64_t g = rows.begin; g < std::min(rows.end, total); ++g) {
    const RowState& s = stored_rows_[layer][g];
    const uint64_t whole = uint64_t(L.K) * L.out_w;
    if (s.channel_cols < whole || s.ready_at > now) {
      const std::string row =
          std::to_string(g % L.out_h) + (L.N > 1 ? " of image " + std::to_string(g / L.out_h) : "");
      throw SimulationError(
          reader.str() + " reads row " + row + " of layer " + L.name + "'s output at cycle " +
          std::to_string(now) + ", before it is in memory: " +
          (s.channel_cols < whole ? stored_share(s.channel_cols, L)
                                  : "all channels are written but reach memory only at cycle " +
                                        std::to_string(s.ready_at)));
    }
  }
}

}  // namespace npusim
