// One row of the hardware parameter table (hardware_config.cpp): a key, its
// unit, the values it accepts, its help text, and how it is read and written.
// Sections with many keys declare theirs in their own file (dram_params.cpp).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"

namespace npusim {

struct HardwareParam {
  std::string path;   // "section.key" or "key" (top level)
  std::string unit;   // "" when the value has no unit
  std::string range;  // human-readable accepted values
  std::string help;
  std::function<void(JsonReader&, const std::string& key, HardwareConfig&)> read;
  std::function<nlohmann::json(const HardwareConfig&)> write;
};

// The `dram.*` keys of the banked model (dram_params.cpp), in table order:
// model and preset first, so that keys given beside a preset override it.
void add_banked_dram_params(std::vector<HardwareParam>& table);
// After every key is read: checks the device and the mapping, and sets the
// bus figures the rest of the simulator reads (burst_bytes, bytes_per_cycle)
// from the device; `dram` reads the section for errors.
void finish_dram_config(HardwareConfig& hw, JsonReader* dram);

}  // namespace npusim
