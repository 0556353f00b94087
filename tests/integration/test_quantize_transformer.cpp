// `npusim quantize` on torch's nn.Linear applied to a sequence: torch.onnx writes it as a
// MatMul of constant [K, N] weights and an Add of the constant bias (a Gemm only for 2-D
// inputs). The quantiser writes int8 weights per tensor and an int32 bias at x_scale * w_scale,
// which the importer maps to a matmul with its bias (docs/onnx.md#quantising-a-float-model);
// a LayerNormalization gets its own output range and keeps its float gamma and beta, which the
// importer quantises (docs/onnx.md#transformer-blocks); attention's Div of the scores by a
// constant is folded into the query projection (tools/quantize_attention.py), and a Softmax's
// output is quantised at 1/256, as ONNX Runtime's QLinearSoftmax expects. Skipped where torch,
// python3-onnx or onnxruntime-node is missing.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.h"
#include "tests/support/torch_support.h"

using npusim::test::export_script;
using npusim::test::have_torch_and_ort;
using npusim::test::quantise;

namespace {

// The op of each operator of a functional run of `model` (checked bit-exact against the
// reference by the run), in order.
std::vector<std::string> operators_of(const std::string& model) {
  const nlohmann::json report = npusim::test::run_report("run " + model + " -q");
  std::vector<std::string> ops;
  for (const nlohmann::json& layer : report["layers"])
    ops.push_back(layer["shape"]["op"].get<std::string>());
  return ops;
}

// The 13 operators of an encoder block: projections, attention, output projection, residual
// add and norm, FFN, residual add and norm.
const std::vector<std::string> kEncoderBlock = {
    "matmul", "matmul",    "matmul", "batch_matmul", "softmax", "batch_matmul", "matmul",
    "add",    "layernorm", "matmul", "matmul",       "add",     "layernorm"};

}  // namespace

TEST_CASE(
    "npusim quantize: torch's nn.Linear on a 7 x 48 sequence (MatMul and Add of the bias, a "
    "Linear without bias, ReLU and ReLU6 after them) runs as three matmul operators and equals "
    "ONNX Runtime bit for bit at both optimisation levels",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  const std::string model = export_script("linear_seq", R"PY(
import sys, torch, torch.nn as nn
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(48, 96), nn.ReLU(), nn.Linear(96, 40, bias=False), nn.ReLU6(),
                  nn.Linear(40, 24)).eval()
torch.onnx.export(m, torch.zeros(1, 7, 48), sys.argv[1], opset_version=13,
                  input_names=["x"], output_names=["y"])
)PY");
  const std::string out = model.substr(0, model.size() - 5) + "_qdq.onnx";
  CHECK_THAT(quantise(model, out), Catch::Contains("4 activations quantised"));
  const npusim::test::OrtComparison c = npusim::test::ort_compare(out, "--levels all,disabled");
  INFO(c.text);
  CHECK_THAT(c.text, Catch::Contains("[disabled] y float32 [1, 7, 24]: bit-exact (168"));
  npusim::test::check_ort_bit_exact(c, "y float32 [1, 7, 24]");
  CHECK(operators_of(out) == std::vector<std::string>{"matmul", "matmul", "matmul"});
}

TEST_CASE(
    "npusim quantize: a MatMul with constant weights of 3 dimensions is refused naming the node "
    "and the shape found",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  const std::string model = export_script("batched_weights", R"PY(
import sys, torch, torch.nn as nn
torch.manual_seed(0)
class M(nn.Module):
    def __init__(s):
        super().__init__()
        s.w = nn.Parameter(torch.randn(2, 48, 16))
    def forward(s, x):
        return torch.matmul(x, s.w)
torch.onnx.export(M().eval(), torch.zeros(2, 7, 48), sys.argv[1], opset_version=13,
                  input_names=["x"], output_names=["y"])
)PY");
  const npusim::test::CliResult r =
      npusim::test::run_cli("quantize " + model + " -o " + model + ".qdq.onnx");
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("(MatMul): expected constant weights of 2 dimensions [K, N], "
                                    "found [2, 48, 16]"));
}

TEST_CASE(
    "npusim quantize: a torch transformer FFN block at opset 17 (LayerNorm, Linear, ReLU, "
    "Linear, residual Add, LayerNorm) runs as layernorm, matmul, matmul, add, layernorm and is "
    "within 2 LSB of ONNX Runtime, whose LayerNormalization is float",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  const std::string model = export_script("ffn_block", R"PY(
import sys, torch, torch.nn as nn
torch.manual_seed(0)
class FFN(nn.Module):
    def __init__(s, f=48, h=96):
        super().__init__()
        s.norm1, s.norm2 = nn.LayerNorm(f), nn.LayerNorm(f)
        s.lin1, s.lin2 = nn.Linear(f, h), nn.Linear(h, f)
    def forward(s, x):
        h = s.norm1(x)
        return s.norm2(h + s.lin2(torch.relu(s.lin1(h))))
m = FFN().eval()
with torch.no_grad():
    for n in (m.norm1, m.norm2):
        n.weight.uniform_(0.5, 1.5)
        n.bias.uniform_(-0.2, 0.2)
torch.onnx.export(m, torch.zeros(1, 10, 48), sys.argv[1], opset_version=17,
                  input_names=["x"], output_names=["y"])
)PY");
  const std::string out = model.substr(0, model.size() - 5) + "_qdq.onnx";
  CHECK_THAT(quantise(model, out), Catch::Contains("6 activations quantised"));
  const npusim::test::OrtComparison c =
      npusim::test::ort_compare(out, "--levels all,disabled --tolerance 2");
  INFO(c.text);
  CHECK_THAT(c.text, Catch::Contains("[all] y float32 [1, 10, 48]: max |diff|") &&
                         Catch::Contains("within --tolerance 2"));
  if (!npusim::test::skipped_for_want_of_vnni(c, out)) CHECK(c.status == 0);
  CHECK(operators_of(out) ==
        std::vector<std::string>{"layernorm", "matmul", "matmul", "add", "layernorm"});
}

TEST_CASE(
    "npusim quantize: a hand-written torch encoder block (Q, K and V projections, heads by view "
    "and transpose, scores divided by sqrt(D), softmax, output projection, residual adds, "
    "LayerNorms, a ReLU FFN) runs as matmul, batch_matmul, softmax and layernorm operators "
    "within 1 LSB of ONNX Runtime at both levels, with uint8 and int8 activations",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  const std::string model = export_script("encoder_block", R"PY(
import sys, math, torch, torch.nn as nn
torch.manual_seed(0)
T, F, H, HID = 12, 48, 4, 96
D = F // H
class Block(nn.Module):
    def __init__(s):
        super().__init__()
        s.q, s.k, s.v, s.o = (nn.Linear(F, F) for _ in range(4))
        s.norm1, s.norm2 = nn.LayerNorm(F), nn.LayerNorm(F)
        s.lin1, s.lin2 = nn.Linear(F, HID), nn.Linear(HID, F)
    def heads(s, t):
        return t.view(1, T, H, D).transpose(1, 2)
    def forward(s, x):
        q, k, v = s.heads(s.q(x)), s.heads(s.k(x)), s.heads(s.v(x))
        p = (torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(D)).softmax(-1)
        a = s.o(torch.matmul(p, v).transpose(1, 2).reshape(1, T, F))
        h = s.norm1(x + a)
        return s.norm2(h + s.lin2(torch.relu(s.lin1(h))))
torch.onnx.export(Block().eval(), torch.zeros(1, T, F), sys.argv[1], opset_version=17,
                  input_names=["x"], output_names=["y"])
)PY");
  for (const std::string type : {"uint8", "int8"}) {
    INFO(type);
    const std::string out = model.substr(0, model.size() - 5) + "_" + type + ".onnx";
    CHECK_THAT(quantise(model, out, " --activations " + type),
               Catch::Contains("14 activations quantised"));
    const npusim::test::OrtComparison c =
        npusim::test::ort_compare(out, "--levels all,disabled --tolerance 1");
    INFO(c.text);
    CHECK_THAT(c.text, Catch::Contains("[disabled] y float32 [1, 12, 48]: max |diff| 1 LSB"));
    // ONNX Runtime's optimised kernels, where this CPU's are exact (VNNI).
    if (!npusim::test::skipped_for_want_of_vnni(c, out)) {
      CHECK(c.status == 0);
      CHECK_THAT(c.text, Catch::Contains("[all] y float32 [1, 12, 48]: max |diff| 1 LSB"));
    }
    CHECK(operators_of(out) == kEncoderBlock);
  }
}

TEST_CASE(
    "npusim quantize: a Div of a ReLU by a constant (not a projection or attention scores) is "
    "refused naming the node and what it divides",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  const std::string model = export_script("plain_div", R"PY(
import sys, torch, torch.nn as nn
torch.manual_seed(0)
class M(nn.Module):
    def __init__(s):
        super().__init__()
        s.l = nn.Linear(48, 48)
    def forward(s, x):
        return torch.relu(s.l(x)) / 3.0 + x
torch.onnx.export(M().eval(), torch.zeros(1, 6, 48), sys.argv[1], opset_version=13,
                  input_names=["x"], output_names=["y"])
)PY");
  const npusim::test::CliResult r =
      npusim::test::run_cli("quantize " + model + " -o " + model + ".qdq.onnx");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("at node '/Div' (Div): expected a Div by a constant of a "
                                    "projection") &&
                        Catch::Contains("found a Div of '/Relu_output_0' by"));
}

TEST_CASE(
    "npusim quantize: torch's nn.TransformerEncoderLayer with ReLU and with GELU (batch first, "
    "exported sequence first with a fused in-projection split by Slices, Q divided by sqrt(D), a "
    "Gemm out-projection, GELU as Div, Erf, Add, Mul, Mul) runs as 13 and 14 operators within 2 "
    "LSB of ONNX Runtime at both levels",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  for (const std::string activation : {"relu", "gelu"}) {
    INFO(activation);
    const std::string model = export_script("encoder_layer_" + activation, R"PY(
import sys, torch, torch.nn as nn
torch.manual_seed(0)
m = nn.TransformerEncoderLayer(48, 4, dim_feedforward=96, batch_first=True, dropout=0.0,
                               activation=")PY" + activation + R"PY(").eval()
with torch.no_grad():  # torch starts the projection biases at 0: give them values
    m.self_attn.in_proj_bias.uniform_(-0.2, 0.2)
    m.self_attn.out_proj.bias.uniform_(-0.2, 0.2)
torch.onnx.export(m, torch.zeros(1, 10, 48), sys.argv[1], opset_version=17,
                  input_names=["x"], output_names=["y"])
)PY");
    const std::string out = model.substr(0, model.size() - 5) + "_qdq.onnx";
    const bool gelu = activation == "gelu";
    CHECK_THAT(quantise(model, out),
               Catch::Contains(gelu ? "15 activations quantised" : "14 activations quantised"));
    const npusim::test::OrtComparison c =
        npusim::test::ort_compare(out, "--levels all,disabled --tolerance 2");
    INFO(c.text);
    CHECK_THAT(c.text, Catch::Contains("[all] y float32 [1, 10, 48]: max |diff|") &&
                           Catch::Contains("within --tolerance 2"));
    if (!npusim::test::skipped_for_want_of_vnni(c, out)) CHECK(c.status == 0);
    std::vector<std::string> expected = kEncoderBlock;
    if (gelu) expected.insert(expected.begin() + 10, "gelu");
    CHECK(operators_of(out) == expected);
  }
}

TEST_CASE(
    "npusim quantize: torch's nn.GELU between two Linears on a 10 x 48 sequence, exported at "
    "opsets 13 and 17 as Div, Erf, Add, Mul, Mul, runs as matmul, gelu, matmul and equals ONNX "
    "Runtime bit for bit at both levels",
    "[onnx][torch]") {
  if (!have_torch_and_ort()) return;
  for (const std::string opset : {"13", "17"}) {
    INFO("opset " << opset);
    const std::string model = export_script("gelu_" + opset, R"PY(
import sys, torch, torch.nn as nn
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(48, 96), nn.GELU(), nn.Linear(96, 40)).eval()
torch.onnx.export(m, torch.zeros(1, 10, 48), sys.argv[1], opset_version=)PY" +
                                                                 opset + R"PY(,
                  input_names=["x"], output_names=["y"])
)PY");
    const std::string out = model.substr(0, model.size() - 5) + "_qdq.onnx";
    CHECK_THAT(quantise(model, out), Catch::Contains("4 activations quantised"));
    const npusim::test::OrtComparison c = npusim::test::ort_compare(out, "--levels all,disabled");
    INFO(c.text);
    CHECK_THAT(c.text, Catch::Contains("[disabled] y float32 [1, 10, 40]: bit-exact (400"));
    npusim::test::check_ort_bit_exact(c, "y float32 [1, 10, 40]");
    CHECK(operators_of(out) == std::vector<std::string>{"matmul", "gelu", "matmul"});
  }
}
