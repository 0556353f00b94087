// Layout conversions (sim/tensor/layout.h): NCHW <-> NHWC permutations are
// exact round trips, and the seed 000 packing N(C/b)HWb puts channel c of
// (n, h, w) at bit c % b of word (n, c / b, h, w), physical 1 = +1, with the
// tail bits of a C that is not a multiple of b left 0.
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/tensor/layout.h"

using namespace npusim;

namespace {

TensorI8 signs_nhwc(uint32_t n, uint32_t h, uint32_t w, uint32_t c) {
  TensorI8 t({n, h, w, c});
  // A pattern with no period that divides 32 or 64, so a misplaced bit shows.
  for (uint64_t i = 0; i < t.size(); ++i) t.data[i] = (i * 2654435761u >> 7) % 3 == 0 ? 1 : -1;
  return t;
}

}  // namespace

TEST_CASE("NCHW <-> NHWC: element (n,c,h,w) moves to (n,h,w,c) and back", "[layout]") {
  TensorI32 nchw({2, 5, 3, 4});
  for (uint64_t i = 0; i < nchw.size(); ++i) nchw.data[i] = int32_t(i * 31 + 7);
  const TensorI32 nhwc = nchw_to_nhwc(nchw);
  REQUIRE(nhwc.shape == std::vector<uint32_t>{2, 3, 4, 5});
  for (uint32_t n = 0; n < 2; ++n)
    for (uint32_t c = 0; c < 5; ++c)
      for (uint32_t h = 0; h < 3; ++h)
        for (uint32_t w = 0; w < 4; ++w)
          CHECK(nhwc.data[((n * 3 + h) * 4 + w) * 5 + c] ==
                nchw.data[((n * 5 + c) * 3 + h) * 4 + w]);
  const TensorI32 back = nhwc_to_nchw(nhwc);
  CHECK(back.shape == nchw.shape);
  CHECK(back.data == nchw.data);

  TensorI8 small({1, 100, 2, 3});
  for (uint64_t i = 0; i < small.size(); ++i) small.data[i] = int8_t(i);
  CHECK(nhwc_to_nchw(nchw_to_nhwc(small)).data == small.data);
  CHECK_THROWS_AS(nchw_to_nhwc(TensorI8({2, 3, 4})), std::invalid_argument);
}

TEST_CASE("pack N(C/b)HWb: bit c % b of word (n, c/b, h, w), 1 = +1, tail masked", "[layout]") {
  for (uint32_t b : {32u, 64u}) {
    for (uint32_t C : {1u, 31u, 32u, 33u, 64u, 100u}) {
      INFO("b " << b << " C " << C);
      const uint32_t N = 2, H = 3, W = 2;
      const TensorI8 nhwc = signs_nhwc(N, H, W, C);
      const PackedTensor p = pack_nhwc(nhwc, b);
      const uint32_t groups = (C + b - 1) / b;
      REQUIRE(p.groups() == groups);
      REQUIRE(p.words.size() == uint64_t(N) * groups * H * W);
      for (uint32_t n = 0; n < N; ++n)
        for (uint32_t h = 0; h < H; ++h)
          for (uint32_t w = 0; w < W; ++w)
            for (uint32_t c = 0; c < C; ++c) {
              const uint64_t word = p.words[((uint64_t(n) * groups + c / b) * H + h) * W + w];
              const int8_t v = nhwc.data[((uint64_t(n) * H + h) * W + w) * C + c];
              CHECK(((word >> (c % b)) & 1) == (v == 1 ? 1u : 0u));
            }
      // Padding bits of the last group (and anything above b) stay 0.
      for (uint64_t i = 0; i < p.words.size(); ++i) {
        const uint32_t group = uint32_t(i / (uint64_t(H) * W) % groups);
        CHECK((p.words[i] & ~p.tail_mask(group)) == 0);
      }
      CHECK(p.tail_mask(groups - 1) ==
            (C % b == 0 ? (b == 64 ? ~uint64_t(0) : 0xFFFFFFFFull) : (uint64_t(1) << (C % b)) - 1));
      // Round trip, and through the byte image's size.
      const TensorI8 back = unpack_to_nhwc(p);
      CHECK(back.shape == nhwc.shape);
      CHECK(back.data == nhwc.data);
      CHECK(p.bytes().size() == p.words.size() * b / 8);
    }
  }
}

TEST_CASE("NCHW -> NHWC -> packed -> NHWC -> NCHW is exact for C = 31, 32, 33, 64, 100",
          "[layout]") {
  for (uint32_t C : {31u, 32u, 33u, 64u, 100u}) {
    TensorI8 nchw({1, C, 2, 3});
    for (uint64_t i = 0; i < nchw.size(); ++i) nchw.data[i] = (i % 7 < 3) ? 1 : -1;
    for (uint32_t b : {32u, 64u})
      CHECK(nhwc_to_nchw(unpack_to_nhwc(pack_nhwc(nchw_to_nhwc(nchw), b))).data == nchw.data);
  }
}

TEST_CASE("packed byte image is little-endian words of b/8 bytes", "[layout]") {
  TensorI8 t({1, 1, 2, 33});
  for (auto& v : t.data) v = -1;
  t.data[0] = 1;        // (w 0, c 0): word 0 bit 0
  t.data[9] = 1;        // (w 0, c 9): word 0 bit 9 -> byte 1 bit 1
  t.data[33 + 32] = 1;  // (w 1, c 32): group 1, word (g 1, w 1) = word 3, bit 0
  const std::vector<uint8_t> bytes = pack_nhwc(t, 32).bytes();
  REQUIRE(bytes.size() == 16);
  CHECK(bytes[0] == 0x01);
  CHECK(bytes[1] == 0x02);
  CHECK(bytes[12] == 0x01);
  for (size_t i : {2u, 3u, 4u, 8u, 13u}) CHECK(bytes[i] == 0);
}

TEST_CASE("pack refuses values other than -1 / +1 and other word sizes", "[layout]") {
  TensorI8 t({1, 1, 1, 2});
  t.data = {1, 0};
  CHECK_THROWS_AS(pack_nhwc(t, 32), std::invalid_argument);
  t.data = {1, -1};
  CHECK_THROWS_AS(pack_nhwc(t, 16), std::invalid_argument);
}
