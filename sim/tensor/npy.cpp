// NumPy .npy reading (format 1.0 and 2.0) and writing (1.0) for int8 and int32
// tensors, plus the FNV-1a digest used to fingerprint tensors in reports.
//
// Format reference: numpy/lib/format.py. A file is
//   "\x93NUMPY" major minor  header_len (u16 LE for 1.0, u32 LE for 2.0)
//   header: a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...), }
//           padded with spaces and ending in '\n'
//   raw element data in C order.
// Values are (de)serialised byte by byte as little-endian so the code does not
// depend on the host's byte order.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "sim/io/atomic_file.h"
#include "sim/tensor/tensor.h"

namespace npusim {
namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// NumPy aligns the start of the data to 64 bytes (so the data can be
// memory-mapped with any dtype's alignment); we do the same.
constexpr size_t kAlign = 64;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": not a valid .npy file for npusim: " + what);
}

std::string shape_str(const std::vector<uint32_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";  // Python's one-element tuple
  return s + ")";
}

// Finds `key` (single- or double-quoted) in the header dict and returns the
// position just after the ':' that follows it.
size_t find_value(const std::string& header, const std::string& key, const std::string& path) {
  for (const char* quote : {"'", "\""}) {
    const std::string quoted = quote + key + quote;
    size_t pos = header.find(quoted);
    if (pos == std::string::npos) continue;
    pos += quoted.size();
    while (pos < header.size() && header[pos] == ' ') ++pos;
    if (pos >= header.size() || header[pos] != ':')
      fail(path, "header key '" + key + "' has no value");
    ++pos;
    while (pos < header.size() && header[pos] == ' ') ++pos;
    return pos;
  }
  fail(path, "header has no '" + key + "' key");
}

std::string parse_descr(const std::string& header, const std::string& path) {
  size_t pos = find_value(header, "descr", path);
  if (pos >= header.size() || (header[pos] != '\'' && header[pos] != '"'))
    fail(path, "'descr' is not a string (structured dtypes are not supported)");
  const char quote = header[pos];
  const size_t end = header.find(quote, pos + 1);
  if (end == std::string::npos) fail(path, "unterminated 'descr' string");
  // NumPy's dtype strings are a few characters ('<f4', '|u1'); a longer one is
  // not echoed whole (a 1 MiB header filled the terminal).
  constexpr size_t kMaxDescr = 32;
  if (end - pos - 1 > kMaxDescr)
    fail(path, "'descr' of " + std::to_string(end - pos - 1) +
                   " characters, expected a dtype such as '<f4' ('" + header.substr(pos + 1, 20) +
                   "...')");
  return header.substr(pos + 1, end - pos - 1);
}

bool parse_fortran_order(const std::string& header, const std::string& path) {
  const size_t pos = find_value(header, "fortran_order", path);
  if (header.compare(pos, 4, "True") == 0) return true;
  if (header.compare(pos, 5, "False") == 0) return false;
  fail(path, "'fortran_order' is neither True nor False");
}

std::vector<uint32_t> parse_shape(const std::string& header, const std::string& path) {
  size_t pos = find_value(header, "shape", path);
  if (pos >= header.size() || header[pos] != '(') fail(path, "'shape' is not a tuple");
  const size_t end = header.find(')', pos);
  if (end == std::string::npos) fail(path, "unterminated 'shape' tuple");
  std::vector<uint32_t> shape;
  size_t i = pos + 1;
  while (i < end) {
    const char ch = header[i];
    if (ch == ' ' || ch == ',') {
      ++i;
      continue;
    }
    if (ch < '0' || ch > '9')
      fail(path, "'shape' holds a non-integer: " + header.substr(pos, end - pos + 1));
    uint64_t dim = 0;
    while (i < end && header[i] >= '0' && header[i] <= '9') {
      dim = dim * 10 + uint64_t(header[i] - '0');
      if (dim > UINT32_MAX) fail(path, "a dimension in 'shape' exceeds 2^32-1");
      ++i;
    }
    shape.push_back(uint32_t(dim));
  }
  return shape;
}

uint32_t read_le(const unsigned char* p, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= uint32_t(p[i]) << (8 * i);
  return v;
}

// A .npy file's bytes, and where its header (the dict text) and its data lie.
struct NpyFile {
  std::string bytes, header;
  size_t data_start = 0;
};

NpyFile read_npy_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))  // reading one threw basic_filebuf::underflow
    throw std::runtime_error(path + ": a folder, not a .npy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open for reading");
  NpyFile f;
  f.bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error(path + ": read error");
  const std::string& bytes = f.bytes;

  if (bytes.size() < kMagicLen + 2 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0)
    fail(path, "bad magic (expected \\x93NUMPY)");
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  const unsigned major = u[6], minor = u[7];
  size_t len_bytes = 0;
  if (major == 1 && minor == 0) {
    len_bytes = 2;
  } else if (major == 2 && minor == 0) {
    len_bytes = 4;
  } else {
    fail(path, "unsupported format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (supported: 1.0, 2.0)");
  }
  const size_t header_start = kMagicLen + 2 + len_bytes;
  if (bytes.size() < header_start) fail(path, "truncated header");
  const size_t header_len = read_le(u + kMagicLen + 2, len_bytes);
  if (bytes.size() < header_start + header_len) fail(path, "truncated header");
  f.header = bytes.substr(header_start, header_len);
  f.data_start = header_start + header_len;
  return f;
}

// Reads the whole file, checks the header against the expected dtype and
// returns the shape and the data.
template <typename T>
Tensor<T> read_npy(const std::string& path, const std::vector<std::string>& accepted_descr) {
  const NpyFile f = read_npy_file(path);
  const std::string& bytes = f.bytes;
  const std::string& header = f.header;
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());

  const std::string descr = parse_descr(header, path);
  bool ok = false;
  for (const auto& d : accepted_descr) ok = ok || descr == d;
  if (!ok) fail(path, "dtype '" + descr + "', expected '" + accepted_descr.front() + "'");
  if (parse_fortran_order(header, path))
    fail(path, "fortran_order is True; only C-order arrays are supported");

  Tensor<T> t;
  t.shape = parse_shape(header, path);
  const uint64_t count = Tensor<T>::element_count(t.shape);
  const uint64_t available = bytes.size() - f.data_start;
  // Compare as division so a huge shape cannot overflow count * sizeof(T).
  if (available / sizeof(T) < count)
    fail(path, "truncated data: shape " + shape_str(t.shape) + " needs " + std::to_string(count) +
                   " elements of " + std::to_string(sizeof(T)) + " bytes but only " +
                   std::to_string(available) + " bytes follow the header");
  if (available != count * sizeof(T))
    fail(path, std::to_string(available - count * sizeof(T)) +
                   " unexpected trailing bytes after the data of shape " + shape_str(t.shape));

  t.data.resize(count);
  const unsigned char* src = u + f.data_start;
  for (uint64_t i = 0; i < count; ++i)
    t.data[i] = static_cast<T>(read_le(src + i * sizeof(T), sizeof(T)));
  return t;
}

template <typename T>
void write_npy_impl(const std::string& path, const Tensor<T>& t, const char* descr) {
  const uint64_t count = Tensor<T>::element_count(t.shape);
  if (t.data.size() != count)
    throw std::runtime_error(path + ": cannot write tensor: shape " + shape_str(t.shape) +
                             " holds " + std::to_string(count) + " elements but data has " +
                             std::to_string(t.data.size()));

  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape_str(t.shape) + ", }";
  // Pad with spaces so magic + version + length + header (incl. '\n') is a
  // multiple of kAlign.
  const size_t prefix = kMagicLen + 2 + 2;
  const size_t total = (prefix + header.size() + 1 + kAlign - 1) / kAlign * kAlign;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  if (header.size() > 0xFFFF)
    throw std::runtime_error(path + ": shape too long for a version 1.0 .npy header");

  std::string out(kMagic, kMagicLen);
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xFF);
  out += char(header.size() >> 8);
  out += header;
  out.reserve(out.size() + count * sizeof(T));
  for (const T v : t.data) {
    const auto bits = static_cast<uint32_t>(v);  // two's complement bit pattern
    for (size_t b = 0; b < sizeof(T); ++b) out += char((bits >> (8 * b)) & 0xFF);
  }

  write_file_atomically(path, out);
}

}  // namespace

// int8 has no byte order: NumPy writes '|i1', but '<i1'/'>i1'/'i1' mean the same.
TensorI8 read_npy_int8(const std::string& path) {
  return read_npy<int8_t>(path, {"|i1", "<i1", ">i1", "i1"});
}

// Big-endian '>i4' is rejected rather than swapped: NumPy never writes it on
// the machines npusim runs on, so seeing it means the wrong file.
TensorI32 read_npy_int32(const std::string& path) { return read_npy<int32_t>(path, {"<i4"}); }

std::string read_npy_descr(const std::string& path) {
  return parse_descr(read_npy_file(path).header, path);
}

TensorU8 read_npy_uint8(const std::string& path) {
  return read_npy<uint8_t>(path, {"|u1", "<u1", ">u1", "u1"});
}

Tensor<float> read_npy_float32(const std::string& path) {
  const Tensor<uint32_t> bits = read_npy<uint32_t>(path, {"<f4"});  // the bit patterns
  Tensor<float> t;
  t.shape = bits.shape;
  t.data.resize(bits.data.size());
  // A shape with a 0 has no data, and memcpy may not be given the null pointers then.
  if (!bits.data.empty()) std::memcpy(t.data.data(), bits.data.data(), bits.data.size() * 4);
  return t;
}

void write_npy(const std::string& path, const TensorI8& t) { write_npy_impl(path, t, "|i1"); }
void write_npy(const std::string& path, const TensorU8& t) { write_npy_impl(path, t, "|u1"); }

void write_npy_float(const std::string& path, const std::vector<uint32_t>& shape,
                     const std::vector<float>& values) {
  // The bit patterns as uint32, written little-endian like every other dtype.
  Tensor<uint32_t> bits;
  bits.shape = shape;
  bits.data.resize(values.size());
  if (!values.empty()) std::memcpy(bits.data.data(), values.data(), values.size() * 4);
  write_npy_impl(path, bits, "<f4");
}
void write_npy(const std::string& path, const TensorI32& t) { write_npy_impl(path, t, "<i4"); }

std::string digest_hex(const void* data, uint64_t bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64-bit offset basis
  const auto* p = static_cast<const unsigned char*>(data);
  for (uint64_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;  // FNV-1a 64-bit prime
  }
  static const char kHex[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) s[size_t(i)] = kHex[h & 0xF];
  return s;
}

}  // namespace npusim
