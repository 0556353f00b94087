#include "sim/frontend/load_workload.h"

#include "sim/config/json_reader.h"
#include "sim/frontend/scalesim/scalesim_topology.h"

namespace npusim {

NetworkConfig load_workload(const std::string& path) {
  if (is_scalesim_topology(path)) {
    // 4096 rows of a few dozen characters each: 16 MiB is generous, and keeps
    // a huge file from being read whole before the row limit is checked.
    constexpr uint64_t kMaxTopologyFileBytes = uint64_t(16) << 20;
    return parse_scalesim_topology(
        read_input_file(path, "a readable SCALE-Sim topology CSV", kMaxTopologyFileBytes), path);
  }
  return parse_workload(load_json_file(path), path);
}

}  // namespace npusim
