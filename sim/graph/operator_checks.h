// The checks an operator must pass whatever file it came from, written once
// for every front-end (docs/architecture.md#one-check-per-operator): its
// window fits its padded input, its tensors stay within what the host holds,
// its integer sums cannot overflow, and its quantisation is well formed. The
// layer list (and so SCALE-Sim's topologies), graph JSON and the ONNX importer
// each build a LayerConfig, call check_operator once, and place a problem in
// their own terms: a JSON pointer, a CSV cell, an ONNX node.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/graph/workload.h"

namespace npusim {

// Any one tensor, as the host holds it (one byte per element, binary
// tensors unpacked): 256 MiB.
inline constexpr uint64_t kMaxTensorElements = uint64_t(256) << 20;
// A symmetric int8 operator's int32 accumulator is exact for up to 2^17 - 1
// taps: each product is at most 2^14 in magnitude (sim/reference/reference_conv.cpp).
inline constexpr uint64_t kMaxInt8Taps = (uint64_t(1) << 17) - 1;
// The norms' integer sums stay within 64 bits up to this many channels
// (docs/transformers.md#layernorm).
inline constexpr uint32_t kMaxNormChannels = 16384;

// The part of an operator a problem is about; each front-end names it as
// its file does (a key, an attribute, an input).
enum class OperatorPart {
  Operator,     // the operator as a whole (a tensor too large, too many taps)
  KernelRows,   // the kernel's rows R (with the dilation along H)
  KernelCols,   // the kernel's columns S (with the dilation along W)
  Groups,       // a grouped conv's groups
  Input,        // one of the tensors it reads (OperatorProblem::input): its shape
  InputQuant,   // an input's scale or zero point
  OutputQuant,  // the output's scale or zero point
  WeightQuant   // the weights' scales or zero points
};
const char* to_string(OperatorPart p);

struct OperatorProblem {
  OperatorPart part = OperatorPart::Operator;
  std::string expected, found;
  std::size_t input = 0;  // which input, for OperatorPart::Input
};

// The shape of a tensor an operator reads, [N, C, H, W] (a sequence: [N, C =
// heads * dim, H = tokens, 1]).
struct OperandShape {
  uint32_t N = 1, C = 0, H = 0, W = 0;
};

// "[N, C, H, W]", as the front-ends' messages write a shape.
std::string to_string(const OperandShape& t);

// The first problem of `L` (fully built: shape, geometry, quantisation)
// reading tensors of the shapes `inputs` (in its input order), or nullopt.
// The order: the window, the tensors, the family's own rules (a conv's groups
// and taps, a norm's channels, how an add's, a mul's and a concat's inputs
// agree), the quantisation.
std::optional<OperatorProblem> check_operator(const LayerConfig& L,
                                              const std::vector<OperandShape>& inputs);

// A scale every quantised tensor needs: positive and finite.
bool valid_scale(float scale);
inline constexpr const char* kValidScale = "a positive finite float32 scale";
// Whether `zero_point` is a value of type `t` (int32 outputs have none: 0).
bool zero_point_fits(int32_t zero_point, QuantType t);
// The zero points of an 8-bit type `t`, "lo..hi (type)", as messages name them.
std::string zero_point_range(QuantType t);

}  // namespace npusim
