// The model file walked field by field (onnx_reader.h): ModelProto.graph (7),
// GraphProto.initializer (5) and node (1), NodeProto.attribute (5),
// AttributeProto.t (5) and TensorProto.raw_data (9) by hand, every other field
// copied as it is and parsed by protobuf. A large 8-bit raw_data is skipped, its
// place kept.
#include "sim/frontend/onnx/onnx_reader.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

namespace npusim::onnx_detail {

namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using google::protobuf::io::StringOutputStream;

constexpr int kModelGraph = 7, kGraphNode = 1, kGraphInitializer = 5, kTensorRawData = 9,
              kNodeAttribute = 5, kAttributeTensor = 5;

// The model file opened for reading, closed however the reader leaves.
class OpenFile {
 public:
  explicit OpenFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), path);
  }
  ~OpenFile() { ::close(fd_); }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// The bytes of `span` of the open file `fd` into `out`; false when the file ends first.
bool read_at(int fd, FileSpan span, char* out) {
  uint64_t done = 0;
  while (done < span.size) {
    const ssize_t n = ::pread(fd, out + done, size_t(span.size - done), off_t(span.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += uint64_t(n);
  }
  return true;
}

class Walker {
 public:
  Walker(CodedInputStream& in, int fd, uint64_t file_size)
      : in_(in), fd_(fd), file_size_(file_size) {}

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
      if (!message([&] { return this->graph(graph, graph_rest, initializers, out.side_spans); }))
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

  // Nodes by node() (a Constant node may hold megabytes: torch.onnx writes
  // weights so), initialisers by tensor(), the other fields (names, inputs,
  // outputs, value_info: small) copied to `rest`.
  bool graph(onnx::GraphProto& g, std::string& rest, std::vector<onnx::TensorProto>& initializers,
             std::vector<FileSpan>& spans) {
    while (const uint32_t tag = in_.ReadTag()) {
      if (field_is(tag, kGraphNode)) {
        if (!message([&] { return node(*g.add_node(), spans); })) return false;
        continue;
      }
      if (!field_is(tag, kGraphInitializer)) {
        if (!copy_field(tag, rest)) return false;
        continue;
      }
      initializers.emplace_back();
      if (!message([&] { return tensor(initializers.back(), spans); })) return false;
    }
    return true;
  }

  // A NodeProto: each attribute by attribute(), in order; the other fields copied and parsed.
  bool node(onnx::NodeProto& n, std::vector<FileSpan>& spans) {
    return fields(n, kNodeAttribute, [&] { return attribute(*n.add_attribute(), spans); });
  }

  // An AttributeProto: its tensor `t` (a Constant node's value) by tensor(), the rest parsed.
  bool attribute(onnx::AttributeProto& a, std::vector<FileSpan>& spans) {
    return fields(a, kAttributeTensor, [&] { return tensor(*a.mutable_t(), spans); });
  }

  // The message being read, into `m`: each length-delimited `field` by `part`, in order; the
  // other fields copied, then parsed by protobuf.
  template <typename Message, typename Part>
  bool fields(Message& m, int field, Part part) {
    std::string rest;
    while (const uint32_t tag = in_.ReadTag()) {
      if (!field_is(tag, field)) {
        if (!copy_field(tag, rest)) return false;
        continue;
      }
      if (!message(part)) return false;
    }
    return m.MergeFromString(rest);
  }

  // A TensorProto; an 8-bit one's large raw_data left in the file (its place marked in the
  // tensor and added to `spans`); another type's read back into the tensor.
  bool tensor(onnx::TensorProto& t, std::vector<FileSpan>& spans) {
    FileSpan side;
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
        side = FileSpan{uint64_t(in_.CurrentPosition()), n};
        if (!in_.Skip(int(n))) return false;
        continue;
      }
      side = FileSpan{};  // the last raw_data counts
      std::string small;
      if (!in_.ReadString(&small, int(n))) return false;
      StringOutputStream sink(&rest);
      CodedOutputStream o(&sink);
      o.WriteTag(uint32_t(tag));
      o.WriteVarint32(n);
      o.WriteString(small);
    }
    if (!t.ParseFromString(rest)) return false;
    if (side.size == 0) return true;
    const bool eight_bit = t.data_type() == onnx::TensorProto_DataType_INT8 ||
                           t.data_type() == onnx::TensorProto_DataType_UINT8;
    if (eight_bit) {
      t.set_raw_data(std::string(1, 0));  // a stand-in: the checker counts non-empty fields
      for (const auto& [key, value] :
           {std::pair{kFileOffsetKey, side.offset}, std::pair{kFileSizeKey, side.size}}) {
        onnx::StringStringEntryProto* e = t.add_external_data();
        e->set_key(key);
        e->set_value(std::to_string(value));
      }
      spans.push_back(side);
      return true;
    }
    std::string& raw = *t.mutable_raw_data();
    raw.resize(side.size);
    return read_at(fd_, side, raw.data());
  }

  CodedInputStream& in_;
  int fd_;
  uint64_t file_size_;
};

}  // namespace

bool read_onnx_model(const std::string& path, ReadModel& out) {
  const OpenFile opened(path);
  const int fd = opened.fd();
  struct stat st {};
  const bool sized = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  bool ok = false;
  {
    google::protobuf::io::FileInputStream file(fd);
    CodedInputStream in(&file);
    in.SetTotalBytesLimit(INT_MAX);
    // A pipe has no size to check lengths against: protobuf reads it whole.
    ok = sized ? Walker(in, fd, uint64_t(st.st_size)).model(out)
               : out.model.ParseFromCodedStream(&in);
  }
  return ok;
}

std::optional<FileSpan> span_in_file(const onnx::TensorProto& t) {
  std::optional<uint64_t> offset, size;
  for (const onnx::StringStringEntryProto& e : t.external_data()) {
    if (e.key() != kFileOffsetKey && e.key() != kFileSizeKey) continue;
    const char* begin = e.value().c_str();
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(begin, &end, 10);
    if (e.value().empty() || *end != '\0' || errno != 0 || e.value()[0] == '-') return std::nullopt;
    (e.key() == kFileOffsetKey ? offset : size) = uint64_t(v);
  }
  if (!offset || !size) return std::nullopt;
  return FileSpan{*offset, *size};
}

namespace {

[[noreturn]] void file_changed(const std::string& path, FileSpan span) {
  throw std::runtime_error(path + ": ends before byte " + std::to_string(span.offset + span.size) +
                           " (the file changed while it was imported)");
}

}  // namespace

std::vector<int8_t> read_file_span(const std::string& path, FileSpan span) {
  const OpenFile file(path);
  std::vector<int8_t> bytes(span.size);
  if (!read_at(file.fd(), span, reinterpret_cast<char*>(bytes.data()))) file_changed(path, span);
  return bytes;
}

void read_file_span_in_chunks(const std::string& path, FileSpan span, uint64_t chunk,
                              const std::function<void(const int8_t*, uint64_t)>& use) {
  const OpenFile file(path);
  std::unique_ptr<int8_t[]> buffer(new int8_t[std::min(chunk, span.size) + 1]);
  for (uint64_t done = 0; done < span.size;) {
    const FileSpan piece{span.offset + done, std::min(chunk, span.size - done)};
    if (!read_at(file.fd(), piece, reinterpret_cast<char*>(buffer.get()))) file_changed(path, span);
    use(buffer.get(), piece.size);
    done += piece.size;
  }
}

}  // namespace npusim::onnx_detail
