// Which instruction and stage is acting ("instruction #12 compute ... stage 3"), for the error
// message of a failed check. Engines pass one to every buffer and DRAM check on every stage;
// the text is built only when a check fails (building it for every stage cost more than
// simulating the stage).
#pragma once

#include <cstdint>
#include <string>

namespace npusim {

class SchedulerIf;
struct Instruction;

class StageName {
 public:
  StageName(const SchedulerIf& scheduler, const Instruction& in, uint32_t stage)
      : scheduler_(&scheduler), in_(&in), stage_(stage) {}
  // SchedulerIf::who(in, stage).
  std::string str() const;

 private:
  const SchedulerIf* scheduler_;
  const Instruction* in_;
  uint32_t stage_;
};

}  // namespace npusim
