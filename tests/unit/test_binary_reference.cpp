// The golden binary convolution (sim/reference/binary_reference.h) on a case
// worked by hand, its padding modes, and its agreement with an XOR-popcount
// evaluation over packed words (the hardware's arithmetic, written here
// independently of models/).
#include <bitset>
#include <catch2/catch.hpp>

#include "sim/reference/binary_reference.h"
#include "sim/tensor/layout.h"
#include "sim/workload/layer_data.h"

using namespace npusim;
using namespace npusim::reference;

namespace {

TensorI8 pm1(std::vector<uint32_t> shape, std::vector<int8_t> values) {
  TensorI8 t(std::move(shape));
  t.data = std::move(values);
  return t;
}

TensorI8 random_pm1(std::vector<uint32_t> shape, uint64_t seed) {
  TensorI8 t(std::move(shape));
  SeededRandom rng(seed);
  for (int8_t& v : t.data) v = rng.next() & 1 ? 1 : -1;
  return t;
}

}  // namespace

TEST_CASE("binary reference by hand: 1 channel, 3x3 input, one 3x3 filter, padding 1",
          "[binary][reference]") {
  // input x (rows):      filter w (rows):
  //   +1 -1 +1             +1 +1 -1
  //   -1 -1 +1             -1 +1 +1
  //   +1 +1 -1             +1 -1 +1
  const TensorI8 x = pm1({1, 3, 3, 1}, {1, -1, 1, -1, -1, 1, 1, 1, -1});
  const TensorI8 w = pm1({1, 3, 3, 1}, {1, 1, -1, -1, 1, 1, 1, -1, 1});
  BinaryConvParams p;
  p.padding = 1;
  p.threshold = {0};
  p.flip = {0};

  // Centre output (1,1): all 9 taps inside. Products x*w row by row:
  //   (+1)(+1)=+1 (-1)(+1)=-1 (+1)(-1)=-1 | (-1)(-1)=+1 (-1)(+1)=-1 (+1)(+1)=+1 |
  //   (+1)(+1)=+1 (+1)(-1)=-1 (-1)(+1)=-1   -> sum = -1.
  // Corner output (0,0): taps (r,s) with r,s >= 1 are inside, reading x[0..1][0..1]:
  //   w[1][1]*x[0][0] = +1, w[1][2]*x[0][1] = -1, w[2][1]*x[1][0] = +1, w[2][2]*x[1][1] = -1
  //   -> skip: 0 (4 terms). The 5 padding taps hold w = +1,+1,-1,-1,+1 (sum +1):
  //   plus_one adds +1 -> 1; minus_one adds -1 -> -1.
  // Edge output (0,1): rows 1,2 of w over x rows 0,1, all columns:
  //   w[1] . x[0] = (-1)(+1)+(+1)(-1)+(+1)(+1) = -1; w[2] . x[1] = (+1)(-1)+(-1)(-1)+(+1)(+1) = +1
  //   -> skip: 0; padding taps w[0] = +1,+1,-1 (sum +1): plus_one 1, minus_one -1.
  p.pad_mode = BinaryPadding::Skip;
  TensorI32 dot = binary_conv_dot(x, w, p);
  REQUIRE(dot.shape == std::vector<uint32_t>{1, 3, 3, 1});
  CHECK(dot.data[4] == -1);
  CHECK(dot.data[0] == 0);
  CHECK(dot.data[1] == 0);
  p.pad_mode = BinaryPadding::PlusOne;
  dot = binary_conv_dot(x, w, p);
  CHECK(dot.data[4] == -1);
  CHECK(dot.data[0] == 1);
  CHECK(dot.data[1] == 1);
  p.pad_mode = BinaryPadding::MinusOne;
  dot = binary_conv_dot(x, w, p);
  CHECK(dot.data[4] == -1);
  CHECK(dot.data[0] == -1);
  CHECK(dot.data[1] == -1);

  // Output rule: threshold 0, flip 0: dot >= 0 -> +1. Flip 1: dot <= 0 -> +1.
  const TensorI8 out = conv2d_binary(x, w, p);  // minus_one: corner -1, centre -1
  CHECK(out.data[0] == -1);
  CHECK(out.data[4] == -1);
  p.flip = {1};
  CHECK(conv2d_binary(x, w, p).data[4] == 1);
  p.threshold = {-1};
  p.flip = {0};
  CHECK(conv2d_binary(x, w, p).data[4] == 1);  // -1 >= -1
}

TEST_CASE("binary reference equals masked XOR-popcount over packed words", "[binary][reference]") {
  for (uint32_t C : {31u, 32u, 33u, 64u, 100u}) {
    for (uint32_t b : {32u, 64u}) {
      const TensorI8 x = random_pm1({2, 5, 4, C}, C * 7 + b);
      const TensorI8 w = random_pm1({3, 3, 3, C}, C * 11 + b);
      BinaryConvParams p;
      p.padding = 1;
      p.pad_mode = BinaryPadding::MinusOne;  // padding words are all-zero bits
      const TensorI32 dot = binary_conv_dot(x, w, p);
      const PackedTensor px = pack_nhwc(x, b);
      TensorI8 taps = w;
      taps.shape = {3 * 3 * 3, 1, 1, C};
      const PackedTensor pw = pack_nhwc(taps, b);
      uint64_t i = 0;
      for (uint32_t n = 0; n < 2; ++n)
        for (uint32_t y = 0; y < 5; ++y)
          for (uint32_t xx = 0; xx < 4; ++xx)
            for (uint32_t k = 0; k < 3; ++k, ++i) {
              int32_t acc = 0;
              for (uint32_t r = 0; r < 3; ++r)
                for (uint32_t s = 0; s < 3; ++s)
                  for (uint32_t g = 0; g < px.groups(); ++g) {
                    const int iy = int(y) + int(r) - 1, ix = int(xx) + int(s) - 1;
                    const bool in = iy >= 0 && iy < 5 && ix >= 0 && ix < 4;
                    const uint64_t a = in ? px.words[px.word_index(n, g, iy, ix)] : 0;
                    const uint64_t wv = pw.words[pw.word_index((k * 3 + r) * 3 + s, g, 0, 0)];
                    const uint64_t mask = px.tail_mask(g);
                    acc += int32_t(std::bitset<64>(mask).count()) -
                           2 * int32_t(std::bitset<64>((a ^ wv) & mask).count());
                  }
              INFO("C " << C << " b " << b << " at " << i);
              REQUIRE(dot.data[i] == acc);
            }
    }
  }
}

TEST_CASE("binary reference: skip equals zero padding, stride 2, sign conversion",
          "[binary][reference]") {
  const TensorI8 x = random_pm1({1, 7, 6, 5}, 3);
  const TensorI8 w = random_pm1({4, 3, 3, 5}, 4);
  BinaryConvParams p;
  p.stride = 2;
  p.padding = 1;
  const TensorI32 skip = binary_conv_dot(x, w, p);
  CHECK(skip.shape == std::vector<uint32_t>{1, 4, 3, 4});
  p.pad_mode = BinaryPadding::PlusOne;
  const TensorI32 plus = binary_conv_dot(x, w, p);
  p.pad_mode = BinaryPadding::MinusOne;
  const TensorI32 minus = binary_conv_dot(x, w, p);
  // Padding contributes +S or -S where S is the padding taps' weight sum, so
  // skip is exactly halfway between the other two modes.
  for (uint64_t i = 0; i < skip.size(); ++i)
    CHECK(2 * skip.data[i] == plus.data[i] + minus.data[i]);

  const TensorI8 mixed = pm1({1, 1, 1, 4}, {-128, -1, 0, 127});
  CHECK(sign_to_pm1(mixed).data == std::vector<int8_t>{-1, -1, 1, 1});
  const TensorI8 bad = pm1({1, 1, 1, 1}, {0});
  CHECK_THROWS_AS(binary_conv_dot(bad, pm1({1, 1, 1, 1}, {1}), BinaryConvParams{}),
                  std::invalid_argument);
}
