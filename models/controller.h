// The controller: fetches the program, hands each engine its instructions in
// program order, and holds the dependency scheduler (seed 004) that decides
// when a dependent instruction may start. It records start/finish times,
// dependency stalls by cause, and detects deadlock (no engine can progress).
#pragma once

#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/dependency_policy.h"
#include "models/interfaces.h"
#include "sim/config/hardware_config.h"
#include "sim/stats/stats_registry.h"
#include "sim/stats/timeline.h"

namespace npusim {

class Controller : public sc_core::sc_module, public SchedulerIf {
 public:
  Controller(sc_core::sc_module_name name, const HardwareConfig& hw, const Program& program,
             std::unique_ptr<DependencyPolicy> policy, StatsRegistry& stats, Timeline& timeline);

  const Program& program() const override { return program_; }
  const Instruction* next(EngineKind engine, uint32_t unit) override;
  void wait_until_ready(const Instruction& in, uint32_t stage = 0) override;
  void wait_for_progress() override { sc_core::wait(progress_); }
  void instruction_started(const Instruction& in) override;
  void stage_done(const Instruction& in, uint32_t stage, uint64_t begin, uint64_t engine_end,
                  uint64_t ready_at) override;
  void instruction_done(const Instruction& in, uint64_t complete_at) override;
  void fail(const std::string& message) override;
  std::string who(const Instruction& in, uint32_t stage) const override;

  bool all_done() const { return done_count_ == program_.instructions.size(); }
  const std::string& error() const { return error_; }
  // Which engines wait on what; for the deadlock message.
  std::string describe_waiting() const;
  uint64_t finish_cycle() const { return finish_cycle_; }
  // Fills the per-layer start/finish/span and overlap counters after the run.
  void finalize_layer_counters();

 private:
  void count_overlap(uint32_t layer, const std::vector<uint32_t>& instructions);

 private:
  struct Queue {
    std::string name;
    std::vector<uint32_t> ids;
    size_t cursor = 0;
    int64_t waiting_on = -1;  // instruction id blocked in wait_until_ready
    Dependency blocked_by;
  };
  Queue& queue_of(const Instruction& in);
  Counter& stall_counter(DependencyKind kind);

  const Program& program_;
  Timeline& timeline_;
  std::unique_ptr<DependencyPolicy> policy_;
  std::vector<uint64_t> stage_times_;  // every instruction's StageTimes, one after another
  std::vector<InstructionState> state_;
  std::vector<Queue> queues_;  // load, store, compute unit 0..n-1
  sc_core::sc_event progress_;
  size_t done_count_ = 0;
  uint64_t finish_cycle_ = 0;
  std::string error_;
  Counter& stall_data_;
  Counter& stall_space_;
  Counter& stall_memory_;
  Counter& layer_start_;
  Counter& layer_finish_;
  Counter& layer_cycles_;
  Counter& overlap_two_;
  Counter& overlap_three_;
  Counter& early_start_;
};

}  // namespace npusim
