// A timing-only simulation's results as bytes, so that the run after the
// compile trials takes the chosen trial's simulation instead of simulating the
// same program again (docs/compile-trials.md#the-run-after-the-trials): every
// counter (name, unit, meaning, reduction and per-layer values, in the order
// the model declared them), the outcome (status, message, cycles and the
// banked DRAM's channel figures), each layer's tiling as the report shows it
// and the program's instruction count. Numbers are LEB128 varints: most
// per-layer values are small or zero.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/accelerator.h"
#include "sim/report/report.h"
#include "sim/stats/stats_registry.h"

namespace npusim {

std::string encode_simulation(const StatsRegistry& stats, const RunOutcome& outcome,
                              const std::vector<LayerTiling>& tiling, uint64_t instructions);

struct DecodedSimulation {
  std::unique_ptr<StatsRegistry> stats;
  RunOutcome outcome;
  std::vector<LayerTiling> tiling;
  uint64_t instructions = 0;
};
// The registry and outcome `bytes` encode, for a workload of `layers`
// operators. Throws std::runtime_error on a record that is truncated, has
// bytes left over, or was made for another number of operators.
DecodedSimulation decode_simulation(std::string_view bytes, uint32_t layers);

}  // namespace npusim
