// Batch norm folded into a binary layer's output threshold (docs/binary.md).
// A binary layer followed by batch norm and sign outputs +1 when
//   y = gamma * (dot - mean) / sqrt(var + eps) + beta > 0
// (seed 000's tie rule: y = 0 gives -1), or >= 0 with tie plus_one. With
// x = mean - beta * sqrt(var + eps) / gamma, since dot is an integer, that is
// one integer comparison per channel:
//   tie minus_one, gamma > 0:  dot >= t with t = floor(x) + 1, flip 0;
//                  gamma < 0:  dot <= t with t = ceil(x) - 1,  flip 1;
//   tie plus_one,  gamma > 0:  dot >= t with t = ceil(x),      flip 0;
//                  gamma < 0:  dot <= t with t = floor(x),     flip 1.
// The host folds once; the simulator, the reference and the GPU kernels all
// consume only the integer t and the flip bit (the comparator "dot >= t").
#pragma once

#include <cstdint>
#include <vector>

#include "sim/graph/workload.h"

namespace npusim {

constexpr double kBatchNormEps = 1e-5;

struct BatchNormParams {
  double gamma = 1.0;  // never 0
  double beta = 0.0;
  double mean = 0.0;
  double var = 1.0;  // > 0
};

struct FoldedThreshold {
  int32_t threshold = 0;
  uint8_t flip = 0;  // 0: dot >= threshold; 1: dot <= threshold
};

// The one folding function. Thresholds beyond the int32 range are clamped
// (no dot product reaches them, so the comparison keeps its meaning).
FoldedThreshold fold_batch_norm(const BatchNormParams& bn, BinaryTie tie = BinaryTie::MinusOne,
                                double eps = kBatchNormEps);

// Seeded random parameters for K channels of a layer whose dot products lie in
// [-reduction, reduction] (reduction = C*R*S): gamma of both signs, away from
// 0; mean and sqrt(var) on the scale of a random +-1 sum (sqrt(reduction)), so
// that the folded thresholds land inside the range of the dot products.
std::vector<BatchNormParams> random_batch_norm(uint32_t K, uint64_t reduction, uint64_t seed);

// The per-channel output rule of a binary layer: its config's thresholds
// (flip 0; with tie minus_one a threshold t becomes t + 1, since "dot > t" is
// "dot >= t + 1" for integers), or its seeded batch norm folded. K entries each.
struct BinaryOutputRule {
  std::vector<int32_t> threshold;
  std::vector<uint8_t> flip;
};
BinaryOutputRule binary_output_rule(const LayerConfig& layer);

}  // namespace npusim
