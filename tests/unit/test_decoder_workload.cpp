// Decoder workloads by shape ({"decoder": {...}}, sim/config/decoder_workload.h):
// the expansion equals, operator for operator and scale for scale, the graphs
// tools/gen-transformer --decoder wrote into the repository, and bad shapes
// are errors naming their key.
#include <catch2/catch.hpp>
#include <string>

#include "sim/config/json_reader.h"
#include "sim/frontend/json/decoder_workload.h"
#include "sim/frontend/load_workload.h"
#include "tests/support/test_support.h"

using namespace npusim;
using nlohmann::json;

namespace {

const std::string kSource = NPUSIM_SOURCE_DIR;

json decoder(const std::string& name, json shape) {
  return {{"name", name}, {"decoder", std::move(shape)}};
}

}  // namespace

TEST_CASE(
    "decoder workload: the shapes expand to the very graphs tools/gen-transformer wrote "
    "(one TinyLlama layer, a grouped-query test decoder and a batch of 2)",
    "[decoder]") {
  struct Case {
    const char* file;
    json shape;
  };
  const Case cases[] = {
      {"/configs/networks/tinyllama_layer.json",
       {{"layers", 1},
        {"hidden", 2048},
        {"heads", 32},
        {"kv_heads", 4},
        {"ffn", 5632},
        {"prefill", 128},
        {"decode", 16}}},
      {"/tests/data/transformer/decode_p32_d4.json",
       {{"layers", 1},
        {"hidden", 64},
        {"heads", 4},
        {"kv_heads", 2},
        {"ffn", 96},
        {"prefill", 32},
        {"decode", 4}}},
      {"/tests/data/transformer/decode_p8_d2_b2.json",
       {{"layers", 1},
        {"hidden", 64},
        {"heads", 4},
        {"kv_heads", 2},
        {"ffn", 96},
        {"prefill", 8},
        {"decode", 2},
        {"batch", 2}}},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    const NetworkConfig file = load_workload(kSource + c.file);
    const NetworkConfig shapes = parse_workload(decoder(file.name, c.shape), "d.json");
    CHECK(to_json(shapes) == to_json(file));
    // The generator's own JSON, too: the expansion writes what it writes.
    const json written = load_json_file(kSource + c.file);
    DecoderShape s = read_decoder_shape(decoder(file.name, c.shape), "d.json");
    CHECK(decoder_graph(file.name, 1, s) == written);
  }
}

TEST_CASE("decoder workload: bad shapes are errors at their key", "[decoder]") {
  const json good = {{"layers", 1},   {"hidden", 64}, {"heads", 4},
                     {"kv_heads", 2}, {"ffn", 96},    {"prefill", 8}};
  const auto error_at = [&](const char* key, json value) {
    json shape = good;
    shape[key] = std::move(value);
    return test::workload_error(decoder("d", shape));
  };
  const ConfigError heads = error_at("heads", 5);
  CHECK(heads.pointer() == "/decoder/heads");
  CHECK_THAT(heads.expected(), Catch::Contains("divides hidden 64"));
  const ConfigError kv = error_at("kv_heads", 3);
  CHECK(kv.pointer() == "/decoder/kv_heads");
  CHECK_THAT(kv.expected(), Catch::Contains("divides heads 4"));
  const ConfigError steps = error_at("decode", 4097);
  CHECK(steps.pointer() == "/decoder/decode");
  CHECK(error_at("prefill", 65537).pointer() == "/decoder/prefill");
  CHECK(error_at("batch", 0).pointer() == "/decoder/batch");
  CHECK(error_at("batch", 1025).pointer() == "/decoder/batch");
  json long_one = good;
  long_one["prefill"] = 65000, long_one["decode"] = 1000;  // each fits, not both
  const ConfigError total = test::workload_error(decoder("d", long_one));
  CHECK(total.pointer() == "/decoder/decode");
  CHECK_THAT(total.expected(), Catch::Contains("at most 65536 tokens"));
  json typo = good;
  typo["kv_head"] = 2;
  CHECK(test::workload_error(decoder("d", typo)).pointer() == "/decoder/kv_head");
}
