// Compile trials (compiler.trials = "simulate", the default;
// docs/compile-trials.md#compile-trials): the unit count a network's pieces use,
// the part of the cache the compiler lays its regions out in and the part of
// the MAC array it maps for, settled by simulating the candidates.
//
// The cost mapper ranks partitions by its analytic estimate, which errs by a
// few per cent, so on its own it may give a machine with one more unit, or
// twice the cache, a program that runs slower than the smaller machine's.
// Here the network is compiled for each unit count the mapper weighs
// (unit_counts), with the whole cache and with halved budgets
// (compiler.cache_kib = size / 2, / 4, ...) while their estimate is within
// kCacheTrialMargin of the whole cache's, up to three programs below the
// whole cache's: a halving that compiles the same program as the budget
// before it (but for its region sizes) runs the same cycles, so it is
// skipped and not counted. Each program is simulated timing only in a child
// process (SystemC elaborates once per process); the fastest is compiled.
// A program for u units in c KiB does not depend on the units or cache the
// hardware has, so a machine with U units tries every program a machine
// with U - 1 tries (up to 10 units): it never takes more cycles. A machine
// with a power-of-two multiple of the cache tries the smaller one's programs
// when its halvings down to the smaller size compile the smaller machine's
// whole-cache program, unless its estimate is more than the margin under
// theirs. Likewise for the array (docs/compile-trials.md#array-in-use): each unit
// count is also compiled for parts of the array 8, 16, ... rows and columns
// smaller (array_parts) while their estimate is within kArrayTrialMargin of
// the whole array's; a program for an r x c part runs the cycles of an
// r x c machine, so a machine 8k rows and columns larger tries the smaller
// one's programs unless its own estimate is more than the margin under
// theirs. Under compiler.loop_order auto, a trial whose program has a
// feature-stationary layer is also compiled weight-stationary everywhere
// (its twin), so the per-layer choice never runs slower than the default
// order on the trials' hardware. Under compiler.residency auto every trial
// is also compiled without the memory plan (residency off), so the plan is
// kept only where it runs faster.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/compiler/network_estimate.h"
#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"
#include "sim/report/trial_records.h"

namespace npusim {

// Whether run_compile_trials may simulate anything for this hardware (the
// cost mapper, compiler.trials "simulate", and more than one unit to choose
// from, or the cache budget, the part of the array, the loop order or the
// memory plan left to choose).
bool runs_compile_trials(const HardwareConfig& hw);

// The parts of the array (rows, cols) the trials may compile for, the whole
// array first, then rows and columns 8 fewer at a time, neither below 8 (nor
// below its own size where that is smaller); only compiler.array_rows/cols
// where either is set, and only the whole array with compiler.array_parts
// "whole".
std::vector<std::pair<uint32_t, uint32_t>> array_parts(const HardwareConfig& hw);

// Plans the trials and, when there are two or more, simulates them, `jobs`
// children at a time (0: one per CPU), and returns the fastest; on a tie the
// fewer units, then the larger cache, then the larger part of the array. With
// compiler.traffic_margin, of the trials within the margin of the fastest, the one with the fewest
// DRAM bytes. No trials: `trials` is empty. `announce`: log how many programs it simulates before
// it starts. `chosen_estimate`, when given, receives the chosen trial's estimate, from which
// compile_network builds its program without mapping the network again (each trial's process
// builds its program so too); with one program or none to simulate, the partition and mappings
// compile_network would choose for `hw` (network_partition), where they can be chosen. Both are
// kept between runs (trial_choice_cache.h). `chosen_record`, when given, receives the chosen
// trial's simulation (simulation_record.h): the run after the trials takes it instead of simulating
// the same program again.
CompileTrials run_compile_trials(const NetworkConfig& network, const HardwareConfig& hw,
                                 bool announce, unsigned jobs = 0,
                                 NetworkEstimate* chosen_estimate = nullptr,
                                 std::string* chosen_record = nullptr);

// What the trials compare two budgets' programs by: the program but for its
// regions' sizes (half_bytes and the weight, parameter and vector regions).
// Two budgets with equal fingerprints run the same cycles: the model reads
// the sizes only for the cache.allocated_bytes counter (the runner checks
// them against the cache), so the smaller budget need not be simulated.
// `graph`: the program's operators are written as a graph's.
std::string program_fingerprint(const Program& program, bool graph);

// hw with compiler.units, compiler.cache_kib and compiler.array_rows/cols set
// to the trials' choice (unchanged when nothing was chosen).
HardwareConfig compile_target(const HardwareConfig& hw, const CompileTrials& choice);

}  // namespace npusim
