// What a run reports about its compile trials: the programs the runner
// simulated, timing only, before compiling the fastest
// (sim/runner/compile_trials.h, docs/mapping.md#compile-trials). Data only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim {

struct CompileTrial {
  uint32_t units = 0;      // compiler.units of the trial
  uint32_t cache_kib = 0;  // the cache the compiler laid its regions out in
  bool ok = false;
  uint64_t cycles = 0;      // timing-only total, when ok
  uint64_t dram_bytes = 0;  // DRAM bytes read and written, when ok
  uint64_t estimate = 0;    // the compiler's estimate of the program (npusim estimate)
  std::string failure;      // why it did not run (does not fit, a simulation error)
};

struct CompileTrials {
  // The chosen trial's units and cache (0 when no trial ran).
  uint32_t units = 0;
  uint32_t cache_kib = 0;
  // The trial the estimate alone ranks first (0 when none).
  uint32_t estimated_units = 0;
  uint32_t estimated_cache_kib = 0;
  // Most units first; for each count the whole cache, then the halved budgets.
  // Empty when there was nothing to choose between.
  std::vector<CompileTrial> trials;
};

}  // namespace npusim
