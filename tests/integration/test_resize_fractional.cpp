// Resize by fractional scales (docs/onnx.md, docs/graphs.md): hand-built
// models of many Resize nodes, each its own output, run through npusim and
// through ONNX Runtime, compared bit for bit at both of ONNX Runtime's graph
// optimisation levels. Linear in QDQ form (every coordinate mode), nearest in
// QDQ form and on the quantised tensor (every coordinate mode and nearest_mode),
// upsampling and downsampling, by scales and by sizes.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

namespace {

constexpr int kU8 = onnx::TensorProto_DataType_UINT8, kI8 = onnx::TensorProto_DataType_INT8;

// One Resize of the shared input: by scales (rows, columns) or by sizes.
struct Branch {
  std::string mode, coordinates, nearest_mode;
  bool by_sizes;
  float scale_h, scale_w;  // by scales
  int64_t size_h, size_w;  // by sizes
};

// Per branch x -> DequantizeLinear -> Resize -> QuantizeLinear (linear), or
// x -> MaxPool 1x1 (a quantised node first: a graph input states no scale)
// -> the Resize alone, or in QDQ form where `qdq` (nearest); -> y<i>.
std::string fraction_model(int type, const std::vector<int64_t>& shape,
                           const std::vector<Branch>& branches, bool qdq, const std::string& file) {
  npusim::test::OnnxModelBuilder m;
  const bool u8 = type == kU8;
  m.input("x", type, shape);
  m.scalar_float("xs", 0.05f);
  m.ints("xz", type, {}, {u8 ? 128 : -5});
  m.scalar_float("ys", 0.03f);
  m.ints("yz", type, {}, {u8 ? 100 : 3});
  if (branches.front().mode != "linear") {  // the pool's input takes scale 1 (x reads only it)
    onnx::NodeProto* pool = m.node("MaxPool", {"x"}, {"p"}, "pool");
    npusim::test::OnnxModelBuilder::ints_attribute(pool, "kernel_shape", {1, 1});
  }
  for (size_t i = 0; i < branches.size(); ++i) {
    const Branch& b = branches[i];
    const std::string id = std::to_string(i), y = "y" + id;
    m.output(y, type);
    std::string in = "p", out = y;
    if (qdq) {
      // Linear dequantises the graph input; nearest the pool's output (the
      // importer moves a nearest Resize onto a quantised node's tensor).
      m.node("DequantizeLinear", {b.mode == "linear" ? "x" : "p", "xs", "xz"}, {"xd" + id},
             "dq" + id);
      in = "xd" + id, out = "yd" + id;
    }
    std::vector<std::string> inputs = {in, ""};
    if (b.by_sizes) {
      m.int64_values("sizes" + id, {shape[0], shape[1], b.size_h, b.size_w});
      inputs.push_back("");
      inputs.push_back("sizes" + id);
    } else {
      m.float_values("scales" + id, {1, 1, b.scale_h, b.scale_w});
      inputs.push_back("scales" + id);
    }
    onnx::NodeProto* r = m.node("Resize", inputs, {out}, "resize" + id);
    npusim::test::OnnxModelBuilder::text_attribute(r, "mode", b.mode);
    npusim::test::OnnxModelBuilder::text_attribute(r, "coordinate_transformation_mode",
                                                   b.coordinates);
    if (!b.nearest_mode.empty())
      npusim::test::OnnxModelBuilder::text_attribute(r, "nearest_mode", b.nearest_mode);
    // Nearest in QDQ form keeps the input's quantisation (the importer moves
    // it onto the quantised tensor); linear requantises.
    if (qdq)
      m.node("QuantizeLinear",
             {out, b.mode == "linear" ? "ys" : "xs", b.mode == "linear" ? "yz" : "xz"}, {y},
             "q" + id);
  }
  return m.save(file);
}

// Up and down, by scales and by sizes, on a tall 7 x 5 map: rows and columns
// scaled differently; 7 -> 4 rows puts row 2 at 3.4999998 (asymmetric), one
// float32 step from a tie; scales that keep the size copy the map.
std::vector<Branch> sized(const std::string& mode, const std::string& coordinates,
                          const std::string& nearest_mode) {
  return {
      {mode, coordinates, nearest_mode, false, 1.5f, 1.3f, 0, 0},   // 10 x 6
      {mode, coordinates, nearest_mode, false, 0.6f, 0.45f, 0, 0},  // 4 x 2
      {mode, coordinates, nearest_mode, false, 2.25f, 0.7f, 0, 0},  // 15 x 3
      {mode, coordinates, nearest_mode, true, 0, 0, 10, 8},         // 7 -> 10, 5 -> 8
      {mode, coordinates, nearest_mode, true, 0, 0, 4, 3},          // down
      {mode, coordinates, nearest_mode, true, 0, 0, 1, 7},          // one row
      {mode, coordinates, nearest_mode, false, 1.1f, 1.15f, 0, 0},  // 7 x 5 again: copied
  };
}

void check_against_ort(const std::string& model, const std::string& args, size_t outputs) {
  const npusim::test::OrtComparison cmp = npusim::test::ort_compare(model, args);
  INFO(model << " " << args << "\n" << cmp.text);
  CHECK(cmp.status == 0);
  for (size_t i = 0; i < outputs; ++i)
    CHECK_THAT(cmp.text, Catch::Contains("[all] y" + std::to_string(i) + " "));
}

}  // namespace

TEST_CASE(
    "onnx: a linear Resize in QDQ form by fractional scales and sizes equals ONNX Runtime bit for "
    "bit: uint8 and int8, every coordinate mode, up and down, rows and columns apart",
    "[onnx][resize]") {
  if (!npusim::test::have_onnx_runtime()) {
    WARN("SKIPPED: needs onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  const std::vector<std::string> modes = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                          "asymmetric"};
  std::vector<Branch> branches;
  for (const std::string& c : modes)
    for (const Branch& b : sized("linear", c, "")) branches.push_back(b);
  for (const int type : {kU8, kI8}) {
    const std::string model = fraction_model(
        type, {2, 3, 7, 5}, branches, true,
        std::string("resize_fractional_linear_") + (type == kU8 ? "u8" : "i8") + ".onnx");
    check_against_ort(model, "--levels all,disabled", branches.size());
  }
  // Cut into instructions of a few rows each (a 2 KiB vector region).
  const std::string model = fraction_model(kU8, {1, 16, 21, 13}, sized("linear", "half_pixel", ""),
                                           true, "resize_fractional_linear_cut.onnx");
  check_against_ort(model, "--levels all --set vector.buffer_kib=2", 7);
}

TEST_CASE(
    "onnx: a nearest Resize by fractional scales and sizes equals ONNX Runtime bit for bit: "
    "every coordinate mode and every nearest_mode, up and down, in QDQ form and on the quantised "
    "tensor",
    "[onnx][resize]") {
  if (!npusim::test::have_onnx_runtime()) {
    WARN("SKIPPED: needs onnxruntime-node (tools/install-deps --onnx)");
    return;
  }
  const std::vector<std::string> coordinates = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                                "asymmetric", "tf_half_pixel_for_nn"};
  const std::vector<std::string> roundings = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                              "ceil"};
  for (const int type : {kU8, kI8}) {
    for (size_t ci = 0; ci < coordinates.size(); ++ci) {
      std::vector<Branch> branches;
      for (const std::string& r : roundings)
        for (const Branch& b : sized("nearest", coordinates[ci], r)) branches.push_back(b);
      const bool qdq = type == kI8;  // uint8 on the quantised tensor, int8 in QDQ form
      const std::string model = fraction_model(
          type, {1, 4, 7, 5}, branches, qdq,
          "resize_fractional_nearest_" + coordinates[ci] + (qdq ? "_qdq" : "") + ".onnx");
      check_against_ort(model, "--levels all,disabled", branches.size());
    }
  }
}
