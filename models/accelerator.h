// The top of the modelled machine: wires the controller, the three engines,
// the internal cache and DRAM together, runs a program to completion and
// turns what happened (finished, stopped by an error, deadlocked) into a value.
#pragma once

#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/compute_engine.h"
#include "models/controller.h"
#include "models/dram.h"
#include "models/internal_cache.h"
#include "models/load_engine.h"
#include "models/store_engine.h"
#include "models/vector_unit.h"

namespace npusim {

struct RunOutcome {
  enum class Status { Completed, Failed, Deadlocked };
  Status status = Status::Completed;
  std::string message;             // what went wrong, naming instruction and stage
  uint64_t cycles = 0;             // cycle the last instruction finished
  DramChannelTable dram_channels;  // per channel under the banked DRAM, else empty
};

class Accelerator : public sc_core::sc_module {
 public:
  // `program` and `stats` must outlive the accelerator. Throws
  // std::invalid_argument when the program does not suit the hardware.
  Accelerator(sc_core::sc_module_name name, const HardwareConfig& hw, const Program& program,
              StatsRegistry& stats, EngineOptions options, Timeline& timeline);

  // The DRAM image: fill inputs before run(), read outputs after.
  DramImage& dram_image() { return dram_.contents(); }
  Dram::Progress progress() const { return dram_.progress(); }

  // Simulates until every instruction has finished, an error stops the run, or
  // no engine can make progress. Call once per process (SystemC elaborates once).
  RunOutcome run();

 private:
  void finalize_bounds();

  const HardwareConfig& hw_;
  StatsRegistry& stats_;
  Controller controller_;
  Dram dram_;
  InternalCache cache_;
  LoadEngine load_;
  ComputeEngine compute_;
  StoreEngine store_;
  VectorUnit vector_;
  Counter& bound_compute_;
  Counter& bound_memory_;
  Counter& bound_serial_;
};

// Silences SystemC's banner and info messages (call before elaborating).
void quiet_systemc();

}  // namespace npusim
