// Transformer operators in graph workloads (docs/transformers.md): what parses
// into which fields, and bad head counts and shapes get a ConfigError naming
// the key.
#include <catch2/catch.hpp>

#include "sim/frontend/load_workload.h"
#include "tests/support/test_support.h"

using namespace npusim;
using nlohmann::json;

namespace {

json transformer_config_quant(const char* dtype = "int8", double scale = 0.05, int zp = 0) {
  return {{"dtype", dtype}, {"scale", scale}, {"zero_point", zp}};
}

// q [1, 64, 10, 1] (8 heads of 8), k [1, 16, 12, 1] (2 kv heads of 8).
json attention(json scores) {
  return {{"inputs",
           {{{"name", "q"}, {"shape", {1, 64, 10, 1}}, {"dtype", "int8"}, {"scale", 0.1}},
            {{"name", "k"}, {"shape", {1, 16, 12, 1}}, {"dtype", "int8"}, {"scale", 0.1}}}},
          {"operators", {std::move(scores)}}};
}

json scores() {
  return {{"name", "s"},          {"op", "batch_matmul"},
          {"inputs", {"q", "k"}}, {"output", "s"},
          {"heads", 8},           {"kv_heads", 2},
          {"transpose_b", true},  {"out", transformer_config_quant()}};
}

}  // namespace

TEST_CASE("transformer: scores of 8 query heads over 2 kv heads are 8 groups of 12 keys",
          "[graph]") {
  const NetworkConfig net = parse_workload(attention(scores()), "a.json");
  const LayerConfig& L = net.layers[0];
  CHECK(L.op == OpKind::BatchMatMul);
  CHECK(L.K == 8 * 12);
  CHECK(L.groups == 8);
  CHECK(L.group_channels() == 8);  // the head dim
  CHECK(L.out_h() == 10);
  CHECK(L.macs() == uint64_t(8) * 10 * 12 * 8);
  CHECK(L.seq.kv_heads == 2);
  CHECK(L.quant.weight_scale[0] == 0.1f);  // the second operand's scale
  CHECK_FALSE(L.quant.bias);
}

TEST_CASE("transformer: a head count that does not divide the channels names heads", "[graph]") {
  json s = scores();
  s["heads"] = 7;
  const ConfigError e = test::workload_error(attention(s));
  CHECK(e.pointer() == "/operators/0/heads");
  CHECK_THAT(e.expected(), Catch::Contains("C = 64"));
}

TEST_CASE("transformer: a kv head count that does not divide the heads names kv_heads", "[graph]") {
  json s = scores();
  s["kv_heads"] = 3;
  const ConfigError e = test::workload_error(attention(s));
  CHECK(e.pointer() == "/operators/0/kv_heads");
  CHECK_THAT(e.expected(), Catch::Contains("heads = 8"));
}

TEST_CASE("transformer: keys of the wrong width name the second input", "[graph]") {
  json s = scores();
  s["kv_heads"] = 4;  // 4 * 8 = 32 channels, k has 16
  const ConfigError e = test::workload_error(attention(s));
  CHECK(e.pointer() == "/operators/0/inputs/1");
}

TEST_CASE("transformer: a causal softmax over fewer keys than queries names causal", "[graph]") {
  json j = attention(scores());
  j["inputs"][1]["shape"] = {1, 16, 4, 1};  // 4 keys for 10 queries
  j["operators"].push_back({{"name", "p"},
                            {"op", "softmax"},
                            {"inputs", {"s"}},
                            {"output", "p"},
                            {"heads", 8},
                            {"causal", true},
                            {"out", transformer_config_quant("uint8", 1.0 / 256)}});
  const ConfigError e = test::workload_error(j);
  CHECK(e.pointer() == "/operators/1/causal");
}

TEST_CASE("transformer: rope over an odd head dim names heads", "[graph]") {
  json j = attention(scores());
  j["operators"] = {{{"name", "r"},
                     {"op", "rope"},
                     {"inputs", {"q"}},
                     {"output", "r"},
                     {"heads", 16},  // 64 / 16 = 4: even, fine
                     {"out", transformer_config_quant()}},
                    {{"name", "r2"},
                     {"op", "rope"},
                     {"inputs", {"k"}},
                     {"output", "r2"},
                     {"heads", 16},  // 16 / 16 = 1: odd
                     {"out", transformer_config_quant()}}};
  const ConfigError e = test::workload_error(j);
  CHECK(e.pointer() == "/operators/1/heads");
}

TEST_CASE("transformer: a layernorm without gamma quantisation names weights", "[graph]") {
  json j = attention(scores());
  j["operators"] = {{{"name", "n"},
                     {"op", "layernorm"},
                     {"inputs", {"q"}},
                     {"output", "n"},
                     {"out", transformer_config_quant()}}};
  const ConfigError e = test::workload_error(j);
  CHECK(e.pointer() == "/operators/0/weights");
}

TEST_CASE(
    "mul: a per-channel [N, C, 1, 1] second input parses as a one-pixel operand, and a [N, C, H, "
    "1] "
    "one names the second input",
    "[graph]") {
  const auto graph = [](json b_shape) {
    return json{{"inputs",
                 {{{"name", "a"}, {"shape", {1, 6, 5, 7}}, {"dtype", "uint8"}, {"scale", 0.1}},
                  {{"name", "b"}, {"shape", b_shape}, {"dtype", "uint8"}, {"scale", 0.01}}}},
                {"operators",
                 {{{"name", "m"},
                   {"op", "mul"},
                   {"inputs", {"a", "b"}},
                   {"output", "y"},
                   {"out", transformer_config_quant("uint8", 0.05, 0)}}}}};
  };
  const NetworkConfig net = parse_workload(graph({1, 6, 1, 1}), "se.json");
  const LayerConfig& L = net.layers[0];
  CHECK(L.op == OpKind::Mul);
  CHECK(L.K == 6);
  CHECK(L.out_h() == 5);
  CHECK(L.out_w() == 7);
  const ConfigError e = test::workload_error(graph({1, 6, 5, 1}));
  CHECK(e.pointer() == "/operators/0/inputs/1");
  CHECK_THAT(e.expected(), Catch::Contains("[1, 6, 5, 7]") && Catch::Contains("[1, 6, 1, 1]"));
}
