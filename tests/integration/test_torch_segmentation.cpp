// Upsampling necks and segmentation heads as torch.onnx exports them, quantised by `npusim
// quantize`: bilinear upsampling (F.interpolate(mode="bilinear"), a linear Resize between
// DequantizeLinear and QuantizeLinear, docs/onnx.md) equals ONNX Runtime's
// optimised output bit for bit. Skipped where python3-torch, python3-torchvision,
// python3-onnx or onnxruntime-node is missing.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/test_support.h"
#include "tests/support/torch_support.h"

using npusim::test::export_script;
using npusim::test::have_torch_and_ort;
using npusim::test::quantise;

namespace {

// Each resize layer of a report as "MODE COORDINATES[ NEAREST_MODE]" ("nearest asymmetric
// floor", "linear half_pixel"), in order.
std::vector<std::string> resize_modes(const nlohmann::json& report) {
  std::vector<std::string> modes;
  for (const nlohmann::json& layer : report["layers"]) {
    const nlohmann::json& s = layer["shape"];
    if (s["op"] != "resize") continue;
    modes.push_back(s["mode"].get<std::string>() + " " + s["coordinates"].get<std::string>() +
                    (s.contains("nearest_mode") ? " " + s["nearest_mode"].get<std::string>() : ""));
  }
  return modes;
}

// Each Resize of a QDQ model: the scale of the DequantizeLinear it reads and of the
// QuantizeLinear that reads it.
std::vector<std::pair<float, float>> resize_qdq_scales(const std::string& path) {
  onnx::ModelProto m;
  std::ifstream f(path, std::ios::binary);
  REQUIRE(m.ParseFromIstream(&f));
  std::map<std::string, float> scalars;
  for (const onnx::TensorProto& t : m.graph().initializer()) {
    if (t.data_type() != onnx::TensorProto_DataType_FLOAT) continue;
    float v = 0;
    if (t.float_data_size() > 0)
      v = t.float_data(0);
    else if (t.raw_data().size() >= sizeof(float))
      std::memcpy(&v, t.raw_data().data(), sizeof(float));
    scalars[t.name()] = v;
  }
  std::map<std::string, const onnx::NodeProto*> producer, reader;
  for (const onnx::NodeProto& n : m.graph().node()) {
    for (const std::string& o : n.output()) producer[o] = &n;
    for (const std::string& i : n.input()) reader[i] = &n;
  }
  std::vector<std::pair<float, float>> scales;
  for (const onnx::NodeProto& n : m.graph().node())
    if (n.op_type() == "Resize")
      scales.emplace_back(scalars[producer.at(n.input(0))->input(1)],
                          scalars[reader.at(n.output(0))->input(1)]);
  return scales;
}

// An FPN-style neck: two strided convs, the deeper map upsampled by 2 (F.interpolate with
// `first`'s arguments) and concatenated with the shallower, a conv, an upsampling by 2 rows x
// 3 columns (`second`'s; a graph output, [1, 8, 24, 60] of the default [1, 3, 24, 40] input),
// a mean and an FC; exported at `opset` (9: each upsampling an Upsample).
std::string neck_script(const std::string& first, const std::string& second, int opset = 13,
                        const std::string& input = "1, 3, 24, 40") {
  return R"PY(
import sys, torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
class Neck(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        s.c2 = nn.Conv2d(16, 24, 3, stride=2, padding=1)
        s.c3 = nn.Conv2d(40, 8, 3, padding=1)
        s.fc = nn.Linear(8, 10)
    def forward(s, x):
        a = F.relu(s.c1(x))
        b = F.relu(s.c2(a))
        y = F.relu(s.c3(torch.cat([a, F.interpolate(b, scale_factor=2, )PY" +
         first + R"PY()], 1)))
        y = F.interpolate(y, scale_factor=(2, 3), )PY" +
         second + R"PY()
        return s.fc(y.mean([2, 3])), y
torch.onnx.export(Neck().eval(), torch.zeros()PY" +
         input + "), sys.argv[1], opset_version=" + std::to_string(opset) + R"PY(,
                  input_names=["input"], output_names=["logits", "upsampled"])
)PY";
}

// The quantised neck's two outputs equal ONNX Runtime's (`upsampled` of shape `output`);
// returns its resizes' modes (resize_modes).
std::vector<std::string> check_neck(const std::string& name, const std::string& first,
                                    const std::string& second, int opset = 13,
                                    const std::string& input = "1, 3, 24, 40",
                                    const std::string& output = "1, 8, 24, 60") {
  const std::string model = export_script(name, neck_script(first, second, opset, input));
  const std::string out = model.substr(0, model.size() - 5) + "_qdq.onnx";
  quantise(model, out);
  const npusim::test::OrtComparison c = npusim::test::ort_compare(out, "--levels all,disabled");
  npusim::test::check_ort_bit_exact(c, "upsampled float32 [" + output + "]");
  npusim::test::check_ort_bit_exact(c, "logits float32 [1, 10]");
  return resize_modes(npusim::test::run_report("run " + out + " -q"));
}

}  // namespace

TEST_CASE(
    "npusim quantize: a float FPN-style neck with torch's nearest upsampling by 2 and by 2 x 3 "
    "(Resize, asymmetric, floor) equals ONNX Runtime bit for bit, the upsampled map included",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  CHECK(check_neck("neck", "mode=\"nearest\"", "mode=\"nearest\"") ==
        std::vector<std::string>{"nearest asymmetric floor", "nearest asymmetric floor"});
}

TEST_CASE(
    "npusim quantize: the neck with torch's bilinear upsampling (by 2, and by 2 x 3 with "
    "align_corners) equals ONNX Runtime bit for bit, the upsampled map included",
    "[onnx][torch][resize]") {
  if (!have_torch_and_ort()) return;
  CHECK(check_neck("bilinear_neck", "mode=\"bilinear\", align_corners=False",
                   "mode=\"bilinear\", align_corners=True") ==
        std::vector<std::string>{"linear half_pixel", "linear align_corners"});
}

TEST_CASE(
    "npusim quantize: the neck with torch's bicubic upsampling (by 2, and by 2 x 3 with "
    "align_corners, each cubic Resize calibrated on its own) equals ONNX Runtime bit for bit, the "
    "upsampled map included",
    "[onnx][torch][resize]") {
  if (!have_torch_and_ort()) return;
  CHECK(check_neck("bicubic_neck", "mode=\"bicubic\", align_corners=False",
                   "mode=\"bicubic\", align_corners=True") ==
        std::vector<std::string>{"cubic half_pixel", "cubic align_corners"});
  // Keys' negative lobes overshoot the input's range: each output has a wider scale of its own.
  const auto scales =
      resize_qdq_scales(npusim::test::temp_dir() + "/quantize_bicubic_neck/bicubic_neck_qdq.onnx");
  REQUIRE(scales.size() == 2);
  for (const auto& [in, out] : scales) CHECK(out > in);
}

TEST_CASE(
    "npusim quantize: the neck exported at opset 9 (each upsampling an Upsample, nearest: by 2 of "
    "a 5 x 7 map, by 2 x 3 of a 10 x 14 one) becomes Resizes that equal ONNX Runtime bit for bit, "
    "the upsampled map included",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  CHECK(check_neck("upsample_neck", "mode=\"nearest\"", "mode=\"nearest\"", 9, "1, 3, 20, 28",
                   "1, 8, 20, 42") ==
        std::vector<std::string>{"nearest asymmetric floor", "nearest asymmetric floor"});
}

TEST_CASE(
    "npusim quantize: the neck exported at opset 9 with bilinear upsampling (Upsample, mode "
    "linear: asymmetric coordinates) equals ONNX Runtime bit for bit once quantised, the "
    "upsampled map included",
    "[onnx][torch][resize]") {
  if (!have_torch_and_ort()) return;
  CHECK(check_neck("upsample_linear_neck", "mode=\"bilinear\"", "mode=\"bilinear\"", 9,
                   "1, 3, 20, 28", "1, 8, 20, 42") ==
        std::vector<std::string>{"linear asymmetric", "linear asymmetric"});
}

TEST_CASE(
    "npusim quantize: the neck exported at opset 10 (opset 10 Resizes, nearest and linear: "
    "asymmetric, as ONNX Runtime maps them) equals ONNX Runtime bit for bit once quantised, the "
    "upsampled map included",
    "[onnx][torch][resize]") {
  if (!have_torch_and_ort()) return;
  CHECK(check_neck("resize10_neck", "mode=\"nearest\"", "mode=\"bilinear\"", 10, "1, 3, 20, 28",
                   "1, 8, 20, 42") ==
        std::vector<std::string>{"nearest asymmetric floor", "linear asymmetric"});
}

TEST_CASE(
    "npusim quantize: an opset 10 nearest Resize that downsamples a 20 x 28 map by 0.5 x 0.75 "
    "becomes a Resize with asymmetric coordinates and nearest_mode ceil that equals ONNX Runtime "
    "bit for bit once quantised, the downsampled map included",
    "[onnx][torch][resize]") {
  if (!have_torch_and_ort()) return;
  // A conv, the downsampling (a graph output, [1, 8, 10, 21]) and a conv of it. Its columns
  // tell ceil from floor: output column 1 reads input column ceil(1 / 0.75) = 2 (floor: 1).
  const std::string model = export_script("resize10_down", R"PY(
import sys, torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
class Down(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 8, 3, padding=1)
        s.c2 = nn.Conv2d(8, 8, 3, padding=1)
    def forward(s, x):
        d = F.interpolate(F.relu(s.c1(x)), scale_factor=(0.5, 0.75), mode="nearest")
        return s.c2(d), d
torch.onnx.export(Down().eval(), torch.zeros(1, 3, 20, 28), sys.argv[1], opset_version=10,
                  input_names=["input"], output_names=["out", "down"])
)PY");
  const std::string out = model.substr(0, model.size() - 5) + "_qdq.onnx";
  quantise(model, out);
  const npusim::test::OrtComparison c = npusim::test::ort_compare(out, "--levels all,disabled");
  npusim::test::check_ort_bit_exact(c, "down float32 [1, 8, 10, 21]");
  npusim::test::check_ort_bit_exact(c, "out float32 [1, 8, 10, 21]");
  // ONNX Runtime's opset 10 kernel rounds a downsampling's positions up (rewritten with floor,
  // 789 of the 1,680 float values of `down` on a seeded input differ from its output on the
  // opset 10 model); both sides here run the rewritten node, so only its modes show a wrong one.
  CHECK(resize_modes(npusim::test::run_report("run " + out + " -q")) ==
        std::vector<std::string>{"nearest asymmetric ceil"});
}

namespace {

// An opset 7 model as onnx.helper writes it (Upsample's scales an attribute): a conv of a
// [1, 3, 5, 7] input, Upsample `first` by 1.5 x 2.5 to "up1" [1, 8, 7, 17], a conv, Upsample
// `second` by 2 x 3 to "up2" [1, 8, 14, 51]; both graph outputs. `scales`: the first's.
std::string opset7_script(const std::string& first, const std::string& second,
                          const std::string& scales = "1.0, 1.0, 1.5, 2.5") {
  return R"PY(
import sys, numpy as np, onnx
from onnx import helper, numpy_helper
rng = np.random.default_rng(0)
inits, nodes = [], []
def conv(name, cin, x, y):
    inits.append(numpy_helper.from_array(rng.normal(0, 0.3, (8, cin, 3, 3)).astype(np.float32),
                                         name + "_w"))
    inits.append(numpy_helper.from_array(rng.normal(0, 0.1, 8).astype(np.float32), name + "_b"))
    nodes.append(helper.make_node("Conv", [x, name + "_w", name + "_b"], [name + "_out"],
                                  name=name, kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("Relu", [name + "_out"], [y], name=name + "_relu"))
conv("c1", 3, "input", "a")
nodes.append(helper.make_node("Upsample", ["a"], ["up1"], name="up_first", mode=")PY" +
         first + R"PY(", scales=[)PY" + scales + R"PY(]))
conv("c2", 8, "up1", "b")
nodes.append(helper.make_node("Upsample", ["b"], ["up2"], name="up_second", mode=")PY" +
         second + R"PY(", scales=[1.0, 1.0, 2.0, 3.0]))
f = onnx.TensorProto.FLOAT
graph = helper.make_graph(nodes, "opset7", [helper.make_tensor_value_info("input", f, [1, 3, 5, 7])],
                          [helper.make_tensor_value_info("up1", f, [1, 8, 7, 17]),
                           helper.make_tensor_value_info("up2", f, [1, 8, 14, 51])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 7)])
model.ir_version = 4
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
)PY";
}

}  // namespace

TEST_CASE(
    "npusim quantize: an opset 7 model's Upsamples (scales an attribute: nearest by a fractional "
    "1.5 x 2.5, then linear by 2 x 3) become Resizes that equal ONNX Runtime bit for bit once "
    "quantised, both upsampled maps included",
    "[onnx][torch][resize]") {
  if (!have_torch_and_ort()) return;
  const std::string model = export_script("opset7_upsample", opset7_script("nearest", "linear"));
  const std::string out = model.substr(0, model.size() - 5) + "_qdq.onnx";
  quantise(model, out);
  const npusim::test::OrtComparison c = npusim::test::ort_compare(out, "--levels all,disabled");
  npusim::test::check_ort_bit_exact(c, "up1 float32 [1, 8, 7, 17]");
  npusim::test::check_ort_bit_exact(c, "up2 float32 [1, 8, 14, 51]");
  // Upsample's coordinates, not the converter's Resize 11 defaults (half_pixel,
  // round_prefer_floor), which pick other pixels at 1.5 x 2.5 and interpolate at others.
  CHECK(resize_modes(npusim::test::run_report("run " + out + " -q")) ==
        std::vector<std::string>{"nearest asymmetric floor", "linear asymmetric"});
}

TEST_CASE(
    "npusim quantize: an Upsample it cannot rewrite (mode cubic, or a scale below 1) is refused "
    "naming the file and the node",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  std::string first = "nearest", scales = "1.0, 1.0, 1.5, 2.5", found;
  SECTION("cubic") { first = "cubic", found = "expected mode nearest or linear, found mode cubic"; }
  SECTION("a scale below 1") {
    scales = "1.0, 1.0, 0.5, 2.0";
    found = "expected scales of at least 1 (Upsample's), found [1.0, 1.0, 0.5, 2.0]";
  }
  const std::string model = export_script("bad_upsample", opset7_script(first, "linear", scales));
  const npusim::test::CliResult q =
      npusim::test::run_cli("quantize " + model + " -o " + model + ".qdq.onnx --force");
  INFO(q.out << q.err);
  CHECK(q.exit_code == 2);
  CHECK_THAT(q.err,
             Catch::Contains("quantize: " + model + ": at node 'up_first' (Upsample): " + found));
}

TEST_CASE(
    "npusim quantize: torchvision's LR-ASPP and DeepLabV3 with MobileNetV3-Large backbones at 128 "
    "x 128 (squeeze-excitation, dilated convolutions, a 1x1 pooled branch and a 16x16 map "
    "upsampled bilinearly to the input's size) equal ONNX Runtime bit for bit once quantised, "
    "and time the same without values",
    "[onnx][torch][resize][slow]") {
  if (!have_torch_and_ort()) return;
  for (const std::string name : {"lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large"}) {
    const std::string dir = npusim::test::temp_dir() + "/quantize_" + name;
    std::filesystem::create_directories(dir);
    const std::string model = dir + "/float.onnx";
    const std::string cmd =
        "/usr/bin/python3 -c \"import torch, torchvision; torch.manual_seed(0); "
        "torch.onnx.export(torchvision.models.segmentation." +
        name + "(weights=None, weights_backbone=None).eval(), torch.zeros(1, 3, 128, 128), '" +
        model +
        "', opset_version=13, input_names=['input'], output_names=['out'])\" > /dev/null 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const std::string out = dir + "/qdq.onnx";
    quantise(model, out);
    const npusim::test::OrtComparison c = npusim::test::ort_compare(out, "--levels all");
    INFO(name << "\n" << c.text);
    // Without VNNI neither of ONNX Runtime's levels is exact for these (its optimised kernels
    // saturate, its unoptimised float graph rounds 212 of the 344,064 values otherwise).
    if (!npusim::test::skipped_for_want_of_vnni(c, name)) {
      CHECK(c.status == 0);
      CHECK_THAT(c.text, Catch::Contains("[all] out float32 [1, 21, 128, 128]: bit-exact"));
    }
    const nlohmann::json functional = npusim::test::run_report("run " + out + " -q");
    const nlohmann::json timing = npusim::test::run_report("run " + out + " -q --timing-only");
    CHECK(timing["totals"]["cycles"] == functional["totals"]["cycles"]);
    int linear = 0;
    for (const nlohmann::json& layer : functional["layers"])
      linear += layer["shape"]["op"] == "resize" && layer["shape"]["source_op"] == "Resize(QDQ)";
    CHECK(linear >= 1);
  }
}
