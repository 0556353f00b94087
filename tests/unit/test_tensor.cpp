// .npy reading/writing and the tensor digest. NumPy-made files are written
// here byte by byte (the test machine need not have NumPy), following
// numpy/lib/format.py as of NumPy 1.24+, which pads headers for growth.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "sim/tensor/tensor.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

// A per-process file name, so parallel ctest processes do not collide.
std::string tensor_tmp(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("npusim_test_tensor_" + std::to_string(getpid()) + "_" + name))
      .string();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A version 1.0 file around `dict` (padded to 64 bytes as NumPy does) and `data`.
std::string npy_v1(const std::string& dict, const std::string& data) {
  std::string header = dict;
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += char(header.size() & 0xFF);
  out += char(header.size() >> 8);
  return out + header + data;
}

// Asserts that `fn` throws std::runtime_error whose message holds `path` and `what`.
template <typename Fn>
void require_npy_error(Fn fn, const std::string& path, const std::string& what) {
  try {
    fn();
    FAIL("expected std::runtime_error mentioning '" << what << "'");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find(path) != std::string::npos);
    CHECK(msg.find(what) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("npy int8 4-d round trip keeps shape and bytes", "[tensor]") {
  TensorI8 t({2, 3, 4, 5});
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = int8_t(int(i % 256) - 128);
  const std::string path = tensor_tmp("rt8.npy");
  write_npy(path, t);
  const TensorI8 back = read_npy_int8(path);
  CHECK(back.shape == t.shape);
  CHECK(back.data == t.data);

  // The header follows the format: magic, version 1.0, data aligned to 64.
  const std::string bytes = read_bytes(path);
  REQUIRE(bytes.size() > 10);
  CHECK(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
  const size_t header_len = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
  CHECK((10 + header_len) % 64 == 0);
  CHECK(bytes[10 + header_len - 1] == '\n');
  CHECK(bytes.find("'descr': '|i1'") != std::string::npos);
  CHECK(bytes.find("'shape': (2, 3, 4, 5)") != std::string::npos);
  CHECK(bytes.size() == 10 + header_len + t.data.size());
  std::filesystem::remove(path);
}

TEST_CASE("npy int32 round trips: 1-d, 0-d, empty and extreme values", "[tensor]") {
  SECTION("1-d with extremes") {
    TensorI32 t({5});
    t.data = {0, -1, 70000, INT32_MIN, INT32_MAX};
    const std::string path = tensor_tmp("rt32_1d.npy");
    write_npy(path, t);
    CHECK(read_bytes(path).find("'shape': (5,)") != std::string::npos);
    const TensorI32 back = read_npy_int32(path);
    CHECK(back.shape == t.shape);
    CHECK(back.data == t.data);
    std::filesystem::remove(path);
  }
  SECTION("0-d scalar has shape () and one element") {
    TensorI32 t(std::vector<uint32_t>{});
    REQUIRE(t.data.size() == 1);
    t.data[0] = -123456;
    const std::string path = tensor_tmp("rt32_0d.npy");
    write_npy(path, t);
    CHECK(read_bytes(path).find("'shape': ()") != std::string::npos);
    const TensorI32 back = read_npy_int32(path);
    CHECK(back.shape.empty());
    CHECK(back.data == t.data);
    std::filesystem::remove(path);
  }
  SECTION("a zero-sized dimension") {
    TensorI32 t({0, 3});
    const std::string path = tensor_tmp("rt32_empty.npy");
    write_npy(path, t);
    const TensorI32 back = read_npy_int32(path);
    CHECK(back.shape == std::vector<uint32_t>{0, 3});
    CHECK(back.data.empty());
    std::filesystem::remove(path);
  }
}

TEST_CASE(
    "a float32 npy with a zero-sized dimension reads and writes as empty (found by fuzz_npy: "
    "memcpy was given null pointers, which UBSan stops on)",
    "[tensor][robustness]") {
  const std::string path = tensor_tmp("f32_empty.npy");
  write_npy_float(path, {0, 2, 2, 1}, {});
  const Tensor<float> back = read_npy_float32(path);
  CHECK(back.shape == std::vector<uint32_t>{0, 2, 2, 1});
  CHECK(back.data.empty());
  std::filesystem::remove(path);
}

TEST_CASE("npy reads files laid out as NumPy writes them", "[tensor]") {
  SECTION("np.save(np.array([[0, 1, -2], [127, -128, 5]], dtype=np.int8)), version 1.0") {
    // 59-char dict + 20 growth spaces + 38 alignment spaces + '\n' = 118; 10 + 118 = 128.
    std::string header = "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }";
    header += std::string(58, ' ') + "\n";
    REQUIRE(header.size() == 118);
    std::string file("\x93NUMPY\x01\x00\x76\x00", 10);
    file += header;
    file += std::string("\x00\x01\xfe\x7f\x80\x05", 6);
    REQUIRE(file.size() == 128 + 6);
    const std::string path = tensor_tmp("np_v1.npy");
    write_bytes(path, file);
    const TensorI8 t = read_npy_int8(path);
    CHECK(t.shape == std::vector<uint32_t>{2, 3});
    CHECK(t.data == std::vector<int8_t>{0, 1, -2, 127, -128, 5});
    std::filesystem::remove(path);
  }
  SECTION("version 2.0 (4-byte header length), int32, double-quoted keys") {
    std::string header = "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (3,), }";
    header.append(64 - (12 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string file("\x93NUMPY\x02\x00", 8);
    for (int b = 0; b < 4; ++b) file += char((header.size() >> (8 * b)) & 0xFF);
    file += header;
    // 1, -2, 70000 (0x00011170) little-endian.
    file += std::string("\x01\x00\x00\x00\xfe\xff\xff\xff\x70\x11\x01\x00", 12);
    const std::string path = tensor_tmp("np_v2.npy");
    write_bytes(path, file);
    const TensorI32 t = read_npy_int32(path);
    CHECK(t.shape == std::vector<uint32_t>{3});
    CHECK(t.data == std::vector<int32_t>{1, -2, 70000});
    std::filesystem::remove(path);
  }
}

TEST_CASE("npy format errors name the file and the problem", "[tensor]") {
  const std::string path = tensor_tmp("bad.npy");
  const std::string i8_dict = "{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }";

  SECTION("wrong dtype: int32 file read as int8") {
    TensorI32 t({2});
    write_npy(path, t);
    require_npy_error([&] { read_npy_int8(path); }, path, "dtype '<i4'");
  }
  SECTION("wrong dtype: int8 file read as int32") {
    write_bytes(path, npy_v1(i8_dict, std::string(4, '\0')));
    require_npy_error([&] { read_npy_int32(path); }, path, "dtype '|i1'");
  }
  SECTION("wrong dtype: float32") {
    write_bytes(path, npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                             std::string(4, '\0')));
    require_npy_error([&] { read_npy_int32(path); }, path, "dtype '<f4'");
  }
  SECTION("Fortran order") {
    write_bytes(path, npy_v1("{'descr': '|i1', 'fortran_order': True, 'shape': (2, 2), }",
                             std::string(4, '\0')));
    require_npy_error([&] { read_npy_int8(path); }, path, "fortran_order is True");
  }
  SECTION("truncated data") {
    write_bytes(path, npy_v1(i8_dict, std::string(3, '\0')));
    require_npy_error([&] { read_npy_int8(path); }, path, "truncated data");
  }
  SECTION("trailing bytes") {
    write_bytes(path, npy_v1(i8_dict, std::string(5, '\0')));
    require_npy_error([&] { read_npy_int8(path); }, path, "trailing bytes");
  }
  SECTION("truncated header") {
    write_bytes(path, npy_v1(i8_dict, "").substr(0, 30));
    require_npy_error([&] { read_npy_int8(path); }, path, "truncated header");
  }
  SECTION("bad magic") {
    write_bytes(path, "PK\x03\x04 this is a zip, not an npy file");
    require_npy_error([&] { read_npy_int8(path); }, path, "bad magic");
  }
  SECTION("unsupported version 3.0") {
    std::string file = npy_v1(i8_dict, std::string(4, '\0'));
    file[6] = 3;
    write_bytes(path, file);
    require_npy_error([&] { read_npy_int8(path); }, path, "unsupported format version 3.0");
  }
  SECTION("missing file") {
    require_npy_error([&] { read_npy_int8(path + ".missing"); }, path, "cannot open");
  }
  SECTION("writing a tensor whose data does not fill its shape") {
    TensorI8 t({2, 2});
    t.data.pop_back();
    require_npy_error([&] { write_npy(path, t); }, path, "holds 4 elements but data has 3");
  }
  std::filesystem::remove(path);
}

TEST_CASE("digest_hex is FNV-1a 64 as 16 lowercase hex digits", "[tensor]") {
  // Published FNV-1a 64-bit test vectors.
  CHECK(digest_hex("", 0) == "cbf29ce484222325");
  CHECK(digest_hex("a", 1) == "af63dc4c8601ec8c");
  CHECK(digest_hex("foobar", 6) == "85944171f73967e8");

  TensorI8 t({4});
  t.data = {1, 2, 3, 4};
  const std::string d = digest_hex(t.data.data(), t.data.size());
  CHECK(d.size() == 16);
  t.data[3] = 5;
  CHECK(digest_hex(t.data.data(), t.data.size()) != d);
}

TEST_CASE("a folder given as a .npy is an error naming it (it threw basic_filebuf::underflow)",
          "[tensor][robustness]") {
  const std::string dir = npusim::test::temp_dir() + "/not_a_file.npy";
  std::filesystem::create_directories(dir);
  try {
    npusim::read_npy_int8(dir);
    FAIL("a folder was read as a .npy");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == dir + ": a folder, not a .npy file");
  }
}
