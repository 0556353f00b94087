// The kernels' loops, sequentially. Each comment names the kernel statement it
// stands for (sim/gpu/binary_conv.cu, sim/gpu/direct_conv.cu).
#include "sim/gpu/host_emulation.h"

#include <stdexcept>
#include <string>

namespace npusim::gpu {
namespace {

template <typename Word>
std::vector<Word> words_as(const PackedTensor& t) {
  return std::vector<Word>(t.words.begin(), t.words.end());
}

template <typename Word>
PackedTensor binary_conv(const PackedTensor& input, const PackedTensor& weights,
                         const ConvShape& shape, const BinaryParams& p, const TilingPlan& plan) {
  ConvGeometry g = plan.geometry;  // the plan knows shapes; the layer gives the pad mode
  g.pad_mode = p.pad_mode;
  const std::vector<Word> in = words_as<Word>(input), w = words_as<Word>(weights);
  PackedTensor out;
  out.n = shape.n, out.c = shape.k, out.h = g.ho, out.w = g.wo, out.bits = g.bits;
  out.words.assign(uint64_t(out.n) * out.groups() * out.h * out.w, 0);
  std::vector<Word> s_in(binary_stage_input_words(g)), s_w(binary_stage_weight_words(g));
  const uint32_t warps = g.warp_rows * g.warp_cols;
  using Tile = int32_t[kMaxThreadTile][kMaxThreadTile][kMaxChannelsPerLane];
  std::vector<Tile> acc(plan.threads_per_block);  // each thread's registers

  for (uint32_t z = 0; z < plan.grid_z; ++z) {  // blockIdx.z = n * out_groups + out_group
    const uint32_t n = block_place(g, z, 0, 0).n, og = block_place(g, z, 0, 0).og;
    for (uint32_t by = 0; by < plan.grid_y; ++by) {
      for (uint32_t bx = 0; bx < plan.grid_x; ++bx) {
        for (Tile& t : acc)
          for (auto& row : t)
            for (auto& px : row)
              for (int32_t& v : px) v = 0;
        for (uint32_t g0 = 0; g0 < g.in_groups; g0 += g.groups_per_stage) {
          // Every thread's share of the cooperative load, then __syncthreads().
          for (uint32_t t = 0; t < plan.threads_per_block; ++t)
            stage_binary_block<Word>(g, in.data(), w.data(), n, og, by, bx, g0, s_in.data(),
                                     s_w.data(), t, plan.threads_per_block);
          for (uint32_t warp = 0; warp < warps; ++warp)
            for (uint32_t lane = 0; lane < kWarp; ++lane)
              binary_thread_tile<Word>(g, s_in.data(), s_w.data(), lane, warp, by, bx, g0,
                                       acc[warp * kWarp + lane]);
        }
        // Epilogue: per pixel of each warp's tile, one ballot per 32 channels.
        for (uint32_t warp = 0; warp < warps; ++warp) {
          for (uint32_t i = 0; i < g.thread_rows; ++i) {
            for (uint32_t j = 0; j < g.thread_cols; ++j) {
              const uint64_t word = binary_output_word(g, n, og, by, bx, warp, i, j);
              uint32_t ballots[kMaxChannelsPerLane] = {0, 0};
              for (uint32_t q = 0; q < g.bits / kWarp; ++q) {
                bool decision[kWarp];
                for (uint32_t lane = 0; lane < kWarp; ++lane)
                  decision[lane] =
                      binary_lane_decision(g, acc[warp * kWarp + lane][i][j][q], p.threshold.data(),
                                           p.flip.data(), og, lane, q);
                ballots[q] = pack_decisions(decision, kWarp);  // __ballot_sync
              }
              if (word == kNoOutputWord) continue;  // lane 0 writes in-range pixels
              out.words[word] = g.bits == 64 ? combine_ballots(ballots[0], ballots[1]) : ballots[0];
            }
          }
        }
      }
    }
  }
  return out;
}

// The direct kernel's loops for T = int8_t (Acc int32) or float (Acc float);
// `store` receives (output index, k, sum) for every in-range output.
template <typename T, typename Acc, typename Store>
void direct_conv(const std::vector<T>& in, const std::vector<T>& w, T pad, const TilingPlan& plan,
                 Store store) {
  const ConvGeometry& g = plan.geometry;
  std::vector<T> s_in(direct_stage_input_elems(g)), s_w(direct_stage_weight_elems(g));
  const uint32_t warps = g.warp_rows * g.warp_cols;
  using Tile = Acc[kMaxThreadTile][kMaxThreadTile];
  std::vector<Tile> acc(plan.threads_per_block);
  for (uint32_t z = 0; z < plan.grid_z; ++z) {
    const uint32_t n = block_place(g, z, 0, 0).n, og = block_place(g, z, 0, 0).og;
    for (uint32_t by = 0; by < plan.grid_y; ++by) {
      for (uint32_t bx = 0; bx < plan.grid_x; ++bx) {
        for (Tile& t : acc)
          for (auto& row : t)
            for (Acc& v : row) v = Acc(0);
        for (uint32_t c0 = 0; c0 < g.c; c0 += g.groups_per_stage) {
          for (uint32_t t = 0; t < plan.threads_per_block; ++t)
            stage_direct_block<T>(g, in.data(), w.data(), pad, n, og, by, bx, c0, s_in.data(),
                                  s_w.data(), t, plan.threads_per_block);
          for (uint32_t warp = 0; warp < warps; ++warp)
            for (uint32_t lane = 0; lane < kWarp; ++lane)
              direct_thread_tile<T, Acc>(g, s_in.data(), s_w.data(), lane, warp,
                                         acc[warp * kWarp + lane]);
        }
        for (uint32_t warp = 0; warp < warps; ++warp)
          for (uint32_t lane = 0; lane < kWarp; ++lane)
            for (uint32_t i = 0; i < g.thread_rows; ++i)
              for (uint32_t j = 0; j < g.thread_cols; ++j) {
                const auto [oy, ox] = thread_tile_pixel(g, by, bx, warp, i, j);
                const uint32_t k = og * kWarp + lane;
                if (oy >= g.ho || ox >= g.wo || k >= g.k) continue;
                store(((uint64_t(n) * g.ho + oy) * g.wo + ox) * g.k + k, k,
                      acc[warp * kWarp + lane][i][j]);
              }
      }
    }
  }
}

void check_kind(const TilingPlan& plan, KernelKind kind) {
  if (plan.kind != kind)
    throw std::invalid_argument(std::string("host emulation: plan is for the ") +
                                to_string(plan.kind) + " kernel, not " + to_string(kind));
}

}  // namespace

PackedTensor emulate_binary_conv(const PackedTensor& input, const PackedTensor& weights,
                                 const ConvShape& shape, const BinaryParams& p,
                                 const TilingPlan& plan) {
  check_kind(plan, KernelKind::Binary);
  if (input.bits != p.bits || weights.bits != p.bits || plan.geometry.bits != p.bits)
    throw std::invalid_argument("host emulation: input, weights and plan must use the same bits");
  return p.bits == 64 ? binary_conv<uint64_t>(input, weights, shape, p, plan)
                      : binary_conv<uint32_t>(input, weights, shape, p, plan);
}

TensorI8 emulate_direct_int8(const TensorI8& input, const TensorI8& weights, const ConvShape& shape,
                             const DirectParams& p, const TilingPlan& plan) {
  check_kind(plan, KernelKind::Int8);
  TensorI8 out({shape.n, shape.out_h(), shape.out_w(), shape.k});
  direct_conv<int8_t, int32_t>(
      input.data, weights.data, p.pad_value, plan, [&](uint64_t at, uint32_t k, int32_t sum) {
        const bool req = p.epilogue == DirectEpilogue::Requantize;
        out.data[at] =
            direct_output(sum, p.epilogue, req ? p.bias[k] : 0, req ? p.scale[k] : 1, p.shift,
                          p.relu, req ? 0 : p.threshold[k], req ? 0 : p.flip[k]);
      });
  return out;
}

std::vector<float> emulate_direct_float(const TensorI8& input, const TensorI8& weights,
                                        const ConvShape& shape, int8_t pad_value,
                                        const TilingPlan& plan) {
  check_kind(plan, KernelKind::Float);
  const std::vector<float> in(input.data.begin(), input.data.end());
  const std::vector<float> w(weights.data.begin(), weights.data.end());
  std::vector<float> out(uint64_t(shape.n) * shape.out_h() * shape.out_w() * shape.k);
  direct_conv<float, float>(in, w, float(pad_value), plan,
                            [&](uint64_t at, uint32_t, float sum) { out[at] = sum; });
  return out;
}

}  // namespace npusim::gpu
