// What the three engines share: their ports to the controller, the DRAM/bus
// and the internal cache, the functional/timing-only switch, and a guard that
// turns a SimulationError inside a SystemC thread into a stopped run with a
// message (exceptions must not escape a SystemC process).
#pragma once

#include <functional>
#include <systemc>
#include <vector>

#include "models/interfaces.h"
#include "sim/config/hardware_config.h"
#include "sim/stats/stats_registry.h"

namespace npusim {

struct EngineOptions {
  bool functional = true;  // false: timing-only (no arithmetic, no data copies)
  // When set, the DRAM appends every transfer it serves (tests compare them
  // with the command-level reference).
  std::vector<DramTransferRecord>* dram_transfers = nullptr;
};

class Engine : public sc_core::sc_module {
 public:
  sc_core::sc_port<SchedulerIf> scheduler;
  sc_core::sc_port<DramIf> dram;
  sc_core::sc_port<CacheIf> cache;

 protected:
  Engine(sc_core::sc_module_name name, const HardwareConfig& hw, EngineOptions options)
      : sc_module(name), hw_(hw), options_(options) {}

  // Runs `body` and reports any error to the controller instead of throwing.
  void guarded(const std::function<void()>& body);
  // Names `in` and `stage` in an error message, built only if one is raised.
  StageName who(const Instruction& in, uint32_t stage) const {
    return StageName(*scheduler.operator->(), in, stage);
  }
  // Stops the run, naming `in` and `stage`, when `producer`'s output kept in
  // the cache has not been written or has been overwritten (docs/memory-plan.md).
  void require_resident(const Instruction& in, uint32_t stage, uint32_t producer) const {
    const std::string why = cache->resident_problem(producer);
    if (!why.empty()) throw SimulationError(who(in, stage).str() + " " + why);
  }
  const LayerDescriptor& layer_of(const Instruction& in) const {
    return scheduler->program().layers[in.layer];
  }

  const HardwareConfig& hw_;
  EngineOptions options_;
};

}  // namespace npusim
