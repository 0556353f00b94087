// Hardware as a user gives it: a JSON object (from a file, a Python dict or
// nothing), then `--set path=value` overrides in order, parsed and checked.
// The CLI's --hw/--set and the Python module's hw=/set= both come here, so
// both accept the same keys and raise the same messages.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/config/hardware_config.h"

namespace npusim {

// Applies `sets` to `j` in order and parses the result; `origin` names where
// `j` came from in errors (a file path, "<default hardware>"). A value an
// override put there is reported as that override's error ("--set k=v"):
// the last --set of that key, or of a section holding it, is the one that stands.
HardwareConfig resolve_hardware_json(nlohmann::json j, const std::string& origin,
                                     const std::vector<std::string>& sets);

}  // namespace npusim
