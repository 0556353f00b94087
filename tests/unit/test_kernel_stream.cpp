// Seed 002's kernel stream: the compiler's encoder and the hardware's
// decompressor (two separate implementations of one format) must agree.
#include <catch2/catch.hpp>

#include "models/kernel_decompressor.h"
#include "models/sim_time.h"
#include "sim/compiler/kernel_stream.h"

using namespace npusim;

namespace {

TensorI8 kernels(uint32_t K, uint32_t R, uint32_t S, uint32_t C, int zero_every) {
  TensorI8 w({K, R, S, C});
  for (uint64_t i = 0; i < w.size(); ++i)
    w.data[i] = (zero_every > 0 && i % zero_every != 0) ? 0 : int8_t(int(i % 251) - 125);
  return w;
}

void round_trip(const TensorI8& w, ComputeMode mode, WeightFormat expected_format) {
  const KernelStream s = encode_kernels(w, mode);
  REQUIRE(s.format == expected_format);
  const uint32_t K = w.shape[0], R = w.shape[1], S = w.shape[2], C = w.shape[3];
  LayerDescriptor d;
  d.K = K, d.R = R, d.S = S, d.C = C;
  attach_kernel_stream(d, s);
  uint64_t offset = 0;
  std::vector<int8_t> dense(uint64_t(R) * S * C);
  for (uint32_t k = 0; k < K; ++k) {
    CHECK(d.kernel_offset(k) == offset);
    decompress_kernel(s.bytes.data() + offset, s.format, R, S, C, d.kernel_bytes(k), dense.data());
    for (uint64_t i = 0; i < dense.size(); ++i) REQUIRE(dense[i] == w.data[k * dense.size() + i]);
    offset += d.kernel_bytes(k);
  }
  CHECK(offset == s.bytes.size());
}

}  // namespace

TEST_CASE("sparse kernels use entries: count byte per channel, 2 bytes per non-zero",
          "[kernel-stream]") {
  // 4 kernels 3x3x8 = 288 coefficients; every 5th index i keeps (i % 251) - 125:
  // 58 indices, but i = 125 gives 0, so 57 non-zeros -> 4*8 count bytes + 2*57 =
  // 146 bytes < 288 raw.
  const TensorI8 w = kernels(4, 3, 3, 8, 5);
  const KernelStream s = encode_kernels(w, ComputeMode::ZeroSkip);
  CHECK(s.format == WeightFormat::Entries);
  uint64_t nonzeros = 0;
  for (uint32_t n : s.nonzeros) nonzeros += n;
  CHECK(nonzeros == 57);
  CHECK(s.bytes.size() == 4 * 8 + 2 * 57);
  round_trip(w, ComputeMode::ZeroSkip, WeightFormat::Entries);
}

TEST_CASE("dense kernels stay raw, the dense machine always uses raw", "[kernel-stream]") {
  round_trip(kernels(3, 3, 3, 5, 0), ComputeMode::ZeroSkip, WeightFormat::Raw);
  round_trip(kernels(3, 3, 3, 5, 7), ComputeMode::Dense, WeightFormat::Raw);
  round_trip(kernels(2, 7, 7, 3, 9), ComputeMode::ZeroSkip, WeightFormat::Entries);
}

TEST_CASE("a malformed stream is a simulation error, not a wrong kernel", "[kernel-stream]") {
  std::vector<int8_t> dense(9);
  const int8_t too_many[] = {10};  // 10 entries claimed, 9 taps
  CHECK_THROWS_AS(decompress_kernel(too_many, WeightFormat::Entries, 3, 3, 1, 1, dense.data()),
                  SimulationError);
  const int8_t bad_tap[] = {1, 5, 9};  // tap 9 of 0..8
  CHECK_THROWS_AS(decompress_kernel(bad_tap, WeightFormat::Entries, 3, 3, 1, 3, dense.data()),
                  SimulationError);
  const int8_t short_stream[] = {2, 5, 1};  // claims 2 entries, holds 1
  CHECK_THROWS_AS(decompress_kernel(short_stream, WeightFormat::Entries, 3, 3, 1, 3, dense.data()),
                  SimulationError);
}
