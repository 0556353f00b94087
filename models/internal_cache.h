// The internal cache (DESIGN.md): the on-chip SRAM shared by the three engines
// (seed 004). It holds the weight region, two parameter banks and each unit's
// ping-pong pair (seed 003) as the compiler partitioned them. Accesses stream
// through `ports`, limited by what the banks sustain; an access that finds
// every port busy waits (stall.cache_port_cycles).
#pragma once

#include <array>
#include <systemc>
#include <vector>

#include "models/interfaces.h"
#include "models/ping_pong_buffer.h"
#include "models/port_calendar.h"
#include "models/resident_regions.h"
#include "sim/config/hardware_config.h"
#include "sim/stats/stats_registry.h"
#include "sim/stats/timeline.h"

namespace npusim {

class InternalCache : public sc_core::sc_module, public CacheIf {
 public:
  InternalCache(sc_core::sc_module_name name, const HardwareConfig& hw, const Program& program,
                StatsRegistry& stats, Timeline& timeline);

  Grant access(uint32_t layer, bool write, uint64_t bytes, uint64_t earliest) override;
  ByteTile& weights(uint32_t slot) override { return weights_.at(slot); }
  ByteTile& take_weights(uint32_t slot, uint32_t slots) override;
  SumTile& params(uint32_t bank) override { return params_.at(bank); }
  ByteTile& input_half(uint32_t unit, uint32_t half) override {
    return units_.at(unit).input(half);
  }
  SumTile& result_half(uint32_t unit, uint32_t half) override {
    return units_.at(unit).results(half);
  }
  void occupancy_changed(uint32_t layer) override;
  void resident_written(uint32_t layer) override { resident_.written(layer); }
  std::string resident_problem(uint32_t producer) const override {
    return resident_.problem(producer);
  }
  bool resident_weights_on_chip(uint32_t layer, uint64_t begin, uint64_t end) override {
    return resident_.weights_on_chip(layer, begin, end);
  }
  std::string resident_weights_problem(uint32_t layer) const override {
    return resident_.weights_problem(layer);
  }

 private:
  CacheConfig config_;
  Timeline& timeline_;
  PortCalendar ports_;
  std::array<ByteTile, 2> weights_;
  bool whole_region_ = true;  // the last weight tile taken spans the whole region
  std::array<SumTile, 2> params_;
  std::vector<PingPongBuffer> units_;
  Counter& read_bytes_;
  Counter& write_bytes_;
  Counter& port_stall_;
  Counter& peak_occupancy_;
  Counter& allocated_;
  ResidentRegions resident_;
  // Per operator: bytes of the kept outputs and weight blocks live while it
  // runs (each from its producer to its last reader, or its first to its
  // last user), counted in the occupancy.
  std::vector<uint64_t> kept_live_;
};

}  // namespace npusim
