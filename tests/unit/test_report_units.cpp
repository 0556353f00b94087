// Printed figures in the unit a person reads (sim/report/units.h) and the
// `bound` column's rule (sim/report/report_figures.h), each worked by hand.
#include <catch2/catch.hpp>

#include "sim/report/report_figures.h"
#include "sim/report/units.h"

using namespace npusim;

TEST_CASE("units: bytes take the largest binary prefix that leaves at least 1", "[report][units]") {
  CHECK(bytes_text(0) == "0 B");
  CHECK(bytes_text(1023) == "1023 B");
  CHECK(bytes_text(1024) == "1.0 KiB");
  CHECK(bytes_text(379187) == "370.3 KiB");     // 379187 / 1024 = 370.30
  CHECK(bytes_text(1048576) == "1.0 MiB");      // 1024 KiB
  CHECK(bytes_text(491115315) == "468.4 MiB");  // / 1048576 = 468.36
  CHECK(bytes_text(3ull << 30) == "3.00 GiB");
  CHECK(bytes_text(5402267648ull) == "5.03 GiB");  // / 1073741824 = 5.031
}

TEST_CASE("units: durations print in us under 1 ms, ms under 1 s, else s", "[report][units]") {
  CHECK(duration_text(5e-6) == "5.000 us");
  CHECK(duration_text(999e-6) == "999.000 us");
  CHECK(duration_text(1e-3) == "1.000 ms");
  CHECK(duration_text(0.015775770) == "15.776 ms");  // 15775770 cycles at 1000 MHz
  CHECK(duration_text(1.0) == "1.000 s");
  CHECK(duration_text(72.5) == "72.500 s");
}

TEST_CASE("units: energies print in uJ under 1 mJ, mJ under 1 J, else J", "[report][units]") {
  CHECK(energy_text(1.333) == "1.333 uJ");
  CHECK(energy_text(999.0) == "999.000 uJ");
  CHECK(energy_text(94890.22) == "94.890 mJ");
  CHECK(energy_text(2.5e6) == "2.500 J");
}

TEST_CASE(
    "bound: compute or memory by the larger lower bound, neither when the cycles exceed twice "
    "the larger",
    "[report][bound]") {
  CHECK(bound_string(0, 0, 100) == "-");
  CHECK(bound_string(600, 400, 1000) == "compute");  // 1000 <= 2 * 600
  CHECK(bound_string(400, 600, 1000) == "memory");
  CHECK(bound_string(500, 500, 1000) == "compute");  // a tie is compute; 1000 = 2 * 500
  CHECK(bound_string(500, 300, 1001) == "neither");  // 1001 > 2 * 500
  CHECK(bound_string(300, 500, 1001) == "neither");
  CHECK(bound_string(0, 10, 21) == "neither");  // a vector-free layer waiting on others
}
