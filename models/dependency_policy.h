// The plug point of the early-completion dependency scheduler (seed 004):
// given a dependency and what is known of its producer, from which cycle may
// the consumer start? `strict` waits for the producer's full completion.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/program/program.h"

namespace npusim {

inline constexpr uint64_t kNotYet = std::numeric_limits<uint64_t>::max();

// The cycles from which each stage of an instruction is ready, kNotYet until announced: a view
// of `count` times that the controller keeps for all instructions in one array (a vector each
// took 56 bytes per instruction beside the times themselves: 200 MB for a whole decoder).
class StageTimes {
 public:
  StageTimes() = default;
  StageTimes(uint64_t* times, uint32_t count) : times_(times), count_(count) {}
  uint32_t size() const { return count_; }
  // Stage `stage`'s time; std::out_of_range past the last stage.
  uint64_t& at(uint32_t stage) { return times_[checked(stage)]; }
  uint64_t at(uint32_t stage) const { return times_[checked(stage)]; }
  uint64_t& operator[](uint32_t stage) { return times_[stage]; }
  uint64_t* begin() { return times_; }
  uint64_t* end() { return times_ + count_; }

 private:
  uint32_t checked(uint32_t stage) const {
    if (stage >= count_)
      throw std::out_of_range("stage " + std::to_string(stage) + " of an instruction of " +
                              std::to_string(count_) + " stages");
    return stage;
  }
  uint64_t* times_ = nullptr;
  uint32_t count_ = 0;
};

// What the controller knows of one instruction while the program runs.
struct InstructionState {
  uint64_t started_at = kNotYet;
  uint64_t released_at = kNotYet;  // the engine let go of it (a store: data in the write buffer)
  uint64_t done_at = kNotYet;      // its results are complete (a store: in memory)
  StageTimes stage_done_at;        // per stage
};

class DependencyPolicy {
 public:
  virtual ~DependencyPolicy() = default;
  virtual const char* name() const = 0;
  // Cycle from which `dep` no longer holds back stage `consumer_stage` of `consumer`, or kNotYet
  // when that is not known yet (the controller re-asks after every progress event).
  virtual uint64_t satisfied_from(const Instruction& consumer, uint32_t consumer_stage,
                                  const Dependency& dep, const Instruction& producer,
                                  const InstructionState& producer_state) const = 0;
};

// Wait for full completion of every producer.
class StrictPolicy : public DependencyPolicy {
 public:
  const char* name() const override { return "strict"; }
  uint64_t satisfied_from(const Instruction&, uint32_t, const Dependency&, const Instruction&,
                          const InstructionState& producer_state) const override {
    return producer_state.done_at;
  }
};

// Throws std::invalid_argument for a policy that is not implemented.
std::unique_ptr<DependencyPolicy> make_dependency_policy(
    SchedulerPolicy policy, const Program& program,
    ComputeStart compute_start = ComputeStart::Unit);

}  // namespace npusim
