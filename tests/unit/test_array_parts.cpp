// The parts of the MAC array the compile trials may compile for
// (sim/runner/compile_trials.h, docs/compile-trials.md#array-in-use), and the
// hardware the compiler and the models see for a part (array_in_use).
#include <catch2/catch.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/runner/compile_trials.h"

using npusim::array_parts;
using npusim::HardwareConfig;
using Parts = std::vector<std::pair<uint32_t, uint32_t>>;

namespace {

HardwareConfig array_of(uint32_t rows, uint32_t cols) {
  HardwareConfig hw;
  hw.compute.array_rows = rows;
  hw.compute.array_cols = cols;
  return hw;
}

}  // namespace

TEST_CASE(
    "the trials' parts of the array step rows and columns down by 8 together, neither below 8, "
    "and a machine 16 larger lists every part of the smaller one",
    "[trials][array]") {
  CHECK(array_parts(array_of(32, 32)) == Parts{{32, 32}, {24, 24}, {16, 16}, {8, 8}});
  // Rows stop at 8 while the columns go on: 16x40 tells rows from columns.
  CHECK(array_parts(array_of(16, 40)) == Parts{{16, 40}, {8, 32}, {8, 24}, {8, 16}, {8, 8}});
  CHECK(array_parts(array_of(40, 16)) == Parts{{40, 16}, {32, 8}, {24, 8}, {16, 8}, {8, 8}});
  // Below 8 a dimension keeps its own size; an odd size steps by 8 to 8.
  CHECK(array_parts(array_of(4, 4)) == Parts{{4, 4}});
  CHECK(array_parts(array_of(4, 13)) == Parts{{4, 13}, {4, 8}});
  // The grid of docs/mapping-performance.md#the-monotone-grid: 64 lists 48's parts, 48 lists 32's.
  const Parts of64 = array_parts(array_of(64, 64));
  const Parts of48 = array_parts(array_of(48, 48));
  CHECK(Parts(of64.begin() + 2, of64.end()) == of48);
  CHECK(Parts(of48.begin() + 2, of48.end()) == array_parts(array_of(32, 32)));
  // A given part is the only one.
  HardwareConfig given = array_of(64, 64);
  given.compiler.array_rows = 40;
  CHECK(array_parts(given) == Parts{{40, 64}});
}

TEST_CASE(
    "array_in_use gives the compiler and the models the part of the array in use, rows and "
    "columns each from its own key",
    "[trials][array]") {
  HardwareConfig hw = array_of(48, 64);
  hw.compiler.array_rows = 24;
  const HardwareConfig rows_only = npusim::array_in_use(hw);
  CHECK(rows_only.compute.array_rows == 24);
  CHECK(rows_only.compute.array_cols == 64);
  hw.compiler.array_cols = 40;
  const HardwareConfig both = npusim::array_in_use(hw);
  CHECK(both.compute.array_rows == 24);
  CHECK(both.compute.array_cols == 40);
  CHECK(hw.peak_macs_per_cycle() == 48u * 64u);  // the machine's peak stays the whole array's
  CHECK(npusim::array_in_use(array_of(48, 64)).compute.array_rows == 48);
}
