// The JSON front-end: layer lists ({"layers": [...]}, docs/config.md), graph
// workloads ({"operators": [...]}, docs/graphs.md) and decoder workloads
// (docs/transformers.md) into the workload records of sim/graph.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "sim/graph/workload.h"

namespace npusim {

// A file holding either one layer ({"type": "conv2d", ...}) or a network
// ({"layers": [...]}) becomes a NetworkConfig. Relative .npy paths resolve
// against the config file's folder. Throws ConfigError.
NetworkConfig parse_workload(const nlohmann::json& j, const std::string& file);
// A graph workload ({"operators": [...]}, docs/graphs.md). Throws ConfigError
// naming the file, the JSON pointer and the tensor or operator.
NetworkConfig parse_graph_workload(const nlohmann::json& j, const std::string& file);

// The embedded default workload (ResNet-18's convolution layers, batch 1).
NetworkConfig default_network();

}  // namespace npusim
