// Exact integer dot products for the compute engine's functional arithmetic:
// int8 x int8 (the int8 array) and int16 x int16 (graph operators' 9-bit
// operands minus their zero points), accumulated in int32 with wrap-around,
// so every level gives the scalar loop's int32 bit for bit.
//
// Dispatch: one table of function pointers per instruction-set level
// (scalar, AVX2, AVX-512 VNNI), all in int8_kernels.cpp, the SIMD ones
// compiled with per-function target attributes, so the rest of the build
// stays baseline x86-64. active() picks, once per process, the highest level
// the CPU reports (__builtin_cpu_supports), or the level NPUSIM_ISA names
// (scalar|avx2|avx512vnni); an unknown or unsupported name throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim::int8_kernels {

enum class Isa { Scalar, Avx2, Avx512Vnni };

struct Kernels {
  Isa isa;
  // out[j] += x . w[j*w_stride ...] over n values, for j in [0, count),
  // wrapping in int32 as the scalar sum would.
  void (*dots_s8)(const int8_t* x, const int8_t* w, uint64_t w_stride, uint64_t n, uint32_t count,
                  int32_t* out);
  void (*dots_s16)(const int16_t* x, const int16_t* w, uint64_t w_stride, uint64_t n,
                   uint32_t count, int32_t* out);
};

const char* isa_name(Isa isa);
// The levels this CPU runs, scalar first.
std::vector<Isa> supported_isas();
// The kernels of one level (tests compare levels); throws if the CPU lacks it.
const Kernels& kernels_for(Isa isa);
// The level named by `name` ("scalar", "avx2", "avx512vnni"); throws naming
// the value and the levels this CPU supports if it is unknown or unsupported.
Isa parse_isa(const std::string& name);
// The process's kernels: NPUSIM_ISA if set, else the best supported level.
const Kernels& active();

}  // namespace npusim::int8_kernels
