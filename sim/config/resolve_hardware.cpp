#include "sim/config/resolve_hardware.h"

#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"

namespace npusim {

HardwareConfig resolve_hardware_json(nlohmann::json j, const std::string& origin,
                                     const std::vector<std::string>& sets) {
  for (const std::string& s : sets) apply_override(j, s, "--set " + s);
  try {
    return parse_hardware_config(j, origin);
  } catch (const ConfigError& e) {
    for (auto s = sets.rbegin(); s != sets.rend(); ++s) {
      const std::string pointer = override_pointer(*s);
      if (e.pointer() == pointer || e.pointer().rfind(pointer + "/", 0) == 0)
        throw ConfigError("--set " + *s, e.pointer(), e.expected(), e.found(), e.hint());
    }
    throw;
  }
}

}  // namespace npusim
