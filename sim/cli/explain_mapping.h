// `npusim compile --explain-mapping` and `--explain-layer`: what the mapper
// chose and why. The first prints one line per operator (the chosen mapping,
// its estimate and the greedy one's); the second prints one array layer's
// candidates ranked by their estimates, with the estimate's terms, and says
// what set the winner apart from the runner-up (docs/mapping.md).
#pragma once

#include <cstddef>
#include <string>

#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"

namespace npusim::cli {

// One line per operator of `workload` (array layers and vector operators),
// mapped for the part of the array `machine` gives the program
// (compiler.array_rows/cols).
int explain_mapping(const NetworkConfig& workload, const HardwareConfig& machine);

// The candidates of the array layer named `layer`: the `shown` cheapest
// (0: every one), then the greedy mapping's rank and the winner's margin.
// Throws std::runtime_error (bad input) when no array layer has that name.
int explain_layer(const NetworkConfig& workload, const HardwareConfig& machine,
                  const std::string& layer, size_t shown);

}  // namespace npusim::cli
