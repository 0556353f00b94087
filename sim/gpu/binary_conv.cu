// The seed 000 binary convolution kernel. Grid: x = output column tiles,
// y = output row tiles, z = image x output word group. Block: 32 lanes (one
// output channel each; two for b = 64) x warps (each warp one thread tile of
// output pixels). Per stage the block copies its input footprint (with halo)
// and its weights for a few channel groups into shared memory, then every
// thread adds the masked XOR-popcount dots of its tile into registers. At the
// end each warp votes: __ballot_sync packs the 32 lanes' sign decisions of a
// pixel into one output word (two ballots for a 64-bit word).
//
// All arithmetic is in kernel_math.h, shared with the host emulation that the
// CPU tests check against the reference.
#include <cuda_runtime.h>

#include "sim/gpu/dynamic_shared_memory.h"
#include "sim/gpu/kernel_launch.h"
#include "sim/gpu/kernel_math.h"

namespace npusim::gpu {
namespace {

template <typename Word>
__global__ void binary_conv_kernel(ConvGeometry g, const Word* __restrict__ input,
                                   const Word* __restrict__ weights,
                                   const int32_t* __restrict__ threshold,
                                   const uint8_t* __restrict__ flip, Word* __restrict__ output,
                                   unsigned long long* __restrict__ block_cycles) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Word* s_in = reinterpret_cast<Word*>(shared_raw);
  Word* s_w = s_in + binary_stage_input_words(g);
  const long long start = clock64();

  const uint32_t lane = threadIdx.x, warp = threadIdx.y;
  const uint32_t t = warp * kWarp + lane, threads = blockDim.x * blockDim.y;
  const auto [n, og, by, bx] = block_place(g, blockIdx.z, blockIdx.y, blockIdx.x);

  int32_t acc[kMaxThreadTile][kMaxThreadTile][kMaxChannelsPerLane] = {};
  for (uint32_t g0 = 0; g0 < g.in_groups; g0 += g.groups_per_stage) {
    stage_binary_block<Word>(g, input, weights, n, og, by, bx, g0, s_in, s_w, t, threads);
    __syncthreads();
    binary_thread_tile<Word>(g, s_in, s_w, lane, warp, by, bx, g0, acc);
    __syncthreads();  // the next stage overwrites shared memory
  }

  // Every lane of a warp has the same pixels, so the loop bounds and the
  // ballots are warp-uniform; only lane 0 stores.
  NPUSIM_UNROLL
  for (uint32_t i = 0; i < kMaxThreadTile; ++i) {
    if (i >= g.thread_rows) break;
    NPUSIM_UNROLL
    for (uint32_t j = 0; j < kMaxThreadTile; ++j) {
      if (j >= g.thread_cols) break;
      const uint64_t word = binary_output_word(g, n, og, by, bx, warp, i, j);
      uint32_t ballots[kMaxChannelsPerLane] = {0, 0};
      NPUSIM_UNROLL
      for (uint32_t q = 0; q < kMaxChannelsPerLane; ++q) {
        if (q >= g.bits / kWarp) break;
        ballots[q] = __ballot_sync(
            0xffffffffu, binary_lane_decision(g, acc[i][j][q], threshold, flip, og, lane, q));
      }
      if (lane == 0 && word != kNoOutputWord)
        output[word] =
            Word(sizeof(Word) == 8 ? combine_ballots(ballots[0], ballots[1]) : ballots[0]);
    }
  }
  __syncthreads();
  if (t == 0)
    block_cycles[(uint64_t(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x] =
        static_cast<unsigned long long>(clock64() - start);
}

template <typename Word>
int launch(const TilingPlan& plan, const BinaryKernelArgs& a) {
  const auto kernel = binary_conv_kernel<Word>;
  static uint64_t opted_in = 0;  // per kernel instantiation
  if (const cudaError_t e = opt_in_shared_memory(kernel, plan.shared_bytes, opted_in))
    return int(e);
  const dim3 grid(plan.grid_x, plan.grid_y, plan.grid_z);
  const dim3 block(kWarp, plan.threads_per_block / kWarp);
  kernel<<<grid, block, plan.shared_bytes>>>(plan.geometry, static_cast<const Word*>(a.input),
                                             static_cast<const Word*>(a.weights), a.threshold,
                                             a.flip, static_cast<Word*>(a.output), a.block_cycles);
  return int(cudaGetLastError());
}

}  // namespace

int launch_binary_conv(const TilingPlan& plan, const BinaryKernelArgs& args) {
  return plan.geometry.bits == 64 ? launch<uint64_t>(plan, args) : launch<uint32_t>(plan, args);
}

}  // namespace npusim::gpu
