// Graph workloads (docs/graphs.md): what parses into which operator fields,
// and every kind of bad graph gets a ConfigError naming the file, the JSON
// pointer and the tensor or operator at fault.
#include <catch2/catch.hpp>

#include "sim/frontend/load_workload.h"
#include "tests/support/test_support.h"

using namespace npusim;
using nlohmann::json;

namespace {

json input(const char* name = "x", const char* dtype = "uint8") {
  return {{"name", name},
          {"shape", {1, 8, 10, 12}},
          {"dtype", dtype},
          {"scale", 0.02},
          {"zero_point", 128}};
}

json quant(const char* dtype = "uint8", double scale = 0.05, int zp = 0) {
  return {{"dtype", dtype}, {"scale", scale}, {"zero_point", zp}};
}

json graph_config_conv(const char* name, const char* in, const char* out, int K = 16) {
  return {{"name", name},   {"op", "conv"},
          {"inputs", {in}}, {"output", out},
          {"K", K},         {"kernel", 3},
          {"pads", 1},      {"weights", {{"dtype", "int8"}, {"scale", 0.01}, {"zero_point", 0}}},
          {"out", quant()}};
}

json graph(json ops) { return {{"inputs", {input()}}, {"operators", std::move(ops)}}; }

}  // namespace

TEST_CASE("graph: operators get their ONNX geometry, quantisation and producers", "[graph]") {
  json dw = graph_config_conv("dw", "a", "b", 16);
  dw["group"] = 16;
  dw["stride"] = {2, 1};
  dw["pads"] = {0, 1, 2, 3};
  dw["dilation"] = 2;
  dw["activation"] = "relu6";
  dw["out"] = quant("uint8", 0.05, 10);
  json add = {{"name", "sum"},
              {"op", "add"},
              {"inputs", {"b", "b"}},
              {"output", "c"},
              {"out", quant("uint8", 0.1, 3)}};
  const NetworkConfig net =
      parse_workload(graph({graph_config_conv("c1", "x", "a"), dw, add}), "g.json");
  REQUIRE(net.is_graph());
  REQUIRE(net.layers.size() == 3);
  const LayerConfig& L = net.layers[1];
  CHECK(L.op == OpKind::Conv);
  CHECK(L.groups == 16);
  CHECK(L.C == 16);  // from its producer's output
  CHECK(L.H == 10);
  CHECK(L.stride == 2);
  CHECK(col_stride(L) == 1);
  CHECK(L.padding == 0);
  CHECK(pad_l(L) == 1);
  CHECK(pad_b(L) == 2);
  CHECK(pad_r(L) == 3);
  CHECK(dil_h(L) == 2);
  // out_h = (10 + 0 + 2 - (2*(3-1)+1)) / 2 + 1 = 4; out_w = (12 + 1 + 3 - 5) / 1 + 1 = 12
  CHECK(L.out_h() == 4);
  CHECK(L.out_w() == 12);
  // relu6 on scale 0.05, zero point 10: [10 + 0, 10 + round(6 / 0.05) = 130]
  CHECK(L.quant.clamp_lo == 10);
  CHECK(L.quant.clamp_hi == 130);
  CHECK(net.sources[1][0].op == 0);
  CHECK(net.sources[0][0].graph_input == 0);
  CHECK(net.sources[2].size() == 2);
  CHECK(net.outputs == std::vector<std::string>{"c"});  // the one tensor nobody reads
  // Dense MACs count C/groups channels: 16 kernels x 4x12 pixels x 1 channel x 9 taps.
  CHECK(L.macs() == 16ull * 4 * 12 * 9);
}

TEST_CASE("graph: a tensor read before an operator produces it is an error at that input",
          "[graph]") {
  // A later producer (or a cycle: c1 reads b, which c2 makes from a, which c1 makes).
  const ConfigError e = test::workload_error(
      graph({graph_config_conv("c1", "b", "a"), graph_config_conv("c2", "a", "b")}));
  CHECK(e.file() == "net.json");
  CHECK(e.pointer() == "/operators/0/inputs/0");
  CHECK_THAT(e.found(), Catch::Contains("\"b\""));
}

TEST_CASE("graph: an add of two shapes is an error naming the second input", "[graph]") {
  json add = {
      {"name", "sum"}, {"op", "add"}, {"inputs", {"a", "x"}}, {"output", "c"}, {"out", quant()}};
  const ConfigError e = test::workload_error(graph({graph_config_conv("c1", "x", "a"), add}));
  CHECK(e.pointer() == "/operators/1/inputs/1");
  CHECK_THAT(e.found(), Catch::Contains("[1, 8, 10, 12]"));
  CHECK_THAT(e.expected(), Catch::Contains("[1, 16, 10, 12]"));
}

TEST_CASE(
    "graph: gather takes its channel list in order as K outputs, and a channel the input lacks, "
    "an empty list or an out key is an error at its key",
    "[graph]") {
  const auto gather = [](json channels) {
    return json{{"name", "g"},
                {"op", "gather"},
                {"inputs", {"x"}},
                {"output", "y"},
                {"channels", std::move(channels)}};
  };
  const NetworkConfig net = test::workload(graph({gather({7, 0, 7})}).dump());
  CHECK(net.layers[0].gather_channels == std::vector<uint32_t>{7, 0, 7});
  CHECK(net.layers[0].K == 3);
  CHECK(net.layers[0].quant.output.zero_point == 128);            // the input's
  ConfigError e = test::workload_error(graph({gather({0, 8})}));  // the input has 8 channels
  CHECK(e.pointer() == "/operators/0/channels/1");
  CHECK_THAT(e.expected(), Catch::Contains("0..7"));
  e = test::workload_error(graph({gather(json::array())}));
  CHECK(e.pointer() == "/operators/0/channels");
  json with_out = gather({1});
  with_out["out"] = quant();
  CHECK(test::workload_error(graph({with_out})).pointer() == "/operators/0/out");
}

TEST_CASE(
    "graph: resize takes whole scales [rows, columns], and a mode other than nearest, linear or "
    "cubic "
    "is an error",
    "[graph]") {
  json up = {
      {"name", "up"}, {"op", "resize"}, {"inputs", {"x"}}, {"output", "y"}, {"scales", {2, 3}}};
  const NetworkConfig net = test::workload(graph({up}).dump());
  CHECK((net.layers[0].resize_scale_h == 2 && net.layers[0].resize_scale_w == 3));
  CHECK((net.layers[0].out_h() == 20 && net.layers[0].out_w() == 36 && net.layers[0].K == 8));
  CHECK(net.layers[0].resize_mode == ResizeMode::Nearest);
  up["mode"] = "area";
  const ConfigError e = test::workload_error(graph({up}));
  CHECK(e.pointer() == "/operators/0/mode");
  CHECK_THAT(e.found(), Catch::Contains("area"));
}

TEST_CASE("graph: an unknown operator is an error suggesting the nearest one", "[graph]") {
  json op = graph_config_conv("c1", "x", "a");
  op["op"] = "maxpol";
  const ConfigError e = test::workload_error(graph({op}));
  CHECK(e.pointer() == "/operators/0/op");
  CHECK(e.hint() == "maxpool");
}

TEST_CASE("graph: zero points outside the dtype and bad scales are errors at their keys",
          "[graph]") {
  json op = graph_config_conv("c1", "x", "a");
  op["out"]["zero_point"] = 256;  // uint8 is 0..255
  ConfigError e = test::workload_error(graph({op}));
  CHECK(e.pointer() == "/operators/0/out/zero_point");
  CHECK_THAT(e.expected(), Catch::Contains("0..255"));

  op = graph_config_conv("c1", "x", "a");
  op["weights"]["zero_point"] = -129;
  e = test::workload_error(graph({op}));
  CHECK(e.pointer() == "/operators/0/weights/zero_point");

  for (const json& bad : {json(0.0), json(-1.0), json("0.5"), json(1e300)}) {
    op = graph_config_conv("c1", "x", "a");
    op["out"]["scale"] = bad;
    e = test::workload_error(graph({op}));
    CHECK(e.pointer() == "/operators/0/out/scale");
    CHECK_THAT(e.expected(), Catch::Contains("positive finite"));
  }
  json in = graph({graph_config_conv("c1", "x", "a")});
  in["inputs"][0]["scale"] = -0.5;
  CHECK(test::workload_error(in).pointer() == "/inputs/0/scale");
}

TEST_CASE("graph: ONNX type rules: an int32 tensor feeds nothing, add keeps one type", "[graph]") {
  json raw = graph_config_conv("c1", "x", "a");
  raw["out"] = {{"dtype", "int32"}};
  ConfigError e = test::workload_error(graph({raw, graph_config_conv("c2", "a", "b")}));
  CHECK(e.pointer() == "/operators/1/inputs/0");
  CHECK_THAT(e.found(), Catch::Contains("int32"));

  json add = {{"name", "sum"},
              {"op", "add"},
              {"inputs", {"a", "a"}},
              {"output", "c"},
              {"out", quant("int8")}};
  e = test::workload_error(graph({graph_config_conv("c1", "x", "a"), add}));
  CHECK(e.pointer() == "/operators/1/inputs/0");
  CHECK_THAT(e.expected(), Catch::Contains("int8"));
}

TEST_CASE("graph: groups must divide C and K, and names must be unique", "[graph]") {
  json op = graph_config_conv("c1", "x", "a", 16);
  op["group"] = 3;  // C = 8
  CHECK(test::workload_error(graph({op})).pointer() == "/operators/0/group");
  ConfigError e = test::workload_error(
      graph({graph_config_conv("c1", "x", "a"), graph_config_conv("c1", "a", "b")}));
  CHECK(e.pointer() == "/operators/1/name");
  e = test::workload_error(
      graph({graph_config_conv("c1", "x", "a"), graph_config_conv("c2", "a", "a")}));
  CHECK(e.pointer() == "/operators/1/output");
}

TEST_CASE("graph: a pooling window larger than the padded input is an error", "[graph]") {
  json pool = {
      {"name", "mp"}, {"op", "maxpool"}, {"inputs", {"x"}}, {"output", "m"}, {"kernel", {11, 3}}};
  const ConfigError e = test::workload_error(graph({pool}));
  CHECK(e.pointer() == "/operators/0/kernel");
}

TEST_CASE(
    "graph: a ceil-mode pool's last window counts only when it starts inside the input or its "
    "begin pad, rows told from columns",
    "[graph]") {
  // Input 6 rows x 7 columns, kernel 2, stride 3, end pads 1 (bottom, right).
  // Rows: padded 7, ceil((7 - 2) / 3) + 1 = 3 windows, but the third starts
  // at row 6, in the end pad: 2 (ONNX Runtime's rule). Columns: padded 8,
  // ceil(6 / 3) + 1 = 3, the third starting at column 6 < 7: kept, 3.
  json in = input();
  in["shape"] = {1, 8, 6, 7};
  const json pool = {{"name", "mp"},         {"op", "maxpool"},  {"inputs", {"x"}},
                     {"output", "m"},        {"kernel", 2},      {"stride", 3},
                     {"pads", {0, 0, 1, 1}}, {"ceil_mode", true}};
  const NetworkConfig net = test::workload(json{{"inputs", {in}}, {"operators", {pool}}}.dump());
  CHECK(net.layers[0].out_h() == 2);
  CHECK(net.layers[0].out_w() == 3);
  // One axis, by hand: 6 (+1 end pad) with kernel 2, stride 3: room 5, 3
  // windows, the third at 6 >= 6 dropped; 7: room 6, the third at 6 < 7 kept.
  CHECK(LayerConfig::ceil_extent(6, 5, 3) == 2);
  CHECK(LayerConfig::ceil_extent(7, 6, 3) == 3);
}

TEST_CASE(
    "graph: decoder passes: each operator's pass key is read, and a missing, out-of-order or "
    "negative pass is an error at its operator",
    "[graph]") {
  json a = graph_config_conv("c1", "x", "a"), b = graph_config_conv("c2", "a", "b"),
       c = graph_config_conv("c3", "b", "c");
  SECTION("passes 0, 1, 1 are read; no key means no passes") {
    a["pass"] = 0, b["pass"] = 1, c["pass"] = 1;
    const NetworkConfig net = parse_workload(graph({a, b, c}), "g.json");
    CHECK(net.layers[0].pass == 0);
    CHECK(net.layers[1].pass == 1);
    CHECK(net.layers[2].pass == 1);
    const NetworkConfig plain = parse_workload(
        graph({graph_config_conv("c1", "x", "a"), graph_config_conv("c2", "a", "b")}), "g.json");
    CHECK(plain.layers[0].pass == -1);
    CHECK(plain.layers[1].pass == -1);
  }
  SECTION("an operator without a pass where others have one") {
    a["pass"] = 0, c["pass"] = 1;
    const ConfigError e = test::workload_error(graph({a, b, c}));
    CHECK(e.pointer() == "/operators/1");
    CHECK_THAT(e.expected(), Catch::Contains("\"pass\"") && Catch::Contains("/operators/0"));
    CHECK(e.found() == "none");
  }
  SECTION("a pass that skips a step") {
    a["pass"] = 0, b["pass"] = 2, c["pass"] = 2;
    const ConfigError e = test::workload_error(graph({a, b, c}));
    CHECK(e.pointer() == "/operators/1/pass");
    CHECK_THAT(e.expected(), Catch::Contains("0 or 1"));
    CHECK(e.found() == "2");
  }
  SECTION("a pass that goes back") {
    a["pass"] = 0, b["pass"] = 1, c["pass"] = 0;
    const ConfigError e = test::workload_error(graph({a, b, c}));
    CHECK(e.pointer() == "/operators/2/pass");
    CHECK_THAT(e.expected(), Catch::Contains("1 or 2"));
  }
  SECTION("a first operator that is not the prefill") {
    a["pass"] = 1, b["pass"] = 1, c["pass"] = 1;
    const ConfigError e = test::workload_error(graph({a, b, c}));
    CHECK(e.pointer() == "/operators/0/pass");
    CHECK_THAT(e.expected(), Catch::Contains("0 (the prefill comes first)"));
  }
  SECTION("a negative pass") {
    a["pass"] = -1, b["pass"] = 0, c["pass"] = 0;
    const ConfigError e = test::workload_error(graph({a, b, c}));
    CHECK(e.pointer() == "/operators/0/pass");
    CHECK_THAT(e.found(), Catch::Contains("-1"));
  }
}

namespace {

json sequence_input(const std::string& name, int channels, int tokens) {
  return {{"name", name},
          {"shape", {1, channels, tokens, 1}},
          {"dtype", "int8"},
          {"scale", 0.05},
          {"zero_point", 0}};
}

}  // namespace

TEST_CASE(
    "graph: a softmax over a long decode step's scores parses: a vector operator has no weight "
    "tensor to bound",
    "[graph]") {
  // 32 heads x 513 keys = 16,416 channels: 16416^2 > 2^28 would be a weight
  // tensor's size if a softmax had one (it was refused as such).
  const json g = {{"inputs", {sequence_input("scores", 32 * 513, 1)}},
                  {"operators",
                   {{{"name", "softmax"},
                     {"op", "softmax"},
                     {"inputs", {"scores"}},
                     {"output", "probs"},
                     {"heads", 32},
                     {"causal", true},
                     {"out", quant("uint8", 1.0 / 256, 0)}}}}};
  const NetworkConfig net = parse_workload(g, "g.json");
  REQUIRE(net.layers.size() == 1);
  CHECK(net.layers[0].K == 32 * 513);
}

TEST_CASE(
    "graph: a batch_matmul reads its keys as up to 4097 blocks (a prefill and 4096 steps), no "
    "more",
    "[graph]") {
  json inputs = {sequence_input("q", 4, 1)};
  json names = {"q"};
  for (int b = 0; b < 65; ++b) {  // 65 blocks: the old limit of 64 inputs was one short
    inputs.push_back(sequence_input("k" + std::to_string(b), 4, 1));
    names.push_back("k" + std::to_string(b));
  }
  json op = {{"name", "scores"},
             {"op", "batch_matmul"},
             {"inputs", names},
             {"output", "s"},
             {"transpose_b", true},
             {"heads", 1},
             {"out", quant("int8", 0.5, 0)}};
  const NetworkConfig net = parse_workload({{"inputs", inputs}, {"operators", {op}}}, "g.json");
  REQUIRE(net.layers.size() == 1);
  CHECK(net.sources[0].size() == 66);  // q and the 65 blocks
  while (op["inputs"].size() < 4099) op["inputs"].push_back("k0");
  const ConfigError e = test::workload_error({{"inputs", inputs}, {"operators", {op}}});
  CHECK(e.pointer() == "/operators/0/inputs");
  CHECK_THAT(e.expected(), Catch::Contains("2..4098"));
}

TEST_CASE(
    "graph: operators sharing seeded weights count them once in the workload's tensor bytes, "
    "operators with a model's own weights each",
    "[graph]") {
  const json fc = {{"op", "matmul"},
                   {"out_features", 64},
                   {"seed", 7},
                   {"weights", {{"dtype", "int8"}, {"scale", 0.01}, {"zero_point", 0}}},
                   {"out", quant("int8", 0.1, 0)}};
  json a = fc, b = fc;
  a["name"] = "prefill.fc", a["inputs"] = {"x"}, a["output"] = "y";
  b["name"] = "step1.fc", b["inputs"] = {"x1"}, b["output"] = "y1";
  const json g = {{"inputs", {sequence_input("x", 32, 8), sequence_input("x1", 32, 1)}},
                  {"operators", {a, b}}};
  const NetworkConfig net = parse_workload(g, "g.json");
  // Inputs 32 x 8 + 32 x 1, outputs 64 x 8 + 64 x 1, the 64 x 32 weights once.
  CHECK(workload_tensor_bytes(net) == 256 + 32 + 512 + 64 + 2048);
  CHECK(workload_weight_bytes(net) == 2048);  // what a timing-only run is limited by
  json other = b;
  other["seed"] = 8;  // other weights: counted too
  const json h = {{"inputs", {sequence_input("x", 32, 8), sequence_input("x1", 32, 1)}},
                  {"operators", {a, other}}};
  CHECK(workload_tensor_bytes(parse_workload(h, "g.json")) == 256 + 32 + 512 + 64 + 2 * 2048);
  CHECK(workload_weight_bytes(parse_workload(h, "g.json")) == 2 * 2048);
  // A model's own weights (as ONNX gives them) have no seed to share: each counts.
  NetworkConfig own = parse_workload(g, "g.json");
  for (LayerConfig& L : own.layers) L.weight_values = std::vector<int8_t>(64 * 32, 1);
  CHECK(workload_weight_bytes(own) == 2 * 2048);
}
