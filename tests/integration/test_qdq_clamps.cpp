// A Relu or Clip standing alone on a quantised tensor (DequantizeLinear -> Relu | Clip ->
// QuantizeLinear, sim/frontend/onnx/qdq_lowering.cpp): a clamp of the quantised values, after
// a requantisation where the scales differ, equal to ONNX Runtime's optimised output bit for
// bit (docs/onnx.md#qdq-form). Skipped where python3-onnx (and torch for the export) or
// onnxruntime-node is missing.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/tensor/tensor.h"
#include "tests/support/test_support.h"
#include "tests/support/torch_support.h"

using npusim::test::export_script;
using npusim::test::have_torch_and_ort;
using npusim::test::quantise;

namespace {

// The source_op of each operator of a run's report, in order.
std::vector<std::string> source_ops(const std::string& model) {
  const nlohmann::json report = npusim::test::run_report("run " + model + " -q");
  std::vector<std::string> ops;
  for (const nlohmann::json& layer : report["layers"])
    ops.push_back(layer["shape"]["source_op"].get<std::string>());
  return ops;
}

// conv -> ReLU -> `clamp` (a torch expression of y) -> 1x1 conv, exported at opset 9 (Clip's
// bounds attributes); "clipped" [1, 8, 6, 10] is a graph output too. The first conv's weights
// are scaled by `gain`: at 20 its outputs pass 6, at 1 they stay below.
std::string relu_clamp_script(const std::string& clamp, const std::string& gain) {
  return R"PY(
import sys, torch, torch.nn as nn
torch.manual_seed(0)
class M(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 8, 3, padding=1)
        s.relu = nn.ReLU()
        s.hardtanh = nn.Hardtanh(0.0, 6.0)
        s.c2 = nn.Conv2d(8, 4, 1)
    def forward(s, x):
        y = s.relu(s.c1(x))
        y = )PY" +
         clamp +
         R"PY(
        return s.c2(y), y
m = M().eval()
with torch.no_grad():
    m.c1.weight.mul_()PY" +
         gain + R"PY()
torch.onnx.export(m, torch.zeros(1, 3, 6, 10), sys.argv[1], opset_version=9,
                  input_names=["input"], output_names=["out", "clipped"])
)PY";
}

// A QDQ model as another quantiser writes it: x [1, 3, 5, 7] -> QuantizeLinear -> a QDQ conv
// quantised at (s1, z1) -> DequantizeLinear -> `op` (Clip with `lo` and `hi`, "-" for none)
// -> QuantizeLinear (s2, z2) -> DequantizeLinear -> y [1, 6, 5, 7]; 8-bit type `type`.
std::string qdq_clamp_script(const std::string& op, const std::string& s1, int z1,
                             const std::string& s2, int z2, const std::string& lo,
                             const std::string& hi, const std::string& type = "uint8",
                             const std::string& y_type = "") {
  const std::string t = type == "uint8" ? "np.uint8" : "np.int8";
  const std::string ty = y_type.empty() ? t : "np." + y_type;
  return R"PY(
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(0)
t = )PY" +
         t + R"PY(
inits = [numpy_helper.from_array(v, k) for k, v in {
    "x_s": np.array(1 / 64, np.float32), "x_z": np.array(128 if t == np.uint8 else 0, t),
    "w": rng.integers(-127, 128, (6, 3, 3, 3)).astype(np.int8),
    "w_s": np.array(0.004, np.float32), "w_z": np.array(0, np.int8),
    "b": rng.integers(-2000, 2000, 6).astype(np.int32),
    "b_s": np.array(0.004 / 64, np.float32), "b_z": np.array(0, np.int32),
    "s1": np.array()PY" +
         s1 + R"PY(, np.float32), "z1": np.array()PY" + std::to_string(z1) + R"PY(, t),
    "s2": np.array()PY" +
         s2 + R"PY(, np.float32), "z2": np.array()PY" + std::to_string(z2) + ", " + ty +
         R"PY()}.items()]
clip_in = ["c_dq"]
for name, v in (("min", ")PY" +
         lo + R"PY("), ("max", ")PY" + hi + R"PY(")):
    if v != "-":
        inits.append(numpy_helper.from_array(np.array(float(v), np.float32), name))
    clip_in.append(name if v != "-" else "")
op = ")PY" +
         op +
         R"PY("
nodes = [helper.make_node("QuantizeLinear", ["x", "x_s", "x_z"], ["x_q"]),
         helper.make_node("DequantizeLinear", ["x_q", "x_s", "x_z"], ["x_dq"]),
         helper.make_node("DequantizeLinear", ["w", "w_s", "w_z"], ["w_dq"]),
         helper.make_node("DequantizeLinear", ["b", "b_s", "b_z"], ["b_dq"]),
         helper.make_node("Conv", ["x_dq", "w_dq", "b_dq"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("QuantizeLinear", ["c", "s1", "z1"], ["c_q"], name="conv_q"),
         helper.make_node("DequantizeLinear", ["c_q", "s1", "z1"], ["c_dq"]),
         helper.make_node(op, clip_in if op == "Clip" else ["c_dq"], ["r"], name="clamp"),
         helper.make_node("QuantizeLinear", ["r", "s2", "z2"], ["r_q"], name="clamp_q"),
         helper.make_node("DequantizeLinear", ["r_q", "s2", "z2"], ["y"])]
f = TensorProto.FLOAT
g = helper.make_graph(nodes, "clamp", [helper.make_tensor_value_info("x", f, [1, 3, 5, 7])],
                      [helper.make_tensor_value_info("y", f, [1, 6, 5, 7])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, sys.argv[1])
)PY";
}

}  // namespace

TEST_CASE(
    "npusim quantize: a torch model exported at opset 9 with a ReLU then a clamp to [0, 6] "
    "(Hardtanh or torch.clamp) runs and equals ONNX Runtime bit for bit, whether the ReLU's "
    "values pass 6 (a requantisation) or not (no operator)",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  struct Case {
    std::string name, clamp, gain;
    std::vector<std::string> ops;
  };
  for (const Case& k :
       {Case{"hardtanh_above_6",
             "s.hardtanh(y)",
             "20",
             {"Conv(QDQ)", "Requantize(QDQ)", "Conv(QDQ)"}},
        Case{"clamp_below_6", "torch.clamp(y, 0, 6)", "1", {"Conv(QDQ)", "Conv(QDQ)"}}}) {
    const std::string model = export_script(k.name, relu_clamp_script(k.clamp, k.gain));
    const std::string out = model.substr(0, model.size() - 5) + "_qdq.onnx";
    quantise(model, out);
    const npusim::test::OrtComparison c = npusim::test::ort_compare(out, "--levels all");
    INFO(k.name << "\n" << c.text);
    if (npusim::test::skipped_for_want_of_vnni(c, out)) continue;
    CHECK(c.status == 0);
    CHECK_THAT(c.text, Catch::Contains("[all] clipped float32 [1, 8, 6, 10]: bit-exact (480"));
    CHECK_THAT(c.text, Catch::Contains("[all] out float32 [1, 4, 6, 10]: bit-exact (240"));
    CHECK(source_ops(out) == k.ops);
  }
}

TEST_CASE(
    "onnx: a QDQ Relu or Clip alone between DequantizeLinear and QuantizeLinear (bounds inside "
    "the range, at one scale or requantising to a coarser or finer one, uint8 and int8) equals "
    "ONNX Runtime bit for bit with values on its bounds",
    "[onnx]") {
  if (!npusim::test::have_python_onnx() || !npusim::test::have_onnx_runtime()) {
    WARN("SKIPPED: needs python3-onnx and onnxruntime-node");
    return;
  }
  struct Case {
    std::string name, script;
    std::vector<std::string> ops;
    float lo, hi;  // y's least and greatest values: the bounds as quantised (Relu: no max)
  };
  const std::string s = "0.0313725";  // 8 / 255: the conv's values span [-4, 4]
  const std::vector<Case> cases = {
      {"one_scale",
       qdq_clamp_script("Clip", s, 128, s, 128, "-1.0", "2.5"),
       {"Conv(QDQ)"},
       -32 * 0.0313725f,
       80 * 0.0313725f},
      {"coarser",
       qdq_clamp_script("Clip", s, 128, "0.0627451", 100, "-1.0", "2.5"),
       {"Conv(QDQ)", "Requantize(QDQ)"},
       -16 * 0.0627451f,
       40 * 0.0627451f},
      {"finer",
       qdq_clamp_script("Clip", s, 128, "0.015686", 128, "-1.0", "1.0"),
       {"Conv(QDQ)", "Requantize(QDQ)"},
       -64 * 0.015686f,
       64 * 0.015686f},
      {"int8_relu",
       qdq_clamp_script("Relu", s, 10, s, 10, "-", "-", "int8"),
       {"Conv(QDQ)"},
       0.0f,
       INFINITY},
      {"int8_relu_coarser",
       qdq_clamp_script("Relu", s, 10, "0.05", -128, "-", "-", "int8"),
       {"Conv(QDQ)", "Requantize(QDQ)"},
       0.0f,
       INFINITY}};
  for (const Case& k : cases) {
    const std::string model = export_script("qdq_clamp_" + k.name, k.script);
    const npusim::test::OrtComparison c = npusim::test::ort_compare(model, "--levels all");
    INFO(k.name << "\n" << c.text);
    if (npusim::test::skipped_for_want_of_vnni(c, model)) continue;
    CHECK(c.status == 0);
    CHECK_THAT(c.text, Catch::Contains("[all] y float32 [1, 6, 5, 7]: bit-exact (210 values)"));
    CHECK(source_ops(model) == k.ops);
    // The clamp takes effect: values lie on its lower bound (and on the upper one, for Clip).
    const std::string dir = npusim::test::temp_dir() + "/qdq_clamp_" + k.name + "_out";
    REQUIRE(
        npusim::test::run_cli("run " + model + " -q --out " + dir + " --save-outputs").exit_code ==
        0);
    const npusim::Tensor<float> y = npusim::read_npy_float32(dir + "/y.npy");
    int at_lo = 0, at_hi = 0, outside = 0;
    for (float v : y.data) {
      at_lo += v == k.lo, at_hi += v == k.hi;
      outside += v < k.lo || v > k.hi;
    }
    CHECK(outside == 0);
    CHECK(at_lo >= 10);
    if (k.hi != INFINITY) CHECK(at_hi >= 1);
  }
}

TEST_CASE(
    "onnx: a QDQ Clip is refused naming the node when no clamp of its quantised input gives its "
    "bound once requantised, or when it changes the 8-bit type",
    "[onnx]") {
  if (!npusim::test::have_python_onnx()) {
    WARN("SKIPPED: needs python3-onnx");
    return;
  }
  std::string script, found;
  SECTION("a bound between two requantised values") {
    // x's steps of 0.1 become two of y's 0.05: min 0.25 quantises to 5, which no x reaches.
    script = qdq_clamp_script("Clip", "0.1", 0, "0.05", 0, "0.25", "-", "int8");
    found = "found input -128 clamped to 5, which no input value requantises to";
  }
  SECTION("uint8 in, int8 out") {
    script =
        qdq_clamp_script("Clip", "0.0313725", 128, "0.0313725", 0, "-1.0", "2.5", "uint8", "int8");
    found =
        "found input 'c_dq' dequantised from uint8, output quantised to int8 by node "
        "'clamp_q'";
  }
  const std::string model = export_script("qdq_clamp_refused", script);
  const npusim::test::CliResult r = npusim::test::run_cli("run " + model + " -q");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("at node 'clamp' (Clip): expected "));
  CHECK_THAT(r.err, Catch::Contains(found));
}

TEST_CASE(
    "npusim quantize: a torch model with LeakyReLU (alpha 0.1 on a 12 x 20 map, then torch's "
    "default 0.01) runs as two leakyrelu operators and equals ONNX Runtime bit for bit at both "
    "optimisation levels",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  const std::string model = export_script("leaky", R"PY(
import sys, torch, torch.nn as nn
torch.manual_seed(0)
m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.LeakyReLU(0.1),
                  nn.Conv2d(8, 4, 3, padding=1), nn.LeakyReLU()).eval()
torch.onnx.export(m, torch.zeros(1, 3, 12, 20), sys.argv[1], opset_version=13,
                  input_names=["x"], output_names=["y"])
)PY");
  const std::string out = model.substr(0, model.size() - 5) + "_qdq.onnx";
  quantise(model, out);
  const npusim::test::OrtComparison c = npusim::test::ort_compare(out, "--levels all,disabled");
  INFO(c.text);
  CHECK_THAT(c.text, Catch::Contains("[disabled] y float32 [1, 4, 12, 20]: bit-exact (960"));
  if (!npusim::test::skipped_for_want_of_vnni(c, out)) CHECK(c.status == 0);
  const nlohmann::json report = npusim::test::run_report("run " + out + " -q");
  std::vector<std::string> ops;
  for (const nlohmann::json& layer : report["layers"])
    ops.push_back(layer["shape"]["op"].get<std::string>());
  CHECK(ops == std::vector<std::string>{"conv", "leakyrelu", "conv", "leakyrelu"});
}
