// Reads an ONNX model file without holding its weights twice. Protobuf reads a
// `bytes` field from a stream in 50 MB steps that then double, so a 100 MB
// tensor briefly takes 200 MB beside the rest of the model (VGG's first
// classifier layer). Here the model is walked field by field: each large 8-bit
// initialiser's raw_data is read straight into a buffer of its exact size, and
// everything else is parsed by protobuf as before (docs/onnx.md#memory).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace npusim::onnx_detail {

// An int8 or uint8 initialiser of at least this many bytes has its values in
// ReadModel::side_bytes; its TensorProto keeps an empty raw_data (so that
// ONNX's checker still sees one value field).
inline constexpr uint64_t kSideBytesAtLeast = 1 << 20;

struct ReadModel {
  onnx::ModelProto model;
  // By initialiser index; empty where the values are in the TensorProto.
  std::vector<std::vector<int8_t>> side_bytes;
};

// Reads the model file at `path` into `out`. False when its bytes are not a
// ModelProto (truncated, not ONNX); throws std::system_error when it cannot be opened.
bool read_onnx_model(const std::string& path, ReadModel& out);

}  // namespace npusim::onnx_detail
