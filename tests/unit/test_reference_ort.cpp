// sim/reference/qops against ONNX Runtime itself: every tests/data/ort/<case>.json
// (written by tools/ort-vectors, docs/quantization.md) holds a one-node ONNX model's
// inputs, attributes and ORT's output. Each is replayed through the reference and must
// match element for element; a mismatch names the case and the first differing index.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/reference/qops.h"
#include "sim/reference/qsequence.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace npusim::reference::qops;

namespace {

const fs::path kOrtDir = fs::path(NPUSIM_SOURCE_DIR) / "tests" / "data" / "ort";

std::vector<fs::path> case_files() {
  std::vector<fs::path> files;
  if (fs::is_directory(kOrtDir))
    for (const auto& e : fs::directory_iterator(kOrtDir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

ElemType elem_type(const std::string& s) {
  if (s == "int8") return ElemType::Int8;
  if (s == "uint8") return ElemType::Uint8;
  if (s == "int32") return ElemType::Int32;
  throw std::runtime_error("unsupported dtype " + s);
}

const json& reference_ort_input(const json& c, const std::string& name) {
  if (!c.at("inputs").contains(name)) throw std::runtime_error("missing input " + name);
  return c.at("inputs").at(name);
}

QTensor tensor(const json& t) {
  QTensor q;
  q.type = elem_type(t.at("dtype").get<std::string>());
  q.shape = t.at("shape").get<std::vector<uint32_t>>();
  q.data = t.at("data").get<std::vector<int32_t>>();
  return q;
}

// Scales are float32 values stored exactly as doubles.
std::vector<float> floats(const json& t) {
  if (t.at("dtype") != "float32") throw std::runtime_error("scale is not float32");
  std::vector<float> v;
  for (double d : t.at("data").get<std::vector<double>>()) v.push_back(float(d));
  return v;
}

Quant reference_ort_quant(const json& c, const std::string& prefix) {
  return {floats(reference_ort_input(c, prefix + "_scale")),
          reference_ort_input(c, prefix + "_zero_point").at("data").get<std::vector<int32_t>>()};
}

ElemType zp_type(const json& c, const std::string& prefix) {
  return elem_type(reference_ort_input(c, prefix + "_zero_point").at("dtype").get<std::string>());
}

std::vector<uint32_t> attr_u32(const json& c, const std::string& name, size_t n) {
  const auto v = c.at("attributes").at(name).get<std::vector<uint32_t>>();
  if (v.size() != n) throw std::runtime_error("attribute " + name + " needs " + std::to_string(n));
  return v;
}

ConvAttrs conv_attrs(const json& c) {
  ConvAttrs a;
  a.group = c.at("attributes").at("group").get<uint32_t>();
  const auto pads = attr_u32(c, "pads", 4), strides = attr_u32(c, "strides", 2),
             dilations = attr_u32(c, "dilations", 2);
  std::copy(pads.begin(), pads.end(), a.pads);
  std::copy(strides.begin(), strides.end(), a.stride);
  std::copy(dilations.begin(), dilations.end(), a.dilation);
  return a;
}

PoolAttrs pool_attrs(const json& c) {
  PoolAttrs a;
  const json& at = c.at("attributes");
  const auto kernel = attr_u32(c, "kernel_shape", 2), strides = attr_u32(c, "strides", 2),
             pads = attr_u32(c, "pads", 4);
  std::copy(kernel.begin(), kernel.end(), a.kernel);
  std::copy(strides.begin(), strides.end(), a.stride);
  std::copy(pads.begin(), pads.end(), a.pads);
  if (at.contains("dilations")) {
    const auto d = attr_u32(c, "dilations", 2);
    std::copy(d.begin(), d.end(), a.dilation);
  }
  a.ceil_mode = at.value("ceil_mode", 0) != 0;
  a.count_include_pad = at.value("count_include_pad", 0) != 0;
  return a;
}

std::vector<int32_t> ints_or_empty(const json& c, const std::string& name) {
  return c.at("inputs").contains(name)
             ? reference_ort_input(c, name).at("data").get<std::vector<int32_t>>()
             : std::vector<int32_t>{};
}

// Runs one case through the reference.
QTensor run_reference(const json& c) {
  const std::string op = c.at("op");
  if (op == "QLinearConv")
    return qlinear_conv(tensor(reference_ort_input(c, "x")), reference_ort_quant(c, "x"),
                        tensor(reference_ort_input(c, "w")), reference_ort_quant(c, "w"),
                        ints_or_empty(c, "bias"), reference_ort_quant(c, "y"), zp_type(c, "y"),
                        conv_attrs(c));
  if (op == "ConvInteger")
    return conv_integer(tensor(reference_ort_input(c, "x")),
                        reference_ort_input(c, "x_zero_point").at("data").at(0).get<int32_t>(),
                        tensor(reference_ort_input(c, "w")), ints_or_empty(c, "w_zero_point"),
                        conv_attrs(c));
  if (op == "MatMulInteger")
    return matmul_integer(tensor(reference_ort_input(c, "a")),
                          reference_ort_input(c, "a_zero_point").at("data").at(0).get<int32_t>(),
                          tensor(reference_ort_input(c, "b")), ints_or_empty(c, "b_zero_point"));
  if (op == "QLinearMatMul" || op == "QGemm") {
    if (op == "QGemm" && c.at("attributes").value("alpha", 1.0) != 1.0)
      throw std::runtime_error("QGemm with alpha != 1 has no reference");
    return qlinear_matmul(tensor(reference_ort_input(c, "a")), reference_ort_quant(c, "a"),
                          tensor(reference_ort_input(c, "b")), reference_ort_quant(c, "b"),
                          ints_or_empty(c, "bias"), reference_ort_quant(c, "y"), zp_type(c, "y"));
  }
  if (op == "MaxPool") return max_pool(tensor(reference_ort_input(c, "x")), pool_attrs(c));
  if (op == "QLinearAveragePool")
    return qlinear_average_pool(tensor(reference_ort_input(c, "x")), reference_ort_quant(c, "x"),
                                reference_ort_quant(c, "y"), zp_type(c, "y"), pool_attrs(c));
  if (op == "QLinearGlobalAveragePool") {
    if (c.at("attributes").value("channels_last", 0) != 0)
      throw std::runtime_error("channels_last inputs have no reference");
    return qlinear_global_average_pool(tensor(reference_ort_input(c, "x")),
                                       reference_ort_quant(c, "x"), reference_ort_quant(c, "y"),
                                       zp_type(c, "y"));
  }
  if (op == "QLinearAdd")
    return qlinear_add(tensor(reference_ort_input(c, "a")), reference_ort_quant(c, "a"),
                       tensor(reference_ort_input(c, "b")), reference_ort_quant(c, "b"),
                       reference_ort_quant(c, "y"), zp_type(c, "y"));
  if (op == "QLinearConcat") {
    std::vector<QTensor> xs;
    std::vector<Quant> qs;
    for (int i = 0; c.at("inputs").contains("x" + std::to_string(i)); ++i) {
      xs.push_back(tensor(reference_ort_input(c, "x" + std::to_string(i))));
      qs.push_back(reference_ort_quant(c, "x" + std::to_string(i)));
    }
    return qlinear_concat(xs, qs, reference_ort_quant(c, "y"), zp_type(c, "y"),
                          c.at("attributes").at("axis").get<uint32_t>());
  }
  if (op == "QLinearMul")
    return mul(tensor(reference_ort_input(c, "a")), reference_ort_quant(c, "a"),
               tensor(reference_ort_input(c, "b")), reference_ort_quant(c, "b"),
               reference_ort_quant(c, "y"), zp_type(c, "y"));
  // DQ -> op -> Q; Silu: DQ -> Mul(x, Sigmoid(x)) -> Q.
  if (op == "Sigmoid" || op == "HardSigmoid" || op == "HardSwish" || op == "Silu" || op == "Tanh" ||
      op == "LeakyRelu") {
    const Activation f = op == "Sigmoid"       ? Activation::Sigmoid
                         : op == "HardSigmoid" ? Activation::HardSigmoid
                         : op == "Silu"        ? Activation::Silu
                         : op == "Tanh"        ? Activation::Tanh
                         : op == "LeakyRelu"   ? Activation::LeakyRelu
                                               : Activation::HardSwish;
    const json& at = c.at("attributes");
    return activation(tensor(reference_ort_input(c, "x")), reference_ort_quant(c, "x"), f,
                      reference_ort_quant(c, "y"), zp_type(c, "y"),
                      at.value("alpha", op == "LeakyRelu" ? 0.01f : 0.2f), at.value("beta", 0.5f));
  }
  throw std::runtime_error("no reference for op " + op);
}

// "" when the reference equals ORT's output, else what differs first.
std::string compare(const json& c, const QTensor& got) {
  const QTensor want = tensor(c.at("output"));
  std::ostringstream out;
  if (got.type != want.type)
    out << "type " << type_name(got.type) << " != ORT's " << type_name(want.type);
  else if (got.shape != want.shape)
    out << "shape differs from ORT's (" << got.shape.size() << "-D vs " << want.shape.size()
        << "-D, " << got.data.size() << " vs " << want.data.size() << " values)";
  else
    for (size_t i = 0; i < want.data.size(); ++i)
      if (got.data[i] != want.data[i]) {
        size_t n = 0;
        for (size_t j = i; j < want.data.size(); ++j) n += got.data[j] != want.data[j];
        out << "first difference at flat index " << i << ": reference " << got.data[i] << ", ORT "
            << want.data[i] << " (" << n << " of " << want.data.size() << " values differ)";
        break;
      }
  return out.str();
}

}  // namespace

TEST_CASE("the ORT vector folder holds cases for every operator", "[reference][qops][ort]") {
  const auto files = case_files();
  INFO("folder: " << kOrtDir.string() << " (regenerate with tools/ort-vectors)");
  REQUIRE(files.size() >= 10);
  std::vector<std::string> ops;
  for (const auto& f : files) {
    std::ifstream in(f);
    ops.push_back(json::parse(in).at("op").get<std::string>());
  }
  for (const char* op :
       {"QLinearConv", "ConvInteger", "MatMulInteger", "QLinearMatMul", "QGemm", "MaxPool",
        "QLinearAveragePool", "QLinearGlobalAveragePool", "QLinearAdd", "QLinearConcat",
        "QLinearMul", "Sigmoid", "HardSigmoid", "HardSwish", "Silu", "Tanh", "LeakyRelu"}) {
    INFO("operator " << op);
    CHECK(std::count(ops.begin(), ops.end(), op) >= 2);
  }
}

TEST_CASE("the reference reproduces ONNX Runtime bit for bit on every stored case",
          "[reference][qops][ort]") {
  const auto files = case_files();
  REQUIRE(!files.empty());  // never pass vacuously
  size_t cases = 0, elements = 0;
  for (const auto& f : files) {
    std::ifstream in(f);
    const json c = json::parse(in);
    const std::string name = c.at("case");
    INFO("case " << name << " (" << f.filename().string() << ", op "
                 << c.at("op").get<std::string>() << ")");
    std::string mismatch;
    try {
      const QTensor got = run_reference(c);
      mismatch = compare(c, got);
      elements += got.data.size();
    } catch (const std::exception& e) {
      mismatch = std::string("threw: ") + e.what();
    }
    CHECK(mismatch == "");
    ++cases;
  }
  INFO(cases << " cases, " << elements << " output values compared");
  CHECK(cases == files.size());
  CHECK(elements > 0);
}

// Where ONNX Runtime departs from the operator definition, the definition
// decides (docs/quantization.md): without VNNI its uint8 x int8 kernels add
// two adjacent products in int16 (vpmaddubsw) and saturate at 32767.
TEST_CASE(
    "the reference sums 255 x 127 products exactly where ORT without VNNI saturates at 16 bits",
    "[reference][qops][ort]") {
  namespace q = npusim::reference::qops;
  q::QTensor x{{1, 2, 1, 1}, {255, 255}, q::ElemType::Uint8};
  q::QTensor w{{1, 2, 1, 1}, {127, 127}, q::ElemType::Int8};
  const q::QTensor acc = q::conv_integer(x, 0, w, {0}, q::ConvAttrs{});
  REQUIRE(acc.data.size() == 1);
  // ONNX: 255 * 127 + 255 * 127 = 64770; a vpmaddubsw pair would give 32767.
  CHECK(acc.data[0] == 64770);
  const q::QTensor y = q::qlinear_conv(x, {{1.0f}, {0}}, w, {{1.0f}, {0}}, {}, {{1024.0f}, {0}},
                                       q::ElemType::Uint8, q::ConvAttrs{});
  // round(64770 / 1024) = 63; from the saturated 32767 it would be 32.
  CHECK(y.data[0] == 63);
}
