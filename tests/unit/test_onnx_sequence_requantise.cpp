// The ONNX front-end on requantisations and concats of a [1, T, F] sequence
// (docs/onnx.md#qdq-clamps): a standalone QDQ Clip whose output scale differs
// from its input's becomes a clamp folded into the producer and a one-input
// concat that requantises; that concat keeps the sequence a sequence (and
// [N, C] rows rows), so a matmul after it reads T rows of F. A concat of several sequences (ONNX's
// axis 1 of [1, T, F] is the tokens) is refused naming the node. The models
// are built here with the ONNX protobuf API.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include "sim/config/config_error.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

constexpr int kUint8 = onnx::TensorProto_DataType_UINT8;
constexpr int kInt8 = onnx::TensorProto_DataType_INT8;

// int8 weights [rows, cols] of small seeded values.
std::vector<int32_t> weights(int rows, int cols, int seed) {
  std::vector<int32_t> w;
  for (int i = 0; i < rows * cols; ++i) w.push_back((i * 7 + seed) % 11 - 5);
  return w;
}

// x uint8 `dims` -> MatMul [8, 6] -> Q -> DQ -> Clip(0, 6) -> Q at ReLU6's scale (a
// requantisation) -> DQ -> MatMul [6, 4] -> y.
std::string matmul_clip_matmul(const std::string& file, std::vector<int64_t> dims) {
  test::OnnxModelBuilder b(13);
  b.input("x", kUint8, dims);
  b.output("y");
  b.scalar_float("xs", 0.05f), b.ints("xz", kUint8, {}, {128});
  b.scalar_float("ws", 0.02f), b.ints("wz", kInt8, {}, {0});
  b.ints("w1", kInt8, {8, 6}, weights(8, 6, 1));
  b.ints("w2", kInt8, {6, 4}, weights(6, 4, 3));
  b.scalar_float("ms", 0.1f), b.ints("mz", kUint8, {}, {128});      // the MatMul's output
  b.scalar_float("cs", 6.0f / 255), b.ints("cz", kUint8, {}, {0});  // ReLU6's: another scale
  b.scalar_float("lo", 0.0f), b.scalar_float("hi", 6.0f);
  b.scalar_float("ys", 0.1f), b.ints("yz", kUint8, {}, {128});
  b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xf"}, "xf");
  b.node("DequantizeLinear", {"w1", "ws", "wz"}, {"w1f"}, "w1f");
  b.node("MatMul", {"xf", "w1f"}, {"m"}, "mm1");
  b.node("QuantizeLinear", {"m", "ms", "mz"}, {"mq"}, "mq");
  b.node("DequantizeLinear", {"mq", "ms", "mz"}, {"mf"}, "mf");
  b.node("Clip", {"mf", "lo", "hi"}, {"c"}, "relu6");
  b.node("QuantizeLinear", {"c", "cs", "cz"}, {"cq"}, "cq");
  b.node("DequantizeLinear", {"cq", "cs", "cz"}, {"cf"}, "cf");
  b.node("DequantizeLinear", {"w2", "ws", "wz"}, {"w2f"}, "w2f");
  b.node("MatMul", {"cf", "w2f"}, {"m2"}, "mm2");
  b.node("QuantizeLinear", {"m2", "ys", "yz"}, {"y"}, "y");
  return b.save(file);
}

}  // namespace

TEST_CASE(
    "onnx: a QDQ Clip that requantises a 5 x 8 sequence after a MatMul keeps it a sequence, so "
    "the MatMul after it reads 5 rows of 6 features",
    "[onnx]") {
  const OnnxModel m =
      import_onnx(matmul_clip_matmul("clip_requantise_sequence.onnx", {1, 5, 8}), {});
  REQUIRE(m.network.layers.size() == 3);
  const LayerConfig& requantise = m.network.layers[1];
  CHECK(requantise.op == OpKind::Concat);
  CHECK(requantise.C == 6);
  CHECK(requantise.H == 5);
  const LayerConfig& L = m.network.layers[2];
  CHECK(L.op == OpKind::MatMul);
  CHECK(L.C == 6);
  CHECK(L.H == 5);
  CHECK(L.W == 1);
  CHECK(L.K == 4);
}

TEST_CASE(
    "onnx: a QDQ Clip that requantises [3, 8] rows after a MatMul keeps them rows, so the MatMul "
    "after it reads 3 rows of 6 features",
    "[onnx]") {
  const OnnxModel m = import_onnx(matmul_clip_matmul("clip_requantise_rows.onnx", {3, 8}), {});
  REQUIRE(m.network.layers.size() == 3);
  CHECK(m.network.layers[1].op == OpKind::Concat);
  const LayerConfig& L = m.network.layers[2];
  CHECK(L.op == OpKind::MatMul);
  CHECK(L.N == 3);
  CHECK(L.C == 6);
  CHECK(L.H == 1);
  CHECK(L.K == 4);
}

TEST_CASE("onnx: a QDQ Concat of two [1, T, F] sequences is refused naming the node", "[onnx]") {
  test::OnnxModelBuilder b(13);
  b.input("x", kUint8, {1, 4, 8});
  b.output("y");
  b.scalar_float("xs", 0.05f), b.ints("xz", kUint8, {}, {128});
  auto* cat = b.node("QLinearConcat", {"xs", "xz", "x", "xs", "xz", "x", "xs", "xz"}, {"y"}, "cat",
                     "com.microsoft");
  auto* axis = cat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto_AttributeType_INT);
  axis->set_i(1);
  const ConfigError e =
      test::config_error_from([&] { import_onnx(b.save("concat_sequences.onnx"), {}); });
  CHECK_THAT(e.pointer(), Catch::Contains("node 'cat' (QLinearConcat)"));
  CHECK_THAT(e.expected(), Catch::Contains("4-D inputs [N, C, H, W] (a concat along channels)"));
  CHECK_THAT(e.found(), Catch::Contains("input 2 [1, 4, 8]"));
}
