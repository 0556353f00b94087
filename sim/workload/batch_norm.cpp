#include "sim/workload/batch_norm.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/workload/layer_data.h"

namespace npusim {
namespace {

int32_t clamp_to_int32(double v) {
  constexpr double lo = double(std::numeric_limits<int32_t>::min());
  constexpr double hi = double(std::numeric_limits<int32_t>::max());
  return int32_t(v < lo ? lo : v > hi ? hi : v);
}

// Uniform in [lo, hi) from the top 53 bits of one draw.
double uniform_real(SeededRandom& rng, double lo, double hi) {
  return lo + (hi - lo) * (double(rng.next() >> 11) * 0x1.0p-53);
}

}  // namespace

FoldedThreshold fold_batch_norm(const BatchNormParams& bn, BinaryTie tie, double eps) {
  if (bn.gamma == 0.0) throw std::invalid_argument("fold_batch_norm: gamma must not be 0");
  if (!(bn.var > 0.0)) throw std::invalid_argument("fold_batch_norm: var must be > 0");
  // y >= 0  <=>  gamma * (dot - mean) >= -beta * sd  <=>  (dividing by gamma,
  // which turns the comparison around when gamma < 0) dot vs mean - beta*sd/gamma;
  // y > 0 likewise with strict comparisons, which exclude an integer x itself.
  const double x = bn.mean - bn.beta * std::sqrt(bn.var + eps) / bn.gamma;
  const bool strict = tie == BinaryTie::MinusOne;
  FoldedThreshold f;
  if (bn.gamma > 0) {
    f.threshold = clamp_to_int32(strict ? std::floor(x) + 1 : std::ceil(x));
    f.flip = 0;
  } else {
    f.threshold = clamp_to_int32(strict ? std::ceil(x) - 1 : std::floor(x));
    f.flip = 1;
  }
  return f;
}

std::vector<BatchNormParams> random_batch_norm(uint32_t K, uint64_t reduction, uint64_t seed) {
  SeededRandom rng(seed);
  const double spread = std::sqrt(double(reduction));
  std::vector<BatchNormParams> out(K);
  for (BatchNormParams& p : out) {
    const double magnitude = uniform_real(rng, 0.5, 2.0);
    p.gamma = rng.next() & 1 ? magnitude : -magnitude;
    p.beta = uniform_real(rng, -0.5, 0.5);
    p.mean = uniform_real(rng, -spread, spread);
    p.var = spread * spread * uniform_real(rng, 0.25, 1.0);
  }
  return out;
}

BinaryOutputRule binary_output_rule(const LayerConfig& layer) {
  BinaryOutputRule rule;
  if (!layer.binary.batch_norm) {
    rule.threshold = layer.binary.threshold;
    rule.threshold.resize(layer.K, 0);
    // A dot never reaches INT32_MAX (at most C*R*S), so it may stay as it is.
    if (layer.binary.tie == BinaryTie::MinusOne)
      for (int32_t& t : rule.threshold) t += t < std::numeric_limits<int32_t>::max() ? 1 : 0;
    rule.flip.assign(layer.K, 0);
    return rule;
  }
  const uint64_t reduction = uint64_t(layer.C) * layer.R * layer.S;
  for (const BatchNormParams& p :
       random_batch_norm(layer.K, reduction, layer.binary.batch_norm_seed)) {
    const FoldedThreshold f = fold_batch_norm(p, layer.binary.tie);
    rule.threshold.push_back(f.threshold);
    rule.flip.push_back(f.flip);
  }
  return rule;
}

}  // namespace npusim
