// Linear (bilinear) resize (sim/program/resize_taps.h, docs/graphs.md): the
// taps and weights of ONNX Runtime's kernel worked by hand, the input rows an
// instruction loads, the model's and the reference's values on a hand-worked
// 2x2 map, the cost line, and the front-ends' errors.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/cost/vector_cost.h"
#include "models/vector/vector_kernels.h"
#include "sim/config/config_error.h"
#include "sim/frontend/load_workload.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "sim/program/program.h"
#include "sim/program/resize_taps.h"
#include "sim/reference/qops.h"
#include "tests/support/onnx_model_builder.h"
#include "tests/support/resize_checks.h"
#include "tests/support/test_support.h"

using namespace npusim;
using nlohmann::json;

namespace {

// An axis of `in` inputs upsampled by the whole factor `f`.
ResizeAxis by(uint32_t in, uint32_t f) { return {in, in * f, float(f)}; }

// The hand-worked map: [[0, 100], [200, 40]] upsampled 2 x 2, half_pixel.
// Along each axis the positions are -0.25 (clamped to 0), 0.25, 0.75 and
// 1.25 (clamped to 1): taps (0, 1) weighted 1, 0; 0.75, 0.25; 0.25, 0.75;
// and (1, 1) at 0.5 each. So, e.g., y[1][1] = 0.5625 * 0 + 0.1875 * 100 +
// 0.1875 * 200 + 0.0625 * 40 = 58.75, which rounds to 59.
const std::vector<int32_t> kHandMap = {0, 100, 200, 40};
const std::vector<int32_t> kHandUpsampled = {0,   25,  75, 100, 50,  59,  76, 85,
                                             150, 126, 79, 55,  200, 160, 80, 40};
// The same at an output scale of 2: 12.5 -> 12, 37.5 -> 38, 42.5 -> 42,
// 27.5 -> 28 (ties to even), 29.375 -> 29.
const std::vector<int32_t> kHandHalved = {0,  12, 38, 50, 25,  29, 38, 42,
                                          75, 63, 39, 28, 100, 80, 40, 20};

}  // namespace

TEST_CASE(
    "a linear resize's taps are ONNX Runtime's: half_pixel, align_corners and asymmetric "
    "positions, clamped at both ends, each neighbour weighted by the distance to the other",
    "[resize]") {
  // half_pixel, 5 inputs by 2: (o + 0.5) / 2 - 0.5.
  test::check_linear_tap(linear_tap(ResizeCoordinates::HalfPixel, by(5, 2), 0), 0, 1, 1.0f,
                         0.0f);  // -0.25
  test::check_linear_tap(linear_tap(ResizeCoordinates::HalfPixel, by(5, 2), 3), 1, 2, 0.75f,
                         0.25f);  // 1.25
  test::check_linear_tap(linear_tap(ResizeCoordinates::HalfPixel, by(5, 2), 9), 4, 4, 0.5f,
                         0.5f);  // 4.25 -> 4
  // half_pixel by 4: o = 6 lies at 1.125.
  test::check_linear_tap(linear_tap(ResizeCoordinates::HalfPixel, by(3, 4), 6), 1, 2, 0.875f,
                         0.125f);
  // align_corners, 5 inputs by 2 (10 outputs): o * 4 / 9; o = 3 at 1.333..
  const LinearTap a = linear_tap(ResizeCoordinates::AlignCorners, by(5, 2), 3);
  CHECK(a.lo == 1);
  CHECK(a.hi == 2);
  CHECK(a.w_lo == std::fabs(12.0f / 9.0f - 2.0f));
  CHECK(a.w_hi == std::fabs(12.0f / 9.0f - 1.0f));
  test::check_linear_tap(linear_tap(ResizeCoordinates::AlignCorners, by(5, 2), 9), 4, 4, 0.5f,
                         0.5f);  // 4
  // asymmetric, by 4: o / 4; o = 5 at 1.25, o = 11 at 2.75 of 3 inputs (2 is the last).
  test::check_linear_tap(linear_tap(ResizeCoordinates::Asymmetric, by(3, 4), 5), 1, 2, 0.75f,
                         0.25f);
  test::check_linear_tap(linear_tap(ResizeCoordinates::Asymmetric, by(3, 4), 11), 2, 2, 0.5f, 0.5f);
}

TEST_CASE(
    "an instruction of a linear resize loads the input rows its output rows' taps read, by the "
    "row factor, not the column factor",
    "[resize]") {
  // A tall 5 x 3 map upsampled 2 rows x 3 columns, half_pixel.
  LayerDescriptor d = test::uint8_resize(ResizeMode::Linear, {2, 2}, {4, 4}, {2, 2});
  d.H = 5, d.W = 3, d.resize_scale_h = 2, d.resize_scale_w = 3, d.out_h = 10, d.out_w = 9;
  // Output rows 2 and 3 lie at 0.75 and 1.25: input rows 0 to 2.
  RowRange r = input_rows_for(d, 2, 4);
  CHECK(r.begin == 0);
  CHECK(r.end == 3);
  // Row 9 at 4.25, clamped to the last row: input row 4 alone.
  r = input_rows_for(d, 9, 10);
  CHECK(r.begin == 4);
  CHECK(r.end == 5);
  // Rows 4 to 6 (1.75 .. 2.75): input rows 1 to 3. By the column factor 3
  // they would be rows 1 to 2 (1.0 .. 1.666).
  r = input_rows_for(d, 4, 7);
  CHECK(r.begin == 1);
  CHECK(r.end == 4);
  // align_corners: rows 3 to 5 of 10 lie at 1.333 .. 2.222: input rows 1 to 3.
  d.resize_coordinates = ResizeCoordinates::AlignCorners;
  r = input_rows_for(d, 3, 6);
  CHECK(r.begin == 1);
  CHECK(r.end == 4);
  // Nearest stays y / f.
  d.resize_mode = ResizeMode::Nearest;
  r = input_rows_for(d, 3, 6);
  CHECK(r.begin == 1);
  CHECK(r.end == 3);
}

TEST_CASE(
    "the model's linear resize equals a 2x2 map upsampled by hand, ties to even at an output "
    "scale of 2",
    "[resize]") {
  for (const float y_scale : {1.0f, 2.0f}) {
    const LayerDescriptor d =
        test::uint8_resize(ResizeMode::Linear, {2, 2}, {4, 4}, {2, 2}, y_scale);
    std::vector<int8_t> image;
    for (int32_t v : kHandMap) image.push_back(int8_t(uint8_t(v)));
    vector_kernels::InputView x;
    x.image = image.data();
    x.C = 1;
    x.pixels = 4;
    x.quant = d.quant.inputs[0];
    const std::vector<int32_t>& want = y_scale == 1.0f ? kHandUpsampled : kHandHalved;
    for (uint32_t oh = 0; oh < 4; ++oh) {
      int8_t row[4];
      vector_kernels::compute_row(d, &x, oh, 0, 1, nullptr, row);
      for (uint32_t ow = 0; ow < 4; ++ow) {
        INFO("scale " << y_scale << " output (" << oh << ", " << ow << ")");
        CHECK(int32_t(uint8_t(row[ow])) == want[oh * 4 + ow]);
      }
    }
  }
}

TEST_CASE(
    "the reference's linear resize equals a 2x2 map upsampled by hand, with a zero point and "
    "at an output scale of 2",
    "[resize][reference]") {
  namespace q = reference::qops;
  const q::QTensor x{{1, 1, 2, 2}, kHandMap, q::ElemType::Uint8};
  const q::Quant unit{{1.0f}, {0}};
  const q::ResizeTo kBy2{4, 4, 2.0f, 2.0f};
  CHECK(q::resize_linear(x, unit, unit, q::ElemType::Uint8, kBy2, "half_pixel").data ==
        kHandUpsampled);
  CHECK(q::resize_linear(x, unit, {{2.0f}, {0}}, q::ElemType::Uint8, kBy2, "pytorch_half_pixel")
            .data == kHandHalved);
  // A zero point of 10 on both sides: every value 10 higher, saturating at 255.
  q::QTensor shifted = x;
  for (int32_t& v : shifted.data) v += 10;
  const q::Quant zp{{1.0f}, {10}};
  std::vector<int32_t> want = kHandUpsampled;
  for (int32_t& v : want) v += 10;
  CHECK(q::resize_linear(shifted, zp, zp, q::ElemType::Uint8, kBy2, "half_pixel").data == want);
  CHECK_THROWS_WITH(q::resize_linear(x, unit, unit, q::ElemType::Uint8, kBy2, "tf_crop_and_resize"),
                    Catch::Contains("tf_crop_and_resize"));
}

TEST_CASE("a linear resize costs four element operations per output value, a nearest one one",
          "[resize][cost]") {
  LayerDescriptor d = test::uint8_resize(ResizeMode::Linear, {2, 2}, {4, 4}, {2, 2});
  d.C = d.K = 16, d.out_w = 30;
  CHECK(cost::vector_row_element_ops(d, 8) == 4 * 30 * 8);
  d.resize_mode = ResizeMode::Nearest;
  CHECK(cost::vector_row_element_ops(d, 8) == 30 * 8);
  CHECK(cost::vector_row_special_ops(d) == 0);
}

TEST_CASE(
    "graph: a linear resize parses its coordinates and output quantisation, and a bad mode or "
    "coordinates is named by its pointer",
    "[resize][graph]") {
  json op = {{"name", "up"},
             {"op", "resize"},
             {"inputs", {"x"}},
             {"output", "y"},
             {"scales", {2, 3}},
             {"mode", "linear"},
             {"coordinates", "align_corners"},
             {"out", {{"dtype", "uint8"}, {"scale", 0.03}, {"zero_point", 100}}}};
  const NetworkConfig net = parse_workload(test::one_input_graph({1, 4, 5, 3}, op), "g.json");
  REQUIRE(net.layers.size() == 1);
  const LayerConfig& L = net.layers[0];
  CHECK(L.resize_mode == ResizeMode::Linear);
  CHECK(L.resize_coordinates == ResizeCoordinates::AlignCorners);
  CHECK(L.out_h() == 10);
  CHECK(L.out_w() == 9);
  CHECK(L.quant.output.scale == 0.03f);
  CHECK(L.quant.output.zero_point == 100);
  op.erase("out");  // the input's quantisation
  CHECK(parse_workload(test::one_input_graph({1, 4, 5, 3}, op), "g.json")
            .layers[0]
            .quant.output.zero_point == 128);
  op["coordinates"] = "tf_crop_and_resize";
  ConfigError e = test::workload_error(test::one_input_graph({1, 4, 5, 3}, op));
  CHECK(e.pointer() == "/operators/0/coordinates");
  op["coordinates"] = "half_pixel";
  op["mode"] = "bicubic";
  e = test::workload_error(test::one_input_graph({1, 4, 5, 3}, op));
  CHECK(e.pointer() == "/operators/0/mode");
}

TEST_CASE(
    "onnx: a linear Resize outside DequantizeLinear and QuantizeLinear, or with "
    "tf_crop_and_resize, is refused at its node",
    "[resize][onnx]") {
  using Builder = test::OnnxModelBuilder;
  constexpr int kU8 = onnx::TensorProto_DataType_UINT8;
  const auto model = [&](bool qdq, const std::string& coordinates) {
    Builder m;
    m.input("x", kU8, {1, 2, 3, 4});
    m.output("y", kU8);
    m.scalar_float("s", 0.05f);
    m.ints("z", kU8, {}, {128});
    m.float_values("scales", {1, 1, 2, 2});
    const std::string in = qdq ? "xd" : "x";
    if (qdq) m.node("DequantizeLinear", {"x", "s", "z"}, {"xd"}, "dq");
    onnx::NodeProto* r = m.node("Resize", {in, "", "scales"}, {qdq ? "yf" : "y"}, "up");
    for (const auto& [name, value] : {std::pair<std::string, std::string>{"mode", "linear"},
                                      {"coordinate_transformation_mode", coordinates}}) {
      auto* a = r->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto_AttributeType_STRING);
      a->set_s(value);
    }
    if (qdq) m.node("QuantizeLinear", {"yf", "s", "z"}, {"y"}, "q");
    return m.save("resize_linear_bad.onnx");
  };
  ConfigError e = test::config_error_from([&] { import_onnx(model(false, "half_pixel"), {}); });
  CHECK(e.pointer() == "node 'up' (Resize)");
  CHECK_THAT(e.expected(), Catch::Contains("between DequantizeLinear and QuantizeLinear"));
  e = test::config_error_from([&] { import_onnx(model(true, "tf_crop_and_resize"), {}); });
  CHECK_THAT(e.pointer(), Catch::Contains("'up'"));
  CHECK_THAT(e.found(), Catch::Contains("tf_crop_and_resize"));
  // The same model in QDQ form with half_pixel imports as one linear resize.
  const OnnxModel ok = import_onnx(model(true, "half_pixel"), {});
  REQUIRE(ok.network.layers.size() == 1);
  CHECK(ok.network.layers[0].resize_mode == ResizeMode::Linear);
  CHECK(ok.network.layers[0].resize_coordinates == ResizeCoordinates::HalfPixel);
}
