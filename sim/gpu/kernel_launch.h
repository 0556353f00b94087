// Host-callable launchers of the CUDA kernels (binary_conv.cu, direct_conv.cu),
// used by gpu_runner.cu. Only device pointers cross this interface; each
// launcher enqueues one kernel on the default stream and returns at once.
// CUDA builds only.
#pragma once

#include <cstdint>

#include "sim/gpu/conv_job.h"
#include "sim/gpu/tiling_plan.h"

namespace npusim::gpu {

// `block_cycles`: one entry per block (clock64 from start to end).
struct BinaryKernelArgs {
  const void* input = nullptr;    // N(C/b)HWb words (uint32 or uint64 by plan bits)
  const void* weights = nullptr;  // K,R,S packed over C
  const int32_t* threshold = nullptr;
  const uint8_t* flip = nullptr;
  void* output = nullptr;  // N(K/b)HoWob words
  unsigned long long* block_cycles = nullptr;
};

struct DirectKernelArgs {
  const void* input = nullptr;    // NHWC int8 or float
  const void* weights = nullptr;  // KRSC int8 or float
  DirectEpilogue epilogue = DirectEpilogue::Requantize;
  float pad_value = 0;  // converted to the element type
  bool relu = true;
  uint32_t shift = 0;
  const int32_t* bias = nullptr;
  const int32_t* scale = nullptr;
  const int32_t* threshold = nullptr;
  const uint8_t* flip = nullptr;
  int8_t* output_int8 = nullptr;  // Requantize / Binarize
  float* output_float = nullptr;  // Raw (float kernel)
  unsigned long long* block_cycles = nullptr;
};

// Return the cudaError_t of the launch as an int (0 = success).
int launch_binary_conv(const TilingPlan& plan, const BinaryKernelArgs& args);
int launch_int8_conv(const TilingPlan& plan, const DirectKernelArgs& args);
int launch_float_conv(const TilingPlan& plan, const DirectKernelArgs& args);

}  // namespace npusim::gpu
