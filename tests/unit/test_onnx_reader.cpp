// Reading an ONNX file without holding its weights twice (onnx_reader.h): the
// model read field by field is the model protobuf reads, with large 8-bit
// initialisers' values beside it; a damaged file is refused without
// allocating what its lengths claim; an operator takes over a weight only
// from its last reader.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/frontend/onnx/onnx_import.h"
#include "sim/frontend/onnx/onnx_reader.h"
#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

using ModelBuilder = test::OnnxModelBuilder;

// A raw-data initialiser of `n` bytes with a seeded pattern, its name written after its data
// (field order is the writer's choice).
onnx::TensorProto raw_tensor(const std::string& name, int type, int64_t n) {
  onnx::TensorProto t;
  std::string raw(size_t(n), '\0');
  for (int64_t i = 0; i < n; ++i) raw[size_t(i)] = char((i * 131 + 7) % 251);
  t.set_raw_data(raw);
  t.add_dims(n / (type == onnx::TensorProto_DataType_FLOAT ? 4 : 1));
  t.set_data_type(type);
  t.set_name(name);
  return t;
}

// x uint8 [1, 2, 1, 3] and the quantisation (scale 1, zero point 0) of add_two_convs.
ModelBuilder two_convs_input() {
  ModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, 2, 1, 3});
  m.scalar_float("s", 1.0f);
  m.ints("z", onnx::TensorProto_DataType_UINT8, {}, {0});
  m.ints("wz", onnx::TensorProto_DataType_INT8, {}, {0});
  return m;
}

// Two 1x2 convolutions of x, "a" with weights `wa` and "b" with `wb`: graph outputs both.
void add_two_convs(ModelBuilder& m, const std::string& wa, const std::string& wb) {
  for (const auto& [name, w] : {std::pair{"a", wa}, std::pair{"b", wb}}) {
    m.node("QLinearConv", {"x", "s", "z", w, "s", "wz", "s", "z"}, {name}, name);
    m.output(name);
  }
}

// A Constant node "weights" whose int8 value of `dims` (set by the caller) is tensor `out`,
// as torch.onnx writes weights.
onnx::TensorProto* constant_node(ModelBuilder& m, const std::string& out,
                                 const std::vector<int64_t>& dims) {
  auto* value = m.node("Constant", {}, {out}, "weights")->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  onnx::TensorProto* t = value->mutable_t();
  t->set_data_type(onnx::TensorProto_DataType_INT8);
  for (int64_t d : dims) t->add_dims(d);
  return t;
}

// The weights [2, 2, 1, 2] (OIHW) 1..8 as the simulator lays them out: kernel k,
// tap s, channel c at (k * 2 + s) * 2 + c; OIHW has it at (k * 2 + c) * 2 + s.
const std::vector<int8_t> kTwoConvsNhwc{1, 3, 2, 4, 5, 7, 6, 8};

}  // namespace

TEST_CASE(
    "onnx reader: the model read field by field equals protobuf's, the values of int8 and "
    "uint8 initialisers of 16 KiB and more left in the file where it says, smaller and float "
    "ones inside",
    "[onnx]") {
  ModelBuilder m;
  m.model.set_producer_name("reader-test");
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, 2, 3, 4});
  auto* pool = m.node("MaxPool", {"x"}, {"y"}, "pool");
  ModelBuilder::ints_attribute(pool, "kernel_shape", {1, 1});
  m.output("y");
  const int64_t mib = int64_t(onnx_detail::kSideBytesAtLeast);
  REQUIRE(mib == 16 << 10);
  *m.g->add_initializer() = raw_tensor("big_i8", onnx::TensorProto_DataType_INT8, mib);
  *m.g->add_initializer() = raw_tensor("small_u8", onnx::TensorProto_DataType_UINT8, mib - 1);
  *m.g->add_initializer() = raw_tensor("big_f32", onnx::TensorProto_DataType_FLOAT, 2 * mib);
  *m.g->add_initializer() = raw_tensor("big_u8", onnx::TensorProto_DataType_UINT8, mib + 3);
  const std::string path = m.save("reader.onnx");

  onnx_detail::ReadModel read;
  REQUIRE(onnx_detail::read_onnx_model(path, read));
  const onnx::GraphProto& g = read.model.graph();
  REQUIRE(g.initializer_size() == 4);
  REQUIRE(read.side_spans.size() == 2);
  CHECK(read.side_spans[0].size == uint64_t(mib));
  CHECK(read.side_spans[1].size == uint64_t(mib + 3));
  for (int i : {1, 2}) CHECK_FALSE(onnx_detail::span_in_file(g.initializer(i)));
  CHECK(g.initializer(0).raw_data().size() == 1);  // the stand-in
  CHECK(g.initializer(2).raw_data().size() == size_t(2 * mib));
  // With the values read from where the marks say, the very model protobuf reads.
  onnx::ModelProto restored = read.model;
  for (int i : {0, 3}) {
    const std::optional<onnx_detail::FileSpan> span = onnx_detail::span_in_file(g.initializer(i));
    REQUIRE(span);
    CHECK(*span == read.side_spans[i == 0 ? 0 : 1]);
    const std::vector<int8_t> side = onnx_detail::read_file_span(path, *span);
    onnx::TensorProto& t = *restored.mutable_graph()->mutable_initializer(i);
    t.set_raw_data(std::string(side.begin(), side.end()));
    t.clear_external_data();
  }
  onnx::ModelProto direct;
  std::ifstream in(path, std::ios::binary);
  REQUIRE(direct.ParseFromIstream(&in));
  CHECK(restored.SerializeAsString() == direct.SerializeAsString());
  CHECK(read.model.producer_name() == "reader-test");
}

TEST_CASE(
    "onnx reader: a truncated file, or a raw_data length past the file's end, "
    "is refused as not a model",
    "[onnx]") {
  ModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, 2, 3, 4});
  *m.g->add_initializer() =
      raw_tensor("w", onnx::TensorProto_DataType_INT8, int64_t(onnx_detail::kSideBytesAtLeast) + 5);
  std::string bytes = m.model.SerializeAsString();
  const std::string path = test::temp_dir() + "/reader_bad.onnx";
  onnx_detail::ReadModel read;
  SECTION("truncated in the tensor's values") {
    std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() - 100);
    CHECK_FALSE(onnx_detail::read_onnx_model(path, read));
  }
  SECTION("a raw_data length of 2 GiB - 1 in a 16 KiB file") {
    // The varint of the raw_data length (16 KiB + 5) after its tag 0x4a, made 0x7fffffff.
    const std::string tag_and_length = std::string("\x4a\x85\x80\x01", 4);
    const size_t at = bytes.find(tag_and_length);
    REQUIRE(at != std::string::npos);
    bytes.replace(at + 1, 3, std::string("\xff\xff\xff\xff\x07", 5));
    std::ofstream(path, std::ios::binary) << bytes;
    CHECK_FALSE(onnx_detail::read_onnx_model(path, read));
  }
}

TEST_CASE(
    "onnx: a weight two convolutions read is in each layer's channels-last layout, the first "
    "holding a copy and the last the constant itself",
    "[onnx]") {
  ModelBuilder m = two_convs_input();
  m.ints("w", onnx::TensorProto_DataType_INT8, {2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  add_two_convs(m, "w", "w");
  const OnnxModel model = import_onnx(m.save("shared_w.onnx"), {});
  REQUIRE(model.network.layers.size() == 2);
  CHECK(model.network.layers[0].weight_values == kTwoConvsNhwc);
  CHECK(model.network.layers[1].weight_values == kTwoConvsNhwc);
}

TEST_CASE(
    "onnx: weights a Constant node holds, as torch.onnx writes them, and an Identity of them "
    "are each convolution's weights",
    "[onnx]") {
  ModelBuilder m = two_convs_input();
  constant_node(m, "w", {2, 2, 1, 2})->set_raw_data(std::string{1, 2, 3, 4, 5, 6, 7, 8});
  m.node("Identity", {"w"}, {"w2"}, "copy");
  add_two_convs(m, "w", "w2");
  const OnnxModel model = import_onnx(m.save("constant_w.onnx"), {});
  REQUIRE(model.network.layers.size() == 2);
  CHECK(model.network.layers[0].weight_values == kTwoConvsNhwc);
  CHECK(model.network.layers[1].weight_values == kTwoConvsNhwc);
}

TEST_CASE(
    "onnx: a Constant node's weights of 16 KiB and more, and an Identity's copy, stay in the file "
    "until each convolution reads them in its channels-last layout",
    "[onnx]") {
  constexpr int64_t K = 64, C = 32;                         // 3x3 kernels: 18,432 bytes
  const auto w_at = [](int64_t k, int64_t c, int64_t rs) {  // OIHW value, seeded pattern
    return int8_t((k * 31 + c * 7 + rs * 3) % 255 - 127);
  };
  ModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, C, 5, 4});
  m.scalar_float("s", 1.0f);
  m.ints("z", onnx::TensorProto_DataType_UINT8, {}, {0});
  m.ints("wz", onnx::TensorProto_DataType_INT8, {}, {0});
  onnx::TensorProto* t = constant_node(m, "w", {K, C, 3, 3});
  std::string raw;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t rs = 0; rs < 9; ++rs) raw.push_back(char(w_at(k, c, rs)));
  t->set_raw_data(raw);
  m.node("Identity", {"w"}, {"w2"}, "copy");
  add_two_convs(m, "w", "w2");
  const std::string path = m.save("constant_big_w.onnx");

  onnx_detail::ReadModel read;
  REQUIRE(onnx_detail::read_onnx_model(path, read));
  REQUIRE(read.side_spans.size() == 1);
  CHECK(read.side_spans[0].size == uint64_t(K * C * 9));
  CHECK(read.model.graph().node(0).attribute(0).t().raw_data().size() == 1);  // the stand-in

  std::vector<int8_t> nhwc;  // kernel k, tap rs, channel c at (k * 9 + rs) * C + c
  for (int64_t k = 0; k < K; ++k)
    for (int64_t rs = 0; rs < 9; ++rs)
      for (int64_t c = 0; c < C; ++c) nhwc.push_back(w_at(k, c, rs));
  const OnnxModel model = import_onnx(path, {});
  REQUIRE(model.network.layers.size() == 2);
  CHECK(model.network.layers[0].weight_values == nhwc);
  CHECK(model.network.layers[1].weight_values == nhwc);
}

TEST_CASE(
    "onnx: a tensor that carries npusim's own file marks in the model file is refused at its "
    "external_data",
    "[onnx]") {
  ModelBuilder m = two_convs_input();
  m.ints("w", onnx::TensorProto_DataType_INT8, {2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  onnx::TensorProto& w = *m.g->mutable_initializer(m.g->initializer_size() - 1);
  for (const char* key : {onnx_detail::kFileOffsetKey, onnx_detail::kFileSizeKey}) {
    onnx::StringStringEntryProto* e = w.add_external_data();
    e->set_key(key);
    e->set_value(std::string(key) == onnx_detail::kFileOffsetKey ? "0" : "8");
  }
  add_two_convs(m, "w", "w");
  const ConfigError e = test::config_error_from([&] { import_onnx(m.save("forged.onnx"), {}); });
  CHECK(e.pointer() == "/graph/initializer/w/external_data");
  CHECK_THAT(e.found(), Catch::Contains("8 bytes at offset 0 that the file does not hold there"));
}
