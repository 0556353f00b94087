// A decoder LLM described by its shapes instead of its operators:
//   {"name": "tinyllama", "decoder": {"layers": 22, "hidden": 2048, "heads": 32,
//    "kv_heads": 4, "ffn": 5632, "prefill": 128, "decode": 16, "batch": 1}}
// expands into the graph workload that `tools/gen-transformer --decoder` writes
// for the same shapes (LLaMA-style layers: RMSNorm, rotary embeddings,
// grouped-query attention over a key-value cache in DRAM, SwiGLU FFN; a
// prefill of `prefill` tokens, then `decode` steps of one token), operator for
// operator and scale for scale (docs/decoders.md#decoder-workloads). The
// CLI's --prefill / --decode change those two keys before the expansion.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace npusim {

struct DecoderShape {
  uint32_t layers = 1, hidden = 0, heads = 1, kv_heads = 1, ffn = 0;
  uint32_t prefill = 1, decode = 0;
  uint32_t batch = 1;  // sequences decoded together: image n of every tensor is sequence n
};

// Whether `j` is a decoder workload (an object with a "decoder" key).
bool is_decoder_workload(const nlohmann::json& j);

// Reads j["decoder"] (file and pointers for errors): every count >= 1 (decode
// >= 0), heads dividing hidden, kv_heads dividing heads, the sequence within
// the limits of a graph (at most 4096 decode steps, 65,536 tokens). Throws
// ConfigError naming the key.
DecoderShape read_decoder_shape(const nlohmann::json& j, const std::string& file);

// The graph workload of `shape`, as tools/gen-transformer --decoder writes it.
nlohmann::json decoder_graph(const std::string& name, uint64_t seed, const DecoderShape& shape);

}  // namespace npusim
