// The direct convolution kernels the binary one is compared with: int8 x int8
// with int32 sums and the reference's requantisation (or, for a binary layer
// run on its +-1 values, the threshold rule), and the float baseline on the
// same values. Same grid, block and staging structure as binary_conv.cu; the
// arithmetic is in direct_math.h, shared with the host emulation.
//
// The int8 kernel multiplies one channel at a time (no __dp4a) so that it
// matches the float kernel instruction for instruction (docs/gpu.md).
#include <cuda_runtime.h>

#include <type_traits>

#include "sim/gpu/direct_math.h"
#include "sim/gpu/dynamic_shared_memory.h"
#include "sim/gpu/kernel_launch.h"

namespace npusim::gpu {
namespace {

template <typename T, typename Acc>
__global__ void direct_conv_kernel(ConvGeometry g, const T* __restrict__ input,
                                   const T* __restrict__ weights, T pad, DirectKernelArgs a) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* s_in = reinterpret_cast<T*>(shared_raw);
  T* s_w = s_in + direct_stage_input_elems(g);
  const long long start = clock64();

  const uint32_t lane = threadIdx.x, warp = threadIdx.y;
  const uint32_t t = warp * kWarp + lane, threads = blockDim.x * blockDim.y;
  const auto [n, og, by, bx] = block_place(g, blockIdx.z, blockIdx.y, blockIdx.x);

  Acc acc[kMaxThreadTile][kMaxThreadTile] = {};
  for (uint32_t c0 = 0; c0 < g.c; c0 += g.groups_per_stage) {
    stage_direct_block<T>(g, input, weights, pad, n, og, by, bx, c0, s_in, s_w, t, threads);
    __syncthreads();
    direct_thread_tile<T, Acc>(g, s_in, s_w, lane, warp, acc);
    __syncthreads();
  }

  const uint32_t k = og * kWarp + lane;
  NPUSIM_UNROLL
  for (uint32_t i = 0; i < kMaxThreadTile; ++i) {
    if (i >= g.thread_rows) break;
    NPUSIM_UNROLL
    for (uint32_t j = 0; j < kMaxThreadTile; ++j) {
      if (j >= g.thread_cols) break;
      const OutputPixel p = thread_tile_pixel(g, by, bx, warp, i, j);
      const uint32_t oy = p.oy, ox = p.ox;
      if (oy >= g.ho || ox >= g.wo || k >= g.k) continue;
      const uint64_t at = ((uint64_t(n) * g.ho + oy) * g.wo + ox) * g.k + k;
      if constexpr (std::is_same<Acc, float>::value) {
        a.output_float[at] = acc[i][j];
      } else {
        const bool req = a.epilogue == DirectEpilogue::Requantize;
        a.output_int8[at] =
            direct_output(acc[i][j], a.epilogue, req ? a.bias[k] : 0, req ? a.scale[k] : 1, a.shift,
                          a.relu, req ? 0 : a.threshold[k], req ? 0 : a.flip[k]);
      }
    }
  }
  __syncthreads();
  if (t == 0)
    a.block_cycles[(uint64_t(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x] =
        static_cast<unsigned long long>(clock64() - start);
}

template <typename T, typename Acc>
int launch(const TilingPlan& plan, const DirectKernelArgs& a) {
  const auto kernel = direct_conv_kernel<T, Acc>;
  static uint64_t opted_in = 0;  // per kernel instantiation
  if (const cudaError_t e = opt_in_shared_memory(kernel, plan.shared_bytes, opted_in))
    return int(e);
  const dim3 grid(plan.grid_x, plan.grid_y, plan.grid_z);
  const dim3 block(kWarp, plan.threads_per_block / kWarp);
  kernel<<<grid, block, plan.shared_bytes>>>(plan.geometry, static_cast<const T*>(a.input),
                                             static_cast<const T*>(a.weights), T(a.pad_value), a);
  return int(cudaGetLastError());
}

}  // namespace

int launch_int8_conv(const TilingPlan& plan, const DirectKernelArgs& args) {
  return launch<int8_t, int32_t>(plan, args);
}

int launch_float_conv(const TilingPlan& plan, const DirectKernelArgs& args) {
  return launch<float, float>(plan, args);
}

}  // namespace npusim::gpu
