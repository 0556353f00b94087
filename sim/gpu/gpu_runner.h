// The GPU side of `npusim gpu`: find a device, run the binary, int8 and float
// convolution kernels on given data, time them, and copy the outputs back.
// Declared always; defined by gpu_runner.cu when CUDA is built, else by
// gpu_runner_nocuda.cpp, whose functions report "built without CUDA support".
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/gpu/conv_job.h"
#include "sim/gpu/tiling_plan.h"
#include "sim/stats/median.h"
#include "sim/tensor/layout.h"
#include "sim/tensor/tensor.h"

namespace npusim::gpu {

class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// True when this build contains the CUDA kernels.
bool cuda_built();

// Number of CUDA devices; 0 with `error` set to the CUDA runtime's message
// (cudaGetErrorString) when there are none or the runtime cannot start, or
// to "built without CUDA support".
int cuda_device_count(std::string& error);

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;  // cudaDevAttrClockRate: the peak SM clock
  DeviceLimits limits;   // what the tiling plan is computed for
};

// Makes device `index` current and reads its attributes. Throws GpuError.
DeviceInfo open_device(int index);

// One kernel's measurements: cudaEvent time of each timed launch (after one
// warm-up launch) and the clock64 cycles each block of the last launch spent
// from its first to its last statement.
struct KernelTiming {
  KernelKind kind = KernelKind::Binary;
  std::string plan;  // TilingPlan::describe()
  std::vector<double> times_ms;
  double median_ms = 0;
  uint64_t blocks = 0;
  uint64_t max_block_cycles = 0;
  double mean_block_cycles = 0;
};

struct BinaryRun {
  PackedTensor output;  // N(K/b)HoWob
  KernelTiming timing;
};
struct Int8Run {
  TensorI8 output;  // N,Ho,Wo,K
  KernelTiming timing;
};
struct FloatRun {
  std::vector<float> sums;  // N,Ho,Wo,K
  KernelTiming timing;
};

// Each runs its kernel 1 + `repeats` times on `device` (repeats >= 1) and
// throws GpuError on any CUDA error, TilingError when no tiling fits.
BinaryRun gpu_binary_conv(const DeviceInfo& device, const PackedTensor& input,
                          const PackedTensor& weights, const ConvShape& shape,
                          const BinaryParams& p, int repeats);
Int8Run gpu_int8_conv(const DeviceInfo& device, const TensorI8& input, const TensorI8& weights,
                      const ConvShape& shape, const DirectParams& p, int repeats);
FloatRun gpu_float_conv(const DeviceInfo& device, const TensorI8& input, const TensorI8& weights,
                        const ConvShape& shape, int8_t pad_value, int repeats);

}  // namespace npusim::gpu
