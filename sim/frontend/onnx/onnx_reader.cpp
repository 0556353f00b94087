// The model file walked field by field (onnx_reader.h): ModelProto.graph (7),
// GraphProto.initializer (5) and TensorProto.raw_data (9) by hand, GraphProto.node
// (1) parsed by protobuf where it lies, every other field copied as it is and
// parsed by protobuf.
#include "sim/frontend/onnx/onnx_reader.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <system_error>

namespace npusim::onnx_detail {

namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using google::protobuf::io::StringOutputStream;

constexpr int kModelGraph = 7, kGraphNode = 1, kGraphInitializer = 5, kTensorRawData = 9;

class Walker {
 public:
  Walker(CodedInputStream& in, uint64_t file_size) : in_(in), file_size_(file_size) {}

  bool model(ReadModel& out) {
    std::string rest, graph_rest;
    onnx::GraphProto graph;
    std::vector<onnx::TensorProto> initializers;
    bool has_graph = false;
    while (const uint32_t tag = in_.ReadTag()) {
      if (!field_is(tag, kModelGraph)) {
        if (!copy_field(tag, rest)) return false;
        continue;
      }
      has_graph = true;
      if (!message([&] { return this->graph(graph, graph_rest, initializers, out.side_bytes); }))
        return false;
    }
    if (!in_.ConsumedEntireMessage() || !out.model.ParseFromString(rest)) return false;
    if (!has_graph) return true;
    if (!graph.MergeFromString(graph_rest)) return false;
    for (onnx::TensorProto& t : initializers) *graph.add_initializer() = std::move(t);
    out.model.mutable_graph()->Swap(&graph);
    return true;
  }

 private:
  static bool field_is(uint32_t tag, int field) {
    return WireFormatLite::GetTagFieldNumber(tag) == field &&
           WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
  }

  // The field whose tag was just read, tag included, appended to `out` as it was.
  bool copy_field(uint32_t tag, std::string& out) {
    StringOutputStream sink(&out);
    CodedOutputStream o(&sink);
    return WireFormatLite::SkipField(&in_, tag, &o);
  }

  // A length-delimited message read by `body` within its length.
  template <typename Body>
  bool message(Body body) {
    uint32_t length = 0;
    if (!in_.ReadVarint32(&length) || length > uint32_t(INT_MAX)) return false;
    const CodedInputStream::Limit limit = in_.PushLimit(int(length));
    if (!body() || !in_.ConsumedEntireMessage()) return false;
    in_.PopLimit(limit);
    return true;
  }

  // Nodes are parsed straight into `g` (a Constant node may hold megabytes:
  // torch.onnx writes weights so), initialisers by tensor(), the other fields
  // (names, inputs, outputs, value_info: small) copied to `rest`.
  bool graph(onnx::GraphProto& g, std::string& rest, std::vector<onnx::TensorProto>& initializers,
             std::vector<std::vector<int8_t>>& side) {
    while (const uint32_t tag = in_.ReadTag()) {
      if (field_is(tag, kGraphNode)) {
        if (!message([&] { return g.add_node()->MergePartialFromCodedStream(&in_); })) return false;
        continue;
      }
      if (!field_is(tag, kGraphInitializer)) {
        if (!copy_field(tag, rest)) return false;
        continue;
      }
      initializers.emplace_back();
      side.emplace_back();
      if (!message([&] { return tensor(initializers.back(), side.back()); })) return false;
    }
    return true;
  }

  // A TensorProto; a large raw_data into `side`, moved back into the tensor
  // unless the tensor is 8-bit.
  bool tensor(onnx::TensorProto& t, std::vector<int8_t>& side) {
    std::string rest;
    while (const uint32_t tag = in_.ReadTag()) {
      if (!field_is(tag, kTensorRawData)) {
        if (!copy_field(tag, rest)) return false;
        continue;
      }
      uint32_t n = 0;
      if (!in_.ReadVarint32(&n)) return false;
      // Never allocate more than the file still holds (a damaged length).
      if (uint64_t(n) > file_size_ - uint64_t(in_.CurrentPosition())) return false;
      if (n >= kSideBytesAtLeast) {
        side.resize(n);
        if (!in_.ReadRaw(side.data(), int(n))) return false;
        continue;
      }
      side.clear();  // the last raw_data counts
      std::string small;
      if (!in_.ReadString(&small, int(n))) return false;
      StringOutputStream sink(&rest);
      CodedOutputStream o(&sink);
      o.WriteTag(uint32_t(tag));
      o.WriteVarint32(n);
      o.WriteString(small);
    }
    if (!t.ParseFromString(rest)) return false;
    if (side.empty()) return true;
    const bool eight_bit = t.data_type() == onnx::TensorProto_DataType_INT8 ||
                           t.data_type() == onnx::TensorProto_DataType_UINT8;
    if (eight_bit) {
      t.set_raw_data(std::string(1, 0));  // a stand-in: the checker counts non-empty fields
    } else {
      t.set_raw_data(std::string(side.begin(), side.end()));
      std::vector<int8_t>().swap(side);
    }
    return true;
  }

  CodedInputStream& in_;
  uint64_t file_size_;
};

}  // namespace

bool read_onnx_model(const std::string& path, ReadModel& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), path);
  struct stat st {};
  const bool sized = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  bool ok = false;
  {
    google::protobuf::io::FileInputStream file(fd);
    CodedInputStream in(&file);
    in.SetTotalBytesLimit(INT_MAX);
    // A pipe has no size to check lengths against: protobuf reads it whole.
    ok = sized ? Walker(in, uint64_t(st.st_size)).model(out) : out.model.ParseFromCodedStream(&in);
  }
  ::close(fd);
  return ok;
}

}  // namespace npusim::onnx_detail
