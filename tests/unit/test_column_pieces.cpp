// Column pieces (docs/tiling.md#column-pieces): the bytes a piece of output
// columns needs and the view of its columns, worked by hand on a kernel wider
// than tall with a column stride of 2; and the program checks that refuse a
// malformed column piece or a layer written only in part.
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sim/compiler/program_emitter.h"
#include "sim/compiler/tiler.h"
#include "sim/config/hardware_config.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"
#include "tests/support/hand_mapping.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

// A plain int8 layer of one image.
LayerConfig conv_layer(const std::string& name, uint32_t C, uint32_t H, uint32_t W, uint32_t K,
                       uint32_t R, uint32_t S, uint32_t stride, uint32_t padding) {
  LayerConfig L;
  L.name = name;
  L.N = 1, L.C = C, L.H = H, L.W = W, L.K = K, L.R = R, L.S = S;
  L.stride = stride, L.padding = padding;
  L.requant.scale.assign(L.K, 1);
  L.requant.shift = 8;
  return L;
}

// 5 channels of 9 x 40, 3 kernels 3 rows by 7 columns, stride 2, padding 2:
// out_w = (40 + 4 - 7) / 2 + 1 = 19.
LayerConfig wide_kernel_layer() { return conv_layer("wide_kernel", 5, 9, 40, 3, 3, 7, 2, 2); }

// 16 channels of 4 x 1920, 24 3x3 kernels: whole rows need 199 KiB.
NetworkConfig wide_network() {
  NetworkConfig net;
  net.name = "wide";
  net.layers = {conv_layer("wide", 16, 4, 1920, 24, 3, 3, 1, 1)};
  net.chained = {false};
  return net;
}

}  // namespace

TEST_CASE(
    "a column piece needs its rows' window of padded columns and its sums, worked by hand on a "
    "3x7 kernel of column stride 2",
    "[column_pieces][tiler]") {
  const LayerConfig L = wide_kernel_layer();
  // 4 columns: padded columns (4 - 1) * 2 + 7 = 13, 3 input rows of 13 x 5 B = 195 B, and
  // 4 columns x 3 kernels of int32 sums = 48 B.
  CHECK(column_piece_bytes(L, 4, 3) == 243);
  // 3 columns: 3 x 11 x 5 + 3 x 3 x 4 = 201 B.
  CHECK(column_piece_bytes(L, 3, 3) == 201);
  CHECK(max_piece_cols(L, 3, 243, 1 << 20) == 4);
  CHECK(max_piece_cols(L, 3, 242, 1 << 20) == 3);
  // An accumulator of 40 B holds the sums of 3 columns of 3 kernels.
  CHECK(max_piece_cols(L, 3, 243, 40) == 3);
  CHECK(max_piece_cols(L, 3, 100, 1 << 20) == 0);  // one column needs 3 x 7 x 5 + 12 = 117 B

  const LayerDescriptor d = test::wide_kernel_descriptor();
  // Output columns [5, 9) read padded columns [10, 23).
  const PaddedCols window = padded_cols_for(d, 5, 9);
  CHECK(window.begin == 10);
  CHECK(window.width == 13);
  const LayerDescriptor view = column_view(d, 5, 9);
  CHECK(view.out_w == 4);
  CHECK(view.padded_w() == 13);
  CHECK(view.tile_row_bytes() == 13 * 5);
  CHECK(view.out_h == d.out_h);  // rows are untouched
  CHECK(column_pieces_unsupported(d).empty());
}

TEST_CASE(
    "program checks refuse a column piece of two rows, columns past out_w or a binary layer's, "
    "a run of columns written twice in place of another, and count a missing one in "
    "channel-columns",
    "[column_pieces][trace]") {
  HardwareConfig hw;
  hw.cache.size_kib = 64;
  const Program compiled = compile_network(wide_network(), hw);
  REQUIRE(compiled.layers.at(0).cols_per_piece > 0);
  CHECK_NOTHROW(validate_program(compiled));
  size_t load = 0, last_store = 0;
  for (size_t i = 0; i < compiled.instructions.size(); ++i) {
    const Instruction& in = compiled.instructions[i];
    if (in.op == Opcode::LoadInput && load == 0) load = i;
    if (in.op == Opcode::Store) last_store = i;
  }
  REQUIRE(compiled.instructions[load].column_piece());
  REQUIRE(compiled.instructions[last_store].column_piece());

  Program two_rows = compiled;
  two_rows.instructions[load].out_row_end += 1;
  CHECK_THROWS_WITH(validate_program(two_rows), Contains("a column piece covers one output row"));

  Program past = compiled;
  past.instructions[load].out_col_end = 1921;
  CHECK_THROWS_WITH(validate_program(past), Contains("output columns outside [0, out_w)"));

  Program binary = compiled;
  binary.layers[0].binary = true;
  CHECK_THROWS_WITH(validate_program(binary), Contains("not built for binary layers"));

  // The last store writes the columns of the store before it (the same row and channels, runs
  // of equal width): every row's count is right, but one run is written twice, one never.
  size_t before_last = last_store - 1;
  while (compiled.instructions[before_last].op != Opcode::Store) --before_last;
  Program twice = compiled;
  Instruction& last = twice.instructions[last_store];
  const Instruction& previous = compiled.instructions[before_last];
  REQUIRE(previous.out_row_begin == last.out_row_begin);
  REQUIRE(previous.k_begin == last.k_begin);
  REQUIRE(previous.out_col_end - previous.out_col_begin == last.out_col_end - last.out_col_begin);
  last.out_col_begin = previous.out_col_begin, last.out_col_end = previous.out_col_end;
  CHECK_THROWS_WITH(validate_outputs_written(twice),
                    Contains("both write channel " + std::to_string(last.k_begin) + " of column " +
                             std::to_string(previous.out_col_begin)));

  Program missing = compiled;  // the last column piece's store left out
  missing.instructions.erase(missing.instructions.begin() + long(last_store));
  for (size_t i = 0; i < missing.instructions.size(); ++i) missing.instructions[i].id = uint32_t(i);
  const Instruction& gone = compiled.instructions[last_store];
  const uint64_t written =
      uint64_t(24) * 1920 - uint64_t(gone.k_count()) * (gone.out_col_end - gone.out_col_begin);
  CHECK_THROWS_WITH(
      validate_outputs_written(missing),
      Contains("write " + std::to_string(written) + " channel-columns, not K x out_w = 46080"));
}
