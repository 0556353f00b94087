#include "models/controller.h"

#include <algorithm>
#include <sstream>

namespace npusim {

Controller::Controller(sc_core::sc_module_name name, const HardwareConfig& hw,
                       const Program& program, std::unique_ptr<DependencyPolicy> policy,
                       StatsRegistry& stats, Timeline& timeline)
    : sc_module(name),
      program_(program),
      timeline_(timeline),
      policy_(std::move(policy)),
      state_(program.instructions.size()),
      stall_data_(stats.declare("stall.data_dependency_cycles", "cycles",
                                "cycles engines waited for a producer's data (RAW via the cache)")),
      stall_space_(stats.declare("stall.buffer_space_cycles", "cycles",
                                 "cycles engines waited for buffer space still in use (WAR)")),
      stall_memory_(
          stats.declare("stall.memory_dependency_cycles", "cycles",
                        "cycles loads waited for a previous layer's stores (RAW via DRAM)")),
      layer_start_(stats.declare("layer.start_cycle", "cycle",
                                 "cycle the layer's first instruction started",
                                 Counter::Reduce::Max)),
      layer_finish_(stats.declare("layer.finish_cycle", "cycle",
                                  "cycle the layer's last instruction finished",
                                  Counter::Reduce::Max)),
      layer_cycles_(stats.declare("layer.cycles", "cycles",
                                  "finish - start of the layer (neighbouring spans may overlap)")),
      overlap_two_(
          stats.declare("overlap.two_engines_cycles", "cycles",
                        "cycles at least two engines ran this layer's instructions at once")),
      overlap_three_(
          stats.declare("overlap.three_engines_cycles", "cycles",
                        "cycles load, compute and store all ran this layer's instructions")),
      early_start_(stats.declare("overlap.early_start_cycles", "cycles",
                                 "sum over dependencies of cycles a consumer started before its "
                                 "producer finished")) {
  queues_.push_back({"load engine", {}, 0, -1, {}});
  queues_.push_back({"store engine", {}, 0, -1, {}});
  for (uint32_t u = 0; u < hw.compute.units; ++u)
    queues_.push_back({"compute unit " + std::to_string(u), {}, 0, -1, {}});
  queues_.push_back({"vector unit", {}, 0, -1, {}});
  uint64_t stages = 0;
  for (const Instruction& in : program.instructions) stages += in.stages;
  stage_times_.assign(stages, kNotYet);
  uint64_t next_stage = 0;
  for (const Instruction& in : program.instructions) {
    if (in.engine() == EngineKind::Compute && in.unit >= hw.compute.units)
      throw std::invalid_argument("instruction " + describe(in, program) + " names compute unit " +
                                  std::to_string(in.unit) + " but the hardware has " +
                                  std::to_string(hw.compute.units));
    queue_of(in).ids.push_back(in.id);
    state_[in.id].stage_done_at = StageTimes(stage_times_.data() + next_stage, in.stages);
    next_stage += in.stages;
  }
}

Controller::Queue& Controller::queue_of(const Instruction& in) {
  switch (in.engine()) {
    case EngineKind::Load:
      return queues_[0];
    case EngineKind::Store:
      return queues_[1];
    case EngineKind::Vector:
      return queues_.back();
    case EngineKind::Compute:
      break;
  }
  return queues_[2 + in.unit];
}

const Instruction* Controller::next(EngineKind engine, uint32_t unit) {
  Queue& q = engine == EngineKind::Load     ? queues_[0]
             : engine == EngineKind::Store  ? queues_[1]
             : engine == EngineKind::Vector ? queues_.back()
                                            : queues_.at(2 + unit);
  if (q.cursor >= q.ids.size()) return nullptr;
  return &program_.instructions[q.ids[q.cursor++]];
}

Counter& Controller::stall_counter(DependencyKind kind) {
  switch (kind) {
    case DependencyKind::Data:
      return stall_data_;
    case DependencyKind::BufferSpace:
      return stall_space_;
    case DependencyKind::Memory:
      break;
  }
  return stall_memory_;
}

void Controller::wait_until_ready(const Instruction& in, uint32_t stage) {
  Queue& q = queue_of(in);
  // deps[0, settled) are satisfied: a producer's recorded times never change,
  // so a dependency satisfied once stays satisfied and need not be asked
  // again after each progress event (an attention operator has thousands).
  size_t settled = 0;
  for (;;) {
    const uint64_t now = now_cycles();
    uint64_t ready = now;
    const Dependency* blocking = nullptr;
    for (size_t i = settled; i < in.deps.size(); ++i) {
      const Dependency& d = in.deps[i];
      const uint64_t t = policy_->satisfied_from(in, stage, d, program_.instructions[d.producer],
                                                 state_[d.producer]);
      if (t > ready) {
        ready = t;
        blocking = &d;
      } else if (i == settled && t <= now) {
        ++settled;
      }
    }
    if (blocking == nullptr) break;
    q.waiting_on = in.id;
    q.blocked_by = *blocking;
    if (ready == kNotYet)
      sc_core::wait(progress_);
    else
      sc_core::wait(cycles(ready - now));
    stall_counter(blocking->kind).add(in.layer, now_cycles() - now);
  }
  q.waiting_on = -1;
}

void Controller::instruction_started(const Instruction& in) {
  state_[in.id].started_at = now_cycles();
}

void Controller::stage_done(const Instruction& in, uint32_t stage, uint64_t begin,
                            uint64_t engine_end, uint64_t ready_at) {
  state_[in.id].stage_done_at.at(stage) = ready_at;
  // An AGU_INIT (one stage) writes its register set beside the load engine's
  // DMA: it gets a track of its own, from the first to the last register
  // written, so the double buffering shows.
  if (timeline_.enabled() && in.op == Opcode::AguInit)
    timeline_.slice(
        {"address generator", describe(in, program_), begin, ready_at, in.id, -1, in.layer});
  else if (timeline_.enabled())
    timeline_.slice({queue_of(in).name, "stage " + std::to_string(stage), begin, engine_end, in.id,
                     int32_t(stage), in.layer});
  progress_.notify(sc_core::SC_ZERO_TIME);
}

void Controller::instruction_done(const Instruction& in, uint64_t complete_at) {
  InstructionState& s = state_[in.id];
  s.released_at = now_cycles();
  s.done_at = std::max(complete_at, s.released_at);
  if (timeline_.enabled() && in.op != Opcode::AguInit)  // see stage_done
    timeline_.slice({queue_of(in).name, describe(in, program_), s.started_at, s.released_at, in.id,
                     -1, in.layer});
  for (uint64_t& t : s.stage_done_at) t = std::min(t, s.done_at);
  ++done_count_;
  finish_cycle_ = std::max(finish_cycle_, s.done_at);
  progress_.notify(sc_core::SC_ZERO_TIME);
}

void Controller::fail(const std::string& message) {
  if (error_.empty()) error_ = message;
  sc_core::sc_stop();
}

std::string Controller::who(const Instruction& in, uint32_t stage) const {
  return "instruction " + describe(in, program_) + " stage " + std::to_string(stage);
}

std::string Controller::describe_waiting() const {
  std::ostringstream s;
  for (const Queue& q : queues_) {
    if (q.waiting_on >= 0) {
      const Instruction& in = program_.instructions[size_t(q.waiting_on)];
      const Instruction& p = program_.instructions[q.blocked_by.producer];
      s << "  " << q.name << " waits: " << describe(in, program_) << " needs "
        << describe(p, program_) << " (" << to_string(q.blocked_by.kind) << "), which "
        << (state_[p.id].started_at == kNotYet ? "never started" : "has not finished") << '\n';
    } else if (q.cursor < q.ids.size()) {
      s << "  " << q.name << ": " << (q.ids.size() - q.cursor) << " instructions not issued\n";
    }
  }
  return s.str();
}

// Sweeps the busy intervals (start to release) of the layer's instructions on
// the three engines; compute units count as one engine.
void Controller::count_overlap(uint32_t layer, const std::vector<uint32_t>& instructions) {
  std::vector<std::pair<uint64_t, int>> edges[3];
  for (const uint32_t id : instructions) {
    const Instruction& in = program_.instructions[id];
    const InstructionState& s = state_[in.id];
    if (s.started_at == kNotYet || s.released_at == kNotYet) continue;
    if (in.engine() == EngineKind::Vector) continue;  // a vector operator runs on one engine
    auto& e = edges[static_cast<int>(in.engine())];
    e.push_back({s.started_at, +1});
    e.push_back({s.released_at, -1});
  }
  std::vector<std::pair<uint64_t, int>> events;  // (time, engine * 2 + is_start)
  for (int engine = 0; engine < 3; ++engine)
    for (const auto& [t, delta] : edges[engine]) events.push_back({t, engine * 2 + (delta > 0)});
  std::sort(events.begin(), events.end());
  int active[3] = {0, 0, 0};
  uint64_t previous = 0;
  for (const auto& [t, code] : events) {
    const int busy = (active[0] > 0) + (active[1] > 0) + (active[2] > 0);
    if (busy >= 2) overlap_two_.add(layer, t - previous);
    if (busy == 3) overlap_three_.add(layer, t - previous);
    active[code / 2] += (code % 2) ? 1 : -1;
    previous = t;
  }
}

void Controller::finalize_layer_counters() {
  const size_t layers = program_.layers.size();
  std::vector<uint64_t> start(layers, kNotYet), finish(layers, 0);
  std::vector<std::vector<uint32_t>> of_layer(layers);  // instruction ids, once (not per layer)
  for (const Instruction& in : program_.instructions) {
    of_layer[in.layer].push_back(in.id);
    const InstructionState& s = state_[in.id];
    // A layer's span starts with its own work: the AGU_INIT of layer l+1 is
    // written during layer l by design (seed 001's second register set).
    if (s.started_at != kNotYet && in.op != Opcode::AguInit)
      start[in.layer] = std::min(start[in.layer], s.started_at);
    if (s.done_at != kNotYet) finish[in.layer] = std::max(finish[in.layer], s.done_at);
  }
  for (const Instruction& in : program_.instructions) {
    const InstructionState& c = state_[in.id];
    if (c.started_at == kNotYet) continue;
    for (const Dependency& d : in.deps) {
      const uint64_t producer_done = state_[d.producer].done_at;
      if (producer_done != kNotYet && producer_done > c.started_at)
        early_start_.add(in.layer, producer_done - c.started_at);
    }
  }
  for (uint32_t l = 0; l < layers; ++l) {
    if (start[l] == kNotYet) continue;
    count_overlap(l, of_layer[l]);
    layer_start_.raise_to(l, start[l]);
    layer_finish_.raise_to(l, finish[l]);
    layer_cycles_.add(l, finish[l] - start[l]);
  }
}

}  // namespace npusim
