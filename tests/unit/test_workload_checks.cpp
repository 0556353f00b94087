// Workload and program checks from issue 21 (docs/robustness.md): what used to
// be accepted silently is now an error or a warning naming the layer, row or
// instruction: an int8 layer too long for its accumulator, an explicit input
// dropped for a matching shape, layers that do not chain, SCALE-Sim rows read
// differently from SCALE-Sim, and a program that leaves an output unwritten.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/compiler/program_emitter.h"
#include "sim/compiler/tiler.h"
#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/frontend/load_workload.h"
#include "sim/frontend/scalesim/scalesim_topology.h"
#include "sim/graph/workload.h"
#include "sim/program/program.h"
#include "tests/support/test_support.h"

using nlohmann::json;
using namespace npusim;
using npusim::test::config_error_from;

namespace {

bool workload_checks_contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

json workload_checks_layer(uint32_t C, uint32_t H, uint32_t K, uint32_t R) {
  return {{"type", "conv2d"}, {"C", C}, {"H", H}, {"W", H}, {"K", K}, {"R", R}, {"S", R}};
}

}  // namespace

TEST_CASE("an int8 layer past 131071 taps is rejected at parse time, one below it is not",
          "[robustness][config]") {
  // 14564 * 3 * 3 = 131076 taps: an int32 accumulator could overflow.
  const ConfigError e =
      config_error_from([] { parse_workload(workload_checks_layer(14564, 3, 1, 3), "long.json"); });
  CHECK(e.file() == "long.json");
  CHECK(workload_checks_contains(e.expected(), "C*R*S <= 131071"));
  CHECK(e.found() == "14564*3*3 = 131076 taps");
  // 14563 * 9 = 131067 taps: accepted.
  CHECK(parse_workload(workload_checks_layer(14563, 3, 1, 3), "ok.json").layers.size() == 1);
  // Binary layers accumulate popcounts, not int8 products: no such limit.
  json binary = workload_checks_layer(14564, 3, 1, 3);
  binary["dtype"] = "binary";
  CHECK_NOTHROW(parse_workload(binary, "binary.json"));
}

TEST_CASE("an explicit input_npy wins over a shape that would chain", "[robustness][config]") {
  json second = workload_checks_layer(8, 8, 8, 3);
  second["padding"] = 1;
  second["name"] = "second";
  json first = second;
  first["name"] = "first";
  const json plain = {{"layers", {first, second}}};
  second["input_npy"] = "x.npy";
  const json named = {{"layers", {first, second}}};
  const NetworkConfig chained = parse_workload(plain, "net.json");
  CHECK(chained.chained[1]);
  CHECK(input_source(chained, 1) == "chained from first");
  const NetworkConfig explicit_input = parse_workload(named, "net.json");
  CHECK_FALSE(explicit_input.chained[1]);
  CHECK(workload_checks_contains(input_source(explicit_input, 1), "x.npy"));
  CHECK(explicit_input.warnings.empty());  // the user chose the input: nothing to warn about
  CHECK(input_source(explicit_input, 0) == "random");
}

TEST_CASE("layers that do not chain are named in one warning with both shapes",
          "[robustness][config]") {
  json a = workload_checks_layer(3, 8, 4, 3), b = workload_checks_layer(16, 6, 8, 3),
       c = workload_checks_layer(5, 4, 8, 1);
  a["name"] = "a";
  b["name"] = "b";  // reads 16 channels; a writes 4
  c["name"] = "c";  // reads 5 channels; b writes 8
  const NetworkConfig net = parse_workload({{"layers", {a, b, c}}}, "net.json");
  REQUIRE(net.warnings.size() == 1);
  const std::string& w = net.warnings[0];
  INFO(w);
  CHECK(workload_checks_contains(w, "layer b reads N,H,W,C = 1x6x6x16"));
  CHECK(workload_checks_contains(w, "the layer before it, a, writes 1x6x6x4"));
  CHECK(workload_checks_contains(w, "so do 1 more layers (c)"));
  // A chained network gives no warning.
  json d = workload_checks_layer(4, 6, 8, 3);
  d["name"] = "d";
  CHECK(parse_workload({{"layers", {a, d}}}, "net.json").warnings.empty());
}

TEST_CASE("a SCALE-Sim ninth cell is the column stride even under an eight-column header",
          "[robustness][scalesim]") {
  const std::string header = npusim::test::kScaleSimHeader;  // eight columns
  // Same stride both ways: accepted.
  CHECK(parse_scalesim_topology(header + "l1, 9, 9, 3, 3, 4, 8, 2, 2,\n", "t.csv").layers.size() ==
        1);
  // A different column stride is what SCALE-Sim would run: npusim cannot, so it says so.
  const ConfigError e = config_error_from(
      [&] { parse_scalesim_topology(header + "l1, 9, 9, 3, 3, 4, 8, 2, 1,\n", "t.csv"); });
  CHECK(e.file() == "t.csv:2");
  CHECK(e.pointer() == "/column 9 (stride width)");
  CHECK(workload_checks_contains(e.expected(), "the same stride as Strides"));
  // A note after the strides (not a number) is still ignored.
  CHECK_NOTHROW(parse_scalesim_topology(header + "l1, 9, 9, 3, 3, 4, 8, 2, first,\n", "t.csv"));
}

TEST_CASE("SCALE-Sim depthwise rows and rounded-up output sizes are warned about",
          "[robustness][scalesim]") {
  const std::string header = npusim::test::kScaleSimHeader;
  // Conv_DP: SCALE-Sim splits it per channel. odd: (10 - 3) % 2 != 0, so SCALE-Sim has
  // ceil(9/2) = 5 output rows where npusim has floor(7/2) + 1 = 4. even: (9 - 3) % 2 == 0.
  const NetworkConfig net = parse_scalesim_topology(header +
                                                        "Conv_DP, 8, 8, 3, 3, 4, 4, 1,\n"
                                                        "odd, 10, 10, 3, 3, 4, 8, 2,\n"
                                                        "even, 9, 9, 3, 3, 4, 8, 2,\n",
                                                    "t.csv");
  std::string depthwise, rounded;
  for (const std::string& w : net.warnings) {
    if (workload_checks_contains(w, "depthwise")) depthwise = w;
    if (workload_checks_contains(w, "rounds the output size up")) rounded = w;
  }
  INFO(depthwise << "\n" << rounded);
  CHECK(workload_checks_contains(depthwise, ": Conv_DP"));
  CHECK(workload_checks_contains(rounded, ": odd"));
  CHECK_FALSE(workload_checks_contains(rounded, "even"));
}

TEST_CASE("a SCALE-Sim file of more than 4096 layer rows is rejected at the row past the limit",
          "[robustness][scalesim]") {
  std::string text = npusim::test::kScaleSimHeader;
  for (int i = 0; i < 4097; ++i) text += "l" + std::to_string(i) + ", 8, 8, 3, 3, 4, 8, 1,\n";
  const ConfigError e = config_error_from([&] { parse_scalesim_topology(text, "big.csv"); });
  CHECK(e.file() == "big.csv:4098");
  CHECK(workload_checks_contains(e.expected(), "at most 4096 layer rows"));
}

TEST_CASE("a program with a store deleted or duplicated fails validation naming the row",
          "[robustness][programs]") {
  json l = workload_checks_layer(8, 8, 8, 3);
  l["padding"] = 1;
  l["name"] = "only";
  const HardwareConfig hw;
  const Program compiled = compile_network(parse_workload(l, "l.json"), hw);
  CHECK_NOTHROW(validate_program(compiled));
  size_t last_store = 0;
  for (size_t i = 0; i < compiled.instructions.size(); ++i)
    if (compiled.instructions[i].op == Opcode::Store) last_store = i;
  REQUIRE(compiled.instructions[last_store].op == Opcode::Store);

  Program missing = compiled;  // the last store left out (nothing depends on it)
  missing.instructions.erase(missing.instructions.begin() + long(last_store));
  for (size_t i = 0; i < missing.instructions.size(); ++i) missing.instructions[i].id = uint32_t(i);
  try {
    validate_outputs_written(missing);
    FAIL("a program missing a store passed validation");
  } catch (const std::runtime_error& e) {
    INFO(e.what());
    CHECK(workload_checks_contains(e.what(), "layer 0 (only)"));
    CHECK(workload_checks_contains(e.what(), "write 0 channels, not K = 8"));
  }

  Program twice = compiled;  // the last store repeated
  Instruction again = twice.instructions[last_store];
  again.id = uint32_t(twice.instructions.size());
  again.deps.clear();
  twice.instructions.push_back(again);
  CHECK_THROWS_WITH(validate_program(twice), Catch::Contains("write 16 channels, not K = 8"));
}

TEST_CASE(
    "a channel written twice is found when the program writes a row's channel ranges out of "
    "order, and the two writers are named",
    "[robustness][programs]") {
  json l = workload_checks_layer(8, 8, 8, 3);
  l["padding"] = 1;
  l["name"] = "only";
  Program p;
  p.layers = compile_network(parse_workload(l, "l.json"), HardwareConfig{}).layers;
  REQUIRE(p.layers[0].K == 8);
  REQUIRE(p.layers[0].out_h == 8);
  const auto store = [&](uint32_t k_begin, uint32_t k_end, uint32_t row_begin, uint32_t row_end) {
    Instruction& in = p.instructions.emplace_back();
    in.id = uint32_t(p.instructions.size() - 1);
    in.op = Opcode::Store;
    in.k_begin = k_begin, in.k_end = k_end;
    in.out_row_begin = row_begin, in.out_row_end = row_end;
  };
  store(0, 8, 1, 8);  // #0: rows 1..7 whole
  // Row 0 gets 2 + 4 + 2 = 8 channels, as many as K, but channel 1 twice and channel 3
  // never: #1 [0, 2) and #3 [1, 3) overlap, with #2 [4, 8) between them in program order.
  store(0, 2, 0, 1);
  store(4, 8, 0, 1);
  store(1, 3, 0, 1);
  try {
    validate_outputs_written(p);
    FAIL("a channel written twice passed validation");
  } catch (const std::runtime_error& e) {
    INFO(e.what());
    CHECK(workload_checks_contains(e.what(), "output row 0: #1 store"));
    CHECK(workload_checks_contains(e.what(), "and #3 store"));
    CHECK(workload_checks_contains(e.what(), "both write channel 1 of column 0"));
  }
}
