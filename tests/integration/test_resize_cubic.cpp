// A cubic Resize between DequantizeLinear and QuantizeLinear (docs/onnx.md,
// docs/quantization.md#resize-mode-cubic-in-qdq-form): ONNX Runtime keeps the
// float Resize there (ResizeBiCubic), and npusim's vector unit computes the same
// float32 interpolation and quantisation, bit for bit, at both of ONNX Runtime's
// graph optimisation levels; a compiled graph program of one replays exactly.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

namespace {

constexpr int kCubicU8 = onnx::TensorProto_DataType_UINT8;
constexpr int kCubicI8 = onnx::TensorProto_DataType_INT8;

// One cubic Resize of the shared input: by scales (rows, columns) or by sizes.
struct CubicBranch {
  std::string coordinates;
  float a;
  int exclude_outside;
  bool by_sizes;
  float scale_h, scale_w;  // by scales
  int64_t size_h, size_w;  // by sizes
};

// Per branch x -> DequantizeLinear -> Resize (cubic) -> QuantizeLinear -> y<i>.
std::string cubic_model(int type, const std::vector<int64_t>& shape,
                        const std::vector<CubicBranch>& branches, const std::string& file) {
  using Builder = npusim::test::OnnxModelBuilder;
  Builder m;
  const bool u8 = type == kCubicU8;
  m.input("x", type, shape);
  m.scalar_float("xs", 0.05f);
  m.ints("xz", type, {}, {u8 ? 128 : -5});
  m.scalar_float("ys", 0.03f);
  m.ints("yz", type, {}, {u8 ? 100 : 3});
  for (size_t i = 0; i < branches.size(); ++i) {
    const CubicBranch& b = branches[i];
    const std::string id = std::to_string(i);
    m.output("y" + id, type);
    m.node("DequantizeLinear", {"x", "xs", "xz"}, {"xd" + id}, "dq" + id);
    std::vector<std::string> inputs = {"xd" + id, ""};
    if (b.by_sizes) {
      m.int64_values("sizes" + id, {shape[0], shape[1], b.size_h, b.size_w});
      inputs.push_back("");
      inputs.push_back("sizes" + id);
    } else {
      m.float_values("scales" + id, {1, 1, b.scale_h, b.scale_w});
      inputs.push_back("scales" + id);
    }
    onnx::NodeProto* r = m.node("Resize", inputs, {"yd" + id}, "resize" + id);
    Builder::text_attribute(r, "mode", "cubic");
    Builder::text_attribute(r, "coordinate_transformation_mode", b.coordinates);
    auto* a = r->add_attribute();
    a->set_name("cubic_coeff_a");
    a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    a->set_f(b.a);
    auto* e = r->add_attribute();
    e->set_name("exclude_outside");
    e->set_type(onnx::AttributeProto_AttributeType_INT);
    e->set_i(b.exclude_outside);
    m.node("QuantizeLinear", {"yd" + id, "ys", "yz"}, {"y" + id}, "q" + id);
  }
  return m.save(file);
}

// Up 2 x 2, fractional up 1.5 x 1.3 and down 0.6 x 0.45, by sizes up (10 x 8) and down (4 x 3),
// at one coordinate mode, coefficient and exclude_outside.
std::vector<CubicBranch> cubic_sizes(const std::string& c, float a, int exclude) {
  return {{c, a, exclude, false, 2.0f, 2.0f, 0, 0},
          {c, a, exclude, false, 1.5f, 1.3f, 0, 0},
          {c, a, exclude, false, 0.6f, 0.45f, 0, 0},
          {c, a, exclude, true, 0, 0, 10, 8},
          {c, a, exclude, true, 0, 0, 4, 3}};
}

// The values a branch's output holds: N * C * out_h * out_w, out = floor(in * scale) in float32.
uint64_t cubic_branch_values(const std::vector<int64_t>& shape, const CubicBranch& b) {
  const uint64_t h = b.by_sizes ? uint64_t(b.size_h) : uint64_t(b.scale_h * float(shape[2]));
  const uint64_t w = b.by_sizes ? uint64_t(b.size_w) : uint64_t(b.scale_w * float(shape[3]));
  return uint64_t(shape[0]) * uint64_t(shape[1]) * h * w;
}

// Compares a model with ONNX Runtime at `levels`; requires every output bit-exact at every
// level and returns how many values were compared (the sum of ort-compare's counts).
uint64_t cubic_ort_values(const std::string& model, const std::string& args, size_t outputs) {
  const npusim::test::OrtComparison cmp = npusim::test::ort_compare(model, args);
  INFO(model << " " << args << "\n" << cmp.text);
  CHECK(cmp.status == 0);
  for (size_t i = 0; i < outputs; ++i)
    CHECK_THAT(cmp.text, Catch::Contains("[all] y" + std::to_string(i) + " "));
  uint64_t values = 0;
  const std::regex exact(R"(: bit-exact \((\d+) values\))");
  for (auto it = std::sregex_iterator(cmp.text.begin(), cmp.text.end(), exact);
       it != std::sregex_iterator(); ++it)
    values += std::stoull((*it)[1].str());
  return values;
}

}  // namespace

TEST_CASE(
    "onnx: a cubic Resize in QDQ form equals ONNX Runtime bit for bit: uint8 and int8, four "
    "coordinate modes, cubic_coeff_a -0.75, -0.5 and -0.6, exclude_outside 0 and 1, up, "
    "fractional and down, by scales and sizes, an axis of scale 1, a kept size, and cut into "
    "instructions of a few rows",
    "[onnx][resize]") {
  if (!npusim::test::have_onnx_runtime()) {
    WARN("SKIPPED: needs onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  const std::vector<std::string> modes = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                          "asymmetric"};
  std::vector<CubicBranch> branches;
  for (const std::string& c : modes)
    for (const float a : {-0.75f, -0.5f})
      for (const int exclude : {0, 1})
        for (const CubicBranch& b : cubic_sizes(c, a, exclude)) branches.push_back(b);
  // a = -0.6 (not a float32 of few bits): one axis of scale 1 each way, and 1.1 x 1.15, which
  // keeps the 7 x 5 size (copied).
  for (const std::string& c : modes)
    for (const int exclude : {0, 1})
      for (const auto& [h, w] : {std::pair<float, float>{2.0f, 1.0f}, {1.0f, 0.6f}, {1.1f, 1.15f}})
        branches.push_back({c, -0.6f, exclude, false, h, w, 0, 0});
  const std::vector<int64_t> shape = {2, 3, 7, 5};  // two images, a tall map
  uint64_t per_model = 0;
  for (const CubicBranch& b : branches) per_model += cubic_branch_values(shape, b);
  uint64_t compared = 0;
  for (const int type : {kCubicU8, kCubicI8}) {
    const std::string model =
        cubic_model(type, shape, branches,
                    std::string("resize_cubic_") + (type == kCubicU8 ? "u8" : "i8") + ".onnx");
    compared += cubic_ort_values(model, "--levels all,disabled", branches.size());
  }
  // Cut into instructions of a few rows each (a 2 KiB vector region), a wide map.
  const std::vector<int64_t> cut_shape = {1, 16, 21, 13};
  std::vector<CubicBranch> cut = cubic_sizes("half_pixel", -0.75f, 0);
  for (const CubicBranch& b : cubic_sizes("align_corners", -0.5f, 1)) cut.push_back(b);
  uint64_t cut_values = 0;
  for (const CubicBranch& b : cut) cut_values += cubic_branch_values(cut_shape, b);
  compared += cubic_ort_values(cubic_model(kCubicU8, cut_shape, cut, "resize_cubic_cut.onnx"),
                               "--levels all --set vector.buffer_kib=2", cut.size());
  // Every value of every output: two types at two levels, the cut model at one.
  WARN("cubic Resize: " << compared << " values compared with ONNX Runtime, 0 differ");
  CHECK(compared == 2 * 2 * per_model + cut_values);
}

TEST_CASE(
    "graph replay: a compiled program of a cubic resize (cubic_coeff_a -0.5, exclude_outside 1) "
    "carries both and replays with the same cycles and outputs",
    "[graph][trace][resize]") {
  const char* graph_text = R"({
  "name": "cubic",
  "inputs": [{"name": "x", "shape": [1, 8, 9, 7], "dtype": "uint8", "scale": 0.02, "zero_point": 128}],
  "operators": [
    {"name": "up", "op": "resize", "inputs": ["x"], "output": "y", "scales": [1.5, 2.25],
     "mode": "cubic", "coordinates": "pytorch_half_pixel", "cubic_coeff_a": -0.5,
     "exclude_outside": 1, "out": {"dtype": "uint8", "scale": 0.03, "zero_point": 100}}
  ]})";
  const std::string dir = npusim::test::temp_dir() + "/cubic_replay";
  const std::string graph = npusim::test::write_temp_file("cubic.json", graph_text);
  const std::string hw = "--set vector.buffer_kib=2";  // several instructions
  REQUIRE(
      npusim::test::run_cli("compile " + graph + " " + hw + " -o " + dir + "/p.jsonl").exit_code ==
      0);
  const auto text = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), {});
  };
  const std::string program = text(dir + "/p.jsonl");
  CHECK_THAT(program, Catch::Contains(R"("cubic_coeff_a":-0.5)"));
  CHECK_THAT(program, Catch::Contains(R"("exclude_outside":1)"));
  const npusim::test::CliResult direct = npusim::test::run_cli(
      "run " + graph + " " + hw + " -q --out " + dir + "/direct --save-outputs");
  const npusim::test::CliResult replay = npusim::test::run_cli(
      "run --program " + dir + "/p.jsonl -q --out " + dir + "/replay --save-outputs");
  INFO(direct.out << direct.err << replay.out << replay.err);
  REQUIRE(direct.exit_code == 0);
  REQUIRE(replay.exit_code == 0);
  CHECK_THAT(replay.out, Catch::Contains("bit-exact vs reference (1 layers)"));
  const auto cycles = [&](const std::string& out) {
    return nlohmann::json::parse(text(out + "/report.json"))["totals"]["cycles"].get<uint64_t>();
  };
  CHECK(cycles(dir + "/replay") == cycles(dir + "/direct"));
  const std::string y = text(dir + "/replay/up.output.npy");
  CHECK_FALSE(y.empty());
  CHECK(y == text(dir + "/direct/up.output.npy"));
}
