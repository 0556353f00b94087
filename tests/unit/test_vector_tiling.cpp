// The vector unit's working region (sim/program/vector_tiling.h): the bytes
// one vector instruction holds and the largest instruction the compiler
// gives an operator, and the compiler's estimate of a vector operator
// (sim/compiler/vector_estimate.h), against numbers worked by hand
// (docs/stage-timing.md, "Vector stages").
#include <catch2/catch.hpp>

#include "sim/compiler/vector_estimate.h"
#include "sim/program/vector_tiling.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

// ResNet-50's shapes: the stem max pool (64 x 112 x 112, 3x3 stride 2, pads
// 1), a layer1 add (256 x 56 x 56), the global pool (2048 x 7 x 7), and a
// concat of two 24-channel 8 x 6 maps.
const char* kOperators = R"({
  "name": "vector_ops",
  "inputs": [{"name": "stem", "shape": [1, 64, 112, 112], "dtype": "int8", "scale": 0.1},
             {"name": "a", "shape": [1, 256, 56, 56], "dtype": "int8", "scale": 0.1},
             {"name": "b", "shape": [1, 256, 56, 56], "dtype": "int8", "scale": 0.1},
             {"name": "last", "shape": [1, 2048, 7, 7], "dtype": "int8", "scale": 0.1},
             {"name": "p", "shape": [1, 24, 8, 6], "dtype": "int8", "scale": 0.1},
             {"name": "q", "shape": [1, 24, 8, 6], "dtype": "int8", "scale": 0.1}],
  "operators": [
    {"name": "pool", "op": "maxpool", "inputs": ["stem"], "output": "y1", "kernel": 3, "stride": 2, "pads": 1},
    {"name": "sum", "op": "add", "inputs": ["a", "b"], "output": "y2", "out": {"dtype": "int8", "scale": 0.2}},
    {"name": "gap", "op": "globalaveragepool", "inputs": ["last"], "output": "y3", "out": {"dtype": "int8", "scale": 0.1}},
    {"name": "cat", "op": "concat", "inputs": ["p", "q"], "output": "y4", "axis": 1, "out": {"dtype": "int8", "scale": 0.1}}
  ]})";

HardwareConfig default_hw() { return parse_hardware_config(nlohmann::json::object(), "<test>"); }

LayerDescriptor op(size_t l, const char* graph = kOperators) {
  return describe_operator(test::workload(graph), l, default_hw());
}

// Two int8 inputs of 40 channels x 1 x 16 pixels, added (as the integration
// test that simulates it, test_vector_channel_tiles.cpp).
const char* kAdd40 = R"({"name": "add40",
  "inputs": [{"name": "a", "shape": [1, 40, 1, 16], "dtype": "int8", "scale": 0.05},
             {"name": "b", "shape": [1, 40, 1, 16], "dtype": "int8", "scale": 0.03}],
  "operators": [{"name": "sum", "op": "add", "inputs": ["a", "b"], "output": "y",
                 "out": {"dtype": "int8", "scale": 0.07}}]})";

}  // namespace

TEST_CASE("vector region bytes: input rows of every input, the output rows, the global pool's sums",
          "[vector_tiling]") {
  const LayerDescriptor pool = op(0), sum = op(1), gap = op(2), cat = op(3);
  // Max pool: r output rows read 2(r-1)+3 input rows (the top pad counted) of 112 pixels x k
  // channels and write r x 56 x k.
  CHECK(vector_instruction_bytes(pool, 1, 64) == 3 * 112 * 64 + 56 * 64);      // 25,088
  CHECK(vector_instruction_bytes(pool, 3, 64) == 7 * 112 * 64 + 3 * 56 * 64);  // 60,928
  CHECK(vector_instruction_bytes(pool, 1, 20) == 3 * 112 * 20 + 56 * 20);      // 7,840
  // Add: one row of each input and of the output, k channels each.
  CHECK(vector_instruction_bytes(sum, 1, 256) == 3 * 56 * 256);  // 43,008
  CHECK(vector_instruction_bytes(sum, 1, 86) == 3 * 56 * 86);
  // Global pool: one input row of 7 pixels beside k int32 sums.
  CHECK(vector_instruction_bytes(gap, 1, 2048) == 7 * 2048 + 4 * 2048);
  CHECK(vector_instruction_bytes(gap, 1, 342) == 11 * 342);
  // Concat reads every channel of both inputs whatever its k range: 2 x 6 x 24 + 6 x 48.
  CHECK(vector_instruction_bytes(cat, 1, 48) == 2 * 6 * 24 + 6 * 48);
  CHECK(vector_minimum_bytes(cat) == 576);
  CHECK(vector_minimum_bytes(sum) == 3 * 56);
  CHECK(vector_splits_channels(pool));
  CHECK(vector_splits_channels(sum));
  CHECK(vector_splits_channels(gap));
  CHECK_FALSE(vector_splits_channels(cat));
}

TEST_CASE(
    "vector instructions take whole rows while one fits, else one row and the fewest equal "
    "channel tiles",
    "[vector_tiling]") {
  const LayerDescriptor pool = op(0), sum = op(1), gap = op(2), cat = op(3);
  const auto tile = [](const LayerDescriptor& d, uint64_t region) {
    const std::optional<VectorTile> t = fit_vector_instruction(d, region);
    REQUIRE(t.has_value());
    return std::make_pair(t->rows, t->k_tile);
  };
  // 64 KiB: 3 rows of the max pool (60,928 B; 4 rows need 78,848), the add's whole row.
  CHECK(tile(pool, 65536) == std::make_pair(3u, 64u));
  CHECK(tile(sum, 65536) == std::make_pair(1u, 256u));
  // 8 KiB: a pool row of k channels is 392k B, so at most 20 channels: 4 tiles of 16.
  CHECK(tile(pool, 8192) == std::make_pair(1u, 16u));
  // 16 KiB: an add row of k channels is 168k B, at most 97: 3 tiles of 86 (86, 86, 84).
  CHECK(tile(sum, 16384) == std::make_pair(1u, 86u));
  // 4 KiB: the global pool's 11k B, at most 372 channels: 6 tiles of 342.
  CHECK(tile(gap, 4096) == std::make_pair(1u, 342u));
  // Concat does not split: its whole row (576 B) fits or nothing does.
  CHECK(tile(cat, 576) == std::make_pair(1u, 48u));
  CHECK_FALSE(fit_vector_instruction(cat, 575).has_value());
  // Below one row of one channel nothing fits.
  CHECK_FALSE(fit_vector_instruction(sum, 167).has_value());
  CHECK(tile(sum, 168) == std::make_pair(1u, 1u));
}

TEST_CASE(
    "vector operator estimate: its instructions one after another, each read, latency, lanes "
    "and write, then the last write's latency",
    "[vector_tiling][mapper]") {
  const HardwareConfig hw = default_hw();  // 32 B/cycle, 64 B bursts, latency 100, 32 lanes
  // The add of 40 x 16: whole (2 KiB) one instruction, 2 x 20 + 100 + 44 + 20, + 100; in 1 KiB
  // two tiles of 20 channels, each 2 x 32 (a burst per pixel) + 100 + 24 + 32, + 100.
  const LayerDescriptor add = op(0, kAdd40);
  CHECK(estimate_vector_operator(add, hw, 2048) == 40 + 100 + 44 + 20 + 100);
  CHECK(estimate_vector_operator(add, hw, 1024) == 2 * (64 + 100 + 24 + 32) + 100);
  CHECK(estimate_vector_operator(add, hw, 47) == 0);  // one channel of a row needs 48 B
  // ResNet's stem max pool in 64 KiB: 18 instructions of 3 rows and one of 2. The first reads
  // input rows 0..5 (6 x 112 x 64 B = 1344 bus cycles), the next 16 read 7 rows (1568), the
  // last rows 107..111 (1120); lanes ceil(3 x 56 x 64 x 9 / 32) + 4 = 3028 (2 rows: 2020);
  // writes 3 x 56 x 64 B = 336 cycles (2 rows: 224).
  const LayerDescriptor pool = op(0);
  CHECK(estimate_vector_operator(pool, hw, 65536) == (1344 + 100 + 3028 + 336) +
                                                         17 * (1568 + 100 + 3028 + 336) +
                                                         (1120 + 100 + 2020 + 224) + 100);
}
