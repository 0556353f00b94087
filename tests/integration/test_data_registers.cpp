// Seed 001's data register sets on whole runs (compute.data_registers,
// docs/address-generator.md#data-register-sets): the compute engine's
// operands always come through the address generator's fetch stream into a
// register set (so a broken generator breaks the outputs), and with `single`
// or `double` the bursts take time: a hand count of the bytes and of the
// single set's exposed burst cycles, and double hiding most of them.
#include <catch2/catch.hpp>
#include <string>

#include "tests/support/test_support.h"

using npusim::test::run_report;

namespace {

const std::string kConv3x3 = std::string(NPUSIM_SOURCE_DIR) + "/configs/layers/conv3x3.json";

nlohmann::json data_registers_run(const std::string& access, const std::string& sets) {
  return run_report("run " + kConv3x3 + " --set load.access=" + access +
                    " --set compute.data_registers=" + sets);
}

uint64_t data_registers_counter(const nlohmann::json& report, const std::string& name) {
  return report.at("layers")[0].at("counters").at(name).get<uint64_t>();
}

uint64_t cycles(const nlohmann::json& report) {
  return report.at("layers")[0].at("cycles").get<uint64_t>();
}

}  // namespace

TEST_CASE(
    "data register sets: single exposes every burst, double hides all but the first of each stage",
    "[access][registers]") {
  // conv3x3: 16x16 outputs, C = 16, 3x3 kernels, K = 16 (one weight tile).
  // Lowered bytes: 256 pixels x 144 = 36,864, in every access mode. At the
  // default 32 B/cycle (array_cols) a pass of 32 pixels loads in 144 cycles
  // and a pass of 16 in 72, so a single set waits 36,864 / 32 = 1,152 cycles.
  for (const std::string access : {"im2col", "mec", "host_im2col"}) {
    INFO(access);
    const nlohmann::json in_place = data_registers_run(access, "in_place");
    const nlohmann::json single = data_registers_run(access, "single");
    const nlohmann::json twin = data_registers_run(access, "double");
    for (const nlohmann::json* r : {&in_place, &single, &twin})
      CHECK(r->at("layers")[0].at("check").at("match") == true);
    CHECK(data_registers_counter(in_place, "compute.register_fetch_bytes") == 0);
    CHECK(data_registers_counter(in_place, "compute.register_stall_cycles") == 0);
    CHECK(data_registers_counter(single, "compute.register_fetch_bytes") == 36864);
    CHECK(data_registers_counter(twin, "compute.register_fetch_bytes") == 36864);
    CHECK(data_registers_counter(single, "compute.register_stall_cycles") == 1152);
    // Double: a burst per stage shows (72 or 144 cycles), the rest overlap.
    const uint64_t hidden = data_registers_counter(twin, "compute.register_stall_cycles");
    CHECK(hidden >= 72);
    CHECK(hidden < 1152);
    CHECK(cycles(in_place) <= cycles(twin));
    CHECK(cycles(twin) < cycles(single));
  }
}

TEST_CASE(
    "data register sets: double's stall on stages of nine passes, worked by hand, keeps the "
    "cross-stage overlap",
    "[access][registers]") {
  // C8, 12x6 (tall), 3x3 pad 1, K4 on an 8x4 array (kernels on rows: one
  // group; passes of 4 pixels), bursts at 2 B/cycle, folds off. The greedy
  // mapping takes two pieces of 6 rows, each one stage of 36 pixels: 9 full
  // passes. A pass multiplies 72 coefficients (m = 72) after a burst of
  // 4 x 72 / 2 = 144 cycles (f = 144).
  //   in place: 2 x (9 x 72 + 8 fill) = 1312
  //   single:   every burst exposed, 2 x 9 x 144 = 2592
  //   double:   stage 1: f_0 + 8 x max(m, f) + max(m, 0) - 9m = 144 + 1152 + 72 - 648 = 720;
  //             stage 2: its first burst loads while stage 1 multiplies its last
  //             pass (72 cycles), so f_0 - 72 = 72 shows: 72 + 1224 - 648 = 648.
  //             1368 (1440 without the overlap).
  const std::string layer = npusim::test::write_temp_file(
      "registers_tall.json",
      R"({"name":"dr","layers":[{"name":"tall","C":8,"H":12,"W":6,"K":4,"R":3,"S":3,"padding":1}]})");
  const std::string set =
      " --set compute.array_rows=8 --set compute.array_cols=4"
      " --set compute.register_fetch_bytes_per_cycle=2 --set compiler.mapper=greedy"
      " --set compute.fold=matmul --set compute.data_registers=";
  const nlohmann::json in_place = run_report("run " + layer + set + "in_place");
  REQUIRE(in_place.at("layers")[0].at("tiling").at("pieces") == 2);
  REQUIRE(data_registers_counter(in_place, "compute.instructions") == 2);
  REQUIRE(data_registers_counter(in_place, "compute.work_cycles") == 1312);  // one stage each
  const nlohmann::json single = run_report("run " + layer + set + "single");
  CHECK(data_registers_counter(single, "compute.register_stall_cycles") == 2592);
  const nlohmann::json twin = run_report("run " + layer + set + "double");
  CHECK(data_registers_counter(twin, "compute.register_fetch_bytes") == 2 * 36 * 72);
  CHECK(data_registers_counter(twin, "compute.register_stall_cycles") == 1368);
  CHECK(data_registers_counter(twin, "compute.work_cycles") == 1312 + 1368);
}
