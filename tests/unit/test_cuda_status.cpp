// `npusim gpu` on a machine without a device says why in the user's terms:
// no NVIDIA driver at all, or a driver older than the runtime.
#include <catch2/catch.hpp>

#include "sim/gpu/cuda_status.h"

using npusim::gpu::explain_no_device;

TEST_CASE("no CUDA device: without an NVIDIA driver the reason says so, not that it is too old",
          "[gpu]") {
  const std::string why = explain_no_device(
      "CUDA driver version is insufficient for CUDA runtime version", true, false);
  CHECK(why.rfind("no NVIDIA driver on this machine", 0) == 0);
  CHECK(why.find("CUDA driver version is insufficient") != std::string::npos);
}

TEST_CASE("no CUDA device: with a driver older than the runtime the reason says to update it",
          "[gpu]") {
  const std::string why =
      explain_no_device("CUDA driver version is insufficient for CUDA runtime version", true, true);
  CHECK(why.find("update the driver") != std::string::npos);
  CHECK(explain_no_device("no CUDA-capable device is detected", false, true) ==
        "no CUDA-capable device is detected");
}
