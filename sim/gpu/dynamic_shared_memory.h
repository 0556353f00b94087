// CUDA builds only (.cu files): above 48 KiB a kernel must opt in to its
// dynamic shared memory. Done once per kernel and size (the warm-up launch),
// so timed launches do not include it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace npusim::gpu {

// `opted_in`: the largest size this kernel has opted in to so far.
template <typename Kernel>
cudaError_t opt_in_shared_memory(Kernel kernel, uint64_t bytes, uint64_t& opted_in) {
  if (bytes <= opted_in) return cudaSuccess;
  const cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
  if (e == cudaSuccess) opted_in = bytes;
  return e;
}

}  // namespace npusim::gpu
