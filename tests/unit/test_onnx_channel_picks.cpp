// Channel picks in the ONNX front-end (docs/onnx.md#channel-picks): Slice and
// Split of a quantised map's channels and ShuffleNet's channel shuffle become
// gather operators naming, in order, the input channel of each output channel;
// a pick on any other axis, or another use of the shuffle's 5-D view, is refused
// at its node. A nearest Resize becomes a resize operator.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

using ModelBuilder = test::OnnxModelBuilder;
constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();  // torch.onnx's open end

// x uint8 [1, 6, 2, 5] -> MaxPool 1x1 (settles scale 1, zero point 0) -> "m":
// six channels on a wide map, so a pick of rows or columns shows.
ModelBuilder map_model(int64_t opset = 13) {
  ModelBuilder m(opset);
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, 6, 2, 5});
  auto* pool = m.node("MaxPool", {"x"}, {"m"}, "pool");
  ModelBuilder::ints_attribute(pool, "kernel_shape", {1, 1});
  return m;
}

const LayerConfig& layer_named(const OnnxModel& model, const std::string& name) {
  for (const LayerConfig& L : model.network.layers)
    if (L.name == name) return L;
  FAIL("no layer " << name);
  return model.network.layers.front();
}

using Channels = std::vector<uint32_t>;

}  // namespace

TEST_CASE("onnx: a Slice of channels is a gather of the channels ONNX's start, end and step pick",
          "[onnx]") {
  ModelBuilder m = map_model();
  m.int64_values("axes", {1});
  Channels want;
  SECTION("every second channel from 1 to the open end") {
    m.int64_values("starts", {1});
    m.int64_values("ends", {kEnd});
    m.int64_values("steps", {2});
    want = {1, 3, 5};
  }
  SECTION("backwards from the last channel, past the first") {
    m.int64_values("starts", {-1});
    m.int64_values("ends", {std::numeric_limits<int64_t>::min()});
    m.int64_values("steps", {-2});
    want = {5, 3, 1};
  }
  SECTION("an end computed from the shape as torch.onnx writes a chunk's: (6 + 1) / 2 * 1") {
    m.int64_values("starts", {0});
    m.int64_values("steps", {1});
    m.int64_values("one", {1});
    m.int64_values("two", {2});
    m.node("Shape", {"m"}, {"shape"}, "shape");
    m.node("Gather", {"shape", "one"}, {"channels"}, "dim1");
    m.node("Add", {"channels", "one"}, {"plus"}, "add");
    m.node("Div", {"plus", "two"}, {"half"}, "div");
    m.node("Mul", {"half", "one"}, {"ends"}, "mul");
    want = {0, 1, 2};
  }
  m.node("Slice", {"m", "starts", "ends", "axes", "steps"}, {"y"}, "slice");
  m.output("y");
  const OnnxModel model = import_onnx(m.save("slice.onnx"), {});
  REQUIRE(model.network.layers.size() == 2);  // the pool and the gather
  const LayerConfig& g = layer_named(model, "slice");
  CHECK(g.op == OpKind::Gather);
  CHECK(g.gather_channels == want);
  CHECK(g.K == want.size());
  CHECK((g.C == 6 && g.H == 2 && g.W == 5));
}

TEST_CASE("onnx: a Slice of every channel in order adds no operator", "[onnx]") {
  ModelBuilder m = map_model();
  m.int64_values("starts", {0, 0});
  m.int64_values("ends", {kEnd, 2});
  m.int64_values("axes", {1, 2});  // the rows too, all of them
  m.node("Slice", {"m", "starts", "ends", "axes"}, {"y"}, "slice");
  m.output("y");
  const OnnxModel model = import_onnx(m.save("slice_all.onnx"), {});
  CHECK(model.network.layers.size() == 1);
}

TEST_CASE("onnx: a Slice of rows or columns is refused at the node, naming the axis", "[onnx]") {
  ModelBuilder m = map_model();
  m.int64_values("starts", {1});
  m.int64_values("ends", {kEnd});
  m.int64_values("axes", {3});
  m.node("Slice", {"m", "starts", "ends", "axes"}, {"y"}, "cols");
  m.output("y");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("cols.onnx"), {}); });
  CHECK(e.pointer() == "node 'cols' (Slice)");
  CHECK_THAT(e.expected(), Catch::Contains("channels (axis 1)"));
  CHECK_THAT(e.found(), Catch::Contains("4 of the 5 entries of axis 3"));
}

TEST_CASE("onnx: a Split of channels is one gather per output, by given or equal sizes", "[onnx]") {
  ModelBuilder m = map_model();
  std::vector<Channels> want;
  std::vector<std::string> outs;
  onnx::NodeProto* split = nullptr;
  SECTION("sizes 2 and 4 as an input (opset 13)") {
    m.int64_values("sizes", {2, 4});
    outs = {"a", "b"};
    split = m.node("Split", {"m", "sizes"}, outs, "split");
    want = {{0, 1}, {2, 3, 4, 5}};
  }
  SECTION("three equal parts") {
    outs = {"a", "b", "c"};
    split = m.node("Split", {"m"}, outs, "split");
    want = {{0, 1}, {2, 3}, {4, 5}};
  }
  auto* axis = split->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto_AttributeType_INT);
  axis->set_i(1);
  for (const std::string& o : outs) m.output(o);
  const OnnxModel model = import_onnx(m.save("split.onnx"), {});
  REQUIRE(model.network.layers.size() == 1 + want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const LayerConfig& g = layer_named(model, "split/" + std::to_string(i));
    CHECK(g.gather_channels == want[i]);
    CHECK(model.network.tensor_names[i + 1] == outs[i]);
  }
}

TEST_CASE(
    "onnx: a Split along another axis, or of sizes that do not sum to the channels, is refused",
    "[onnx]") {
  ModelBuilder m = map_model();
  m.int64_values("sizes", {2, 3});
  auto* split = m.node("Split", {"m", "sizes"}, {"a", "b"}, "split");
  auto* axis = split->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto_AttributeType_INT);
  std::string found;
  SECTION("rows") { axis->set_i(2), found = "axis 2"; }
  SECTION("channels, 5 of 6") { axis->set_i(1), found = "2 sizes summing to 5"; }
  m.output("a");
  m.output("b");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("bad.onnx"), {}); });
  CHECK(e.pointer() == "node 'split' (Split)");
  CHECK_THAT(e.found(), Catch::Contains(found));
}

TEST_CASE(
    "onnx: the channel shuffle Reshape, Transpose, Reshape is one gather interleaving the groups",
    "[onnx]") {
  // 6 channels in 2 groups of 3: output 2b + j is input 3j + b.
  ModelBuilder m = map_model();
  m.int64_values("grouped", {1, 2, 3, 2, 5});
  m.int64_values("back", {1, -1, 2, 5});
  m.node("Reshape", {"m", "grouped"}, {"v"}, "view");
  auto* t = m.node("Transpose", {"v"}, {"vt"}, "swap");
  ModelBuilder::ints_attribute(t, "perm", {0, 2, 1, 3, 4});
  m.node("Reshape", {"vt", "back"}, {"y"}, "shuffle");
  m.output("y");
  const OnnxModel model = import_onnx(m.save("shuffle.onnx"), {});
  REQUIRE(model.network.layers.size() == 2);
  const LayerConfig& g = layer_named(model, "shuffle");
  CHECK(g.op == OpKind::Gather);
  CHECK(g.gather_channels == Channels{0, 3, 1, 4, 2, 5});
}

TEST_CASE("onnx: the shuffle's 5-D view read by anything but its Transpose and Reshape is refused",
          "[onnx]") {
  ModelBuilder m = map_model();
  m.int64_values("grouped", {1, 2, 3, 2, 5});
  m.node("Reshape", {"m", "grouped"}, {"v"}, "view");
  std::string node;
  SECTION("a Transpose of other axes") {
    auto* t = m.node("Transpose", {"v"}, {"y"}, "swap");
    ModelBuilder::ints_attribute(t, "perm", {0, 1, 2, 4, 3});
    node = "node 'swap' (Transpose)";
  }
  SECTION("a Relu") {
    m.node("Relu", {"v"}, {"y"}, "relu");
    node = "node 'relu' (Relu)";
  }
  m.output("y");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("view.onnx"), {}); });
  CHECK(e.pointer() == node);
  CHECK_THAT(e.expected() + e.found(), Catch::Contains("[1, 2, 3, 2, 5]"));
}

TEST_CASE(
    "onnx: a nearest Resize by 2 rows and 3 columns is a resize, from scales or from sizes, in "
    "torch's asymmetric-floor modes and in ONNX's default half-pixel ones",
    "[onnx]") {
  ModelBuilder m = map_model();  // [1, 6, 2, 5]
  onnx::NodeProto* r = nullptr;
  SECTION("scales, asymmetric, floor (torch.onnx's nearest interpolate)") {
    m.float_values("scales", {1, 1, 2, 3});
    r = m.node("Resize", {"m", "", "scales"}, {"y"}, "up");
    ModelBuilder::text_attribute(r, "coordinate_transformation_mode", "asymmetric");
    ModelBuilder::text_attribute(r, "nearest_mode", "floor");
  }
  SECTION("sizes, ONNX's defaults (half_pixel, round_prefer_floor)") {
    m.int64_values("sizes", {1, 6, 4, 15});
    r = m.node("Resize", {"m", "", "", "sizes"}, {"y"}, "up");
  }
  ModelBuilder::text_attribute(r, "mode", "nearest");
  m.output("y");
  const OnnxModel model = import_onnx(m.save("resize.onnx"), {});
  const LayerConfig& L = layer_named(model, "up");
  CHECK(L.op == OpKind::Resize);
  CHECK((L.resize_scale_h == 2 && L.resize_scale_w == 3));
  CHECK((L.out_h() == 4 && L.out_w() == 15 && L.K == 6));
}

TEST_CASE(
    "onnx: a Resize that interpolates (linearly or cubically) outside QDQ form, crops, "
    "antialiases, keeps an "
    "aspect ratio, scales N or C or leaves no row is refused at the node",
    "[onnx]") {
  ModelBuilder m = map_model(18);  // antialias and keep_aspect_ratio_policy: opset 18
  std::vector<float> scales{1, 1, 2, 2};
  std::string mode = "nearest", coordinates = "asymmetric", found;
  std::pair<std::string, std::string> extra;
  bool antialias = false;
  SECTION("linear, of a quantised tensor") {
    mode = "linear", found = "linear Resize of a quantised";
  }
  SECTION("cubic, of a quantised tensor") { mode = "cubic", found = "cubic Resize of a quantised"; }
  SECTION("tf_crop_and_resize") {
    coordinates = "tf_crop_and_resize", found = "tf_crop_and_resize";
  }
  // (the ONNX checker of this build refuses opset 18's two attributes first)
  SECTION("antialias") { antialias = true, found = "antialias"; }
  SECTION("keep_aspect_ratio_policy") {
    extra = {"keep_aspect_ratio_policy", "not_larger"}, found = "keep_aspect_ratio_policy";
  }
  SECTION("a scale of C") { scales = {1, 2, 1.5f, 2}, found = "scaling N or C"; }
  SECTION("no output row") { scales = {1, 1, 0.25f, 2}, found = "output 0"; }
  m.float_values("scales", scales);
  auto* r = m.node("Resize", {"m", "", "scales"}, {"y"}, "up");
  ModelBuilder::text_attribute(r, "mode", mode);
  ModelBuilder::text_attribute(r, "coordinate_transformation_mode", coordinates);
  if (!extra.first.empty()) ModelBuilder::text_attribute(r, extra.first, extra.second);
  if (antialias) {
    auto* a = r->add_attribute();
    a->set_name("antialias");
    a->set_type(onnx::AttributeProto_AttributeType_INT);
    a->set_i(1);
  }
  m.output("y");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("bad_up.onnx"), {}); });
  CHECK(e.pointer() == "node 'up' (Resize)");
  CHECK_THAT(e.found(), Catch::Contains(found));
}

TEST_CASE(
    "onnx: an Upsample is refused at the node in a QDQ or a float model (at opset 9, the opset), "
    "with `npusim quantize` as the way in",
    "[onnx]") {
  const bool quantised = GENERATE(true, false);
  const int64_t opset = GENERATE(9, 10, 13);
  ModelBuilder m = quantised ? map_model(opset) : ModelBuilder(opset);
  if (!quantised) m.input("m", onnx::TensorProto_DataType_FLOAT, {1, 6, 2, 5});
  m.float_values("scales", {1, 1, 2, 3});
  m.node("Upsample", {"m", "scales"}, {"y"}, "up");
  m.output("y", onnx::TensorProto_DataType_FLOAT);
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("upsample.onnx"), {}); });
  INFO("opset " << opset << (quantised ? ", quantised" : ", float"));
  if (opset == 9) {
    CHECK(e.pointer() == "/opset_import");
    CHECK(e.found() == "opset 9");
    CHECK_THAT(e.expected(), Catch::Contains("opset 10 to 19. Quantise a float model of an older "
                                             "opset with `npusim quantize MODEL.onnx"));
    return;
  }
  CHECK(e.pointer() == "node 'up' (Upsample)");
  CHECK(e.found() == "an Upsample (mode nearest), deprecated since opset 10");
  CHECK_THAT(e.expected(), Catch::Contains("a Resize: Upsample is not imported") &&
                               Catch::Contains("`npusim quantize FLOAT_MODEL.onnx") &&
                               Catch::Contains("asymmetric, nearest_mode floor"));
}
