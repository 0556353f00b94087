// Resize by fractional scales (sim/program/resize_taps.h, docs/graphs.md):
// the taps and nearest indices of ONNX Runtime's kernel worked by hand on a
// tall 5 x 3 map resized to 8 x 4 (rows by 8 / 5 = 1.6, columns by 4 / 3) and
// a 6 x 9 map resized down to 4 x 5 (rows by 2 / 3, columns by 5 / 9), the
// input rows an instruction loads, the model's and the reference's values,
// and the front-ends' keys and errors.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

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

// Sizes give the scale float(out) / float(in).
ResizeAxis sized(uint32_t in, uint32_t out) { return {in, out, float(out) / float(in)}; }

const ResizeAxis kRows58 = sized(5, 8), kCols34 = sized(3, 4);  // up: 1.6 and 1.3333334
const ResizeAxis kRows64 = sized(6, 4), kCols95 = sized(9, 5);  // down: 0.6666667 and 0.5555556

void check_fraction_tap(const LinearTap& t, uint32_t lo, uint32_t hi, float w_lo, float w_hi) {
  test::check_linear_tap(t, lo, hi, w_lo, w_hi, 1e-6f);
}

std::vector<uint32_t> nearest(ResizeCoordinates c, ResizeRounding r, const ResizeAxis& axis) {
  std::vector<uint32_t> picked;
  for (uint32_t o = 0; o < axis.out; ++o) picked.push_back(nearest_tap(c, r, axis, o));
  return picked;
}

// A uint8 5 x 3 map x[r][c] = 10 r + c, scale 1, zero point 0, resized to 8 x 4.
LayerDescriptor map_5x3(ResizeMode mode) {
  return test::uint8_resize(mode, {5, 3}, {8, 4}, {kRows58.scale, kCols34.scale});
}

}  // namespace

TEST_CASE(
    "a linear resize's taps at fractional scales are ONNX Runtime's: a 5x3 map to 8x4, rows at "
    "8 / 5 and columns at 4 / 3, each axis by its own scale",
    "[resize]") {
  CHECK(kRows58.scale == 1.6f);
  // half_pixel rows: (o + 0.5) / 1.6 - 0.5 = -0.1875 (clamped to 0), 0.4375, 1.0625,
  // 1.6875, .., 4.1875 (clamped to 4).
  const ResizeCoordinates hp = ResizeCoordinates::HalfPixel;
  check_fraction_tap(linear_tap(hp, kRows58, 0), 0, 1, 1.0f, 0.0f);
  check_fraction_tap(linear_tap(hp, kRows58, 1), 0, 1, 0.5625f, 0.4375f);
  check_fraction_tap(linear_tap(hp, kRows58, 3), 1, 2, 0.3125f, 0.6875f);
  check_fraction_tap(linear_tap(hp, kRows58, 7), 4, 4, 0.5f, 0.5f);
  // half_pixel columns: (o + 0.5) / 1.3333334 - 0.5 = -0.125, 0.625, 1.375, 2.125 (clamped to 2).
  check_fraction_tap(linear_tap(hp, kCols34, 1), 0, 1, 0.375f, 0.625f);
  check_fraction_tap(linear_tap(hp, kCols34, 2), 1, 2, 0.625f, 0.375f);
  check_fraction_tap(linear_tap(hp, kCols34, 3), 2, 2, 0.5f, 0.5f);
  // pytorch_half_pixel is half_pixel here; asymmetric rows o / 1.6 = 0.625 o: row 3 at 1.875.
  check_fraction_tap(linear_tap(ResizeCoordinates::PytorchHalfPixel, kRows58, 3), 1, 2, 0.3125f,
                     0.6875f);
  check_fraction_tap(linear_tap(ResizeCoordinates::Asymmetric, kRows58, 3), 1, 2, 0.125f, 0.875f);
  check_fraction_tap(linear_tap(ResizeCoordinates::Asymmetric, kRows58, 4), 2, 3, 0.5f,
                     0.5f);  // 2.5
  // align_corners rows: o * 4 / 7: row 3 at 1.714; columns o * 2 / 3: column 1 at 0.667.
  check_fraction_tap(linear_tap(ResizeCoordinates::AlignCorners, kRows58, 3), 1, 2, 2.0f / 7,
                     5.0f / 7);
  check_fraction_tap(linear_tap(ResizeCoordinates::AlignCorners, kCols34, 1), 0, 1, 1.0f / 3,
                     2.0f / 3);
}

TEST_CASE(
    "a linear resize's taps when downsampling are ONNX Runtime's: a 6x9 map to 4x5, rows at "
    "2 / 3 and columns at 5 / 9, skipping input rows and columns",
    "[resize]") {
  const ResizeCoordinates hp = ResizeCoordinates::HalfPixel;
  // Rows: (o + 0.5) * 1.5 - 0.5 = 0.25, 1.75, 3.25, 4.75: input row 2 is never read.
  check_fraction_tap(linear_tap(hp, kRows64, 0), 0, 1, 0.75f, 0.25f);
  check_fraction_tap(linear_tap(hp, kRows64, 1), 1, 2, 0.25f, 0.75f);
  check_fraction_tap(linear_tap(hp, kRows64, 2), 3, 4, 0.75f, 0.25f);
  check_fraction_tap(linear_tap(hp, kRows64, 3), 4, 5, 0.25f, 0.75f);
  // Columns: (o + 0.5) * 1.8 - 0.5 = 0.4, 2.2, 4.0, 5.8, 7.6 (within float32's rounding).
  check_fraction_tap(linear_tap(hp, kCols95, 0), 0, 1, 0.6f, 0.4f);
  check_fraction_tap(linear_tap(hp, kCols95, 1), 2, 3, 0.8f, 0.2f);
  check_fraction_tap(linear_tap(hp, kCols95, 2), 4, 5, 1.0f, 0.0f);
  check_fraction_tap(linear_tap(hp, kCols95, 4), 7, 8, 0.4f, 0.6f);
  // align_corners columns: o * 8 / 4 = 0, 2, 4, 6, 8 exactly; the last at the last column.
  check_fraction_tap(linear_tap(ResizeCoordinates::AlignCorners, kCols95, 3), 6, 7, 1.0f, 0.0f);
  check_fraction_tap(linear_tap(ResizeCoordinates::AlignCorners, kCols95, 4), 8, 8, 0.5f, 0.5f);
  // asymmetric rows: o * 1.5 = 0, 1.5, 3, 4.5.
  check_fraction_tap(linear_tap(ResizeCoordinates::Asymmetric, kRows64, 3), 4, 5, 0.5f, 0.5f);
}

TEST_CASE(
    "a nearest resize picks ONNX Runtime's input index for every nearest_mode at fractional "
    "scales: 5x3 to 8x4 and 6x9 to 4x5, rows and columns apart",
    "[resize]") {
  using C = ResizeCoordinates;
  using R = ResizeRounding;
  using V = std::vector<uint32_t>;
  // half_pixel rows at -0.1875, 0.4375, 1.0625, 1.6875, 2.3125, 2.9375, 3.5625, 4.1875.
  CHECK(nearest(C::HalfPixel, R::RoundPreferFloor, kRows58) == V{0, 0, 1, 2, 2, 3, 4, 4});
  CHECK(nearest(C::HalfPixel, R::Floor, kRows58) == V{0, 0, 1, 1, 2, 2, 3, 4});
  CHECK(nearest(C::HalfPixel, R::Ceil, kRows58) == V{0, 1, 2, 2, 3, 3, 4, 4});
  // asymmetric rows at 0.625 o: 2.5 at row 4 rounds down or up by the mode.
  CHECK(nearest(C::Asymmetric, R::RoundPreferFloor, kRows58) == V{0, 1, 1, 2, 2, 3, 4, 4});
  CHECK(nearest(C::Asymmetric, R::RoundPreferCeil, kRows58) == V{0, 1, 1, 2, 3, 3, 4, 4});
  CHECK(nearest(C::Asymmetric, R::Ceil, kRows58) == V{0, 1, 2, 2, 3, 4, 4, 4});  // 4.375 -> 4
  // Columns at 4 / 3: half_pixel -0.125, 0.625, 1.375, 2.125; asymmetric 0, 0.75, 1.5, 2.25.
  CHECK(nearest(C::HalfPixel, R::RoundPreferFloor, kCols34) == V{0, 1, 1, 2});
  CHECK(nearest(C::HalfPixel, R::Floor, kCols34) == V{0, 0, 1, 2});
  CHECK(nearest(C::Asymmetric, R::RoundPreferFloor, kCols34) == V{0, 1, 1, 2});
  CHECK(nearest(C::Asymmetric, R::RoundPreferCeil, kCols34) == V{0, 1, 2, 2});
  // tf_half_pixel_for_nn: (o + 0.5) / s, no half subtracted.
  CHECK(nearest(C::TfHalfPixelForNn, R::Ceil, kCols34) == V{1, 2, 2, 2});
  // Down: half_pixel rows at 0.25, 1.75, 3.25, 4.75; columns at 0.4, 2.2, 4, 5.8, 7.6.
  CHECK(nearest(C::HalfPixel, R::RoundPreferFloor, kRows64) == V{0, 2, 3, 5});
  CHECK(nearest(C::HalfPixel, R::Floor, kRows64) == V{0, 1, 3, 4});
  CHECK(nearest(C::HalfPixel, R::RoundPreferFloor, kCols95) == V{0, 2, 4, 6, 8});
  CHECK(nearest(C::HalfPixel, R::Floor, kCols95) == V{0, 2, 4, 5, 7});
  CHECK(nearest(C::HalfPixel, R::Ceil, kCols95) == V{1, 3, 4, 6, 8});
  // asymmetric columns at 1.8 o: 0, 1.8, 3.6, 5.4, 7.2; align_corners rows at 0, 5 / 3, 10 / 3, 5.
  CHECK(nearest(C::Asymmetric, R::Floor, kCols95) == V{0, 1, 3, 5, 7});
  CHECK(nearest(C::AlignCorners, R::Floor, kRows64) == V{0, 1, 3, 5});
  CHECK(nearest(C::AlignCorners, R::Ceil, kRows64) == V{0, 2, 4, 5});
  // tf_half_pixel_for_nn columns: 2.5 / 0.5555556 is 4.5 in float32, a tie.
  CHECK(nearest(C::TfHalfPixelForNn, R::RoundPreferFloor, kCols95) == V{1, 3, 4, 6, 8});
  CHECK(nearest(C::TfHalfPixelForNn, R::RoundPreferCeil, kCols95) == V{1, 3, 5, 6, 8});
  // 21 -> 12, asymmetric: row 2 lies at 2 / 0.5714286 = 3.4999998 in float32, one step
  // below 3.5: a tie, as ONNX Runtime 1.30 rounds it.
  CHECK(nearest(C::Asymmetric, R::RoundPreferCeil, sized(21, 12))[2] == 4);
  CHECK(nearest(C::Asymmetric, R::RoundPreferFloor, sized(21, 12))[2] == 3);
  CHECK(nearest(C::Asymmetric, R::RoundPreferCeil, sized(21, 12))[1] == 2);  // 1.7499999
  // An axis of scale 1 keeps its index, whatever the mode (ONNX Runtime skips it).
  CHECK(nearest(C::TfHalfPixelForNn, R::Ceil, ResizeAxis{3, 3, 1.0f}) == V{0, 1, 2});
}

TEST_CASE(
    "an instruction of a fractional resize loads the input rows its output rows read, by the "
    "row scale, not the column scale, up and down",
    "[resize]") {
  LayerDescriptor d = map_5x3(ResizeMode::Linear);
  // Linear half_pixel, rows 3 to 4 at 1.6875 and 2.3125: input rows 1 to 3.
  RowRange r = input_rows_for(d, 3, 5);
  CHECK(r.begin == 1);
  CHECK(r.end == 4);
  // Nearest half_pixel round_prefer_floor: rows 3 to 4 read input row 2 alone.
  d.resize_mode = ResizeMode::Nearest;
  r = input_rows_for(d, 3, 5);
  CHECK(r.begin == 2);
  CHECK(r.end == 3);
  // Down 6 -> 4 rows (the columns 9 -> 5): output rows 1 and 2 at 1.75 and 3.25 read
  // input rows 1 to 4 linearly, rows 2 and 3 nearest.
  d = map_5x3(ResizeMode::Linear);
  d.H = 6, d.W = 9, d.out_h = 4, d.out_w = 5;
  d.resize_scale_h = kRows64.scale, d.resize_scale_w = kCols95.scale;
  r = input_rows_for(d, 1, 3);
  CHECK(r.begin == 1);
  CHECK(r.end == 5);
  d.resize_mode = ResizeMode::Nearest;
  r = input_rows_for(d, 1, 3);
  CHECK(r.begin == 2);
  CHECK(r.end == 4);
}

TEST_CASE(
    "the model's and the reference's resize of a 5x3 map to 8x4 equal the values worked by "
    "hand, nearest and linear, a tie rounding to even",
    "[resize][reference]") {
  namespace q = reference::qops;
  std::vector<int8_t> image;
  q::QTensor x{{1, 1, 5, 3}, {}, q::ElemType::Uint8};
  for (int32_t r = 0; r < 5; ++r)
    for (int32_t c = 0; c < 3; ++c) {
      image.push_back(int8_t(uint8_t(10 * r + c)));
      x.data.push_back(10 * r + c);
    }
  const q::ResizeTo to{8, 4, kRows58.scale, kCols34.scale};
  const q::Quant unit{{1.0f}, {0}};
  // Nearest half_pixel round_prefer_floor: rows 0 0 1 2 2 3 4 4, columns 0 1 1 2.
  const q::QTensor yn = q::resize_nearest(x, to, "half_pixel", "round_prefer_floor");
  // Linear half_pixel at (3, 1): rows 1 and 2 weighted 0.3125 and 0.6875, columns 0 and 1
  // weighted 0.375 and 0.625: 1.171875 + 2.1484375 + 5.15625 + 9.0234375 = 17.5 -> 18.
  const q::QTensor yl = q::resize_linear(x, unit, unit, q::ElemType::Uint8, to, "half_pixel");
  REQUIRE(yl.shape == std::vector<uint32_t>{1, 1, 8, 4});
  CHECK(yn.data[3 * 4 + 1] == 21);
  CHECK(yl.data[3 * 4 + 1] == 18);
  CHECK(yl.data[0] == 0);           // (0, 0): rows (0, 1) by (1, 0), columns (0, 1) by (1, 0)
  CHECK(yl.data[7 * 4 + 3] == 42);  // (7, 3): rows (4, 4), columns (2, 2)
  for (const ResizeMode mode : {ResizeMode::Nearest, ResizeMode::Linear}) {
    const LayerDescriptor d = map_5x3(mode);
    vector_kernels::InputView in;
    in.image = image.data();
    in.C = 1;
    in.pixels = 15;
    in.quant = d.quant.inputs[0];
    const q::QTensor& want = mode == ResizeMode::Linear ? yl : yn;
    for (uint32_t oh = 0; oh < 8; ++oh) {
      int8_t row[4];
      vector_kernels::compute_row(d, &in, oh, 0, 1, nullptr, row);
      for (uint32_t ow = 0; ow < 4; ++ow) {
        INFO(to_string(mode) << " output (" << oh << ", " << ow << ")");
        CHECK(int32_t(uint8_t(row[ow])) == want.data[oh * 4 + ow]);
      }
    }
  }
}

TEST_CASE(
    "graph: a resize takes fractional scales or an output size, nearest with its coordinates "
    "and nearest_mode, and a bad value is named by its pointer",
    "[resize][graph]") {
  json op = {
      {"name", "up"}, {"op", "resize"}, {"inputs", {"x"}}, {"output", "y"}, {"scales", {1.5, 0.6}}};
  NetworkConfig net = parse_workload(test::one_input_graph({1, 4, 7, 5}, op), "g.json");
  const LayerConfig* L = &net.layers[0];
  CHECK(L->out_h() == 10);  // floor(7 * 1.5)
  CHECK(L->out_w() == 3);   // floor(5 * 0.6)
  CHECK(L->resize_scale_h == 1.5f);
  CHECK(L->resize_scale_w == 0.6f);
  CHECK(L->resize_coordinates == ResizeCoordinates::HalfPixel);
  CHECK(L->resize_rounding == ResizeRounding::RoundPreferFloor);
  op.erase("scales");
  op["sizes"] = {10, 8};
  op["coordinates"] = "asymmetric";
  op["nearest_mode"] = "ceil";
  net = parse_workload(test::one_input_graph({1, 4, 7, 5}, op), "g.json");
  L = &net.layers[0];
  CHECK((L->out_h() == 10 && L->out_w() == 8));
  CHECK(L->resize_scale_h == 10.0f / 7.0f);
  CHECK(L->resize_scale_w == 8.0f / 5.0f);
  CHECK(L->resize_coordinates == ResizeCoordinates::Asymmetric);
  CHECK(L->resize_rounding == ResizeRounding::Ceil);
  // Errors: each at its pointer, with what was expected and what was found.
  const auto error = [&](const json& bad) {
    return test::workload_error(test::one_input_graph({1, 4, 7, 5}, bad));
  };
  json bad = op;
  bad["scales"] = 2;  // both
  ConfigError e = error(bad);
  CHECK(e.pointer() == "/operators/0/sizes");
  CHECK_THAT(e.expected(), Catch::Contains("not both"));
  bad.erase("scales");
  bad["sizes"] = {10, 0};
  e = error(bad);
  CHECK(e.pointer() == "/operators/0/sizes/1");
  CHECK_THAT(e.found(), Catch::Contains("0"));
  bad.erase("sizes");
  bad["scales"] = {1.5, -2};
  e = error(bad);
  CHECK(e.pointer() == "/operators/0/scales/1");
  CHECK_THAT(e.expected(), Catch::Contains("positive"));
  bad["scales"] = {0.1, 1};  // 7 rows * 0.1 gives no row
  e = error(bad);
  CHECK(e.pointer() == "/operators/0/scales/0");
  CHECK_THAT(e.found(), Catch::Contains("gives 0"));
  bad["scales"] = {1, 1, 1};
  e = error(bad);
  CHECK(e.pointer() == "/operators/0/scales");
  bad.erase("scales");
  e = error(bad);
  CHECK(e.pointer() == "/operators/0/scales");
  CHECK_THAT(e.found(), Catch::Contains("missing"));
  bad = op;
  bad["nearest_mode"] = "simple";
  CHECK(error(bad).pointer() == "/operators/0/nearest_mode");
  bad = op;
  bad["mode"] = "linear";  // with a nearest_mode
  CHECK(error(bad).pointer() == "/operators/0/nearest_mode");
  bad.erase("nearest_mode");
  bad["coordinates"] = "tf_half_pixel_for_nn";  // nearest only
  CHECK(error(bad).pointer() == "/operators/0/coordinates");
}

TEST_CASE(
    "onnx: a Resize by a fractional scale or size imports its output size, its float32 scale and "
    "its modes, 7 -> 10 rows by sizes and 1.5 by scales",
    "[resize][onnx]") {
  constexpr int kU8 = onnx::TensorProto_DataType_UINT8;
  for (const bool by_sizes : {false, true}) {
    test::OnnxModelBuilder m;
    m.input("x", kU8, {1, 2, 7, 5});
    m.output("y", kU8);
    // A quantised node first (a uint8 graph input states no scale of its own).
    onnx::NodeProto* pool = m.node("MaxPool", {"x"}, {"p"}, "pool");
    test::OnnxModelBuilder::ints_attribute(pool, "kernel_shape", {1, 1});
    std::vector<std::string> in = {"p", ""};
    if (by_sizes) {
      m.int64_values("sizes", {1, 2, 10, 3});
      in.push_back("");
      in.push_back("sizes");
    } else {
      m.float_values("scales", {1, 1, 1.5f, 0.7f});
      in.push_back("scales");
    }
    onnx::NodeProto* r = m.node("Resize", in, {"y"}, "up");
    test::OnnxModelBuilder::text_attribute(r, "mode", "nearest");
    test::OnnxModelBuilder::text_attribute(r, "coordinate_transformation_mode", "align_corners");
    test::OnnxModelBuilder::text_attribute(r, "nearest_mode", "round_prefer_ceil");
    const OnnxModel model = import_onnx(m.save("resize_fractional.onnx"), {});
    REQUIRE(model.network.layers.size() == 2);
    const LayerConfig& L = model.network.layers[1];
    INFO((by_sizes ? "sizes" : "scales"));
    CHECK(L.op == OpKind::Resize);
    CHECK(L.out_h() == 10);  // floor(7 * 1.5) or the size
    CHECK(L.out_w() == 3);   // floor(5 * 0.7) or the size
    CHECK(L.resize_scale_h == (by_sizes ? 10.0f / 7.0f : 1.5f));
    CHECK(L.resize_scale_w == (by_sizes ? 3.0f / 5.0f : 0.7f));
    CHECK(L.resize_coordinates == ResizeCoordinates::AlignCorners);
    CHECK(L.resize_rounding == ResizeRounding::RoundPreferCeil);
  }
}

TEST_CASE(
    "onnx: a Resize whose scales make no size (NaN, infinite, or past any map) is refused at the "
    "node, not converted to a size",
    "[resize][onnx]") {
  // The fuzzer's case (tests/fuzz/corpus/onnx/found-resize-nan-scale.onnx): a NaN scale's
  // output was cast to an integer, undefined behaviour.
  constexpr int kU8 = onnx::TensorProto_DataType_UINT8;
  for (const float bad : {std::nanf(""), INFINITY, 3e38f}) {
    INFO(bad);
    test::OnnxModelBuilder m;
    m.input("x", kU8, {1, 2, 7, 5});
    m.output("y", kU8);
    onnx::NodeProto* pool = m.node("MaxPool", {"x"}, {"p"}, "pool");
    test::OnnxModelBuilder::ints_attribute(pool, "kernel_shape", {1, 1});
    m.float_values("scales", {1, 1, bad, 2});
    m.node("Resize", {"p", "", "scales"}, {"y"}, "up");
    const ConfigError e =
        test::config_error_from([&] { import_onnx(m.save("resize_bad_scale.onnx"), {}); });
    CHECK_THAT(e.what(), Catch::Contains("up"));
    CHECK_THAT(e.what(), Catch::Contains("output -1"));
  }
}
