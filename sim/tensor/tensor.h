// A small dense tensor (row-major, explicit shape) and .npy I/O for int8/int32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim {

template <typename T>
struct Tensor {
  std::vector<uint32_t> shape;
  std::vector<T> data;

  Tensor() = default;
  explicit Tensor(std::vector<uint32_t> s) : shape(std::move(s)), data(element_count(shape)) {}
  static uint64_t element_count(const std::vector<uint32_t>& s) {
    uint64_t n = 1;
    for (uint32_t d : s) n *= d;
    return n;
  }
  uint64_t size() const { return data.size(); }
};

using TensorI8 = Tensor<int8_t>;
using TensorI32 = Tensor<int32_t>;
using TensorU8 = Tensor<uint8_t>;

// Throws std::runtime_error naming the file on any format problem
// (wrong dtype, Fortran order, truncated data, unsupported version).
TensorI8 read_npy_int8(const std::string& path);
TensorI32 read_npy_int32(const std::string& path);
TensorU8 read_npy_uint8(const std::string& path);
// The dtype a .npy file states ('|u1', '<f4', ...), for readers that take several.
std::string read_npy_descr(const std::string& path);
// float32 ('<f4'): an ONNX model's scales given as a file (--input).
Tensor<float> read_npy_float32(const std::string& path);
void write_npy(const std::string& path, const TensorI8& t);
void write_npy(const std::string& path, const TensorI32& t);
void write_npy(const std::string& path, const TensorU8& t);
// float32 ('<f4'), for dequantised model outputs.
void write_npy_float(const std::string& path, const std::vector<uint32_t>& shape,
                     const std::vector<float>& values);

// FNV-1a 64-bit digest of the raw bytes, printed as 16 hex digits.
std::string digest_hex(const void* data, uint64_t bytes);

}  // namespace npusim
