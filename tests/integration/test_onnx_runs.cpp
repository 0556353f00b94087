// ONNX models end to end (docs/onnx.md): quantised QOperator models written by
// tools/gen-onnx-models run bit-exact against the project's reference, write
// their outputs in the model's dtype and shape, and equal ONNX Runtime's
// outputs bit for bit (tools/ort-compare). Skipped where python3-onnx or
// onnxruntime-node is not installed (tools/install-deps --onnx installs both).
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "sim/frontend/onnx/onnx_import.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

const std::string kOnnxRunsRoot = NPUSIM_SOURCE_DIR;

// The .npy header's descr and shape, as text.
std::string npy_header(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string head(128, '\0');
  f.read(head.data(), 128);
  return head;
}

}  // namespace

TEST_CASE("onnx: the operator model runs bit-exact and writes outputs in ONNX dtype and shape",
          "[onnx]") {
  const std::string dir = test::generate_onnx_models("ops qdq_boundary");
  if (dir.empty()) {
    WARN("SKIPPED: /usr/bin/python3 lacks python3-onnx (tools/install-deps --onnx)");
    return;
  }
  const std::string out = test::temp_dir() + "/onnx_ops";
  const test::CliResult r =
      test::run_cli("run " + dir + "/ops.onnx -q --out " + out + " --save-outputs");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("bit-exact vs reference (13 layers)"));
  // Rows named by node name, and each node's op type in report.json.
  CHECK_THAT(r.out, Catch::Contains("c_dw") && Catch::Contains("dwconv 8x11x9 3x3/1"));
  std::ifstream report_file(out + "/report.json");
  const nlohmann::json report = nlohmann::json::parse(report_file);
  std::set<std::string> op_types;
  for (const auto& layer : report["layers"]) op_types.insert(layer["shape"]["source_op"]);
  for (const char* op : {"QLinearConv", "ConvInteger", "QLinearAdd", "QGemm"}) {
    INFO(op);
    CHECK(op_types.count(op) == 1);
  }
  // ConvInteger's int32 NCHW output, the matmul's [N, F], the input the run used.
  CHECK_THAT(npy_header(out + "/f.npy"),
             Catch::Contains("'<i4'") && Catch::Contains("(1, 6, 11, 9)"));
  CHECK_THAT(npy_header(out + "/y.npy"), Catch::Contains("'|u1'") && Catch::Contains("(1, 37)"));
  CHECK_THAT(npy_header(out + "/x.input.npy"), Catch::Contains("(1, 8, 11, 9)"));

  // A float input quantised by QuantizeLinear, a float output from DequantizeLinear.
  const test::CliResult q =
      test::run_cli("run " + dir + "/qdq_boundary.onnx -q --out " + out + "q --save-outputs");
  REQUIRE(q.exit_code == 0);
  CHECK_THAT(npy_header(out + "q/y.float.npy"), Catch::Contains("'<f4'"));
  CHECK_THAT(npy_header(out + "q/x.float.input.npy"), Catch::Contains("'<f4'"));
}

TEST_CASE(
    "onnx: --input feeds a graph input from .npy, others are said to be seeded, and a wrong name "
    "is an error",
    "[onnx]") {
  const std::string dir = test::generate_onnx_models("ops");
  if (dir.empty()) {
    WARN("SKIPPED: /usr/bin/python3 lacks python3-onnx (tools/install-deps --onnx)");
    return;
  }
  const std::string out = test::temp_dir() + "/onnx_in";
  REQUIRE(test::run_cli("run " + dir + "/ops.onnx -q --out " + out + " --save-outputs").exit_code ==
          0);
  // Feeding back the seeded input gives the same outputs (same digest line).
  const test::CliResult again = test::run_cli("run " + dir + "/ops.onnx --input x=" + out +
                                              "/x.input.npy --out " + out + "2 --save-outputs");
  REQUIRE(again.exit_code == 0);
  CHECK_THAT(again.err, !Catch::Contains("seeded"));
  // Without --input, stderr says the input is seeded.
  const test::CliResult seeded = test::run_cli("run " + dir + "/ops.onnx");
  CHECK_THAT(seeded.err, Catch::Contains("input x: seeded values over the uint8 range"));
  std::ifstream a(out + "/y.npy", std::ios::binary), b(out + "2/y.npy", std::ios::binary);
  const std::string ya((std::istreambuf_iterator<char>(a)), {}),
      yb((std::istreambuf_iterator<char>(b)), {});
  CHECK(ya == yb);
  const test::CliResult bad =
      test::run_cli("run " + dir + "/ops.onnx -q --input nope=" + out + "/x.input.npy");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("nope") && Catch::Contains("graph input"));
}

TEST_CASE(
    "onnx: the operator model, Relu/Clip nodes, an int8 MatMulInteger with no zero point, "
    "NHWC Transposes and MobileNetV2 equal ONNX Runtime bit for bit",
    "[onnx]") {
  const std::string dir = test::generate_onnx_models(
      "ops relu_clip torch_reshape s8_defaults transpose_layouts mobilenet_v2");
  if (dir.empty() || !test::have_onnx_runtime()) {
    WARN("SKIPPED: needs python3-onnx and onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  for (const char* model :
       {"ops", "relu_clip", "torch_reshape", "s8_defaults", "transpose_layouts", "mobilenet_v2"}) {
    const test::OrtComparison c = test::ort_compare(dir + "/" + model + ".onnx", "");
    INFO(c.text);
    if (test::skipped_for_want_of_vnni(c, model)) continue;
    CHECK(c.status == 0);
    CHECK_THAT(c.text, Catch::Contains("bit-exact"));
  }
}

TEST_CASE(
    "onnx: QDQ HardSwish, HardSigmoid, Sigmoid, Tanh and LeakyRelu after a conv equal ONNX "
    "Runtime's bits",
    "[onnx]") {
  const std::string dir = test::generate_onnx_models("activations_qdq");
  if (dir.empty() || !test::have_onnx_runtime()) {
    WARN("SKIPPED: needs python3-onnx and onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  const test::CliResult r = test::run_cli("run " + dir + "/activations_qdq.onnx -q");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("bit-exact vs reference"));
  CHECK_THAT(r.out, Catch::Contains("hardswish"));
  CHECK_THAT(r.out, Catch::Contains("tanh"));
  CHECK_THAT(r.out, Catch::Contains("leakyrelu"));
  // The float activations, unoptimised, and ORT's fused kernels alike.
  const test::OrtComparison c =
      test::ort_compare(dir + "/activations_qdq.onnx", "--levels all,disabled");
  INFO(c.text);
  // Unoptimised, ONNX Runtime evaluates the float activations on any CPU.
  CHECK_THAT(c.text, Catch::Contains("[disabled] gd float32 [1, 16, 6, 10]: bit-exact"));
  CHECK_THAT(c.text, Catch::Contains("[disabled] td float32 [1, 16, 6, 10]: bit-exact"));
  CHECK_THAT(c.text, Catch::Contains("[disabled] ld float32 [1, 16, 6, 10]: bit-exact"));
  if (!test::skipped_for_want_of_vnni(c, "activations_qdq")) CHECK(c.status == 0);
}

TEST_CASE("onnx: QDQ models lower to integer operators and equal ONNX Runtime's fused kernels",
          "[onnx]") {
  const std::string dir = test::generate_onnx_models("ops_qdq mobilenet_v2_qdq");
  if (dir.empty() || !test::have_onnx_runtime()) {
    WARN("SKIPPED: needs python3-onnx and onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  // With every graph optimisation ONNX Runtime fuses each DequantizeLinear -> op ->
  // QuantizeLinear pattern into its integer kernel, which is what npusim computes;
  // unoptimised, it runs the float operators and differs by a few steps (docs/onnx.md).
  for (const char* model : {"ops_qdq", "mobilenet_v2_qdq"}) {
    const test::CliResult r = test::run_cli("run " + dir + "/" + model + ".onnx -q");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("bit-exact vs reference"));
    const test::OrtComparison c = test::ort_compare(dir + "/" + model + ".onnx", "--levels all");
    INFO(c.text);
    if (test::skipped_for_want_of_vnni(c, model)) continue;
    CHECK(c.status == 0);
  }
}

TEST_CASE(
    "onnx: MobileNetV2 (QDQ) on a 32 KiB cache, operators cut into column pieces, equals ONNX "
    "Runtime's fused kernels",
    "[onnx][column_pieces]") {
  const std::string dir = test::generate_onnx_models("mobilenet_v2_qdq");
  if (dir.empty() || !test::have_onnx_runtime()) {
    WARN("SKIPPED: needs python3-onnx and onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  const std::string model = dir + "/mobilenet_v2_qdq.onnx";
  const nlohmann::json report = test::run_report("run " + model + " --set cache.size_kib=32");
  size_t column_layers = 0;
  for (const nlohmann::json& layer : report.at("layers"))
    column_layers += layer.contains("tiling") && layer.at("tiling").contains("cols_per_piece");
  CHECK(column_layers > 0);  // 9 of its 64 operators when written (docs/tiling.md#column-pieces)
  const test::OrtComparison c = test::ort_compare(model, "--levels all --set cache.size_kib=32");
  INFO(c.text);
  if (test::skipped_for_want_of_vnni(c, model)) return;
  CHECK(c.status == 0);
  CHECK_THAT(c.text, Catch::Contains("bit-exact"));
}

TEST_CASE(
    "onnx: a model is a sweep workload (hardware varied, each point checked) and a regress case",
    "[onnx][sweep]") {
  const std::string dir = test::generate_onnx_models("relu_clip");
  if (dir.empty()) {
    WARN("SKIPPED: needs python3-onnx (tools/install-deps --onnx)");
    return;
  }
  const std::string spec = dir + "/sweep.json";
  std::ofstream(spec) << R"({"name": "onnx_sweep", "workload": "relu_clip.onnx",
    "parameters": [{"pointer": "/compute/array_rows", "values": [4, 8]}],
    "timing_only": false})";
  const test::CliResult sweep = test::run_cli("sweep " + spec + " --out " + dir + "/sw -j 2");
  INFO(sweep.err);
  REQUIRE(sweep.exit_code == 0);
  std::ifstream results(dir + "/sw/results.csv");
  const std::string csv((std::istreambuf_iterator<char>(results)), {});
  // Two points, both run functionally: a point whose outputs differed would fail.
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  CHECK_THAT(csv, Catch::Contains(",4,ok,") && Catch::Contains(",8,ok,"));

  // An ONNX model has no JSON keys for a workload parameter to vary.
  std::ofstream(spec) << R"({"workload": "relu_clip.onnx",
    "parameters": [{"pointer": "/layers/0/K", "target": "workload", "values": [4, 8]}]})";
  const test::CliResult bad = test::run_cli("sweep " + spec + " --out " + dir + "/sw2");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("/parameters/0") &&
                          Catch::Contains("an ONNX workload has no JSON keys to vary"));

  // As a regression case: blessed once, then it passes.
  std::ofstream(dir + "/manifest.json")
      << R"({"cases": [{"name": "relu_clip_onnx", "workload": "relu_clip.onnx"}]})";
  CHECK(test::run_cli("regress " + dir + "/manifest.json --bless").exit_code == 0);
  const test::CliResult again = test::run_cli("regress " + dir + "/manifest.json");
  INFO(again.out);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("1 pass"));
}

TEST_CASE(
    "onnx: torch.onnx-exported MobileNetV2 and ResNet-18, quantised to QDQ, equal ONNX Runtime "
    "bit for bit, and where only its unoptimised level differs ort-compare says why",
    "[onnx]") {
  if (std::system("/usr/bin/python3 -c 'import torch, torchvision, onnx' > /dev/null 2>&1") != 0 ||
      !test::have_onnx_runtime()) {
    WARN("SKIPPED: needs python3-torch, python3-torchvision, python3-onnx and onnxruntime-node");
    return;
  }
  const std::string dir = test::temp_dir() + "/torch";
  for (const char* model : {"mobilenet_v2", "resnet18"}) {
    const std::string path = dir + "/" + model + ".onnx";
    const std::string gen =
        kOnnxRunsRoot + "/tools/gen-torch-qdq " + path + " --model " + model + " > /dev/null 2>&1";
    REQUIRE(std::system(gen.c_str()) == 0);
    // ONNX Runtime with its graph optimisations (it then fuses QDQ into integer kernels).
    const test::OrtComparison c = test::ort_compare(path, "--levels all");
    INFO(model << "\n" << c.text);
    if (test::skipped_for_want_of_vnni(c, model)) continue;
    CHECK(c.status == 0);
    CHECK_THAT(c.text, Catch::Contains("logits_dq float32 [1, 1000]: bit-exact (1000 values)"));
    // Both levels: unoptimised, ONNX Runtime evaluates the QDQ graph in float (ResNet-18's
    // logits then differ a little, MobileNetV2's do not); the note appears exactly then.
    const test::OrtComparison both = test::ort_compare(path, "");
    INFO(both.text);
    const bool disabled_differs =
        both.text.find("[disabled] logits_dq float32 [1, 1000]: bit-exact") == std::string::npos;
    CHECK((both.text.find("note: only [disabled] differs") != std::string::npos) ==
          disabled_differs);
  }
}

TEST_CASE(
    "onnx: ResNet-50 in QOperator and QDQ form equals ONNX Runtime bit for bit, per-node cycles "
    "within the bounds",
    "[onnx][network]") {
#ifdef NPUSIM_SANITIZE_BUILD
  // 90 s under ASan for no path the smaller ONNX models and the ResNet-50 graph run miss.
  WARN("SKIPPED: a Release-build test (sanitizer builds run the smaller ONNX models)");
  return;
#endif
  const std::string dir = test::generate_onnx_models("resnet50 resnet50_qdq");
  if (dir.empty() || !test::have_onnx_runtime()) {
    WARN("SKIPPED: needs python3-onnx and onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  for (const char* model : {"resnet50", "resnet50_qdq"}) {
    const test::OrtComparison c = test::ort_compare(dir + "/" + model + ".onnx", "--levels all");
    INFO(model << "\n" << c.text);
    if (test::skipped_for_want_of_vnni(c, model)) continue;
    CHECK(c.status == 0);
    CHECK_THAT(c.text, Catch::Contains("fc.out uint8 [1, 1000]: bit-exact (1000 values)"));
  }
  // Every node's row in the report, named by node and op type, and the run within its bounds.
  const std::string out = test::temp_dir() + "/r50_report";
  const test::CliResult r =
      test::run_cli("run " + dir + "/resnet50.onnx --timing-only -q --out " + out);
  REQUIRE(r.exit_code == 0);
  std::ifstream f(out + "/report.json");
  const nlohmann::json report = nlohmann::json::parse(f);
  CHECK(report["layers"].size() == 72);  // 53 conv, 1 maxpool, 16 add, 1 global pool, 1 fc
  CHECK(report["layers"][0]["name"] == "conv1");
  CHECK(report["layers"][0]["shape"]["source_op"] == "QLinearConv");
  // Every node's op type, in report.json and the wide table (the compact one
  // uses npusim's shorter operator names to keep each shape whole).
  std::set<std::string> op_types;
  for (const auto& layer : report["layers"]) op_types.insert(layer["shape"]["source_op"]);
  CHECK(op_types == std::set<std::string>{"QLinearConv", "MaxPool", "QLinearAdd",
                                          "QLinearGlobalAveragePool", "QGemm"});
  CHECK_THAT(r.out, Catch::Contains("conv1") && Catch::Contains(" 3x224x224 k64 7x7/2 ") &&
                        Catch::Contains("maxpool 64x112x112 3x3/2"));
  for (const auto& layer : report["layers"]) CHECK(layer["cycles"].get<uint64_t>() > 0);
  CHECK(report["totals"]["within_bounds"] == true);
}

TEST_CASE(
    "onnx: a QDQ transformer encoder block imports as batch_matmul, softmax and layernorm over "
    "heads in place, runs bit-exact against the reference and within 3 LSB of ONNX Runtime",
    "[onnx][transformer]") {
  if (!test::have_python_onnx()) {
    WARN("SKIPPED: /usr/bin/python3 lacks python3-onnx (tools/install-deps --onnx)");
    return;
  }
  const std::string dir = test::temp_dir() + "/onnx_block";
  std::filesystem::create_directories(dir);
  const std::string model = dir + "/block.onnx", x = dir + "/x.npy";
  // The input the generator calibrated the scales on (seeded values would saturate some).
  REQUIRE(std::system((kOnnxRunsRoot + "/tools/gen-onnx-transformer " + model + " --save-input " +
                       x + " > /dev/null")
                          .c_str()) == 0);
  // T = 16 tokens, F = 64 features, 4 heads of 16: the heads are views, no node moves data.
  const OnnxModel m = import_onnx(model, {});
  std::vector<std::string> kinds;
  for (const LayerConfig& L : m.network.layers) kinds.push_back(to_string(L.op));
  CHECK(kinds == std::vector<std::string>{"matmul", "matmul", "matmul", "batch_matmul", "softmax",
                                          "batch_matmul", "matmul", "add", "layernorm"});
  REQUIRE(m.network.layers.size() == 9);
  const LayerConfig &scores = m.network.layers[3], &probs = m.network.layers[4],
                    &context = m.network.layers[5];
  CHECK((scores.seq.heads == 4 && scores.seq.kv_heads == 4 && scores.seq.transpose_b));
  CHECK((scores.C == 64 && scores.H == 16 && scores.K == 4 * 16));  // [1, heads * T_k, T_q, 1]
  CHECK(m.network.tensor_names[size_t(m.network.sources[3][1].op)] == "k_proj");
  CHECK(probs.seq.heads == 4);
  CHECK((context.seq.heads == 4 && !context.seq.transpose_b && context.K == 64));
  CHECK(m.network.tensor_names[size_t(m.network.sources[5][1].op)] == "v_proj");
  CHECK(m.network.layers[0].bias_values.size() == 64);  // the projections' bias Adds
  CHECK(m.outputs[0].shape == std::vector<uint32_t>{1, 16, 64});

  // Every operator equals the project's reference bit for bit (the run exits 1 otherwise).
  const test::CliResult r = test::run_cli("run " + model + " -q --input x=" + x);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("bit-exact vs reference (9 layers)"));

  if (!test::have_onnx_runtime()) {
    WARN("SKIPPED: the ONNX Runtime comparison needs onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  // ONNX Runtime evaluates softmax and layer normalisation in float, npusim in its integer
  // numerics (docs/onnx.md#transformer-blocks): at most 3 LSB apart on this block.
  const test::OrtComparison c =
      test::ort_compare(model, "--levels all,disabled --tolerance 3 --input x=" + x);
  const std::string& text = c.text;
  INFO(text);
  CHECK(c.status == 0);
  const std::regex line(R"(\[(all|disabled)\] y uint8 \[1, 16, 64\]: max \|diff\| (\d+) LSB, )");
  int levels = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it, ++levels)
    CHECK(std::stoi((*it)[2]) <= 3);
  CHECK(levels == 2);
  // Not bit-exact, so a tolerance of 0 fails, and without --tolerance the comparison is exact.
  for (const std::string option : {" --tolerance 0", ""}) {
    const test::OrtComparison exact =
        test::ort_compare(model, "--levels all --input x=" + x + option);
    INFO(option << "\n" << exact.text);
    CHECK(WEXITSTATUS(exact.status) == 1);
    CHECK_THAT(exact.text, Catch::Contains(option.empty() ? " of 1024 differ (max |diff| "
                                                          : "over --tolerance 0"));
  }
}

TEST_CASE(
    "onnx: 20 seeded QDQ transformer blocks each stay within 2 LSB of ONNX Runtime, with at most "
    "12 percent of values differing (the stated bound of its float softmax and layer norm)",
    "[onnx][transformer][slow]") {
  if (!test::have_python_onnx() || !test::have_onnx_runtime()) {
    WARN("SKIPPED: needs python3-onnx and onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  const std::string dir = test::temp_dir() + "/onnx_blocks";
  std::filesystem::create_directories(dir);
  // Measured (docs/onnx.md#transformer-blocks): 6.15 to 11.72 % of the 1,024 values differ, by
  // 1 LSB in 12 blocks and 2 in the other 8.
  const std::regex line(R"(\[all\] y uint8 \[1, 16, 64\]: max \|diff\| (\d+) LSB, (\d+) of 1024)");
  uint32_t worst = 0, most = 0;
  for (int seed = 0; seed < 20; ++seed) {
    const std::string model = dir + "/block" + std::to_string(seed) + ".onnx",
                      x = dir + "/x" + std::to_string(seed) + ".npy";
    REQUIRE(std::system((kOnnxRunsRoot + "/tools/gen-onnx-transformer " + model + " --seed " +
                         std::to_string(seed) + " --save-input " + x + " > /dev/null")
                            .c_str()) == 0);
    const test::OrtComparison c =
        test::ort_compare(model, "--levels all --tolerance 2 --input x=" + x);
    INFO("seed " << seed << "\n" << c.text);
    std::smatch m;
    REQUIRE(std::regex_search(c.text, m, line));
    worst = std::max(worst, uint32_t(std::stoul(m[1])));
    most = std::max(most, uint32_t(std::stoul(m[2])));
    // Without VNNI ONNX Runtime's own uint8 x int8 matmuls saturate (docs/quantization.md) and
    // add differences of their own (up to 4 LSB, a third of the values): no bound to hold there.
    if (!test::cpu_has_vnni()) {
      WARN("seed " << seed << " not held to the bound: ONNX Runtime's kernels saturate on this "
                   << "CPU, which has no VNNI\n"
                   << c.text);
      continue;
    }
    CHECK(c.status == 0);
    CHECK(std::stoul(m[1]) <= 2);
    CHECK(std::stoul(m[2]) * 100 <= 12 * 1024);
  }
  INFO("largest difference " << worst << " LSB, most values differing " << most);
  CHECK(worst >= 1);  // not bit-exact: the bound is the claim, not equality
}

TEST_CASE(
    "onnx: an accumulator the reference refuses (int32 overflow) names the operator, not only "
    "qops",
    "[onnx][robustness]") {
#ifdef NPUSIM_SANITIZE_BUILD
  // The reference refuses after the simulation, and after SystemC's coroutines have run
  // AddressSanitizer reports any exception as stack-use-after-scope (google/sanitizers#189).
  WARN("SKIPPED: a Release-build test (an exception after a simulation, docs/robustness.md)");
  return;
#endif
  const std::string dir = test::generate_onnx_models("ops");
  if (dir.empty()) {
    WARN("SKIPPED: /usr/bin/python3 lacks python3-onnx (tools/install-deps --onnx)");
    return;
  }
  // c_g4's bias at INT32_MIN: the first negative product sum leaves int32.
  const std::string model = dir + "/ops_bias_min.onnx";
  const std::string edit =
      "/usr/bin/python3 -c \"import onnx, numpy; from onnx import numpy_helper as h; "
      "m = onnx.load('" +
      dir +
      "/ops.onnx'); "
      "t = [t for t in m.graph.initializer if t.name == 'c_g4.b'][0]; "
      "a = h.to_array(t).copy(); a[5] = -2**31; t.CopyFrom(h.from_array(a, t.name)); "
      "onnx.save(m, '" +
      model + "')\"";
  REQUIRE(std::system(edit.c_str()) == 0);
  const test::CliResult r = test::run_cli("run -q " + model);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("operator 'c_g4' (conv): ") && Catch::Contains("overflows int32"));
}
