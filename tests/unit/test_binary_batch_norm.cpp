// Batch norm folded into integer thresholds (sim/workload/batch_norm.h) must
// decide every integer dot product exactly as the float formula
//   y = gamma * (dot - mean) / sqrt(var + eps) + beta > 0   (seed 000's tie rule)
// or >= 0 (tie plus_one) does, for both signs of gamma.
#include <catch2/catch.hpp>
#include <cmath>

#include "sim/graph/workload.h"
#include "sim/workload/batch_norm.h"
#include "sim/workload/layer_data.h"

using namespace npusim;

namespace {

bool float_rule(const BatchNormParams& p, int32_t dot, BinaryTie tie) {
  const double y = p.gamma * (double(dot) - p.mean) / std::sqrt(p.var + kBatchNormEps) + p.beta;
  return tie == BinaryTie::MinusOne ? y > 0.0 : y >= 0.0;
}

bool folded_rule(const FoldedThreshold& f, int32_t dot) {
  return f.flip == 0 ? dot >= f.threshold : dot <= f.threshold;
}

}  // namespace

TEST_CASE("folded batch norm equals the float formula on many random parameters",
          "[binary][batch_norm]") {
  const BinaryTie tie = GENERATE(BinaryTie::MinusOne, BinaryTie::PlusOne);
  uint64_t positive = 0, negative = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const uint64_t reduction = 9 * 64 * seed;  // C*R*S of a 3x3 layer with C = 64*seed
    const int32_t range = int32_t(reduction);
    for (const BatchNormParams& p : random_batch_norm(64, reduction, seed)) {
      const FoldedThreshold f = fold_batch_norm(p, tie);
      CHECK(f.flip == (p.gamma < 0 ? 1 : 0));
      (p.gamma > 0 ? positive : negative) += 1;
      // Every dot product a layer can produce (same parity as C*R*S, but
      // checking all integers is stricter), and the threshold's neighbours.
      // Millions of comparisons: the message is built only for one that disagrees.
      for (int32_t dot = -range; dot <= range; dot += 1 + range / 500) {
        const bool agree = folded_rule(f, dot) == float_rule(p, dot, tie);
        if (agree) continue;
        INFO("gamma " << p.gamma << " beta " << p.beta << " mean " << p.mean << " var " << p.var
                      << " dot " << dot);
        REQUIRE(agree);
      }
      for (int32_t dot = f.threshold - 2; dot <= f.threshold + 2; ++dot)
        REQUIRE(folded_rule(f, dot) == float_rule(p, dot, tie));
    }
  }
  CHECK(positive > 100);  // both signs of gamma are exercised
  CHECK(negative > 100);
}

TEST_CASE(
    "fold_batch_norm by hand: an integer x is a tie, -1 by default (seed 000), +1 with plus_one",
    "[binary][batch_norm]") {
  const BinaryTie plus = BinaryTie::PlusOne, minus = BinaryTie::MinusOne;
  // gamma 2, beta 1, mean 3, var 4 - eps: sd = 2; x = 3 - 1*2/2 = 2: dot = 2 gives y = 0.
  FoldedThreshold f = fold_batch_norm({2.0, 1.0, 3.0, 4.0 - kBatchNormEps}, plus);
  CHECK(f.threshold == 2);  // dot >= 2
  CHECK(f.flip == 0);
  f = fold_batch_norm({2.0, 1.0, 3.0, 4.0 - kBatchNormEps});  // the default: minus_one
  CHECK(f.threshold == 3);                                    // dot > 2
  CHECK(f.flip == 0);
  // gamma -0.5, beta 1, mean 0, var 1 - eps: x = 0 - 1*1/(-0.5) = 2.
  f = fold_batch_norm({-0.5, 1.0, 0.0, 1.0 - kBatchNormEps}, plus);
  CHECK(f.threshold == 2);  // dot <= 2
  CHECK(f.flip == 1);
  f = fold_batch_norm({-0.5, 1.0, 0.0, 1.0 - kBatchNormEps}, minus);
  CHECK(f.threshold == 1);  // dot < 2
  CHECK(f.flip == 1);
  // x = 0.25 is no tie: both rules give dot >= 1 for gamma > 0 and dot <= 0 for gamma < 0.
  for (BinaryTie tie : {plus, minus}) {
    CHECK(fold_batch_norm({1.0, -0.25, 0.0, 1.0 - kBatchNormEps}, tie).threshold == 1);
    CHECK(fold_batch_norm({-1.0, 0.25, 0.0, 1.0 - kBatchNormEps}, tie).threshold == 0);
  }
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

TEST_CASE(
    "a binary layer's threshold t: +1 needs dot > t by default (seed 000's vote), dot >= t "
    "with tie plus_one",
    "[binary][batch_norm]") {
  LayerConfig l;
  l.name = "b";
  l.C = 32, l.H = 1, l.W = 1, l.K = 3, l.R = 1, l.S = 1;
  l.dtype = DataType::Binary;
  l.binary.threshold = {0, -5, 2147483647};
  // The comparator is dot >= t' (flip 0): t' = t + 1 gives dot > t; INT32_MAX
  // stays, since no dot reaches it either way.
  BinaryOutputRule rule = binary_output_rule(l);
  CHECK(rule.threshold == std::vector<int32_t>{1, -4, 2147483647});
  CHECK(rule.flip == std::vector<uint8_t>{0, 0, 0});
  l.binary.tie = BinaryTie::PlusOne;
  rule = binary_output_rule(l);
  CHECK(rule.threshold == std::vector<int32_t>{0, -5, 2147483647});
}
