// Reading an ONNX file without holding its weights twice (onnx_reader.h): the
// model read field by field is the model protobuf reads, with large 8-bit
// initialisers' values beside it; a damaged file is refused without
// allocating what its lengths claim; an operator takes over a weight only
// from its last reader.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

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

// The weights [2, 2, 1, 2] (OIHW) 1..8 as the simulator lays them out: kernel k,
// tap s, channel c at (k * 2 + s) * 2 + c; OIHW has it at (k * 2 + c) * 2 + s.
const std::vector<int8_t> kTwoConvsNhwc{1, 3, 2, 4, 5, 7, 6, 8};

}  // namespace

TEST_CASE(
    "onnx reader: the model read field by field equals protobuf's, the int8 and uint8 "
    "initialisers of 1 MiB and more beside it, smaller and float ones inside",
    "[onnx]") {
  ModelBuilder m;
  m.model.set_producer_name("reader-test");
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, 2, 3, 4});
  auto* pool = m.node("MaxPool", {"x"}, {"y"}, "pool");
  ModelBuilder::ints_attribute(pool, "kernel_shape", {1, 1});
  m.output("y");
  const int64_t mib = int64_t(onnx_detail::kSideBytesAtLeast);
  *m.g->add_initializer() = raw_tensor("big_i8", onnx::TensorProto_DataType_INT8, mib);
  *m.g->add_initializer() = raw_tensor("small_u8", onnx::TensorProto_DataType_UINT8, mib - 1);
  *m.g->add_initializer() = raw_tensor("big_f32", onnx::TensorProto_DataType_FLOAT, 2 * mib);
  *m.g->add_initializer() = raw_tensor("big_u8", onnx::TensorProto_DataType_UINT8, mib + 3);
  const std::string path = m.save("reader.onnx");

  onnx_detail::ReadModel read;
  REQUIRE(onnx_detail::read_onnx_model(path, read));
  const onnx::GraphProto& g = read.model.graph();
  REQUIRE(g.initializer_size() == 4);
  REQUIRE(read.side_bytes.size() == 4);
  CHECK(read.side_bytes[0].size() == size_t(mib));
  CHECK(read.side_bytes[1].empty());
  CHECK(read.side_bytes[2].empty());
  CHECK(read.side_bytes[3].size() == size_t(mib + 3));
  // With the side values put back, the very model protobuf reads.
  onnx::ModelProto restored = read.model;
  for (int i : {0, 3}) {
    const std::vector<int8_t>& side = read.side_bytes[size_t(i)];
    restored.mutable_graph()->mutable_initializer(i)->set_raw_data(
        std::string(side.begin(), side.end()));
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
  SECTION("a raw_data length of 2 GiB - 1 in a 1 MiB file") {
    // The varint of the raw_data length (1 MiB + 5) after its tag 0x4a, made 0x7fffffff.
    const std::string tag_and_length = std::string("\x4a\x85\x80\x40", 4);
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
  auto* constant = m.node("Constant", {}, {"w"}, "weights");
  auto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  onnx::TensorProto* t = value->mutable_t();
  t->set_data_type(onnx::TensorProto_DataType_INT8);
  for (int64_t d : {2, 2, 1, 2}) t->add_dims(d);
  t->set_raw_data(std::string{1, 2, 3, 4, 5, 6, 7, 8});
  m.node("Identity", {"w"}, {"w2"}, "copy");
  add_two_convs(m, "w", "w2");
  const OnnxModel model = import_onnx(m.save("constant_w.onnx"), {});
  REQUIRE(model.network.layers.size() == 2);
  CHECK(model.network.layers[0].weight_values == kTwoConvsNhwc);
  CHECK(model.network.layers[1].weight_values == kTwoConvsNhwc);
}
