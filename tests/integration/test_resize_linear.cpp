// A linear Resize between DequantizeLinear and QuantizeLinear (docs/onnx.md):
// ONNX Runtime keeps the float Resize there, and npusim's vector unit computes
// the same float32 interpolation and quantisation, bit for bit, at both of ONNX
// Runtime's graph optimisation levels.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

namespace {

struct ResizeCase {
  std::string coordinates;
  int type;  // onnx::TensorProto_DataType_UINT8 or _INT8
  std::vector<int64_t> shape;
  std::vector<int64_t> factors;  // rows, columns
  bool requantise, by_sizes;
};

// x (8-bit) -> DequantizeLinear -> Resize linear -> QuantizeLinear -> y.
std::string resize_model(const ResizeCase& c, const std::string& file) {
  npusim::test::OnnxModelBuilder m;
  const bool u8 = c.type == onnx::TensorProto_DataType_UINT8;
  m.input("x", c.type, c.shape);
  m.output("y", c.type);
  m.scalar_float("xs", 0.05f);
  m.ints("xz", c.type, {}, {u8 ? 128 : -5});
  m.scalar_float("ys", c.requantise ? 0.03f : 0.05f);
  m.ints("yz", c.type, {}, {u8 ? (c.requantise ? 100 : 128) : (c.requantise ? 3 : -5)});
  m.node("DequantizeLinear", {"x", "xs", "xz"}, {"xd"}, "dq");
  std::vector<std::string> inputs = {"xd", ""};
  if (c.by_sizes) {
    m.int64_values("sizes",
                   {c.shape[0], c.shape[1], c.shape[2] * c.factors[0], c.shape[3] * c.factors[1]});
    inputs.push_back("");
    inputs.push_back("sizes");
  } else {
    m.float_values("scales", {1, 1, float(c.factors[0]), float(c.factors[1])});
    inputs.push_back("scales");
  }
  onnx::NodeProto* r = m.node("Resize", inputs, {"yd"}, "up");
  for (const auto& [name, value] : {std::pair<std::string, std::string>{"mode", "linear"},
                                    {"coordinate_transformation_mode", c.coordinates}}) {
    auto* a = r->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_STRING);
    a->set_s(value);
  }
  m.node("QuantizeLinear", {"yd", "ys", "yz"}, {"y"}, "q");
  return m.save(file);
}

}  // namespace

TEST_CASE(
    "onnx: a linear Resize in QDQ form equals ONNX Runtime bit for bit: uint8 and int8, every "
    "coordinate mode, tall and wide maps, two images, by scales and by sizes, requantising, and "
    "cut into several instructions",
    "[onnx][resize]") {
  if (!npusim::test::have_onnx_runtime()) {
    WARN("SKIPPED: needs onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  constexpr int kU8 = onnx::TensorProto_DataType_UINT8, kI8 = onnx::TensorProto_DataType_INT8;
  const std::vector<ResizeCase> cases = {
      {"half_pixel", kU8, {2, 3, 9, 4}, {2, 3}, false, false},
      {"pytorch_half_pixel", kI8, {1, 4, 5, 11}, {4, 2}, true, false},
      {"align_corners", kU8, {1, 2, 7, 3}, {3, 2}, true, true},
      {"asymmetric", kI8, {2, 2, 4, 6}, {2, 4}, false, true},
      {"half_pixel", kU8, {1, 16, 12, 20}, {4, 4}, true, false},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const ResizeCase& c = cases[i];
    const std::string model = resize_model(c, "resize_linear_" + std::to_string(i) + ".onnx");
    // The last case again with a 2 KiB vector region: many instructions of a few rows each.
    for (const std::string& args : {std::string("--levels all,disabled"),
                                    std::string("--levels all --set vector.buffer_kib=2")}) {
      if (i + 1 < cases.size() && args.find("buffer") != std::string::npos) continue;
      const npusim::test::OrtComparison cmp = npusim::test::ort_compare(model, args);
      INFO(c.coordinates << " " << args << "\n" << cmp.text);
      CHECK(cmp.status == 0);
      CHECK_THAT(cmp.text, Catch::Contains("[all] y") && Catch::Contains("bit-exact"));
    }
  }
  // The report names it.
  const nlohmann::json report =
      npusim::test::run_report("run -q " + resize_model(cases[0], "resize_linear_report.onnx"));
  REQUIRE(report["layers"].size() == 1);
  CHECK(report["layers"][0]["shape"]["op"] == "resize");
  CHECK(report["layers"][0]["shape"]["mode"] == "linear");
  CHECK(report["layers"][0]["shape"]["coordinates"] == "half_pixel");
}
