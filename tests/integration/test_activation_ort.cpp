// The table activations (sigmoid, hardsigmoid, hardswish, tanh, leakyrelu, and silu written
// as x * Sigmoid(x)) simulated on every ONNX Runtime vector of them
// (tests/data/ort/qdq_*.json, DequantizeLinear -> op -> QuantizeLinear over
// all 256 input codes): the simulator's output equals ORT's bit for bit, and
// the run's own reference check passes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/frontend/load_workload.h"
#include "tests/support/test_support.h"

using namespace npusim;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> activation_vectors() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(NPUSIM_SOURCE_DIR) / "tests/data/ort"))
    if (e.path().filename().string().rfind("qdq_", 0) == 0) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

const json& input_of(const json& c, const std::string& name) { return c.at("inputs").at(name); }

// Vector i as input x<i> -> operator act<i> -> output y<i> of one graph (SystemC
// elaborates once per process, so every vector runs in one simulation).
void add_vector(json& graph, const json& c, size_t i) {
  std::string op = c.at("op");
  std::transform(op.begin(), op.end(), op.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  const auto quant = [&](const std::string& p) {
    return json{{"dtype", input_of(c, p + "_zero_point").at("dtype")},
                {"scale", input_of(c, p + "_scale").at("data").at(0)},
                {"zero_point", input_of(c, p + "_zero_point").at("data").at(0)}};
  };
  const std::string n = std::to_string(i);
  json x = quant("x");
  x["name"] = "x" + n;
  x["shape"] = input_of(c, "x").at("shape");
  json act = {{"name", "act" + n},
              {"op", op},
              {"inputs", {"x" + n}},
              {"output", "y" + n},
              {"out", quant("y")}};
  for (const auto& [k, v] : c.at("attributes").items()) act[k] = v;
  graph["inputs"].push_back(x);
  graph["operators"].push_back(act);
  graph["outputs"].push_back("y" + n);
}

// NCHW values (ORT's) as N,H,W,C bytes.
std::vector<int8_t> nhwc_bytes(const json& t) {
  const std::vector<uint32_t> s = t.at("shape").get<std::vector<uint32_t>>();
  const std::vector<int32_t> v = t.at("data").get<std::vector<int32_t>>();
  std::vector<int8_t> out(v.size());
  for (uint32_t n = 0; n < s[0]; ++n)
    for (uint32_t c = 0; c < s[1]; ++c)
      for (uint32_t h = 0; h < s[2]; ++h)
        for (uint32_t w = 0; w < s[3]; ++w)
          out[((uint64_t(n) * s[2] + h) * s[3] + w) * s[1] + c] =
              int8_t(v[((uint64_t(n) * s[1] + c) * s[2] + h) * s[3] + w]);
  return out;
}

// Runs the graph of every vector on the default machine, keeping each operator's output.
auto simulate(const NetworkConfig& net, size_t operators) {
  RunOptions options;
  options.progress = false;
  options.keep_outputs = true;
  auto r = run_network(net, parse_hardware_config(json::object(), "<test>"), options);
  INFO(r->outcome.message);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  REQUIRE(r->operator_outputs.size() == operators);
  return r;
}

}  // namespace

TEST_CASE(
    "table activations: sigmoid, hardsigmoid, hardswish, silu, tanh and leakyrelu simulate to "
    "ORT's bits",
    "[graph][ort]") {
  const std::vector<fs::path> files = activation_vectors();
  REQUIRE(files.size() >= 9);  // three cases per operator
  std::vector<json> cases;
  json graph = {
      {"inputs", json::array()}, {"operators", json::array()}, {"outputs", json::array()}};
  for (const fs::path& f : files) {
    std::ifstream in(f);
    cases.push_back(json::parse(in));
    add_vector(graph, cases.back(), cases.size() - 1);
  }
  NetworkConfig net = parse_graph_workload(graph, "activations.json");
  // ORT's inputs, NCHW, into each graph input's N,H,W,C bytes.
  for (size_t i = 0; i < cases.size(); ++i)
    net.graph_inputs[i].values = nhwc_bytes(input_of(cases[i], "x"));
  const auto r = simulate(net, cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("vector " << files[i].filename().string());
    CHECK(r->summary.checks[i].match);  // the run's own reference
    const json& x = input_of(cases[i], "x");
    const uint32_t C = x.at("shape").at(1), H = x.at("shape").at(2), W = x.at("shape").at(3);
    const TensorI32& y = r->operator_outputs[i];  // N, H, W, K values
    const std::vector<int32_t> want = cases[i].at("output").at("data").get<std::vector<int32_t>>();
    REQUIRE(y.size() == want.size());
    size_t differ = 0;
    for (uint32_t ch = 0; ch < C; ++ch)
      for (uint32_t h = 0; h < H; ++h)
        for (uint32_t w = 0; w < W; ++w)
          differ += y.data[(uint64_t(h) * W + w) * C + ch] != want[(uint64_t(ch) * H + h) * W + w];
    CHECK(differ == 0);
  }
}

TEST_CASE(
    "mul: ORT's QLinearMul vectors, one shape and a per-channel [N, C, 1, 1] scale, "
    "simulate to ORT's bits",
    "[graph][ort]") {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(NPUSIM_SOURCE_DIR) / "tests/data/ort"))
    if (e.path().filename().string().rfind("qlinear_mul_", 0) == 0) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 4);
  std::vector<json> cases;
  json graph = {
      {"inputs", json::array()}, {"operators", json::array()}, {"outputs", json::array()}};
  bool per_channel = false;
  for (const fs::path& f : files) {
    std::ifstream in(f);
    cases.push_back(json::parse(in));
    const json& c = cases.back();
    const std::string i = std::to_string(cases.size() - 1);
    for (const char* p : {"a", "b"}) {
      const std::string name = p;
      graph["inputs"].push_back(
          {{"name", name + i},
           {"shape", input_of(c, name).at("shape")},
           {"dtype", input_of(c, name + "_zero_point").at("dtype")},
           {"scale", input_of(c, name + "_scale").at("data").at(0)},
           {"zero_point", input_of(c, name + "_zero_point").at("data").at(0)}});
    }
    per_channel = per_channel || input_of(c, "b").at("shape").at(2) == 1;
    graph["operators"].push_back(
        {{"name", "mul" + i},
         {"op", "mul"},
         {"inputs", {"a" + i, "b" + i}},
         {"output", "y" + i},
         {"out",
          {{"dtype", input_of(c, "y_zero_point").at("dtype")},
           {"scale", input_of(c, "y_scale").at("data").at(0)},
           {"zero_point", input_of(c, "y_zero_point").at("data").at(0)}}}});
    graph["outputs"].push_back("y" + i);
  }
  REQUIRE(per_channel);  // the squeeze-excitation form is among them
  NetworkConfig net = parse_graph_workload(graph, "mul.json");
  for (size_t i = 0; i < cases.size(); ++i) {
    net.graph_inputs[2 * i].values = nhwc_bytes(input_of(cases[i], "a"));
    net.graph_inputs[2 * i + 1].values = nhwc_bytes(input_of(cases[i], "b"));
  }
  const auto r = simulate(net, cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("vector " << files[i].filename().string());
    CHECK(r->summary.checks[i].match);  // the run's own reference
    const std::vector<int8_t> want = nhwc_bytes(cases[i].at("output"));
    const TensorI32& y = r->operator_outputs[i];  // N, H, W, K values
    REQUIRE(y.size() == want.size());
    const bool u8 = cases[i].at("output").at("dtype") == "uint8";
    size_t differ = 0;
    for (size_t k = 0; k < want.size(); ++k)
      differ += y.data[k] != (u8 ? int32_t(uint8_t(want[k])) : int32_t(want[k]));
    CHECK(differ == 0);
  }
}
