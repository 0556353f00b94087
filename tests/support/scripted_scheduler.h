// The `model` tier's stand-in for the controller (models/controller.h): a SchedulerIf that hands
// ONE engine the program's instructions of its kind in program order and records the times the
// engine reports, so a single-module test can check them against cycles worked by hand.
// It enforces only what a test scripts: each instruction starts no earlier than its scripted
// cycle (if any) and, before stage 0, after every producer it depends on (of any kind) is
// complete, as the strict policy waits; later stages start at once. Every producer must be an
// instruction this engine runs (else wait_until_ready throws SimulationError, which the
// engine turns into a stopped run with an error).
#pragma once

#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "models/interfaces.h"

namespace npusim::test {

// One stage as the engine announced it.
struct StageTimes {
  uint64_t begin = 0, engine_end = 0, ready = 0;
};

// When one instruction started, freed its engine and was complete, as the engine told the
// scheduler.
struct InstructionTimes {
  uint64_t started = 0;
  uint64_t released = 0;  // instruction_done was called (the engine is free)
  // instruction_done's complete_at: a vector instruction's rows in memory, a load's data in
  // the cache.
  uint64_t complete = 0;
  std::vector<StageTimes> stages;  // in the order announced
  // The last stage announced (the only one of a one-stage instruction).
  uint64_t stage_begin = 0, stage_engine_end = 0, stage_ready = 0;
  bool done = false;
};

class ScriptedScheduler : public sc_core::sc_module, public SchedulerIf {
 public:
  // Serves `engine`'s instructions of `program`; instruction i starts no earlier than
  // `earliest_start[i]` where that is given.
  ScriptedScheduler(sc_core::sc_module_name name, const Program& program, EngineKind engine,
                    std::vector<uint64_t> earliest_start = {});

  const Program& program() const override { return program_; }
  const Instruction* next(EngineKind engine, uint32_t unit) override;
  void wait_until_ready(const Instruction& in, uint32_t stage) override;
  void wait_for_progress() override { sc_core::wait(progress_); }
  void instruction_started(const Instruction& in) override;
  void stage_done(const Instruction& in, uint32_t stage, uint64_t begin, uint64_t engine_end,
                  uint64_t ready_at) override;
  void instruction_done(const Instruction& in, uint64_t complete_at) override;
  void fail(const std::string& message) override;
  std::string who(const Instruction& in, uint32_t stage) const override;

  std::vector<InstructionTimes> times;  // by instruction id
  std::string error;                    // the first error reported ("" if none)

 private:
  const Program& program_;
  EngineKind engine_;
  std::vector<uint64_t> earliest_start_;
  size_t cursor_ = 0;
  sc_core::sc_event progress_;
};

// `bytes` of the DRAM image from `address`, copied.
std::vector<int8_t> dram_bytes(DramIf& dram, uint64_t address, uint64_t bytes);

}  // namespace npusim::test
