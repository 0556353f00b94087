// Binary layer keys: "dtype": "binary" and the "binary" object parse, round
// trip through to_json, and every misuse names file, pointer and expectation.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/config/config_error.h"
#include "sim/frontend/load_workload.h"
#include "sim/graph/workload.h"
#include "tests/support/test_support.h"

using nlohmann::json;
using namespace npusim;
using npusim::test::workload_error;

namespace {

json binary_layer() {
  return {{"type", "conv2d"}, {"C", 33}, {"H", 6},       {"W", 5},           {"K", 3},
          {"R", 3},           {"S", 3},  {"padding", 1}, {"dtype", "binary"}};
}

}  // namespace

TEST_CASE("binary layer defaults: b = 32, skip padding, threshold 0", "[binary][config]") {
  const LayerConfig l = parse_workload(binary_layer(), "net.json").layers[0];
  CHECK(l.is_binary());
  CHECK(l.binary.bits == 32);
  CHECK(l.binary.padding == BinaryPadMode::Skip);
  CHECK(l.binary.threshold == std::vector<int32_t>{0, 0, 0});
  CHECK_FALSE(l.binary.batch_norm);
  // DRAM bytes are packed: C = 33 needs two 4-byte words per pixel.
  CHECK(l.pixel_bytes() == 8);
  CHECK(l.input_bytes() == 6 * 5 * 8);
  CHECK(l.weight_bytes() == 3 * 3 * 3 * 8);
}

TEST_CASE("binary object: bits, padding, thresholds and batch norm parse and round-trip",
          "[binary][config]") {
  json j = binary_layer();
  j["binary"] = {{"bits", 64}, {"padding", "plus_one"}, {"threshold", {-4, 0, 7}}};
  NetworkConfig net = parse_workload(j, "net.json");
  const LayerConfig& l = net.layers[0];
  CHECK(l.binary.bits == 64);
  CHECK(l.binary.padding == BinaryPadMode::PlusOne);
  CHECK(l.binary.threshold == std::vector<int32_t>{-4, 0, 7});
  CHECK(l.pixel_bytes() == 8);
  json written = to_json(net);
  CHECK(written["layers"][0]["dtype"] == "binary");
  CHECK_FALSE(written["layers"][0].contains("requant"));
  CHECK(to_json(parse_workload(written, "again.json")) == written);

  j["binary"] = {{"padding", "minus_one"}, {"batch_norm", {{"seed", 9}}}};
  net = parse_workload(j, "net.json");
  CHECK(net.layers[0].binary.batch_norm);
  CHECK(net.layers[0].binary.batch_norm_seed == 9);
  CHECK(net.layers[0].binary.padding == BinaryPadMode::MinusOne);
  written = to_json(net);
  CHECK(written["layers"][0]["binary"]["batch_norm"]["seed"] == 9);
  CHECK(to_json(parse_workload(written, "again.json")) == written);

  j["binary"] = {{"threshold", 5}};
  CHECK(parse_workload(j, "net.json").layers[0].binary.threshold == std::vector<int32_t>{5, 5, 5});
}

TEST_CASE("binary config errors name file, pointer, expectation and finding", "[binary][config]") {
  SECTION("a binary object on an int8 layer") {
    json j = binary_layer();
    j.erase("dtype");
    j["binary"] = {{"bits", 32}};
    const ConfigError e = workload_error(j);
    CHECK(e.file() == "net.json");
    CHECK(e.pointer() == "/binary");
    CHECK(e.expected() == "no \"binary\" object on an int8 layer (set \"dtype\": \"binary\")");
  }
  SECTION("bias_npy on a binary layer") {
    json j = binary_layer();
    j["bias_npy"] = "b.npy";
    const ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/bias_npy");
    CHECK(e.found() == "string \"b.npy\"");
  }
  SECTION("requant on a binary layer, inside a network") {
    json layer = binary_layer();
    layer.erase("type");
    layer["requant"] = {{"shift", 3}};
    const ConfigError e = workload_error({{"layers", {layer}}});
    CHECK(e.pointer() == "/layers/0/requant");
    CHECK(e.expected() ==
          "no \"requant\" on a binary layer (its outputs are thresholded: see \"binary\")");
  }
  SECTION("relu and sparsity on a binary layer") {
    json j = binary_layer();
    j["relu"] = false;
    CHECK(workload_error(j).pointer() == "/relu");
    j.erase("relu");
    j["sparsity"] = {{"pattern", "unstructured"}, {"density", 0.5}};
    CHECK(workload_error(j).pointer() == "/sparsity");
  }
  SECTION("bits other than 32 or 64") {
    json j = binary_layer();
    j["binary"] = {{"bits", 48}};
    const ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/binary/bits");
    CHECK(e.expected() == "32 or 64");
    CHECK(e.found() == "number 48");
  }
  SECTION("unknown padding mode, with a hint") {
    json j = binary_layer();
    j["binary"] = {{"padding", "plus_on"}};
    const ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/binary/padding");
    CHECK(e.hint() == "plus_one");
  }
  SECTION("threshold array of the wrong length, and a float element") {
    json j = binary_layer();
    j["binary"] = {{"threshold", {1, 2}}};
    ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/binary/threshold");
    CHECK(e.expected() == "int32 integer or an array of K = 3 such integers");
    j["binary"] = {{"threshold", {1, 2.5, 3}}};
    e = workload_error(j);
    CHECK(e.pointer() == "/binary/threshold/1");
    CHECK(e.expected() == "int32 integer");
  }
  SECTION("threshold and batch_norm together") {
    json j = binary_layer();
    j["binary"] = {{"threshold", 0}, {"batch_norm", {{"seed", 1}}}};
    const ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/binary/batch_norm");
    CHECK(e.expected() == "either \"threshold\" or \"batch_norm\", not both");
  }
  SECTION("batch_norm needs a seed and nothing else") {
    json j = binary_layer();
    j["binary"] = {{"batch_norm", json::object()}};
    CHECK(workload_error(j).pointer() == "/binary/batch_norm/seed");
    j["binary"] = {{"batch_norm", {{"seed", 1}, {"eps", 0.1}}}};
    CHECK(workload_error(j).pointer() == "/binary/batch_norm/eps");
  }
  SECTION("unknown key in the binary object") {
    json j = binary_layer();
    j["binary"] = {{"bist", 32}};
    const ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/binary/bist");
    CHECK(e.hint() == "bits");
  }
}
