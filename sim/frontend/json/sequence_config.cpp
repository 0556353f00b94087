#include "sim/frontend/json/sequence_config.h"

#include "sim/config/checked_size.h"
#include "sim/config/config_error.h"
#include "sim/graph/operator_checks.h"

namespace npusim {

namespace {

// A "heads" key: a count from 1 that divides `divides` (`what`).
uint32_t heads_key(JsonReader& r, const char* key, uint32_t divides, const std::string& what,
                   uint32_t fallback = 1) {
  const uint32_t h = uint32_t(r.get_uint(key, 1, kMaxDim, fallback));
  if (divides % h != 0)
    r.fail(key, "a divisor of " + what + " = " + std::to_string(divides), std::to_string(h));
  return h;
}

// batch_matmul's keys and shapes: in[0] the first operand, in[1..] the second's blocks of tokens.
void parse_batch_matmul(JsonReader& r, LayerConfig& L, const std::vector<SequenceOperand>& in,
                        const FailInput& fail_shape) {
  const SequenceOperand& x = in[0];
  const SequenceOperand& b = in[1];
  // The blocks of b are one tensor of sum(H) tokens (one type and quantisation).
  uint32_t tokens = 0;
  for (std::size_t k = 1; k < in.size(); ++k) {
    const SequenceOperand& t = in[k];
    if (t.C != b.C || t.quant.type != b.quant.type || t.quant.scale != b.quant.scale ||
        t.quant.zero_point != b.quant.zero_point)
      fail_shape(k, "a block of the second operand: " + std::to_string(b.C) +
                        " channels and the quantisation of inputs/1");
    tokens += t.H;
  }
  L.seq.transpose_b = r.get_bool("transpose_b", false);
  L.seq.heads = heads_key(r, "heads", x.C, "the first input's channels C");
  L.seq.kv_heads = heads_key(r, "kv_heads", L.seq.heads, "heads", L.seq.heads);
  const uint32_t per_head = x.C / L.seq.heads;  // dim (scores) or keys (context)
  if (L.seq.transpose_b) {
    if (b.C != L.seq.kv_heads * per_head)
      fail_shape(1, "keys [1, kv_heads * dim, keys, 1] with kv_heads * dim = " +
                        std::to_string(L.seq.kv_heads) + " * " + std::to_string(per_head) +
                        " channels");
    L.K = L.seq.heads * tokens;
  } else {
    if (tokens != per_head)
      fail_shape(1, "values [1, kv_heads * dim, keys, 1] with keys = C / heads = " +
                        std::to_string(per_head) + " rows in all its blocks");
    if (b.C % L.seq.kv_heads != 0)
      fail_shape(1,
                 "values whose channels kv_heads = " + std::to_string(L.seq.kv_heads) + " divides");
    L.K = L.seq.heads * (b.C / L.seq.kv_heads);
  }
  L.groups = L.seq.heads;
  L.quant.weight_type = b.quant.type;
  L.quant.weight_scale = {b.quant.scale};
  L.quant.weight_zero_point = {b.quant.zero_point};
  L.quant.bias = false;
}

}  // namespace

void parse_sequence_operator(JsonReader& r, LayerConfig& L, const std::vector<SequenceOperand>& in,
                             const FailInput& fail_shape) {
  const SequenceOperand& x = in[0];
  L.K = L.C, L.R = L.S = 1;
  const bool rows_are_tokens = L.op == OpKind::BatchMatMul || L.op == OpKind::Rope ||
                               (L.op == OpKind::Softmax && r.has("causal"));
  // A batch of N sequences is [N, C, tokens, 1]: image n is sequence n.
  if (rows_are_tokens)
    for (std::size_t k = 0; k < in.size(); ++k)
      if (in[k].N != x.N || in[k].W != 1)
        fail_shape(k, "a sequence tensor [" + std::to_string(x.N) +
                          ", C, tokens, 1] (one row per token, as many sequences as inputs/0)");
  const OpInfo& info = op_info(L.op);
  switch (info.family) {
    case OpFamily::Matmul:
      switch (info.matmul) {
        case MatmulKind::Weights:  // parse_graph_workload reads its keys
          break;
        case MatmulKind::Produced:
          parse_batch_matmul(r, L, in, fail_shape);
          break;
      }
      break;
    case OpFamily::Softmax:
      L.seq.heads = heads_key(r, "heads", x.C, "the input's channels C");
      L.seq.causal = r.get_bool("causal", false);
      if (L.seq.causal && x.C / L.seq.heads < x.H)
        r.fail("causal", "keys per head C / heads at least the query rows " + std::to_string(x.H),
               std::to_string(x.C / L.seq.heads) + " keys per head in " +
                   to_string(OperandShape{x.N, x.C, x.H, x.W}));
      break;
    case OpFamily::Norm: {
      L.seq.epsilon = r.get_positive_number("epsilon", 1.0, 1e-5);
      L.quant.bias = r.get_bool("bias", norm_beta_by_default(info.norm));
      break;
    }
    case OpFamily::Elementwise:
      switch (info.elementwise) {
        case ElementwiseKind::Add:  // parse_graph_workload reads its keys
          break;
        case ElementwiseKind::Mul:  // b of a's shape or per channel: check_operator
          break;
      }
      break;
    case OpFamily::Rope:
      L.seq.heads = heads_key(r, "heads", x.C, "the input's channels C");
      if ((x.C / L.seq.heads) % 2 != 0)
        r.fail("heads", "heads leaving an even dim per head (rope rotates pairs)",
               std::to_string(L.seq.heads) + " (dim " + std::to_string(x.C / L.seq.heads) + ")");
      L.seq.rope_base = r.get_positive_number("base", 1e12, 10000.0);
      L.seq.position_offset = uint32_t(r.get_uint("position_offset", 0, kMaxDim, 0));
      break;
    case OpFamily::Activation:
      if (info.has_alpha)  // ONNX's defaults
        L.seq.alpha = float(r.get_number("alpha", -1e6, 1e6, double(info.alpha_default)));
      if (info.has_beta)
        L.seq.beta = float(r.get_number("beta", -1e6, 1e6, double(info.beta_default)));
      break;
    case OpFamily::Conv:  // not sequence operators: parse_graph_workload reads their keys
    case OpFamily::Pool:
    case OpFamily::Concat:
    case OpFamily::Gather:
      break;
  }
}

}  // namespace npusim
