#include "sim/runner/sequence_reference.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/reference/qsequence.h"

namespace npusim {

namespace q = reference::qops;

q::ElemType qops_elem_type(QuantType t) {
  return t == QuantType::Uint8  ? q::ElemType::Uint8
         : t == QuantType::Int8 ? q::ElemType::Int8
                                : q::ElemType::Int32;
}

q::Quant qops_quant(const TensorQuant& t) { return {{t.scale}, {t.zero_point}}; }

namespace {

// Pixels (N*H*W) x channels of an NHWC tensor.
uint64_t pixels_of(const TensorI32& t) { return t.size() / t.shape[3]; }

// [groups, pixels, C / groups] from NHWC [pixels][C]: element (g, m, j) is
// channel g * (C / groups) + j of pixel m.
q::QTensor split_heads(const TensorI32& t, uint32_t groups, QuantType type) {
  const uint64_t M = pixels_of(t);
  const uint32_t C = t.shape[3], D = C / groups;
  q::QTensor r{{groups, uint32_t(M), D}, std::vector<int32_t>(t.size()), qops_elem_type(type)};
  for (uint32_t g = 0; g < groups; ++g)
    for (uint64_t m = 0; m < M; ++m)
      for (uint32_t j = 0; j < D; ++j)
        r.data[(g * M + m) * D + j] = t.data[m * C + uint64_t(g) * D + j];
  return r;
}

// The inverse of split_heads, into an N,H,W,K tensor of `like`'s pixels.
TensorI32 merge_heads(const q::QTensor& r, const TensorI32& like) {
  const uint32_t G = r.shape[0], M = r.shape[1], D = r.shape[2];
  TensorI32 t({like.shape[0], like.shape[1], like.shape[2], G * D});
  for (uint32_t g = 0; g < G; ++g)
    for (uint64_t m = 0; m < M; ++m)
      for (uint32_t j = 0; j < D; ++j)
        t.data[m * G * D + uint64_t(g) * D + j] = r.data[(g * M + m) * D + j];
  return t;
}

// [groups, C / groups, pixels]: the second operand of context = A x B.
q::QTensor split_heads_transposed(const TensorI32& t, uint32_t groups, QuantType type) {
  const q::QTensor s = split_heads(t, groups, type);
  const uint32_t G = s.shape[0], M = s.shape[1], D = s.shape[2];
  q::QTensor r{{G, D, M}, std::vector<int32_t>(s.data.size()), s.type};
  for (uint32_t g = 0; g < G; ++g)
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t j = 0; j < D; ++j)
        r.data[(uint64_t(g) * D + j) * M + m] = s.data[(uint64_t(g) * M + m) * D + j];
  return r;
}

// The reference's own name for the graph's activation function.
q::Activation reference_function(ActivationFn f) {
  switch (f) {
    case ActivationFn::Gelu:
      return q::Activation::Gelu;
    case ActivationFn::Silu:
      return q::Activation::Silu;
    case ActivationFn::Sigmoid:
      return q::Activation::Sigmoid;
    case ActivationFn::HardSigmoid:
      return q::Activation::HardSigmoid;
    case ActivationFn::HardSwish:
      return q::Activation::HardSwish;
    case ActivationFn::Tanh:
      return q::Activation::Tanh;
    case ActivationFn::LeakyRelu:
      break;
  }
  return q::Activation::LeakyRelu;
}

// The reference's own name for the graph's norm.
q::NormForm norm_form(NormKind k) {
  switch (k) {
    case NormKind::Layer:
      return q::NormForm::Layer;
    case NormKind::Rms:
      break;
  }
  return q::NormForm::Rms;
}

// batch_matmul: the heads of the first input times those of the second.
TensorI32 batch_matmul_output(const LayerConfig& L, const std::vector<const TensorI32*>& inputs,
                              const q::Quant& xq, const q::Quant& yq, q::ElemType y_type) {
  const OpQuant& oq = L.quant;
  const TensorI32& x = *inputs[0];
  // The second operand's blocks of tokens, one after another.
  TensorI32 b({1, 0, 1, inputs[1]->shape[3]});
  for (size_t i = 1; i < inputs.size(); ++i) {
    b.data.insert(b.data.end(), inputs[i]->data.begin(), inputs[i]->data.end());
    b.shape[1] += inputs[i]->shape[1];
  }
  const q::QTensor a = split_heads(x, L.seq.heads, oq.inputs[0].type);
  // Scores: keys [kv, keys, dim] -> [kv, dim, keys]; context: values [kv, keys, dim].
  const q::QTensor bt = L.seq.transpose_b
                            ? split_heads_transposed(b, L.seq.kv_heads, oq.inputs[1].type)
                            : split_heads(b, L.seq.kv_heads, oq.inputs[1].type);
  return merge_heads(q::batch_matmul(a, xq, bt, qops_quant(oq.inputs[1]), yq, y_type), x);
}

// The tensor's values as one flat row (elementwise operators ignore shape).
q::QTensor flat(const TensorI32& t, QuantType type) {
  return {{uint32_t(t.size())}, t.data, qops_elem_type(type)};
}

// An elementwise result `y` in the shape of its first input `x`.
TensorI32 elementwise(const TensorI32& x, const q::QTensor& y) {
  TensorI32 out(x.shape);
  out.data = y.data;
  return out;
}

}  // namespace

TensorI32 sequence_reference_output(const LayerConfig& L, const LayerData& data,
                                    const std::vector<const TensorI32*>& inputs) {
  // A batch of sequences: image n of every input is sequence n, whose rows are
  // its tokens (positions, causal masks and keys count from its first row).
  const uint32_t images = inputs[0]->shape[0];
  if (images > 1) {
    std::vector<TensorI32> parts(inputs.size());
    std::vector<const TensorI32*> views(inputs.size());
    TensorI32 out;
    for (uint32_t n = 0; n < images; ++n) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        const TensorI32& t = *inputs[i];
        const uint64_t image = t.size() / t.shape[0];
        parts[i] = TensorI32({1, t.shape[1], t.shape[2], t.shape[3]});
        std::copy_n(t.data.begin() + int64_t(n * image), image, parts[i].data.begin());
        views[i] = &parts[i];
      }
      const TensorI32 y = sequence_reference_output(L, data, views);
      if (n == 0) out = TensorI32({images, y.shape[1], y.shape[2], y.shape[3]});
      std::copy(y.data.begin(), y.data.end(), out.data.begin() + int64_t(n * y.size()));
    }
    return out;
  }
  const OpQuant& oq = L.quant;
  const TensorI32& x = *inputs[0];
  const q::ElemType y_type = qops_elem_type(oq.output.type);
  const q::Quant xq = qops_quant(oq.inputs[0]), yq = qops_quant(oq.output);
  const OpInfo& info = op_info(L.op);
  switch (info.family) {
    case OpFamily::Matmul:
      switch (info.matmul) {
        case MatmulKind::Weights:  // a feature-map operator
          break;
        case MatmulKind::Produced:
          return batch_matmul_output(L, inputs, xq, yq, y_type);
      }
      break;
    case OpFamily::Softmax:
      return merge_heads(
          q::softmax(split_heads(x, L.seq.heads, oq.inputs[0].type), xq, yq, y_type, L.seq.causal),
          x);
    case OpFamily::Rope:
      return merge_heads(q::rope(split_heads(x, L.seq.heads, oq.inputs[0].type), xq,
                                 L.seq.rope_base, L.seq.position_offset, yq, y_type),
                         x);
    case OpFamily::Norm: {
      const q::QTensor rows{
          {uint32_t(pixels_of(x)), x.shape[3]}, x.data, qops_elem_type(oq.inputs[0].type)};
      std::vector<int32_t> gamma;
      for (int8_t w : data.weights.data)
        gamma.push_back(oq.weight_type == QuantType::Uint8 ? int32_t(uint8_t(w)) : int32_t(w));
      const q::Quant gq{{oq.weight_scale[0]}, {oq.weight_zero_point[0]}};
      const q::QTensor y = q::normalize(rows, xq, gamma, qops_elem_type(oq.weight_type), gq,
                                        oq.bias ? data.bias : std::vector<int32_t>{}, L.seq.epsilon,
                                        norm_form(info.norm), yq, y_type);
      TensorI32 out(x.shape);
      out.data = y.data;
      return out;
    }
    case OpFamily::Activation:
      return elementwise(
          x, q::activation(flat(x, oq.inputs[0].type), xq, reference_function(info.activation), yq,
                           y_type, L.seq.alpha, L.seq.beta));
    case OpFamily::Elementwise:
      switch (info.elementwise) {
        case ElementwiseKind::Add:  // a feature-map operator
          break;
        case ElementwiseKind::Mul: {
          // NHWC as they are: a [1, 1, 1, C] b broadcasts over the pixels
          const auto nhwc = [](const TensorI32& t, QuantType type) {
            return q::QTensor{{t.shape.begin(), t.shape.end()}, t.data, qops_elem_type(type)};
          };
          return elementwise(
              x, q::mul(nhwc(x, oq.inputs[0].type), xq, nhwc(*inputs[1], oq.inputs[1].type),
                        qops_quant(oq.inputs[1]), yq, y_type));
        }
      }
      break;
    case OpFamily::Conv:  // feature-map operators: graph_reference_outputs
    case OpFamily::Pool:
    case OpFamily::Concat:
    case OpFamily::Gather:
      break;
  }
  throw std::logic_error(std::string("sequence reference: ") + to_string(L.op) +
                         " is not a sequence operator");
}

}  // namespace npusim
