#include "sim/frontend/json/decoder_workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"

namespace npusim {
namespace {

using nlohmann::json;

// The rules of thumb of tools/gen-transformer (its docstring): an int8
// activation spreads over about 32 steps, seeded int8 weights over 73.3.
constexpr double kSigma = 32.0;
constexpr double kWeightSigma = 73.3;
constexpr double kWeightScale = 0.01;
constexpr uint32_t kMaxDecodeSteps = 4096;  // a batch_matmul's 4097 key-value blocks
constexpr uint32_t kMaxTokens = 65536;
constexpr uint32_t kMaxBatch = 1024;

// A scale as the generator writes it: 6 significant digits.
double six_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return std::strtod(text, nullptr);
}

json quant(const char* dtype, double scale) {
  return {{"dtype", dtype}, {"scale", six_digits(scale)}, {"zero_point", 0}};
}

class Builder {
 public:
  explicit Builder(const DecoderShape& s) : s_(s), dim_(s.hidden / s.heads) {}

  json ops = json::array();

  double matmul(const std::string& op, const std::string& src, double src_scale, double fan_in,
                uint32_t out_features, uint64_t seed, double w_scale = kWeightScale) {
    const double scale = src_scale * w_scale * std::sqrt(fan_in) * kWeightSigma;
    ops.push_back({{"name", op},
                   {"op", "matmul"},
                   {"inputs", {src}},
                   {"output", op},
                   {"out_features", out_features},
                   {"seed", seed},
                   {"weights", quant("int8", w_scale)},
                   {"out", quant("int8", scale)}});
    return scale;
  }

  double rmsnorm(const std::string& op, const std::string& src, uint64_t seed) {
    ops.push_back({{"name", op},
                   {"op", "rmsnorm"},
                   {"inputs", {src}},
                   {"output", op},
                   {"seed", seed},
                   {"epsilon", 1e-5},
                   {"weights", quant("int8", 1.0 / 64)},
                   {"out", quant("int8", kWeightSigma / 64 / kSigma)}});
    return kWeightSigma / 64 / kSigma;
  }

  // One layer over the tokens of x; `keys` / `values`: the layer's key-value
  // cache blocks so far, to which this pass's own are appended.
  std::pair<std::string, double> layer(uint32_t l, const std::string& p, const std::string& x,
                                       double x_scale, uint32_t position,
                                       std::vector<std::string>& keys,
                                       std::vector<std::string>& values) {
    const uint64_t w = 1000 * uint64_t(l + 1);  // weight seeds, shared by the prefill and steps
    const double hidden = s_.hidden, kv = double(s_.kv_heads) * dim_;
    const double n_scale = rmsnorm(p + "attn_norm", x, w + 1);
    const double qs = matmul(p + "q", p + "attn_norm", n_scale, hidden, s_.hidden, w + 2,
                             kWeightScale / std::sqrt(double(dim_)));
    const double ks = matmul(p + "k", p + "attn_norm", n_scale, hidden, uint32_t(kv), w + 3);
    const double vs = matmul(p + "v", p + "attn_norm", n_scale, hidden, uint32_t(kv), w + 4);
    for (const auto& [t, h, sc] :
         {std::tuple<const char*, uint32_t, double>{"q", s_.heads, qs}, {"k", s_.kv_heads, ks}})
      ops.push_back({{"name", p + t + "_rope"},
                     {"op", "rope"},
                     {"inputs", {p + t}},
                     {"output", p + t + "_rope"},
                     {"heads", h},
                     {"position_offset", position},
                     {"out", quant("int8", sc)}});
    keys.push_back(p + "k_rope");
    values.push_back(p + "v");
    const double s_scale = qs * ks * std::sqrt(double(dim_)) * kSigma;
    json score_inputs = {p + "q_rope"}, context_inputs = {p + "probs"};
    for (const std::string& k : keys) score_inputs.push_back(k);
    for (const std::string& v : values) context_inputs.push_back(v);
    ops.push_back({{"name", p + "scores"},
                   {"op", "batch_matmul"},
                   {"inputs", score_inputs},
                   {"output", p + "scores"},
                   {"transpose_b", true},
                   {"heads", s_.heads},
                   {"kv_heads", s_.kv_heads},
                   {"out", quant("int8", s_scale)}});
    ops.push_back({{"name", p + "softmax"},
                   {"op", "softmax"},
                   {"inputs", {p + "scores"}},
                   {"output", p + "probs"},
                   {"heads", s_.heads},
                   {"causal", true},
                   {"out", quant("uint8", 1.0 / 256)}});
    ops.push_back({{"name", p + "context"},
                   {"op", "batch_matmul"},
                   {"inputs", context_inputs},
                   {"output", p + "context"},
                   {"heads", s_.heads},
                   {"kv_heads", s_.kv_heads},
                   {"out", quant("int8", vs)}});
    const double os = matmul(p + "attn_out", p + "context", vs, hidden, s_.hidden, w + 5);
    const double r_scale = std::max(os, x_scale) * 1.5;
    ops.push_back({{"name", p + "attn_add"},
                   {"op", "add"},
                   {"inputs", {p + "attn_out", x}},
                   {"output", p + "attn_add"},
                   {"out", quant("int8", r_scale)}});
    const double h_scale = rmsnorm(p + "ffn_norm", p + "attn_add", w + 6);
    const double gs = matmul(p + "gate", p + "ffn_norm", h_scale, hidden, s_.ffn, w + 7);
    const double us = matmul(p + "up", p + "ffn_norm", h_scale, hidden, s_.ffn, w + 8);
    ops.push_back({{"name", p + "silu"},
                   {"op", "silu"},
                   {"inputs", {p + "gate"}},
                   {"output", p + "silu"},
                   {"out", quant("int8", gs / 2)}});
    const double m_scale = gs / 2 * us * kSigma;
    ops.push_back({{"name", p + "swiglu"},
                   {"op", "mul"},
                   {"inputs", {p + "silu", p + "up"}},
                   {"output", p + "swiglu"},
                   {"out", quant("int8", m_scale)}});
    const double d_scale = matmul(p + "down", p + "swiglu", m_scale, s_.ffn, s_.hidden, w + 9);
    const double out_scale = std::max(d_scale, r_scale) * 1.5;
    ops.push_back({{"name", p + "ffn_add"},
                   {"op", "add"},
                   {"inputs", {p + "down", p + "attn_add"}},
                   {"output", p + "ffn_add"},
                   {"out", quant("int8", out_scale)}});
    return {p + "ffn_add", out_scale};
  }

 private:
  const DecoderShape& s_;
  uint32_t dim_;
};

json input(const std::string& name, uint32_t hidden, uint32_t tokens, uint32_t batch) {
  return {{"name", name},
          {"shape", {batch, hidden, tokens, 1}},
          {"dtype", "int8"},
          {"scale", 0.05},
          {"zero_point", 0}};
}

}  // namespace

bool is_decoder_workload(const json& j) { return j.is_object() && j.contains("decoder"); }

DecoderShape read_decoder_shape(const json& j, const std::string& file) {
  const json& spec = j.at("decoder");
  if (!spec.is_object())
    throw ConfigError(file, "/decoder", "an object of the decoder's shapes", describe_json(spec));
  JsonReader r(spec, file, "/decoder");
  DecoderShape s;
  s.layers = uint32_t(r.require_uint("layers", 1, 1024));
  s.hidden = uint32_t(r.require_uint("hidden", 1, 65536));
  s.heads = uint32_t(r.require_uint("heads", 1, 1024));
  s.kv_heads = uint32_t(r.get_uint("kv_heads", 1, 1024, s.heads));
  s.ffn = uint32_t(r.require_uint("ffn", 1, 262144));
  s.prefill = uint32_t(r.require_uint("prefill", 1, kMaxTokens));
  s.decode = uint32_t(r.get_uint("decode", 0, kMaxDecodeSteps, 0));
  s.batch = uint32_t(r.get_uint("batch", 1, kMaxBatch, 1));
  r.finish();
  if (s.hidden % s.heads != 0)
    r.fail("heads", "a head count that divides hidden " + std::to_string(s.hidden),
           std::to_string(s.heads));
  if (s.heads % s.kv_heads != 0)
    r.fail("kv_heads", "a key-value head count that divides heads " + std::to_string(s.heads),
           std::to_string(s.kv_heads));
  if (uint64_t(s.prefill) + s.decode > kMaxTokens)
    r.fail("decode",
           "prefill + decode of at most " + std::to_string(kMaxTokens) +
               " tokens (a sequence limit of npusim's graphs)",
           std::to_string(uint64_t(s.prefill) + s.decode));
  return s;
}

json decoder_graph(const std::string& name, uint64_t seed, const DecoderShape& s) {
  Builder b(s);
  json inputs = json::array({input("x", s.hidden, s.prefill, s.batch)});
  for (uint32_t step = 1; step <= s.decode; ++step)
    inputs.push_back(input("x.step" + std::to_string(step), s.hidden, 1, s.batch));
  json outputs = json::array();
  std::vector<std::vector<std::string>> keys(s.layers), values(s.layers);
  for (uint32_t step = 0; step <= s.decode; ++step) {
    std::string x = step == 0 ? "x" : "x.step" + std::to_string(step);
    double x_scale = 0.05;
    const uint32_t position = step == 0 ? 0 : s.prefill + step - 1;
    const size_t first = b.ops.size();
    for (uint32_t l = 0; l < s.layers; ++l) {
      const std::string p =
          (step == 0 ? std::string("prefill.") : "step" + std::to_string(step) + ".") + "l" +
          std::to_string(l) + ".";
      std::tie(x, x_scale) = b.layer(l, p, x, x_scale, position, keys[l], values[l]);
    }
    for (size_t i = first; i < b.ops.size(); ++i) b.ops[i]["pass"] = step;
    outputs.push_back(x);
  }
  char description[400];
  const std::string batch =
      s.batch > 1 ? ", a batch of " + std::to_string(s.batch) + " sequences" : "";
  std::snprintf(description, sizeof description,
                "%u LLaMA-style decoder layer(s): hidden %u, %u query heads over %u key-value "
                "heads, SwiGLU FFN %u; prefill %u tokens, then %u decode steps%s "
                "(tools/gen-transformer; seeded int8 data)",
                s.layers, s.hidden, s.heads, s.kv_heads, s.ffn, s.prefill, s.decode, batch.c_str());
  return {{"name", name},     {"description", description}, {"seed", seed},
          {"inputs", inputs}, {"operators", b.ops},         {"outputs", outputs}};
}

}  // namespace npusim
