// What to tell a user when the CUDA runtime finds no device: its own message
// is about the runtime ("CUDA driver version is insufficient for CUDA runtime
// version") even on a machine with no NVIDIA driver at all, which misleads.
#pragma once

#include <string>

namespace npusim::gpu {

// Whether an NVIDIA kernel driver is loaded (/proc/driver/nvidia/version exists).
bool nvidia_driver_loaded();

// The reason `npusim gpu` prints for finding no device: `runtime_message` as
// the runtime gave it, explained when the driver is missing or too old.
std::string explain_no_device(const std::string& runtime_message, bool insufficient_driver,
                              bool driver_loaded);

}  // namespace npusim::gpu
