// The reference's GEMM (sim/reference/gemm_s16.h) at every instruction-set level this CPU
// runs, against int64 sums taken one product at a time, and the int8 reference convolution's
// GEMM form (conv2d_int8) against its direct loops (conv2d_int8_naive) at every level, on
// seeded random shapes with odd channel counts, strides, paddings and batch sizes, and on sums
// of -128 x -128 products up to the int32 limit.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/reference/gemm_s16.h"
#include "sim/reference/reference_conv.h"
#include "tests/support/test_support.h"

using namespace npusim;
using namespace npusim::reference;

namespace {

// splitmix64: the same sequence on every platform and standard library.
class GemmTestRng {
 public:
  explicit GemmTestRng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int32_t range(int32_t lo, int32_t hi) {
    return lo + int32_t(next() % uint64_t(int64_t(hi) - lo + 1));
  }

 private:
  uint64_t state_;
};

// Sets each supported level in turn and restores the automatic choice at the end.
template <typename Body>
void reference_gemm_at_every_level(Body body) {
  const GemmLevel automatic = gemm_level();
  for (GemmLevel level : supported_gemm_levels()) {
    set_gemm_level(level);
    INFO("level " << to_string(level));
    body();
  }
  set_gemm_level(automatic);
}

// out[p * out_p + k * out_k] by int64 sums, one product at a time.
std::vector<int64_t> naive_gemm(const GemmS16& g, size_t out_size) {
  std::vector<int64_t> out(out_size, 0);
  for (size_t p = 0; p < g.P; ++p)
    for (size_t k = 0; k < g.K; ++k) {
      int64_t sum = 0;
      for (size_t j = 0; j < g.J; ++j) sum += int64_t(g.L[p * g.ld_l + j]) * g.W[k * g.ld_w + j];
      out[p * g.out_p + k * g.out_k] = sum;
    }
  return out;
}

TensorI8 reference_gemm_random_tensor(GemmTestRng& rng, std::vector<uint32_t> shape,
                                      int extreme_percent) {
  TensorI8 t(std::move(shape));
  for (int8_t& v : t.data)
    v = int8_t(rng.range(0, 99) < extreme_percent ? (rng.range(0, 1) ? -128 : 127)
                                                  : rng.range(-128, 127));
  return t;
}

}  // namespace

TEST_CASE("the host supports the baseline GEMM level and the automatic choice is the highest",
          "[reference][gemm]") {
  const std::vector<GemmLevel> levels = supported_gemm_levels();
  REQUIRE_FALSE(levels.empty());
  CHECK(levels.front() == GemmLevel::Baseline);
  CHECK(gemm_level() == levels.back());
  for (GemmLevel l : {GemmLevel::Avx2, GemmLevel::Avx512Vnni}) {
    bool listed = false;
    for (GemmLevel s : levels) listed = listed || s == l;
    if (!listed) CHECK_THROWS_AS(set_gemm_level(l), std::invalid_argument);
  }
}

TEST_CASE(
    "gemm_s16 gives exactly the int64 sums at every level on 300 random shapes with odd sizes, "
    "row strides past J and both output layouts",
    "[reference][gemm]") {
  GemmTestRng rng(19);
  reference_gemm_at_every_level([&] {
    for (int i = 0; i < 300; ++i) {
      const size_t P = size_t(rng.range(1, 9)), K = size_t(rng.range(1, 11));
      const size_t J = size_t(rng.range(0, 3) == 0 ? rng.range(1, 7) : rng.range(1, 300));
      const size_t ld_l = J + size_t(rng.range(0, 5)), ld_w = J + size_t(rng.range(0, 5));
      std::vector<int16_t> L(P * ld_l), W(K * ld_w);
      // Operands of the graph path's range (-255..255), a quarter at the extremes.
      for (int16_t& v : L) v = int16_t(rng.range(0, 3) == 0 ? 255 : rng.range(-255, 255));
      for (int16_t& v : W) v = int16_t(rng.range(0, 3) == 0 ? -255 : rng.range(-255, 255));
      const bool by_row = rng.range(0, 1) == 1;  // out[p][k] or out[k][p]
      std::vector<int32_t> out(P * K, 12345);
      GemmS16 g{L.data(), P, ld_l,       W.data(),       K,
                ld_w,     J, out.data(), by_row ? K : 1, by_row ? 1 : P};
      INFO("case " << i << ": P " << P << ", K " << K << ", J " << J << ", ld " << ld_l << "/"
                   << ld_w << (by_row ? ", out [p][k]" : ", out [k][p]"));
      gemm_s16(g);
      const std::vector<int64_t> want = naive_gemm(g, out.size());
      REQUIRE(std::vector<int64_t>(out.begin(), out.end()) == want);
    }
  });
}

TEST_CASE(
    "gemm_s16 is exact at every level on sums of -128 x -128 products just below the int32 "
    "limit and of 255 x -255 products just above its lower limit",
    "[reference][gemm]") {
  reference_gemm_at_every_level([] {
    // 131071 products of 16384: 2147467264, 16383 below INT32_MAX. 3 x 5 outputs so that
    // every block shape (2 x 4, 1 x 4, 2 x 1, 1 x 1) meets the long sum.
    const size_t J = 131071;
    std::vector<int16_t> L(3 * J, -128), W(5 * J, -128);
    std::vector<int32_t> out(15);
    gemm_s16({L.data(), 3, J, W.data(), 5, J, J, out.data(), 5, 1});
    CHECK(out == std::vector<int32_t>(15, 2147467264));
    // 33025 products of -65025: -2147450625, the graph path's largest int32 sum.
    const size_t J2 = 33025;
    std::vector<int16_t> L2(2 * J2, 255), W2(J2, -255);
    std::vector<int32_t> out2(2);
    gemm_s16({L2.data(), 2, J2, W2.data(), 1, J2, J2, out2.data(), 1, 1});
    CHECK(out2 == std::vector<int32_t>(2, -2147450625));
  });
}

TEST_CASE(
    "conv2d_int8 (im2col GEMM) equals conv2d_int8_naive (direct loops) at every level on 120 "
    "random layers with odd channels, strides, paddings past the kernel and N up to 3",
    "[reference][gemm]") {
  GemmTestRng rng(2026);
  reference_gemm_at_every_level([&] {
    int multi_panel = 0;
    for (int i = 0; i < 120; ++i) {
      const uint32_t N = uint32_t(rng.range(1, 3)), C = uint32_t(rng.range(1, 40));
      const uint32_t K = uint32_t(rng.range(1, 13)), R = uint32_t(rng.range(1, 5));
      const uint32_t S = uint32_t(rng.range(1, 5)), stride = uint32_t(rng.range(1, 3));
      const uint32_t padding = uint32_t(rng.range(0, 5));
      uint32_t H = uint32_t(rng.range(1, 12)), W = uint32_t(rng.range(1, 12));
      if (rng.range(0, 9) == 0) H = uint32_t(rng.range(30, 60)), W = uint32_t(rng.range(30, 60));
      H = std::max(H, R > 2 * padding ? R - 2 * padding : 1);
      W = std::max(W, S > 2 * padding ? S - 2 * padding : 1);
      const TensorI8 in = reference_gemm_random_tensor(rng, {N, H, W, C}, 20);
      const TensorI8 w = reference_gemm_random_tensor(rng, {K, R, S, C}, 20);
      ConvParams p;
      p.stride = stride;
      p.padding = padding;
      p.relu = rng.range(0, 1) == 1;
      p.shift = uint32_t(rng.range(0, 14));
      for (uint32_t k = 0; k < K; ++k) {
        p.bias.push_back(rng.range(-100000, 100000));
        p.scale.push_back(rng.range(1, 300));
      }
      INFO("case " << i << ": N " << N << ", HxW " << H << "x" << W << ", C " << C << ", K " << K
                   << ", RxS " << R << "x" << S << ", stride " << stride << ", padding "
                   << padding);
      const TensorI8 want = conv2d_int8_naive(in, w, p);
      const TensorI8 got = conv2d_int8(in, w, p);
      REQUIRE(got.shape == want.shape);
      REQUIRE(got.data == want.data);
      // A panel holds 128 KiB of lowered rows: more output pixels than that spans several.
      const uint64_t pixels = uint64_t(want.shape[1]) * want.shape[2];
      multi_panel += pixels * R * S * C * 2 > 128 * 1024;
    }
    CHECK(multi_panel >= 2);
  });
}

TEST_CASE(
    "conv2d_int8 sums 131071 taps of -128 x -128 to 2147467264 at every level, as the direct "
    "loops do",
    "[reference][gemm]") {
  reference_gemm_at_every_level([] {
    // A 1x1 convolution over C = 131071 (the most taps allowed), two pixels, two kernels: the
    // second kernel's +127 weights make -16256 per tap, -2130690176 in all.
    const uint32_t C = 131071;
    TensorI8 in({1, 1, 2, C}), w({2, 1, 1, C});
    std::fill(in.data.begin(), in.data.end(), int8_t(-128));
    std::fill(w.data.begin(), w.data.begin() + C, int8_t(-128));
    std::fill(w.data.begin() + C, w.data.end(), int8_t(127));
    ConvParams p;
    p.relu = false;
    p.bias = {0, 0};
    p.scale = {1, 1};
    p.shift = 24;  // 2147467264 / 2^24 = 127.999..., rounds to 128, clamps to 127
    const TensorI8 got = conv2d_int8(in, w, p);
    CHECK(got.data == conv2d_int8_naive(in, w, p).data);
    // -2130690176 / 2^24 = -126.999..., rounds half up to -127.
    CHECK(got.data == std::vector<int8_t>{127, -127, 127, -127});
    p.shift = 0;
    p.bias = {-2147467264, 2130690176};  // back to exactly 0 before the clamp
    CHECK(conv2d_int8(in, w, p).data == std::vector<int8_t>{0, 0, 0, 0});
  });
}

TEST_CASE(
    "npusim run under each supported NPUSIM_REFERENCE_ISA checks every layer with the same "
    "digests, and an unsupported name stops the run naming the variable and the levels",
    "[reference][gemm]") {
  nlohmann::json first;
  for (GemmLevel level : supported_gemm_levels()) {
    INFO("NPUSIM_REFERENCE_ISA=" << to_string(level));
    setenv("NPUSIM_REFERENCE_ISA", to_string(level), 1);
    const nlohmann::json r = test::run_report("run configs/networks/tiny3.json");
    REQUIRE(r["layers"].size() == 3);
    for (const auto& layer : r["layers"]) CHECK(layer["check"]["match"].get<bool>());
    if (first.is_null()) first = r;
    for (size_t l = 0; l < r["layers"].size(); ++l)
      CHECK(r["layers"][l]["check"]["digest"].get<std::string>() ==
            first["layers"][l]["check"]["digest"].get<std::string>());
  }
  setenv("NPUSIM_REFERENCE_ISA", "sse9", 1);
  const test::CliResult bad = test::run_cli("run -q configs/networks/tiny3.json");
  unsetenv("NPUSIM_REFERENCE_ISA");
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.err, Catch::Contains("NPUSIM_REFERENCE_ISA='sse9'") &&
                          Catch::Contains("supported: baseline"));
}
