// Reads an ONNX model file without holding its weights. Protobuf reads a
// `bytes` field from a stream in 50 MB steps that then double, so a 100 MB
// tensor briefly takes 200 MB beside the rest of the model (VGG's first
// classifier layer). Here the model is walked field by field: each large 8-bit
// initialiser's raw_data is skipped and only where it lies is kept, for the
// importer to read when an operator takes the weights over (one operator's
// weights at a time); everything else is parsed by protobuf as before
// (docs/onnx.md#memory).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace npusim::onnx_detail {

// An int8 or uint8 tensor (an initialiser, or a Constant node's value) of at
// least this many bytes has its values left in the file; its TensorProto keeps a
// one-byte stand-in raw_data (so that ONNX's checker still sees one value field)
// and says where the values lie in two external_data entries (kFileOffsetKey,
// kFileSizeKey; its data_location stays DEFAULT), which travel with it through
// the graph rewrites (a Constant node hoisted, an Identity's copy). Scales and
// zero points, which the rewrites read from the TensorProto, are far smaller.
inline constexpr uint64_t kSideBytesAtLeast = 16 << 10;
inline constexpr const char* kFileOffsetKey = "npusim_file_offset";
inline constexpr const char* kFileSizeKey = "npusim_file_size";

// Where values lie in the model file.
struct FileSpan {
  uint64_t offset = 0, size = 0;
  friend bool operator==(const FileSpan& a, const FileSpan& b) {
    return a.offset == b.offset && a.size == b.size;
  }
};

struct ReadModel {
  onnx::ModelProto model;
  // Every span of values left in the file, in the order the file holds them: a
  // marked tensor whose span is not here was marked by the file, not the reader.
  std::vector<FileSpan> side_spans;
};

// The span a tensor's marker names, or nullopt when it has none (or a malformed one).
std::optional<FileSpan> span_in_file(const onnx::TensorProto& t);

// Reads the model file at `path` into `out`. False when its bytes are not a
// ModelProto (truncated, not ONNX); throws std::system_error when it cannot be opened.
bool read_onnx_model(const std::string& path, ReadModel& out);

// The bytes of `span` in the file at `path`. Throws std::runtime_error when the file
// cannot be opened or no longer holds the span (changed since it was read).
std::vector<int8_t> read_file_span(const std::string& path, FileSpan span);

// The same bytes handed to `use` in consecutive pieces of at most `chunk` bytes
// (`chunk` > 0), read into one buffer of that size: a large tensor is gone through
// without holding it. The same errors as read_file_span.
void read_file_span_in_chunks(const std::string& path, FileSpan span, uint64_t chunk,
                              const std::function<void(const int8_t*, uint64_t)>& use);

}  // namespace npusim::onnx_detail
