// The interfaces through which the hardware modules talk. Engines reach the
// controller, the DRAM/bus and the internal cache only through these ports.
#pragma once

#include <cstdint>
#include <string>
#include <systemc>

#include "models/banked_dram.h"
#include "models/sim_time.h"
#include "models/stage_name.h"
#include "models/tile_buffer.h"
#include "sim/program/program.h"

namespace npusim {

// The controller as the engines see it: their instruction queues and the
// dependency scheduler (seed 004).
class SchedulerIf : public virtual sc_core::sc_interface {
 public:
  virtual const Program& program() const = 0;
  // Next instruction of this engine queue in program order, or nullptr at the end.
  virtual const Instruction* next(EngineKind engine, uint32_t unit) = 0;
  // Blocks the calling thread until the policy lets stage `stage` of `in`
  // start (stage 0: the instruction itself).
  virtual void wait_until_ready(const Instruction& in, uint32_t stage = 0) = 0;
  // Blocks the calling thread until some instruction or stage makes progress
  // (an engine announces a stage or finishes an instruction).
  virtual void wait_for_progress() = 0;
  virtual void instruction_started(const Instruction& in) = 0;
  // Stage `stage` of `in` occupied its engine over [begin, engine_end) and
  // has its results in place from cycle `ready_at` on (may be in the future).
  virtual void stage_done(const Instruction& in, uint32_t stage, uint64_t begin,
                          uint64_t engine_end, uint64_t ready_at) = 0;
  // The engine is free of `in` now; its results are complete at `complete_at`
  // (>= now: loads and stores finish in memory after the bus is released).
  virtual void instruction_done(const Instruction& in, uint64_t complete_at) = 0;
  // Records a simulation error and stops the simulation.
  virtual void fail(const std::string& message) = 0;
  // "#12 compute ... stage 3" for error messages.
  virtual std::string who(const Instruction& in, uint32_t stage) const = 0;
};

// DRAM and the one shared bus.
class DramIf : public virtual sc_core::sc_interface {
 public:
  // The functional image; throws SimulationError if the range is outside it.
  virtual int8_t* image(uint64_t address, uint64_t bytes) = 0;
  // Moves `access` (its segments of contiguous bytes, where they lie) from
  // now; returns when its data crosses the memory's pins, [first, after the
  // last). Accounts bytes and bus stalls.
  virtual Grant transfer(uint32_t layer, bool write, const DramAccess& access) = 0;
  virtual uint64_t latency_cycles() const = 0;
  // Output rows of `layer` of which k_count channels of `cols` columns (a
  // column piece's, or every one) reach memory at `at`.
  virtual void rows_stored(uint32_t layer, uint32_t batch, uint32_t row_begin, uint32_t row_end,
                           uint32_t k_count, uint32_t cols, uint64_t at) = 0;
  // Throws SimulationError unless `rows` of `layer`'s output (counted across
  // its images) are completely in memory by now.
  virtual void require_rows_stored(const StageName& reader, uint32_t layer, GlobalRows rows) = 0;
};

// The internal cache: the shared on-chip SRAM, its ports, and the tile
// buffers the compiler's partition places in it.
class CacheIf : public virtual sc_core::sc_interface {
 public:
  // Reserves a port for `bytes`, no earlier than cycle `earliest`.
  virtual Grant access(uint32_t layer, bool write, uint64_t bytes, uint64_t earliest) = 0;
  // The weight region's slot `slot` (0 or 1; a layer with weight_buffers 1
  // uses slot 0 for the whole region).
  virtual ByteTile& weights(uint32_t slot) = 0;
  // A LoadWeights takes slot `slot` of a region split into `slots` (1 or 2):
  // every tile it physically overlaps is dropped (a whole-region tile
  // overlaps both slots), so a reader of an overwritten tile fails loudly.
  virtual ByteTile& take_weights(uint32_t slot, uint32_t slots) = 0;
  virtual SumTile& params(uint32_t bank) = 0;
  virtual ByteTile& input_half(uint32_t unit, uint32_t half) = 0;
  virtual SumTile& result_half(uint32_t unit, uint32_t half) = 0;
  // Call after taking or releasing a buffer: updates occupancy statistics.
  virtual void occupancy_changed(uint32_t layer) = 0;
  // The memory plan's kept outputs (models/resident_regions.h): operator
  // `layer` stores to its kept output; and "" when `producer`'s kept output
  // may be read now, else why not.
  virtual void resident_written(uint32_t layer) = 0;
  virtual std::string resident_problem(uint32_t producer) const = 0;
  // Its kept weight blocks: whether operator `layer`'s block holds bytes
  // [begin, end) of its weights (else they come over the bus and the block
  // holds them from then on); and "" when the block may be loaded from now.
  virtual bool resident_weights_on_chip(uint32_t layer, uint64_t begin, uint64_t end) = 0;
  virtual std::string resident_weights_problem(uint32_t layer) const = 0;
};

}  // namespace npusim
