// The reference's one fast loop: an int16 GEMM, out[p][k] = sum over j of L[p][j] * W[k][j],
// for the lowered (im2col) form of a convolution or a matmul. Written as plain C++ loops that
// the compiler vectorises (into pmaddwd / vpdpwssd); the same source is compiled once per
// instruction-set level and the level is chosen at run time. It shares no code with the
// simulator's models (models/int8_kernels.h), so a fault in either does not hide in both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npusim::reference {

enum class GemmLevel {
  Baseline,    // the build's own target (x86-64: SSE2)
  Avx2,        // 256-bit, vpmaddwd
  Avx512Vnni,  // AVX-512 F/BW/VL with VNNI, vpdpwssd
};

const char* to_string(GemmLevel level);
// The levels this CPU runs, lowest first (Baseline always).
std::vector<GemmLevel> supported_gemm_levels();
// The level gemm_s16 uses: the highest supported, or the one the environment variable
// NPUSIM_REFERENCE_ISA names (baseline, avx2, avx512vnni; std::runtime_error on the first call
// when it names one this CPU lacks), unless set_gemm_level chose another.
GemmLevel gemm_level();
// For tests: use `level` from now on in this process. Throws std::invalid_argument when the CPU
// does not support it.
void set_gemm_level(GemmLevel level);

// The two operands, row-major, each row `J` values long; row p of L starts at L + p * ld_l and
// row k of W at W + k * ld_w. Result out[p * out_p + k * out_k] = the int32 sum, stored (not
// added). Contract, the caller's to keep: every partial sum of the J products fits in int32
// (J * max |L * W| < 2^31); the vectorised loops add the products in another order.
struct GemmS16 {
  const int16_t* L;
  size_t P, ld_l;
  const int16_t* W;
  size_t K, ld_w;
  size_t J;
  int32_t* out;
  size_t out_p, out_k;
};

void gemm_s16(const GemmS16& g);

}  // namespace npusim::reference
