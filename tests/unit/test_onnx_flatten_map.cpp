// A Flatten of an H x W map into a matmul in the ONNX front-end
// (docs/onnx.md#flatten-of-a-map): the matmul becomes the convolution whose
// kernel covers the map, B's row (c * H + y) * W + x the kernel's tap (y, x) of
// channel c. Anything else that reads the flattened map is refused at its node.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

using ModelBuilder = test::OnnxModelBuilder;
constexpr uint32_t kMapC = 6, kMapH = 2, kMapW = 5, kMapK = 4, kMapFeatures = kMapC * kMapH * kMapW;

// B[i][k] of the matmul: distinct enough that a swapped axis shows.
int flat_b_value(uint32_t i, uint32_t k) { return int((i * 7 + k * 13) % 23) - 11; }

// x uint8 [1, 6, 2, 5] -> MaxPool 1x1 (scale 1, zero point 0) -> "m", a wide
// map whose rows and columns differ in number.
ModelBuilder flatten_map_model() {
  ModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, kMapC, kMapH, kMapW});
  auto* pool = m.node("MaxPool", {"x"}, {"m"}, "pool");
  ModelBuilder::ints_attribute(pool, "kernel_shape", {1, 1});
  m.scalar_float("s", 1.0f);
  m.ints("z", onnx::TensorProto_DataType_UINT8, {}, {0});
  m.ints("bz", onnx::TensorProto_DataType_INT8, {}, {0});
  std::vector<int32_t> b;
  for (uint32_t i = 0; i < kMapFeatures; ++i)
    for (uint32_t k = 0; k < kMapK; ++k) b.push_back(flat_b_value(i, k));
  m.ints("b", onnx::TensorProto_DataType_INT8, {kMapFeatures, kMapK}, b);
  return m;
}

void add_flat_matmul(ModelBuilder& m, const std::string& input) {
  m.node("QLinearMatMul", {input, "s", "z", "b", "s", "bz", "s", "z"}, {"y"}, "fc");
  m.output("y");
}

}  // namespace

TEST_CASE(
    "onnx: a matmul of a flattened 2x5 map is the convolution whose 2x5 kernel covers it, "
    "feature (c * 2 + y) * 5 + x its tap (y, x) of channel c",
    "[onnx]") {
  ModelBuilder m = flatten_map_model();
  SECTION("Flatten") { m.node("Flatten", {"m"}, {"f"}, "flatten"); }
  SECTION("Reshape to [1, -1], as x.view(1, -1) exports") {
    m.int64_values("shape", {1, -1});
    m.node("Reshape", {"m", "shape"}, {"f"}, "flatten");
  }
  SECTION("Reshape to [0, 60]") {
    m.int64_values("shape", {0, kMapFeatures});
    m.node("Reshape", {"m", "shape"}, {"f"}, "flatten");
  }
  add_flat_matmul(m, "f");
  const OnnxModel model = import_onnx(m.save("flatten_map.onnx"), {});
  REQUIRE(model.network.layers.size() == 2);
  const LayerConfig& L = model.network.layers[1];
  CHECK(L.op == OpKind::Conv);
  CHECK((L.C == kMapC && L.H == kMapH && L.W == kMapW && L.K == kMapK));
  CHECK((L.R == kMapH && L.S == kMapW && L.stride == 1 && L.padding == 0));
  CHECK((L.out_h() == 1 && L.out_w() == 1));
  // Weights lie K, R, S, C. By hand: channel 1, row 1, column 3 is feature
  // (1 * 2 + 1) * 5 + 3 = 18; for output 2 its byte is at ((2 * 2 + 1) * 5 + 3) * 6 + 1 = 169.
  const std::vector<int8_t>& w = L.weight_values.values();
  REQUIRE(w.size() == kMapK * kMapFeatures);
  CHECK(w[169] == flat_b_value(18, 2));
  for (uint32_t k = 0; k < kMapK; ++k)
    for (uint32_t c = 0; c < kMapC; ++c)
      for (uint32_t y = 0; y < kMapH; ++y)
        for (uint32_t x = 0; x < kMapW; ++x)
          CHECK(w[((k * kMapH + y) * kMapW + x) * kMapC + c] ==
                flat_b_value((c * kMapH + y) * kMapW + x, k));
}

TEST_CASE(
    "onnx: a flattened map read by anything but a matmul, or reshaped to another shape, is "
    "refused at that node, naming the flattened shape",
    "[onnx]") {
  ModelBuilder m = flatten_map_model();
  std::string node, shape = "[1, 60]";
  SECTION("a Relu of the flattened map") {
    m.node("Flatten", {"m"}, {"f"}, "flatten");
    m.node("Relu", {"f"}, {"y"}, "relu");
    m.output("y");
    node = "node 'relu' (Relu)";
  }
  SECTION("a second Flatten") {
    m.node("Flatten", {"m"}, {"f"}, "flatten");
    m.node("Flatten", {"f"}, {"g"}, "again");
    add_flat_matmul(m, "g");
    node = "node 'again' (Flatten)";
  }
  SECTION("a Reshape to [1, 30, 2]") {
    m.int64_values("shape", {1, 30, 2});
    m.node("Reshape", {"m", "shape"}, {"f"}, "reshape");
    add_flat_matmul(m, "f");
    node = "node 'reshape' (Reshape)";
    shape = "[N, 60]";
  }
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("flat_bad.onnx"), {}); });
  CHECK(e.pointer() == node);
  CHECK_THAT(e.expected() + e.found(), Catch::Contains(shape));
}
