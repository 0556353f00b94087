// Batch norm folded into integer thresholds (sim/workload/batch_norm.h) must
// decide every integer dot product exactly as the float formula
//   y = gamma * (dot - mean) / sqrt(var + eps) + beta >= 0
// does, for both signs of gamma.
#include <catch2/catch.hpp>
#include <cmath>

#include "sim/config/workload_config.h"
#include "sim/workload/batch_norm.h"
#include "sim/workload/layer_data.h"

using namespace npusim;

namespace {

bool float_rule(const BatchNormParams& p, int32_t dot) {
  return p.gamma * (double(dot) - p.mean) / std::sqrt(p.var + kBatchNormEps) + p.beta >= 0.0;
}

bool folded_rule(const FoldedThreshold& f, int32_t dot) {
  return f.flip == 0 ? dot >= f.threshold : dot <= f.threshold;
}

}  // namespace

TEST_CASE("folded batch norm equals the float formula on many random parameters",
          "[binary][batch_norm]") {
  uint64_t positive = 0, negative = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const uint64_t reduction = 9 * 64 * seed;  // C*R*S of a 3x3 layer with C = 64*seed
    const int32_t range = int32_t(reduction);
    for (const BatchNormParams& p : random_batch_norm(64, reduction, seed)) {
      const FoldedThreshold f = fold_batch_norm(p);
      CHECK(f.flip == (p.gamma < 0 ? 1 : 0));
      (p.gamma > 0 ? positive : negative) += 1;
      // Every dot product a layer can produce (same parity as C*R*S, but
      // checking all integers is stricter), and the threshold's neighbours.
      for (int32_t dot = -range; dot <= range; dot += 1 + range / 500) {
        INFO("gamma " << p.gamma << " beta " << p.beta << " mean " << p.mean << " var " << p.var
                      << " dot " << dot);
        REQUIRE(folded_rule(f, dot) == float_rule(p, dot));
      }
      for (int32_t dot = f.threshold - 2; dot <= f.threshold + 2; ++dot)
        REQUIRE(folded_rule(f, dot) == float_rule(p, dot));
    }
  }
  CHECK(positive > 100);  // both signs of gamma are exercised
  CHECK(negative > 100);
}

TEST_CASE("fold_batch_norm by hand", "[binary][batch_norm]") {
  // gamma 2, beta 1, mean 3, var 4 - eps: sd = 2; x = 3 - 1*2/2 = 2 -> t = 2, dot >= 2.
  FoldedThreshold f = fold_batch_norm({2.0, 1.0, 3.0, 4.0 - kBatchNormEps});
  CHECK(f.threshold == 2);
  CHECK(f.flip == 0);
  // gamma -0.5, beta 1, mean 0, var 1 - eps: x = 0 - 1*1/(-0.5) = 2 -> dot <= 2.
  f = fold_batch_norm({-0.5, 1.0, 0.0, 1.0 - kBatchNormEps});
  CHECK(f.threshold == 2);
  CHECK(f.flip == 1);
  // x = 0.25 rounds up for gamma > 0 (dot >= 1) and down for gamma < 0 (dot <= 0).
  CHECK(fold_batch_norm({1.0, -0.25, 0.0, 1.0 - kBatchNormEps}).threshold == 1);
  CHECK(fold_batch_norm({-1.0, 0.25, 0.0, 1.0 - kBatchNormEps}).threshold == 0);
  CHECK_THROWS(fold_batch_norm({0.0, 0.0, 0.0, 1.0}));
  CHECK_THROWS(fold_batch_norm({1.0, 0.0, 0.0, 0.0}));
}

TEST_CASE("a binary layer's data: +-1 tensors and the folded output rule", "[binary][batch_norm]") {
  LayerConfig l;
  l.name = "b";
  l.C = 33, l.H = 5, l.W = 4, l.K = 40, l.R = 3, l.S = 3, l.padding = 1;
  l.dtype = DataType::Binary;
  l.binary.batch_norm = true;
  l.binary.batch_norm_seed = 4;
  const LayerData d = make_layer_data(l, true);
  for (int8_t v : d.input.data) REQUIRE((v == 1 || v == -1));
  for (int8_t v : d.weights.data) REQUIRE((v == 1 || v == -1));
  CHECK(d.bias.empty());
  REQUIRE(d.threshold.size() == 40);
  REQUIRE(d.flip.size() == 40);
  uint32_t flips = 0;
  for (uint32_t k = 0; k < 40; ++k) {
    flips += d.flip[k];
    // Thresholds land inside the reachable range, so outputs are mixed.
    CHECK(std::abs(d.threshold[k]) < int32_t(33 * 9));
  }
  CHECK(flips > 0);
  CHECK(flips < 40);
  // Same seed, same rule: the simulator, the reference and the GPU path agree.
  CHECK(binary_output_rule(l).threshold == d.threshold);
}
