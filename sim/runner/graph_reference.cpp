#include "sim/runner/graph_reference.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sim/reference/qops.h"
#include "sim/runner/sequence_reference.h"
#include "sim/tensor/layout.h"

namespace npusim {
namespace {

namespace q = reference::qops;

int32_t byte_value(int8_t b, QuantType t) {
  return t == QuantType::Uint8 ? int32_t(uint8_t(b)) : int32_t(b);
}

// Channels-last bytes (N,H,W,C, or weights K,R,S,C/groups) -> the reference's
// channels-first values (N,C,H,W, or OIHW).
q::QTensor channels_first(const TensorI8& t, QuantType type) {
  const TensorI8 moved = nhwc_to_nchw(t);
  q::QTensor r{moved.shape, std::vector<int32_t>(moved.size()), qops_elem_type(type)};
  for (uint64_t i = 0; i < moved.size(); ++i) r.data[i] = byte_value(moved.data[i], type);
  return r;
}

q::QTensor nhwc_values_to_nchw(const TensorI32& t, QuantType type) {
  TensorI32 moved = nhwc_to_nchw(t);
  return {std::move(moved.shape), std::move(moved.data), qops_elem_type(type)};
}

TensorI32 nchw_to_nhwc_values(const q::QTensor& r) {
  TensorI32 t;
  t.shape = r.shape;
  t.data = r.data;
  return nchw_to_nhwc(t);
}

q::Quant weight_quant(const OpQuant& oq) {
  q::Quant w;
  w.scale = oq.weight_scale;
  w.zero_point = oq.weight_zero_point;
  return w;
}

// The fixed-point requantiser written out for the check: floor((acc * scale
// + 2^(shift-1)) / 2^shift) + zp, clamped to the dtype and the activation.
int32_t fixed_point_reference(int64_t acc, const FixedPointMultiplier& f, const OpQuant& oq) {
  const int64_t product = acc * int64_t(f.scale);
  const int64_t den = int64_t(1) << f.shift;
  const int64_t num = product + den / 2;  // den / 2 is 0 when shift is 0
  const int64_t floored = num >= 0 ? num / den : -((-num + den - 1) / den);
  const int64_t lo = std::max(quant_min(oq.output.type), oq.clamp_lo);
  const int64_t hi = std::min(quant_max(oq.output.type), oq.clamp_hi);
  return int32_t(std::min(std::max(floored + oq.output.zero_point, lo), hi));
}

// Requantises raw N,H,W,K sums (bias included) with the fixed-point requantiser.
TensorI32 fixed_point_outputs(TensorI32 raw, const OpQuant& oq, uint32_t K) {
  for (uint64_t i = 0; i < raw.size(); ++i)
    raw.data[i] = fixed_point_reference(
        raw.data[i], fixed_point_multiplier(requant_multiplier(oq, uint32_t(i % K))), oq);
  return raw;
}

// `weights`: the operator's K,R,S,C/groups weights (d's own, or those of the
// operator it shares them with).
TensorI32 run_array_op(const LayerConfig& L, const LayerData& d, const q::QTensor& x,
                       Requantiser requantiser, const TensorI8& weights) {
  const OpQuant& oq = L.quant;
  const q::Clamp clamp{oq.clamp_lo, oq.clamp_hi};
  const bool fixed_point =
      requantiser == Requantiser::FixedPoint && oq.output.type != QuantType::Int32;
  // Fixed point: the raw sums here, requantised below.
  const bool raw = oq.output.type == QuantType::Int32 || fixed_point;
  const std::vector<int32_t> bias = oq.bias ? d.bias : std::vector<int32_t>{};
  if (L.op == OpKind::MatMul) {
    // [N, C, H, W] as N*H*W rows of C features; weights K,1,1,C as [C, K].
    const uint32_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    const q::QTensor a{{N * H * W, C}, nchw_to_nhwc_values(x).data, x.type};
    q::QTensor b;
    b.shape = {C, L.K};
    b.type = qops_elem_type(oq.weight_type);
    b.data.resize(uint64_t(C) * L.K);
    for (uint32_t k = 0; k < L.K; ++k)
      for (uint32_t c = 0; c < C; ++c)
        b.data[uint64_t(c) * L.K + k] =
            byte_value(weights.data[uint64_t(k) * C + c], oq.weight_type);
    q::QTensor y;
    if (raw) {
      y = q::matmul_integer(a, oq.inputs[0].zero_point, b, oq.weight_zero_point);
      if (!bias.empty())
        for (uint64_t i = 0; i < y.data.size(); ++i) y.data[i] += bias[i % L.K];
    } else {
      y = q::qlinear_matmul(a, qops_quant(oq.inputs[0]), b, weight_quant(oq), bias,
                            qops_quant(oq.output), qops_elem_type(oq.output.type), clamp);
    }
    TensorI32 out({N, H, W, L.K});  // rows are NHWC pixels already
    out.data = std::move(y.data);
    return fixed_point ? fixed_point_outputs(std::move(out), oq, L.K) : out;
  }
  q::ConvAttrs a;
  a.group = L.groups;
  a.dilation[0] = dil_h(L), a.dilation[1] = dil_w(L);
  a.stride[0] = L.stride, a.stride[1] = col_stride(L);
  a.pads[0] = L.padding, a.pads[1] = pad_l(L), a.pads[2] = pad_b(L), a.pads[3] = pad_r(L);
  const q::QTensor w = channels_first(weights, oq.weight_type);
  if (raw) {
    q::QTensor y = q::conv_integer(x, oq.inputs[0].zero_point, w, oq.weight_zero_point, a);
    if (!bias.empty()) {
      const uint64_t plane = uint64_t(y.shape[2]) * y.shape[3];
      for (uint64_t i = 0; i < y.data.size(); ++i) y.data[i] += bias[(i / plane) % L.K];
    }
    return fixed_point ? fixed_point_outputs(nchw_to_nhwc_values(y), oq, L.K)
                       : nchw_to_nhwc_values(y);
  }
  return nchw_to_nhwc_values(q::qlinear_conv(x, qops_quant(oq.inputs[0]), w, weight_quant(oq), bias,
                                             qops_quant(oq.output), qops_elem_type(oq.output.type),
                                             a, clamp));
}

q::PoolAttrs pool_attrs(const LayerConfig& L) {
  q::PoolAttrs a;
  a.kernel[0] = L.R, a.kernel[1] = L.S;
  a.stride[0] = L.stride, a.stride[1] = col_stride(L);
  a.pads[0] = L.padding, a.pads[1] = pad_l(L), a.pads[2] = pad_b(L), a.pads[3] = pad_r(L);
  a.dilation[0] = dil_h(L), a.dilation[1] = dil_w(L);
  a.ceil_mode = L.ceil_mode;
  a.count_include_pad = L.count_include_pad;
  return a;
}

// "operator 'name' (conv): ", for a refusal of the reference (qops) that names no operator.
std::string reference_context(const LayerConfig& L) {
  return "operator '" + L.name + "' (" + std::string(to_string(L.op)) + "): ";
}

// The reference output of operator `l`, from the outputs of the operators before it.
TensorI32 operator_reference(const NetworkConfig& net, size_t l, const std::vector<LayerData>& data,
                             const std::vector<TensorI8>& graph_inputs,
                             const std::vector<TensorI32>& outputs, Requantiser requantiser,
                             const std::vector<int64_t>& weights_from) {
  const LayerConfig& L = net.layers[l];
  const OpQuant& oq = L.quant;
  if (op_info(L.op).operands == OpOperands::Sequences) {  // NHWC values in and out
    std::vector<TensorI32> held;  // the graph inputs among its inputs, as values
    for (size_t i = 0; i < net.sources[l].size(); ++i) {
      const TensorSource& s = net.sources[l][i];
      if (s.op >= 0) continue;
      const TensorI8& g = graph_inputs[size_t(s.graph_input)];
      TensorI32& t = held.emplace_back(g.shape);
      for (uint64_t e = 0; e < g.size(); ++e) t.data[e] = byte_value(g.data[e], oq.inputs[i].type);
    }
    std::vector<const TensorI32*> ordered;
    size_t next_held = 0;
    for (const TensorSource& s : net.sources[l])
      ordered.push_back(s.op >= 0 ? &outputs[size_t(s.op)] : &held[next_held++]);
    return sequence_reference_output(L, data[l], ordered);
  }
  std::vector<q::QTensor> xs;
  for (size_t i = 0; i < net.sources[l].size(); ++i) {
    const TensorSource& s = net.sources[l][i];
    xs.push_back(s.op >= 0
                     ? nhwc_values_to_nchw(outputs[size_t(s.op)], oq.inputs[i].type)
                     : channels_first(graph_inputs[size_t(s.graph_input)], oq.inputs[i].type));
  }
  const q::ElemType y_type = qops_elem_type(oq.output.type);
  const OpInfo& info = op_info(L.op);
  switch (info.family) {
    case OpFamily::Conv:
    case OpFamily::Matmul:  // matmul (batch_matmul reads sequences: above)
      return run_array_op(L, data[l], xs[0], requantiser,
                          l < weights_from.size() && weights_from[l] >= 0
                              ? data[size_t(weights_from[l])].weights
                              : data[l].weights);
    case OpFamily::Pool:
      switch (info.pool) {
        case PoolKind::Max:
          return nchw_to_nhwc_values(q::max_pool(xs[0], pool_attrs(L)));
        case PoolKind::Average:
          return nchw_to_nhwc_values(q::qlinear_average_pool(
              xs[0], qops_quant(oq.inputs[0]), qops_quant(oq.output), y_type, pool_attrs(L)));
        case PoolKind::GlobalAverage:
          return nchw_to_nhwc_values(q::qlinear_global_average_pool(xs[0], qops_quant(oq.inputs[0]),
                                                                    qops_quant(oq.output), y_type));
      }
      break;
    case OpFamily::Elementwise:  // add (mul reads sequences: above)
      return nchw_to_nhwc_values(q::qlinear_add(xs[0], qops_quant(oq.inputs[0]), xs[1],
                                                qops_quant(oq.inputs[1]), qops_quant(oq.output),
                                                y_type, q::Clamp{oq.clamp_lo, oq.clamp_hi}));
    case OpFamily::Concat: {
      std::vector<q::Quant> qs;
      for (const TensorQuant& t : oq.inputs) qs.push_back(qops_quant(t));
      return nchw_to_nhwc_values(q::qlinear_concat(xs, qs, qops_quant(oq.output), y_type, 1));
    }
    case OpFamily::Gather:
      switch (info.gather) {
        case GatherKind::Resize: {
          const q::ResizeTo to{L.out_h(), L.out_w(), L.resize_scale_h, L.resize_scale_w};
          switch (L.resize_mode) {
            case ResizeMode::Linear:
              return nchw_to_nhwc_values(q::resize_linear(xs[0], qops_quant(oq.inputs[0]),
                                                          qops_quant(oq.output), y_type, to,
                                                          to_string(L.resize_coordinates)));
            case ResizeMode::Cubic:
              return nchw_to_nhwc_values(
                  q::resize_cubic(xs[0], qops_quant(oq.inputs[0]), qops_quant(oq.output), y_type,
                                  to, to_string(L.resize_coordinates),
                                  q::Cubic{L.resize_cubic_a, L.resize_exclude_outside}));
            case ResizeMode::Nearest:
              break;
          }
          return nchw_to_nhwc_values(q::resize_nearest(xs[0], to, to_string(L.resize_coordinates),
                                                       to_string(L.resize_rounding)));
        }
        case GatherKind::Channels:
          return nchw_to_nhwc_values(q::gather(
              xs[0], 1, std::vector<int64_t>(L.gather_channels.begin(), L.gather_channels.end())));
      }
      break;
    case OpFamily::Softmax:  // sequence operators: sequence_reference_output above
    case OpFamily::Norm:
    case OpFamily::Activation:
    case OpFamily::Rope:
      throw std::logic_error(std::string("graph reference: ") + to_string(L.op) +
                             " reads sequences, not feature maps");
  }
  throw std::logic_error("graph reference: an operator kind no case handles");
}

}  // namespace

std::vector<TensorI32> graph_reference_outputs(const NetworkConfig& net,
                                               const std::vector<LayerData>& data,
                                               const std::vector<TensorI8>& graph_inputs,
                                               Requantiser requantiser,
                                               const std::vector<int64_t>& weights_from) {
  std::vector<TensorI32> outputs;
  outputs.reserve(net.layers.size());
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const LayerConfig& L = net.layers[l];
    try {
      outputs.push_back(
          operator_reference(net, l, data, graph_inputs, outputs, requantiser, weights_from));
    } catch (const std::invalid_argument& e) {  // qops' refusals name no operator
      throw std::invalid_argument(reference_context(L) + e.what());
    }
  }
  return outputs;
}

TensorI32 read_operator_output(const DramImage& image, const LayerDescriptor& d) {
  TensorI32 out({d.N, d.out_h, d.out_w, d.K});
  const int8_t* src = image.data() + d.output_address;
  const QuantType type = d.quant.output.type;
  for (uint64_t i = 0; i < out.size(); ++i) {
    if (type == QuantType::Int32)
      std::memcpy(&out.data[i], src + i * 4, 4);
    else
      out.data[i] = byte_value(src[i], type);
  }
  return out;
}

}  // namespace npusim
