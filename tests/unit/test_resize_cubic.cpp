// Cubic (bicubic) resize (sim/program/resize_taps.h, docs/graphs.md): ONNX Runtime's taps and
// Keys coefficients worked by hand on a row of 4 resized to 6, the model's and the reference's
// values on it, the input rows an instruction loads, the cost line, and the front-ends' keys and
// errors.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <limits>
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

// The hand-worked axis: 4 inputs to 6 outputs (scale 6 / 4 = 1.5), half_pixel: output o lies
// at (o + 0.5) / 1.5 - 0.5. o = 1 at 1.5 / 1.5 - 0.5 = 0.5 and o = 4 at 4.5 / 1.5 - 0.5 = 2.5,
// both exact in float32, t = p - floor(p) = 0.5. Keys' kernel at a = -0.75:
//   outer, distance 1 + t = 1.5: ((a * 1.5 - 5a) * 1.5 + 8a) * 1.5 - 4a
//     = ((-1.125 + 3.75) * 1.5 - 6) * 1.5 + 3 = (3.9375 - 6) * 1.5 + 3 = -0.09375
//   inner, distance t = 0.5: ((a + 2) * 0.5 - (a + 3)) * 0.5 * 0.5 + 1
//     = (0.625 - 2.25) * 0.25 + 1 = 0.59375
//   and the same at 1 - t = 0.5 and 2 - t = 1.5: weights -0.09375, 0.59375, 0.59375, -0.09375.
// At a = -0.5: outer ((-0.75 + 2.5) * 1.5 - 4) * 1.5 + 2 = -0.0625, inner (0.75 - 2.5) * 0.25 + 1
// = 0.5625.
// o = 1 reads indices floor(0.5) - 1 .. + 2 = -1, 0, 1, 2: -1 is clamped to 0 (or, with
// exclude_outside, weighs 0 and the rest divide by 0.59375 + 0.59375 - 0.09375 = 1.09375).
// o = 4 reads 1, 2, 3, 4: 4 is clamped to 3 (or weighs 0, the same divisor).
const ResizeAxis kFourToSix{4, 6, 1.5f};

// The row [10, 20, 40, 80] (uint8, scale 1, zero point 0) at an output scale of 0.25:
//   a = -0.75, o = 1: -0.09375 * 10 + 0.59375 * 10 + 0.59375 * 20 - 0.09375 * 40 = 13.125 -> 52.5
//     -> 52 (ties to even); o = 4: -0.09375 * 20 + 0.59375 * 40 + 0.59375 * 80 - 0.09375 * 80
//     = 61.875 -> 247.5 -> 248.
//   exclude_outside, o = 1: (0.59375 * 10 + 0.59375 * 20 - 0.09375 * 40) / 1.09375
//     = 14.0625 / 1.09375 = 12.857 -> 51.43 -> 51; o = 4: (-0.09375 * 20 + 0.59375 * 40
//     + 0.59375 * 80) / 1.09375 = 69.375 / 1.09375 = 63.43 -> 253.7 -> 254.
//   a = -0.5, o = 1: -0.0625 * 10 + 0.5625 * 10 + 0.5625 * 20 - 0.0625 * 40 = 13.75 -> 55.
const std::vector<int32_t> kRow = {10, 20, 40, 80};
struct HandCase {
  float a;
  bool exclude;
  int32_t at1, at4;
};
const HandCase kHandCases[] = {{-0.75f, false, 52, 248}, {-0.75f, true, 51, 254}};

LayerDescriptor row_resize(float a, bool exclude) {
  LayerDescriptor d = test::uint8_resize(ResizeMode::Cubic, {1, 4}, {1, 6}, {1.0f, 1.5f}, 0.25f);
  d.resize_cubic_a = a, d.resize_exclude_outside = exclude;
  return d;
}

// The model's six outputs of kRow.
std::vector<int32_t> model_row(const LayerDescriptor& d) {
  std::vector<int8_t> image;
  for (int32_t v : kRow) image.push_back(int8_t(uint8_t(v)));
  vector_kernels::InputView x;
  x.image = image.data();
  x.C = 1;
  x.pixels = 4;
  x.quant = d.quant.inputs[0];
  int8_t row[6];
  vector_kernels::compute_row(d, &x, 0, 0, 1, nullptr, row);
  std::vector<int32_t> out;
  for (int8_t v : row) out.push_back(int32_t(uint8_t(v)));
  return out;
}

std::vector<int32_t> reference_row(float a, bool exclude) {
  namespace q = reference::qops;
  const q::QTensor x{{1, 1, 1, 4}, kRow, q::ElemType::Uint8};
  return q::resize_cubic(x, {{1.0f}, {0}}, {{0.25f}, {0}}, q::ElemType::Uint8, {1, 6, 1.0f, 1.5f},
                         "half_pixel", q::Cubic{a, exclude})
      .data;
}

void check_tap(const CubicTap& t, std::vector<uint32_t> index, std::vector<float> w, float sum) {
  INFO("indices " << t.index[0] << " " << t.index[1] << " " << t.index[2] << " " << t.index[3]
                  << " weights " << t.w[0] << " " << t.w[1] << " " << t.w[2] << " " << t.w[3]
                  << " sum " << t.sum);
  CHECK(std::vector<uint32_t>(t.index, t.index + 4) == index);
  CHECK(std::vector<float>(t.w, t.w + 4) == w);
  CHECK(t.sum == sum);
}

}  // namespace

TEST_CASE(
    "a cubic resize's taps are ONNX Runtime's, worked by hand on 4 -> 6 half_pixel (Keys' "
    "weights at cubic_coeff_a, indices clamped, exclude_outside zeroing and renormalising)",
    "[resize]") {
  const auto hp = ResizeCoordinates::HalfPixel;
  check_tap(cubic_tap(hp, kFourToSix, -0.75f, false, 1), {0, 0, 1, 2},
            {-0.09375f, 0.59375f, 0.59375f, -0.09375f}, 1.0f);
  check_tap(cubic_tap(hp, kFourToSix, -0.75f, false, 4), {1, 2, 3, 3},
            {-0.09375f, 0.59375f, 0.59375f, -0.09375f}, 1.0f);
  check_tap(cubic_tap(hp, kFourToSix, -0.5f, false, 1), {0, 0, 1, 2},
            {-0.0625f, 0.5625f, 0.5625f, -0.0625f}, 1.0f);
  check_tap(cubic_tap(hp, kFourToSix, -0.75f, true, 1), {0, 0, 1, 2},
            {0.0f, 0.59375f, 0.59375f, -0.09375f}, 1.09375f);
  check_tap(cubic_tap(hp, kFourToSix, -0.75f, true, 4), {1, 2, 3, 3},
            {-0.09375f, 0.59375f, 0.59375f, 0.0f}, 1.09375f);
  // An axis of scale 1 keeps its index: t = 0, weights 0, 1, 0, 0 (outer at 1 and 2 is 0).
  check_tap(cubic_tap(hp, {3, 3, 1.0f}, -0.75f, false, 2), {1, 2, 2, 2}, {0.0f, 1.0f, 0.0f, 0.0f},
            1.0f);
}

TEST_CASE(
    "the model's and the reference's cubic resize of a row of 4 to 6 give the hand-worked "
    "values, at cubic_coeff_a -0.75 and -0.5, with and without exclude_outside, and agree on "
    "every output",
    "[resize][reference]") {
  for (const HandCase& c : kHandCases) {
    INFO("a " << c.a << " exclude_outside " << c.exclude);
    const std::vector<int32_t> model = model_row(row_resize(c.a, c.exclude));
    const std::vector<int32_t> reference = reference_row(c.a, c.exclude);
    CHECK(model[1] == c.at1);
    CHECK(model[4] == c.at4);
    CHECK(model == reference);
  }
  const std::vector<int32_t> half = model_row(row_resize(-0.5f, false));
  CHECK(half[1] == 55);
  CHECK(half == reference_row(-0.5f, false));
}

TEST_CASE(
    "a cubic resize with exclude_outside divides a row's result times its weight by the sum, as "
    "ONNX Runtime does: a pixel on a quantisation tie rounds to ONNX Runtime's value",
    "[resize][reference]") {
  // A 4 x 4 uint8 map (scale 0.05, zero point 128) to 6 x 6 by sizes, half_pixel, a = -0.75,
  // exclude_outside 1, output scale 0.021859655. Pixel (0, 0) is 2.218755 in float32, exactly
  // 101.5 steps: a tie, to even 102. Dividing the weight first (h * (w / sum)) gives 2.2187548,
  // 101.49999, which rounds to 101. ONNX Runtime 1.30's output (both optimisation levels):
  const std::vector<int32_t> ort = {102, 193, 120, 0,  0, 255, 9,   86, 98, 0, 0, 48,
                                    25,  0,   0,   78, 0, 0,   255, 13, 0,  0, 0, 0,
                                    211, 18,  0,   0,  0, 0,   22,  10, 0,  0, 0, 0};
  const std::vector<int32_t> map = {171, 206, 5,  206, 120, 131, 161, 73,
                                    250, 13,  71, 98,  146, 104, 33,  11};
  LayerDescriptor d =
      test::uint8_resize(ResizeMode::Cubic, {4, 4}, {6, 6}, {1.5f, 1.5f}, 0.021859655f);
  d.quant.inputs[0] = TensorQuant{QuantType::Uint8, 0.05f, 128};
  d.resize_exclude_outside = true;
  std::vector<int8_t> image;
  for (int32_t v : map) image.push_back(int8_t(uint8_t(v)));
  vector_kernels::InputView x;
  x.image = image.data();
  x.C = 1;
  x.pixels = 16;
  x.quant = d.quant.inputs[0];
  std::vector<int32_t> model;
  for (uint32_t oh = 0; oh < 6; ++oh) {
    int8_t row[6];
    vector_kernels::compute_row(d, &x, oh, 0, 1, nullptr, row);
    for (int8_t v : row) model.push_back(int32_t(uint8_t(v)));
  }
  CHECK(model == ort);
  namespace q = reference::qops;
  CHECK(q::resize_cubic({{1, 1, 4, 4}, map, q::ElemType::Uint8}, {{0.05f}, {128}},
                        {{0.021859655f}, {0}}, q::ElemType::Uint8, {6, 6, 1.5f, 1.5f}, "half_pixel",
                        q::Cubic{-0.75f, true})
            .data == ort);
}

TEST_CASE(
    "a cubic resize that keeps the map's size copies it as ONNX Runtime does, where Keys' weights "
    "at t = 0 are not exactly 0, 1, 0, 0",
    "[resize][reference]") {
  // A 1 x 2 uint8 row [3, 255] (scale 1, zero point 0), scales 1.2 x 1.3 (still 1 x 2: both
  // scales taken as 1), cubic_coeff_a 2.9997, output scale 2. At t = 0 the fourth weight,
  // ((a * 2 - 5a) * 2 + 8a) * 2 - 4a, rounds to -1.9073486e-06 in float32, so interpolating
  // would give 3 - 0.00049 -> 1.49976 steps -> 1; ONNX Runtime 1.30 copies the map: 3 / 2 = 1.5
  // -> 2 (ties to even), 255 / 2 = 127.5 -> 128 (measured, both optimisation levels).
  const std::vector<int32_t> ort = {2, 128};
  LayerDescriptor d = test::uint8_resize(ResizeMode::Cubic, {1, 2}, {1, 2}, {1.0f, 1.0f}, 2.0f);
  d.resize_cubic_a = 2.9997f;
  CHECK(cubic_tap(ResizeCoordinates::HalfPixel, {2, 2, 1.0f}, 2.9997f, false, 0).w[3] != 0.0f);
  const std::vector<int8_t> image = {3, int8_t(uint8_t(255))};
  vector_kernels::InputView x;
  x.image = image.data();
  x.C = 1;
  x.pixels = 2;
  x.quant = d.quant.inputs[0];
  int8_t row[2];
  vector_kernels::compute_row(d, &x, 0, 0, 1, nullptr, row);
  CHECK(std::vector<int32_t>{uint8_t(row[0]), uint8_t(row[1])} == ort);
  namespace q = reference::qops;
  CHECK(q::resize_cubic({{1, 1, 1, 2}, {3, 255}, q::ElemType::Uint8}, {{1.0f}, {0}}, {{2.0f}, {0}},
                        q::ElemType::Uint8, {1, 2, 1.0f, 1.0f}, "half_pixel",
                        q::Cubic{2.9997f, false})
            .data == ort);
}

TEST_CASE(
    "an instruction of a cubic resize loads the input rows from its first output row's first "
    "tap to its last output row's last tap, clamped to the map",
    "[resize]") {
  // A 6 x 3 map upsampled 2 rows x 3 columns, half_pixel: output row o lies at (o + 0.5) / 2 - 0.5.
  LayerDescriptor d = test::uint8_resize(ResizeMode::Cubic, {6, 3}, {12, 9}, {2, 3});
  // Rows 4 to 5 lie at 1.75 and 2.25: taps 0..3 and 1..4, so input rows 0 to 4.
  RowRange r = input_rows_for(d, 4, 6);
  CHECK(r.begin == 0);
  CHECK(r.end == 5);
  // Row 0 at -0.25: taps -2..1, clamped to 0..1.
  r = input_rows_for(d, 0, 1);
  CHECK(r.begin == 0);
  CHECK(r.end == 2);
  // Row 11 at 5.25: taps 4..7, clamped to 4..5.
  r = input_rows_for(d, 11, 12);
  CHECK(r.begin == 4);
  CHECK(r.end == 6);
}

TEST_CASE("a cubic resize costs sixteen element operations per output value (4 rows x 4 columns)",
          "[resize][cost]") {
  LayerDescriptor d = test::uint8_resize(ResizeMode::Cubic, {2, 2}, {4, 4}, {2, 2});
  d.C = d.K = 16, d.out_w = 30;
  // 16 taps x 30 output columns x 8 channels = 3840.
  CHECK(cost::vector_row_element_ops(d, 8) == 3840);
  CHECK(cost::vector_row_special_ops(d) == 0);
}

TEST_CASE(
    "graph: a cubic resize parses cubic_coeff_a and exclude_outside (-0.75 and 0 by default), "
    "and refuses them on a linear resize and a bad value by its pointer",
    "[resize][graph]") {
  json op = {{"name", "up"},          {"op", "resize"},      {"inputs", {"x"}},
             {"output", "y"},         {"scales", {1.5, 2}},  {"mode", "cubic"},
             {"cubic_coeff_a", -0.5}, {"exclude_outside", 1}};
  const NetworkConfig net = parse_workload(test::one_input_graph({1, 4, 5, 3}, op), "g.json");
  REQUIRE(net.layers.size() == 1);
  const LayerConfig& L = net.layers[0];
  CHECK(L.resize_mode == ResizeMode::Cubic);
  CHECK(L.resize_cubic_a == -0.5f);
  CHECK(L.resize_exclude_outside);
  CHECK(L.out_h() == 7);
  CHECK(L.out_w() == 6);
  json plain = op;
  plain.erase("cubic_coeff_a"), plain.erase("exclude_outside");
  const LayerConfig D =
      parse_workload(test::one_input_graph({1, 4, 5, 3}, plain), "g.json").layers[0];
  CHECK(D.resize_cubic_a == -0.75f);
  CHECK(!D.resize_exclude_outside);
  op["exclude_outside"] = 2;
  CHECK(test::workload_error(test::one_input_graph({1, 4, 5, 3}, op)).pointer() ==
        "/operators/0/exclude_outside");
  op["exclude_outside"] = 0;
  op["mode"] = "linear";
  CHECK(test::workload_error(test::one_input_graph({1, 4, 5, 3}, op)).pointer() ==
        "/operators/0/cubic_coeff_a");
}

TEST_CASE(
    "onnx: a cubic Resize in QDQ form imports with its cubic_coeff_a and exclude_outside, and "
    "outside QDQ form, antialiased, with tf_crop_and_resize or tf_half_pixel_for_nn it is "
    "refused at its node",
    "[resize][onnx]") {
  using Builder = test::OnnxModelBuilder;
  constexpr int kU8 = onnx::TensorProto_DataType_UINT8;
  struct Case {
    bool qdq;
    std::string coordinates;
    bool antialias;
    std::string found;  // empty: imports
  };
  const Case cases[] = {{true, "pytorch_half_pixel", false, ""},
                        {false, "half_pixel", false, "cubic Resize of a quantised tensor"},
                        {true, "tf_crop_and_resize", false, "tf_crop_and_resize"},
                        {true, "tf_half_pixel_for_nn", false, "tf_half_pixel_for_nn"},
                        {true, "half_pixel", true, "antialias"}};
  for (const Case& c : cases) {
    INFO(c.coordinates << (c.qdq ? " qdq" : "") << (c.antialias ? " antialias" : ""));
    Builder m(c.antialias ? 18 : 13);
    m.input("x", kU8, {1, 2, 3, 4});
    m.output("y", kU8);
    m.scalar_float("s", 0.05f);
    m.ints("z", kU8, {}, {128});
    m.float_values("scales", {1, 1, 2, 1.5f});
    if (c.qdq) m.node("DequantizeLinear", {"x", "s", "z"}, {"xd"}, "dq");
    onnx::NodeProto* r =
        m.node("Resize", {c.qdq ? "xd" : "x", "", "scales"}, {c.qdq ? "yf" : "y"}, "up");
    Builder::text_attribute(r, "mode", "cubic");
    Builder::text_attribute(r, "coordinate_transformation_mode", c.coordinates);
    auto* a = r->add_attribute();
    a->set_name("cubic_coeff_a");
    a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    a->set_f(-0.5f);
    // antialias is opset 18's (this build's ONNX checker refuses it first: the node is named).
    for (const auto& [name, value] :
         {std::pair<const char*, int>{"exclude_outside", 1}, {"antialias", 1}}) {
      if (std::string(name) == "antialias" && !c.antialias) continue;
      auto* i = r->add_attribute();
      i->set_name(name);
      i->set_type(onnx::AttributeProto_AttributeType_INT);
      i->set_i(value);
    }
    if (c.qdq) m.node("QuantizeLinear", {"yf", "s", "z"}, {"y"}, "q");
    const std::string file = m.save("resize_cubic_node.onnx");
    if (c.found.empty()) {
      const OnnxModel ok = import_onnx(file, {});
      REQUIRE(ok.network.layers.size() == 1);
      const LayerConfig& L = ok.network.layers[0];
      CHECK(L.resize_mode == ResizeMode::Cubic);
      CHECK(L.resize_coordinates == ResizeCoordinates::PytorchHalfPixel);
      CHECK(L.resize_cubic_a == -0.5f);
      CHECK(L.resize_exclude_outside);
      CHECK(L.out_h() == 6);
      CHECK(L.out_w() == 6);
      continue;
    }
    const ConfigError e = test::config_error_from([&] { import_onnx(file, {}); });
    CHECK_THAT(e.pointer(), Catch::StartsWith("node 'up' ("));  // QLinearResize in QDQ form
    CHECK_THAT(e.found(), Catch::Contains(c.found));
  }
}

TEST_CASE(
    "onnx: a cubic Resize in QDQ form is refused at its node at opset 10 (whose Resize has no "
    "cubic mode) and with a cubic_coeff_a that is not finite",
    "[resize][onnx]") {
  using Builder = test::OnnxModelBuilder;
  constexpr int kU8 = onnx::TensorProto_DataType_UINT8;
  struct Case {
    int64_t opset;
    float a;
    std::string expected, found;
  };
  const Case cases[] = {
      {10, -0.75f, "opset 11 or later", "opset 10"},
      {13, std::numeric_limits<float>::infinity(), "a finite cubic_coeff_a", "cubic_coeff_a inf"},
      {13, std::numeric_limits<float>::quiet_NaN(), "a finite cubic_coeff_a", "cubic_coeff_a nan"}};
  for (const Case& c : cases) {
    INFO("opset " << c.opset << ", cubic_coeff_a " << c.a);
    Builder m(c.opset);
    m.input("x", kU8, {1, 2, 3, 4});
    m.output("y", kU8);
    m.scalar_float("s", 0.05f);
    m.ints("z", kU8, {}, {128});
    m.float_values("scales", {1, 1, 2, 1.5f});
    m.node("DequantizeLinear", {"x", "s", "z"}, {"xd"}, "dq");
    // Opset 10's Resize reads (X, scales); 11 on (X, roi, scales).
    const std::vector<std::string> inputs = c.opset == 10
                                                ? std::vector<std::string>{"xd", "scales"}
                                                : std::vector<std::string>{"xd", "", "scales"};
    onnx::NodeProto* r = m.node("Resize", inputs, {"yf"}, "up");
    Builder::text_attribute(r, "mode", "cubic");
    if (c.opset > 10) {
      auto* a = r->add_attribute();
      a->set_name("cubic_coeff_a");
      a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
      a->set_f(c.a);
    }
    m.node("QuantizeLinear", {"yf", "s", "z"}, {"y"}, "q");
    const ConfigError e =
        test::config_error_from([&] { import_onnx(m.save("resize_cubic_refused.onnx"), {}); });
    CHECK_THAT(e.pointer(), Catch::StartsWith("node 'up' ("));
    CHECK_THAT(e.expected(), Catch::Contains(c.expected));
    CHECK_THAT(e.found(), Catch::Contains(c.found));
  }
}
