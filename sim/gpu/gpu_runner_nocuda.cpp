// The GPU runner of a build without CUDA (no nvcc found, or NPUSIM_CUDA=OFF):
// every entry point says so, and `npusim gpu` exits non-zero with that message.
#include "sim/gpu/gpu_runner.h"

namespace npusim::gpu {
namespace {

constexpr const char* kNoCuda = "built without CUDA support";

}  // namespace

bool cuda_built() { return false; }

int cuda_device_count(std::string& error) {
  error = kNoCuda;
  return 0;
}

DeviceInfo open_device(int) { throw GpuError(kNoCuda); }

BinaryRun gpu_binary_conv(const DeviceInfo&, const PackedTensor&, const PackedTensor&,
                          const ConvShape&, const BinaryParams&, int) {
  throw GpuError(kNoCuda);
}

Int8Run gpu_int8_conv(const DeviceInfo&, const TensorI8&, const TensorI8&, const ConvShape&,
                      const DirectParams&, int) {
  throw GpuError(kNoCuda);
}

FloatRun gpu_float_conv(const DeviceInfo&, const TensorI8&, const TensorI8&, const ConvShape&,
                        int8_t, int) {
  throw GpuError(kNoCuda);
}

}  // namespace npusim::gpu
