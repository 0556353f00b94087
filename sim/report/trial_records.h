// What a run reports about its compile trials: the programs the runner
// simulated, timing only, before compiling the fastest
// (sim/runner/compile_trials.h, docs/compile-trials.md#compile-trials). Data only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim {

struct CompileTrial {
  uint32_t units = 0;      // compiler.units of the trial
  uint32_t cache_kib = 0;  // the cache the compiler laid its regions out in
  // The part of the MAC array the program uses (compiler.array_rows/cols).
  uint32_t array_rows = 0;
  uint32_t array_cols = 0;
  // Under compiler.loop_order auto: the trial's twin compiled with
  // weight_stationary everywhere, tried where the per-layer choice took
  // feature-stationary for some layer (docs/loop-order.md#loop-order-per-layer).
  bool weight_stationary = false;
  // Under compiler.residency auto: the trial's twin compiled without the
  // memory plan (residency off), so the plan never makes a run slower than
  // the same trials without it (docs/memory-plan.md#never-slower-than-off).
  bool residency_off = false;
  bool ok = false;
  uint64_t cycles = 0;      // timing-only total, when ok
  uint64_t dram_bytes = 0;  // DRAM bytes read and written, when ok
  uint64_t estimate = 0;    // the compiler's estimate of the program (npusim estimate)
  std::string failure;      // why it did not run (does not fit, a simulation error)

  // Whether two trials compiled for the same units, cache and array.
  bool same_target(const CompileTrial& o) const {
    return units == o.units && cache_kib == o.cache_kib && array_rows == o.array_rows &&
           array_cols == o.array_cols && weight_stationary == o.weight_stationary &&
           residency_off == o.residency_off;
  }
};

struct CompileTrials {
  // The chosen trial (none when no trial ran: units 0).
  CompileTrial chosen;
  // The trial the estimate alone ranks first (units 0 when none).
  CompileTrial estimated;
  // Most units first; for each count the whole array, then the smaller parts
  // of it, each with the whole cache and then the halved budgets (each
  // followed by its weight-stationary twin, if any). Empty when there was
  // nothing to choose between.
  std::vector<CompileTrial> trials;
};

}  // namespace npusim
