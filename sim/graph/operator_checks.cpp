#include "sim/graph/operator_checks.h"

#include <cmath>

#include "sim/config/checked_size.h"
#include "sim/graph/op_table.h"

namespace npusim {

namespace {

using Problem = std::optional<OperatorProblem>;

Problem problem(OperatorPart part, std::string expected, std::string found) {
  return OperatorProblem{part, std::move(expected), std::move(found)};
}

// The window along one axis: its span (R - 1) * dilation + 1 against the
// padded input. A window that does not fit leaves no output row or column.
Problem window_axis(bool rows, uint32_t input, uint64_t pads, uint32_t kernel, uint32_t dilation) {
  const uint64_t span = uint64_t(kernel - 1) * dilation + 1, padded = input + pads;
  if (span <= padded) return std::nullopt;
  const std::string k = rows ? "R" : "S", in = rows ? "H" : "W";
  const std::string room = in + " + pads = " + std::to_string(padded);
  if (dilation == 1)
    return problem(rows ? OperatorPart::KernelRows : OperatorPart::KernelCols,
                   k + " <= " + room + " (a window that fits the padded input)",
                   k + " = " + std::to_string(kernel));
  return problem(
      rows ? OperatorPart::KernelRows : OperatorPart::KernelCols,
      "(" + k + " - 1) * dilation + 1 <= " + room + " (a window that fits the padded input)",
      k + " = " + std::to_string(kernel) + ", dilation " + std::to_string(dilation) + ": " +
          std::to_string(span));
}

Problem tensor_limit(const char* what, std::initializer_list<uint64_t> dims) {
  if (saturating_product(dims) <= kMaxTensorElements) return std::nullopt;
  return problem(OperatorPart::Operator,
                 std::string(what) + " <= " + std::to_string(kMaxTensorElements) +
                     " elements (256 MiB as the host holds it)",
                 product_text(dims, "elements"));
}

std::string quant_text(const TensorQuant& q) {
  return std::string(to_string(q.type)) + ", scale " + std::to_string(q.scale) + ", zero point " +
         std::to_string(q.zero_point);
}

Problem tensor_quant(OperatorPart part, const std::string& what, const TensorQuant& q) {
  if (q.type == QuantType::Int32) return std::nullopt;  // raw accumulators: no scale
  if (!valid_scale(q.scale)) return problem(part, what + ": " + kValidScale, quant_text(q));
  if (!zero_point_fits(q.zero_point, q.type))
    return problem(part, what + ": a zero point in " + zero_point_range(q.type), quant_text(q));
  return std::nullopt;
}

// Per tensor (1) or per output channel (K) scales and zero points.
Problem weight_quant(const LayerConfig& L, bool required) {
  const OpQuant& q = L.quant;
  const auto count_ok = [&](std::size_t n) { return n == 1 || n == L.K || (!required && n == 0); };
  if (!count_ok(q.weight_scale.size()) || !count_ok(q.weight_zero_point.size()))
    return problem(OperatorPart::WeightQuant,
                   "weight scales and zero points: 1 or K = " + std::to_string(L.K) + " each",
                   std::to_string(q.weight_scale.size()) + " scales, " +
                       std::to_string(q.weight_zero_point.size()) + " zero points");
  for (float s : q.weight_scale)
    if (!valid_scale(s))
      return problem(OperatorPart::WeightQuant, std::string("weight scales: ") + kValidScale,
                     std::to_string(s));
  for (int32_t z : q.weight_zero_point)
    if (!zero_point_fits(z, q.weight_type))
      return problem(OperatorPart::WeightQuant,
                     "weight zero points in " + zero_point_range(q.weight_type), std::to_string(z));
  return std::nullopt;
}

Problem input_problem(std::size_t k, std::string expected, const OperandShape& found) {
  OperatorProblem p{OperatorPart::Input, std::move(expected), to_string(found)};
  p.input = k;
  return p;
}

// How the inputs of an elementwise operator agree: one shape, or (mul) a
// per-channel [N, C, 1, 1] second operand.
Problem elementwise_inputs(ElementwiseKind kind, const std::vector<OperandShape>& in) {
  if (in.size() != 2)
    return problem(OperatorPart::Operator, "two inputs", std::to_string(in.size()) + " inputs");
  const OperandShape &a = in[0], &b = in[1];
  const bool same = a.N == b.N && a.C == b.C && a.H == b.H && a.W == b.W;
  switch (kind) {
    case ElementwiseKind::Add:
      if (!same) return input_problem(1, "a tensor of the first input's shape " + to_string(a), b);
      return std::nullopt;
    case ElementwiseKind::Mul:
      if (!same && !(a.N == b.N && a.C == b.C && b.H == 1 && b.W == 1))
        return input_problem(1,
                             "a tensor of the first input's shape " + to_string(a) +
                                 " or a per-channel [N, C, 1, 1] = " + to_string({a.N, a.C, 1, 1}),
                             b);
      return std::nullopt;
  }
  return std::nullopt;
}

// The rules of one family; every family is named, so a new one is too.
Problem family_limits(const LayerConfig& L, const std::vector<OperandShape>& in) {
  const OpInfo& info = op_info(L.op);
  switch (info.family) {
    case OpFamily::Conv:
      if (L.groups == 0 || L.C % L.groups != 0 || L.K % L.groups != 0)
        return problem(
            OperatorPart::Groups,
            "groups dividing C = " + std::to_string(L.C) + " and K = " + std::to_string(L.K),
            "group " + std::to_string(L.groups));
      // The layer list's symmetric int8 convolution sums raw products in int32.
      if (!L.quantized && !L.is_binary() && uint64_t(L.group_channels()) * L.R * L.S > kMaxInt8Taps)
        return problem(OperatorPart::Operator,
                       "C*R*S <= " + std::to_string(kMaxInt8Taps) +
                           " taps (an int32 accumulator cannot overflow)",
                       product_text({L.group_channels(), L.R, L.S}, "taps"));
      return std::nullopt;
    case OpFamily::Norm:
      if (L.C > kMaxNormChannels)
        return problem(OperatorPart::Input,
                       "at most " + std::to_string(kMaxNormChannels) + " channels to normalise",
                       std::to_string(L.C) + " channels");
      return std::nullopt;
    case OpFamily::Elementwise:
      return elementwise_inputs(info.elementwise, in);
    case OpFamily::Concat:  // along channels: one N, H, W
      for (std::size_t k = 1; k < in.size(); ++k)
        if (in[k].N != in[0].N || in[k].H != in[0].H || in[k].W != in[0].W)
          return input_problem(k,
                               "a tensor with the first input's N, H, W (" +
                                   std::to_string(in[0].N) + ", " + std::to_string(in[0].H) + ", " +
                                   std::to_string(in[0].W) + ")",
                               in[k]);
      return std::nullopt;
    case OpFamily::Matmul:  // batch_matmul's blocks: its parsers (sequence_config.cpp, onnx)
    case OpFamily::Pool:
    case OpFamily::Gather:
    case OpFamily::Softmax:
    case OpFamily::Activation:
    case OpFamily::Rope:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

const char* to_string(OperatorPart p) {
  switch (p) {
    case OperatorPart::Operator:
      return "operator";
    case OperatorPart::KernelRows:
      return "kernel rows";
    case OperatorPart::KernelCols:
      return "kernel columns";
    case OperatorPart::Groups:
      return "groups";
    case OperatorPart::Input:
      return "input";
    case OperatorPart::InputQuant:
      return "input quantisation";
    case OperatorPart::OutputQuant:
      return "output quantisation";
    case OperatorPart::WeightQuant:
      return "weight quantisation";
  }
  return "?";
}

std::string to_string(const OperandShape& t) {
  return "[" + std::to_string(t.N) + ", " + std::to_string(t.C) + ", " + std::to_string(t.H) +
         ", " + std::to_string(t.W) + "]";
}

std::string zero_point_range(QuantType t) {
  return std::to_string(quant_min(t)) + ".." + std::to_string(quant_max(t)) + " (" + to_string(t) +
         ")";
}

bool valid_scale(float scale) { return std::isfinite(scale) && scale > 0.0f; }

bool zero_point_fits(int32_t zero_point, QuantType t) {
  if (t == QuantType::Int32) return zero_point == 0;
  return zero_point >= quant_min(t) && zero_point <= quant_max(t);
}

std::optional<OperatorProblem> check_operator(const LayerConfig& L,
                                              const std::vector<OperandShape>& inputs) {
  const OpInfo& info = op_info(L.op);
  if (Problem p = window_axis(true, L.H, uint64_t(L.padding) + pad_b(L), L.R, dil_h(L))) return p;
  if (Problem p = window_axis(false, L.W, uint64_t(pad_l(L)) + pad_r(L), L.S, dil_w(L))) return p;
  if (Problem p = tensor_limit("input tensor N*C*H*W", {L.N, L.C, L.H, L.W})) return p;
  // A weight tensor only where the array runs the operator: a vector
  // operator's K x C is no tensor (softmax over a decode step's 32 x 513 keys
  // would be 16416 x 16416 "kernels" that nobody stores).
  if (info.unit == OpUnit::Array)
    if (Problem p = tensor_limit("weight tensor K*R*S*(C/groups)",
                                 {L.K, L.R, L.S, L.groups == 0 ? L.C : L.group_channels()}))
      return p;
  if (Problem p = tensor_limit("output tensor N*K*out_h*out_w", {L.N, L.K, L.out_h(), L.out_w()}))
    return p;
  if (Problem p = family_limits(L, inputs)) return p;
  if (!L.quantized) return std::nullopt;  // the layer list's int8: requant, not scales
  for (std::size_t k = 0; k < L.quant.inputs.size(); ++k)
    if (Problem p =
            tensor_quant(OperatorPart::InputQuant, "input " + std::to_string(k), L.quant.inputs[k]))
      return p;
  if (Problem p = tensor_quant(OperatorPart::OutputQuant, "output", L.quant.output)) return p;
  return weight_quant(L, info.weights);
}

}  // namespace npusim
