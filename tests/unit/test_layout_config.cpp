// "input_layout" / "output_layout" on layers (seed 001's layouts,
// docs/address-generator.md#layouts): defaults, how a chained pair settles
// them from either side, their round trip, and every misuse named by its
// JSON pointer.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/config/config_error.h"
#include "sim/frontend/load_workload.h"
#include "sim/graph/workload.h"
#include "tests/support/test_support.h"

using nlohmann::json;
using namespace npusim;
using npusim::test::workload_error;

namespace {

// Three chained int8 layers: a (8 -> 16), b (16 -> 16), c (16 -> 8), 6x6.
json chain() {
  json layers = json::array();
  for (const auto& [name, C, K] : {std::tuple{"a", 8, 16}, {"b", 16, 16}, {"c", 16, 8}})
    layers.push_back({{"name", name},
                      {"C", C},
                      {"H", 6},
                      {"W", 6},
                      {"K", K},
                      {"R", 3},
                      {"S", 3},
                      {"padding", 1}});
  return {{"name", "chain"}, {"layers", layers}};
}

}  // namespace

TEST_CASE("layouts default to NHWC", "[layout][config]") {
  const NetworkConfig net = parse_workload(chain(), "net.json");
  for (const LayerConfig& l : net.layers) {
    CHECK(l.input_layout == TensorLayout::Nhwc);
    CHECK(l.output_layout == TensorLayout::Nhwc);
  }
  CHECK_FALSE(to_json(net)["layers"][0].contains("input_layout"));
}

TEST_CASE("a chained pair takes the layout either side names", "[layout][config]") {
  SECTION("the producer's output_layout reaches its consumer's input") {
    json j = chain();
    j["layers"][0]["output_layout"] = "nchw";
    const NetworkConfig net = parse_workload(j, "net.json");
    CHECK(net.layers[0].output_layout == TensorLayout::Nchw);
    CHECK(net.layers[1].input_layout == TensorLayout::Nchw);
    CHECK(net.layers[1].output_layout == TensorLayout::Nhwc);
    CHECK(net.layers[2].input_layout == TensorLayout::Nhwc);
  }
  SECTION("the consumer's input_layout reaches its producer's output") {
    json j = chain();
    j["layers"][2]["input_layout"] = "nchw";
    const NetworkConfig net = parse_workload(j, "net.json");
    CHECK(net.layers[1].output_layout == TensorLayout::Nchw);
    CHECK(net.layers[2].input_layout == TensorLayout::Nchw);
    CHECK(net.layers[0].output_layout == TensorLayout::Nhwc);
  }
  SECTION("both sides naming the same layout is fine, and it round-trips") {
    json j = chain();
    j["layers"][0]["input_layout"] = "nchw";
    j["layers"][0]["output_layout"] = "nchw";
    j["layers"][1]["input_layout"] = "nchw";
    j["layers"][2]["output_layout"] = "nchw";
    const NetworkConfig net = parse_workload(j, "net.json");
    const NetworkConfig again = parse_workload(to_json(net), "again.json");
    for (size_t l = 0; l < 3; ++l) {
      INFO("layer " << l);
      CHECK(again.layers[l].input_layout == net.layers[l].input_layout);
      CHECK(again.layers[l].output_layout == net.layers[l].output_layout);
    }
    CHECK(net.layers[0].input_layout == TensorLayout::Nchw);
    CHECK(net.layers[2].input_layout == TensorLayout::Nhwc);
    CHECK(net.layers[2].output_layout == TensorLayout::Nchw);
  }
  SECTION("an unchained layer keeps its own input layout") {
    json j = chain();
    j["layers"][1]["H"] = 5;  // no longer a's output shape
    j["layers"][0]["output_layout"] = "nchw";
    const NetworkConfig net = parse_workload(j, "net.json");
    CHECK_FALSE(net.chained[1]);
    CHECK(net.layers[1].input_layout == TensorLayout::Nhwc);
  }
}

TEST_CASE("layout misuse names the key that says it", "[layout][config]") {
  SECTION("an unknown layout") {
    json j = chain();
    j["layers"][1]["input_layout"] = "nhcw";
    const ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/layers/1/input_layout");
    CHECK(e.expected() == "one of \"nhwc\", \"nchw\"");
  }
  SECTION("the two sides of a chained pair disagree") {
    json j = chain();
    j["layers"][0]["output_layout"] = "nchw";
    j["layers"][1]["input_layout"] = "nhwc";
    const ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/layers/1/input_layout");
    CHECK(e.found() == "string \"nhwc\"");
    CHECK_THAT(e.expected(), Catch::Contains("\"nchw\"") && Catch::Contains("layer a stores") &&
                                 Catch::Contains("(its \"output_layout\")"));
  }
  SECTION("an input layout on a binary layer") {
    json j = chain();
    j["layers"][1]["dtype"] = "binary";
    j["layers"][1]["input_layout"] = "nhwc";
    const ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/layers/1/input_layout");
    CHECK_THAT(e.expected(), Catch::Contains("packed N(C/b)HWb"));
  }
  SECTION("an output layout on an output stored packed for a binary consumer") {
    json j = chain();
    j["layers"][1]["dtype"] = "binary";
    j["layers"][0]["output_layout"] = "nchw";
    const ConfigError e = workload_error(j);
    CHECK(e.pointer() == "/layers/0/output_layout");
    CHECK_THAT(e.expected(), Catch::Contains("binary layer b reads it"));
  }
  SECTION("an output layout on a lone binary layer, whose output is packed") {
    const json layer = {{"type", "conv2d"}, {"C", 32},           {"H", 4},
                        {"W", 4},           {"K", 32},           {"R", 1},
                        {"S", 1},           {"dtype", "binary"}, {"output_layout", "nhwc"}};
    const ConfigError e = workload_error(layer);
    CHECK(e.pointer() == "/output_layout");
    CHECK_THAT(e.expected(), Catch::Contains("stored packed"));
  }
}

TEST_CASE("a binary layer feeding an int8 one may store its +-1 outputs NCHW", "[layout][config]") {
  json j = chain();
  j["layers"][0]["dtype"] = "binary";
  j["layers"][0]["output_layout"] = "nchw";
  const NetworkConfig net = parse_workload(j, "net.json");
  CHECK(output_bits_of(net, 0) == 0);
  CHECK(net.layers[1].input_layout == TensorLayout::Nchw);
}
