// What timing needs of a model's weights (sim/graph/weight_nonzeros.h): each
// kernel's coefficients other than its zero point, counted by hand here; a
// timing-only ONNX import keeps those counts and drops the values, reading each
// large weight from the file only when its operator is imported; and a run from
// counts alone gives the cycles of a run with the values.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/frontend/onnx/onnx_import.h"
#include "sim/frontend/onnx/onnx_reader.h"
#include "sim/graph/weight_nonzeros.h"
#include "sim/workload/layer_data.h"
#include "tests/support/onnx_model_builder.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

constexpr int64_t kK = 64, kC = 64;  // 64 kernels of 3 x 3 x 64: 36,864 bytes, read from the file

// Weight zero point of kernel k, and coefficient i (OIHW order) of kernel k: about 8 in 11
// equal the kernel's zero point (skipped), the pattern differs per kernel.
int32_t zero_point_of(int64_t k) { return int32_t(k % 5) - 2; }
int8_t weight_at(int64_t k, int64_t i) {
  return (k * 7 + i * 3) % 11 < 8 ? int8_t(zero_point_of(k)) : int8_t((k * 5 + i) % 13 - 6);
}

// x uint8 [1, 64, 6, 5] -> QLinearConv 64 kernels 3x3 pads 1, per-channel weight zero points.
std::string sparse_conv_model(const std::string& file) {
  test::OnnxModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_UINT8, {1, kC, 6, 5});
  m.scalar_float("xs", 0.02f);
  m.ints("xz", onnx::TensorProto_DataType_UINT8, {}, {128});
  onnx::TensorProto* w = m.g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto_DataType_INT8);
  for (int64_t d : {kK, kC, int64_t(3), int64_t(3)}) w->add_dims(d);
  std::string raw;
  for (int64_t k = 0; k < kK; ++k)
    for (int64_t i = 0; i < kC * 9; ++i) raw.push_back(char(weight_at(k, i)));
  w->set_raw_data(raw);
  m.float_values("ws", std::vector<float>(size_t(kK), 0.004f));
  std::vector<int32_t> zps;
  for (int64_t k = 0; k < kK; ++k) zps.push_back(zero_point_of(k));
  m.ints("wz", onnx::TensorProto_DataType_INT8, {kK}, zps);
  m.scalar_float("ys", 0.05f);
  m.ints("yz", onnx::TensorProto_DataType_UINT8, {}, {10});
  auto* n = m.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"y"}, "conv");
  test::OnnxModelBuilder::ints_attribute(n, "pads", {1, 1, 1, 1});
  m.output("y");
  return m.save(file);
}

// Kernel k's coefficients other than its zero point, counted in the model's own order.
std::vector<uint32_t> counted_by_hand() {
  std::vector<uint32_t> counts;
  for (int64_t k = 0; k < kK; ++k) {
    uint32_t n = 0;
    for (int64_t i = 0; i < kC * 9; ++i) n += weight_at(k, i) != zero_point_of(k);
    counts.push_back(n);
  }
  return counts;
}

// A matmul's B [480, 40]: 40 kernels of 480 taps, 19,200 bytes, left in the file.
constexpr int64_t kRows = 480, kCols = 40;

// B's entry (i, f) and column f's zero point: the pattern differs by row and by column.
int32_t column_zero_point(int64_t f) { return int32_t(f % 3) - 1; }
int8_t b_at(int64_t i, int64_t f) {
  return (i * 5 + f * 3) % 7 < 4 ? int8_t(column_zero_point(f)) : int8_t((i + 2 * f) % 9 - 4);
}

// x uint8 [2, 480] -> QLinearMatMul with B [480, 40] as ONNX stores it (not transposed).
std::string column_matmul_model(const std::string& file) {
  test::OnnxModelBuilder m;
  m.input("x", onnx::TensorProto_DataType_UINT8, {2, kRows});
  m.scalar_float("xs", 0.02f);
  m.ints("xz", onnx::TensorProto_DataType_UINT8, {}, {128});
  onnx::TensorProto* b = m.g->add_initializer();  // raw bytes, as exporters write weights
  b->set_name("b");
  b->set_data_type(onnx::TensorProto_DataType_INT8);
  b->add_dims(kRows);
  b->add_dims(kCols);
  std::string raw;
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t f = 0; f < kCols; ++f) raw.push_back(char(b_at(i, f)));
  b->set_raw_data(raw);
  std::vector<int32_t> zps;
  for (int64_t f = 0; f < kCols; ++f) zps.push_back(column_zero_point(f));
  m.float_values("bs", std::vector<float>(size_t(kCols), 0.004f));
  m.ints("bz", onnx::TensorProto_DataType_INT8, {kCols}, zps);
  m.scalar_float("ys", 0.05f);
  m.ints("yz", onnx::TensorProto_DataType_UINT8, {}, {10});
  m.node("QLinearMatMul", {"x", "xs", "xz", "b", "bs", "bz", "ys", "yz"}, {"y"}, "matmul");
  m.output("y");
  return m.save(file);
}

// The counts of K kernels down the columns of `rows` rows of K bytes, handed over at once.
std::vector<uint32_t> count_column_nonzeros(const int8_t* rows_of_k, uint64_t rows, uint32_t K,
                                            const std::vector<int8_t>& zeros) {
  KernelNonzeroCounter counter(K, rows, /*by_column=*/true, zeros);
  counter.add(rows_of_k, rows * K);
  return counter.counts();
}

}  // namespace

TEST_CASE(
    "weight nonzeros: kernels down the columns of a row-major matrix count their own column, "
    "hand-counted",
    "[weights]") {
  // Rows {0, 5, 0} and {3, 3, -1}: three kernels (columns) of two taps.
  const std::vector<int8_t> w{0, 5, 0, 3, 3, -1};
  CHECK(count_column_nonzeros(w.data(), 2, 3, {}) == std::vector<uint32_t>{1, 2, 1});
  CHECK(count_column_nonzeros(w.data(), 2, 3, {3, 5, -1}) == std::vector<uint32_t>{1, 1, 1});
  CHECK(count_column_nonzeros(w.data(), 2, 3, {0, 3, 0}) == std::vector<uint32_t>{1, 1, 1});
}

TEST_CASE(
    "weight nonzeros: kernels of 1 to 100 and of 577 coefficients, at any alignment, count as "
    "a byte-by-byte comparison with each kernel's zero point does",
    "[weights]") {
  // About half of the coefficients equal their kernel's zero point, in no pattern a vector
  // width repeats; every length from 1 to 100 crosses each multiple of 16 and 32 there.
  SeededRandom rng(12345);
  std::vector<uint64_t> lengths;
  for (uint64_t taps = 1; taps <= 100; ++taps) lengths.push_back(taps);
  lengths.push_back(577);
  for (const uint64_t taps : lengths)
    for (const uint64_t offset : {0, 1, 7}) {
      const uint32_t K = 3;
      const std::vector<int8_t> zeros{0, -128, 17};
      std::vector<int8_t> bytes(offset + K * taps);
      std::vector<uint32_t> want(K, 0);
      for (uint32_t k = 0; k < K; ++k)
        for (uint64_t t = 0; t < taps; ++t) {
          const uint64_t r = rng.next();
          const int8_t v = (r & 1) != 0 ? zeros[k] : int8_t(r >> 8);
          bytes[offset + k * taps + t] = v;
          want[k] += v != zeros[k];
        }
      KernelNonzeroCounter counter(K, taps, /*by_column=*/false, zeros);
      counter.add(bytes.data() + offset, K * taps);
      INFO("taps " << taps << ", offset " << offset);
      CHECK(counter.counts() == want);
    }
}

TEST_CASE(
    "weight nonzeros: counts handed over in pieces that split kernels and rows are the counts "
    "of the whole",
    "[weights]") {
  // Three kernels of five taps, as rows of three (by column) or one after another.
  const std::vector<int8_t> w{1, 0, 2, 0, 0, 3, 4, 4, 0, 0, 5, 0, -1, 0, 0};
  const std::vector<int8_t> zeros{0, 4, 0};
  for (const bool by_column : {false, true}) {
    const std::vector<uint32_t> whole = by_column ? count_column_nonzeros(w.data(), 5, 3, zeros)
                                                  : count_kernel_nonzeros(w.data(), 3, 5, zeros);
    for (uint64_t piece = 1; piece <= w.size(); ++piece) {
      KernelNonzeroCounter counter(3, 5, by_column, zeros);
      for (uint64_t at = 0; at < w.size(); at += piece)
        counter.add(w.data() + at, std::min<uint64_t>(piece, w.size() - at));
      INFO("by column " << by_column << ", pieces of " << piece);
      CHECK(counter.seen() == w.size());
      CHECK(counter.counts() == whole);
    }
  }
  // By hand: kernels {1,0,2,0,0} {3,4,4,0,0} {5,0,-1,0,0}, zeros 0, 4, 0.
  CHECK(count_kernel_nonzeros(w.data(), 3, 5, zeros) == std::vector<uint32_t>{2, 3, 2});
  // Columns {1,0,4,0,-1} {0,0,4,5,0} {2,3,0,0,0}.
  CHECK(count_column_nonzeros(w.data(), 5, 3, zeros) == std::vector<uint32_t>{3, 4, 2});
}

TEST_CASE(
    "onnx reader: a span read in chunks hands over the span's bytes in order, no chunk longer "
    "than asked",
    "[onnx]") {
  const std::string path = test::temp_dir() + "/chunks.bin";
  std::ofstream(path, std::ios::binary) << "0123456789abcdefghij";
  std::string got;
  std::vector<uint64_t> sizes;
  onnx_detail::read_file_span_in_chunks(path, {3, 14}, 4, [&](const int8_t* p, uint64_t n) {
    got.append(reinterpret_cast<const char*>(p), n);
    sizes.push_back(n);
  });
  CHECK(got == "3456789abcdefg");
  CHECK(sizes == std::vector<uint64_t>{4, 4, 4, 2});
  CHECK_THROWS_WITH(
      onnx_detail::read_file_span_in_chunks(path, {18, 4}, 4, [](const int8_t*, uint64_t) {}),
      Catch::Contains("ends before byte 22") && Catch::Contains("file changed"));
}

TEST_CASE(
    "onnx: a timing-only import of a matmul with B as stored counts each output's column, "
    "the counts a functional import's transposed weights give",
    "[onnx][weights]") {
  const std::string path = column_matmul_model("column_matmul.onnx");
  std::vector<uint32_t> expected;
  for (int64_t f = 0; f < kCols; ++f) {
    uint32_t n = 0;
    for (int64_t i = 0; i < kRows; ++i) n += b_at(i, f) != column_zero_point(f);
    expected.push_back(n);
  }
  REQUIRE(std::set<uint32_t>(expected.begin(), expected.end()).size() > 1);

  // B is large enough to stay in the file until the operator reads it.
  onnx_detail::ReadModel read;
  REQUIRE(onnx_detail::read_onnx_model(path, read));
  CHECK(read.side_spans.size() == 1);

  const OnnxModel full = import_onnx(path, {});
  REQUIRE(full.network.layers.size() == 1);
  CHECK(full.network.layers[0].weight_values.size() == size_t(kRows * kCols));
  CHECK(model_weight_nonzeros(full.network.layers[0]) == expected);

  const OnnxModel counted = import_onnx(path, {}, OnnxImportOptions{false});
  REQUIRE(counted.network.layers.size() == 1);
  CHECK(counted.network.layers[0].weight_values.empty());
  CHECK(counted.network.layers[0].weight_nonzeros == expected);
}

TEST_CASE(
    "weight nonzeros: each kernel counts its coefficients other than its own zero point, "
    "hand-counted",
    "[weights]") {
  const std::vector<int8_t> w{0, 5, 0, 3, 3, -1};  // two kernels of three taps
  CHECK(count_kernel_nonzeros(w.data(), 2, 3, {}) == std::vector<uint32_t>{1, 3});
  CHECK(count_kernel_nonzeros(w.data(), 2, 3, {0, 3}) == std::vector<uint32_t>{1, 1});
  CHECK(count_kernel_nonzeros(w.data(), 2, 3, {5, -1}) == std::vector<uint32_t>{2, 2});
  LayerConfig L;
  L.K = 2;
  L.quantized = true;
  L.quant.weight_zero_point = {7, -3};
  CHECK(kernel_zeros(L) == std::vector<int8_t>{7, -3});
  L.quantized = false;
  CHECK(kernel_zeros(L).empty());
}

TEST_CASE(
    "onnx: a timing-only import keeps a conv's per-kernel non-zero counts of its own weights, "
    "read from the file, and drops the values",
    "[onnx][weights]") {
  const std::string path = sparse_conv_model("sparse_conv.onnx");
  const std::vector<uint32_t> expected = counted_by_hand();
  // Kernels differ: a count per kernel, not one for all.
  REQUIRE(std::set<uint32_t>(expected.begin(), expected.end()).size() > 1);

  const OnnxModel full = import_onnx(path, {});
  REQUIRE(full.network.layers.size() == 1);
  const LayerConfig& with_values = full.network.layers[0];
  CHECK(with_values.weight_values.size() == size_t(kK * kC * 9));
  CHECK(with_values.weight_nonzeros.empty());
  CHECK(model_weight_nonzeros(with_values) == expected);

  const OnnxModel counted = import_onnx(path, {}, OnnxImportOptions{false});
  REQUIRE(counted.network.layers.size() == 1);
  const LayerConfig& L = counted.network.layers[0];
  CHECK(L.weight_values.empty());
  CHECK(L.weight_nonzeros == expected);
  CHECK(model_weight_nonzeros(L) == expected);
  CHECK(model_weight_nonzeros(L).shares_with(L.weight_nonzeros));  // shared, not copied
  // Neither taken for seeded weights nor computed with: the values are not there.
  CHECK(seeded_weights_key(L).empty());
  CHECK(count_seeded_kernel_nonzeros(L, kernel_zeros(L)).empty());
  CHECK_THROWS_WITH(make_layer_data(L, false), Catch::Contains("non-zero counts only"));
}

TEST_CASE(
    "onnx: a timing-only run of a conv with per-channel weight zero points, from counts alone, "
    "gives the functional run's cycles",
    "[onnx][weights]") {
  const std::string path = sparse_conv_model("sparse_conv_run.onnx");
  const std::string dir = test::temp_dir();
  const auto cycles = [&](const std::string& mode, const std::string& out) {
    // The default hardware skips zero coefficients (compute.mode zero_skip).
    const test::CliResult r =
        test::run_cli("run " + path + " -q " + mode + " --out " + dir + "/" + out);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    std::ifstream f(dir + "/" + out + "/report.json");
    return nlohmann::json::parse(f)["totals"]["cycles"].get<uint64_t>();
  };
  const uint64_t functional = cycles("", "functional");
  CHECK(cycles("--timing-only", "timing") == functional);
}

TEST_CASE("onnx reader: a span past the end of the file is an error that says the file changed",
          "[onnx]") {
  const std::string path = test::temp_dir() + "/short.bin";
  std::ofstream(path, std::ios::binary) << "0123456789";
  CHECK(onnx_detail::read_file_span(path, {2, 4}) == std::vector<int8_t>{'2', '3', '4', '5'});
  CHECK_THROWS_WITH(onnx_detail::read_file_span(path, {8, 4}),
                    Catch::Contains("ends before byte 12") && Catch::Contains("file changed"));
}
