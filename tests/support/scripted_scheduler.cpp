#include "tests/support/scripted_scheduler.h"

#include <utility>

#include "models/sim_time.h"

namespace npusim::test {

ScriptedScheduler::ScriptedScheduler(sc_core::sc_module_name name, const Program& program,
                                     EngineKind engine, std::vector<uint64_t> earliest_start)
    : sc_module(name),
      times(program.instructions.size()),
      program_(program),
      engine_(engine),
      earliest_start_(std::move(earliest_start)) {}

const Instruction* ScriptedScheduler::next(EngineKind engine, uint32_t /*unit*/) {
  if (engine != engine_) return nullptr;
  while (cursor_ < program_.instructions.size()) {
    const Instruction& in = program_.instructions[cursor_++];
    if (in.engine() == engine_) return &in;
  }
  return nullptr;
}

void ScriptedScheduler::wait_until_ready(const Instruction& in, uint32_t stage) {
  if (stage != 0) return;
  if (in.id < earliest_start_.size()) wait_until_cycle(earliest_start_[in.id]);
  for (const Dependency& d : in.deps) {
    const Instruction& producer = program_.instructions.at(d.producer);
    if (producer.engine() != engine_)
      throw SimulationError(describe(in, program_) + " depends on " + describe(producer, program_) +
                            ", which no engine of this test runs");
    while (!times.at(d.producer).done) sc_core::wait(progress_);
    wait_until_cycle(times.at(d.producer).complete);
  }
}

void ScriptedScheduler::instruction_started(const Instruction& in) {
  times.at(in.id).started = now_cycles();
}

void ScriptedScheduler::stage_done(const Instruction& in, uint32_t /*stage*/, uint64_t begin,
                                   uint64_t engine_end, uint64_t ready_at) {
  InstructionTimes& t = times.at(in.id);
  t.stages.push_back({begin, engine_end, ready_at});
  t.stage_begin = begin, t.stage_engine_end = engine_end, t.stage_ready = ready_at;
  progress_.notify(sc_core::SC_ZERO_TIME);
}

void ScriptedScheduler::instruction_done(const Instruction& in, uint64_t complete_at) {
  InstructionTimes& t = times.at(in.id);
  t.released = now_cycles();
  t.complete = complete_at;
  t.done = true;
  progress_.notify(sc_core::SC_ZERO_TIME);
}

void ScriptedScheduler::fail(const std::string& message) {
  if (error.empty()) error = message;
  sc_core::sc_stop();
}

std::string ScriptedScheduler::who(const Instruction& in, uint32_t stage) const {
  return describe(in, program_) + " stage " + std::to_string(stage);
}

std::vector<int8_t> dram_bytes(DramIf& dram, uint64_t address, uint64_t bytes) {
  const int8_t* p = dram.image(address, bytes);
  return std::vector<int8_t>(p, p + bytes);
}

}  // namespace npusim::test
