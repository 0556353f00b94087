#include "sim/gpu/cuda_status.h"

#include <filesystem>

namespace npusim::gpu {

bool nvidia_driver_loaded() {
  std::error_code ignored;
  return std::filesystem::exists("/proc/driver/nvidia/version", ignored);
}

std::string explain_no_device(const std::string& runtime_message, bool insufficient_driver,
                              bool driver_loaded) {
  if (!driver_loaded)
    return "no NVIDIA driver on this machine (no /proc/driver/nvidia/version), so no GPU to run "
           "on; the CUDA runtime says: " +
           runtime_message;
  if (insufficient_driver)
    return runtime_message +
           ": the NVIDIA driver is older than the CUDA runtime npusim was built with; update "
           "the driver, or build with the CUDA toolkit the driver supports (docs/gpu.md)";
  return runtime_message;
}

}  // namespace npusim::gpu
