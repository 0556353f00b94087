// External memory (DESIGN.md "DRAM / bus", docs/dram.md): one shared ideal
// bus (bandwidth in bytes per cycle, a fixed latency, whole bursts, granted
// first come, first served; latency is pipelined, the bus held only while data
// moves), or the banked model's channels (banked_dram.h). Holds the functional
// DRAM image and tracks which output rows have reached memory, so a layer
// cannot read its input before it is stored.
#pragma once

#include <atomic>
#include <memory>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "models/dram_image.h"
#include "models/interfaces.h"
#include "sim/config/hardware_config.h"
#include "sim/stats/stats_registry.h"
#include "sim/stats/timeline.h"

namespace npusim {

class Dram : public sc_core::sc_module, public DramIf {
 public:
  Dram(sc_core::sc_module_name name, const DramConfig& config, double clock_mhz,
       const Program& program, StatsRegistry& stats, Timeline& timeline, bool with_image = true,
       std::vector<DramTransferRecord>* record = nullptr);

  int8_t* image(uint64_t address, uint64_t bytes) override;
  Grant transfer(uint32_t layer, bool write, const DramAccess& access) override;
  uint64_t latency_cycles() const override { return config_.latency_cycles; }
  void rows_stored(uint32_t layer, uint32_t batch, uint32_t row_begin, uint32_t row_end,
                   uint32_t k_count, uint32_t cols, uint64_t at) override;
  void require_rows_stored(const StageName& reader, uint32_t layer, GlobalRows rows) override;

  // The end of the run: places the writes the banked model's controllers
  // still hold, counting them for the operators that asked for them.
  void finish();

  DramImage& contents() { return image_; }
  // Each channel's figures under the banked model; empty for the bus.
  DramChannelTable channel_figures() const {
    return banked_ ? banked_->channel_figures() : DramChannelTable{};
  }

  // How far the run is, for a progress line drawn by another thread: output
  // channel-rows stored of all the program's, and layers whose every output
  // is stored. Atomics, so reading them while the simulation runs is safe.
  struct Progress {
    uint64_t stored = 0, total = 0;
    uint32_t layers_done = 0;
  };
  Progress progress() const {
    return {stored_.load(std::memory_order_relaxed), total_,
            layers_done_.load(std::memory_order_relaxed)};
  }

 private:
  struct RowState {
    uint64_t channel_cols = 0;  // channels times columns stored
    uint64_t ready_at = 0;
  };
  DramConfig config_;
  Timeline& timeline_;
  const Program& program_;
  DramImage image_;
  std::vector<std::vector<RowState>> stored_rows_;  // per layer: N * out_h rows
  std::vector<uint64_t> unstored_;                  // per layer: channel-columns still to store
  uint64_t total_ = 0;                              // channel-columns of every layer
  std::atomic<uint64_t> stored_{0};
  std::atomic<uint32_t> layers_done_{0};
  uint64_t bus_free_at_ = 0;
  Counter& read_bytes_;
  Counter& write_bytes_;
  Counter& bus_busy_;
  Counter& bus_stall_;
  // The banked model and its counters (dram.model banked), else null.
  std::unique_ptr<BankedDramTiming> banked_;
  std::vector<DramTransferRecord>* record_;
  struct BankedCounters {
    Counter *activates, *hits, *misses, *conflicts, *refreshes;
  } banked_counters_{};
  // Bank counts of `c` for `layer`.
  void count_banks(uint32_t layer, const BankedDramTiming::Counts& c);
  // Writes the banked model placed after their transfer returned: their
  // counts go to the operator that asked, their data end to its record.
  void writes_placed(const std::vector<BankedDramTiming::WritesPlaced>& placed);
  struct HeldTransfer {
    uint32_t layer = 0;
    size_t record = 0;  // index in *record_, when recording
  };
  std::unordered_map<uint64_t, HeldTransfer> held_;
};

}  // namespace npusim
