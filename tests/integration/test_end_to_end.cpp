// End-to-end runs through the SystemC model: every output bit-exact against
// the reference, the timing invariants hold. Each TEST_CASE simulates once
// (CTest runs each in its own process: SystemC elaborates once per process).
#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using namespace npusim;
using npusim::test::check_invariants;
using npusim::test::workload;

namespace {

HardwareConfig hardware(const std::string& json_text = "{}") {
  return parse_hardware_config(nlohmann::json::parse(json_text), "<test>");
}

void run_and_check(const std::string& workload_json, const std::string& hw_json = "{}") {
  const NetworkConfig net = workload(workload_json);
  const HardwareConfig hw = hardware(hw_json);
  RunOptions options;
  options.progress = false;
  const auto result = run_network(net, hw, options);
  INFO(result->outcome.message);
  REQUIRE(result->outcome.status == RunOutcome::Status::Completed);
  for (size_t l = 0; l < net.layers.size(); ++l) {
    INFO("layer " << net.layers[l].name << ": " << result->summary.checks[l].mismatch);
    CHECK(result->summary.checks[l].checked);
    CHECK(result->summary.checks[l].match);
  }
  check_invariants(*result);
}

}  // namespace

TEST_CASE("1x1 convolution, C and K not multiples of the array", "[e2e]") {
  run_and_check(R"({"type":"conv2d","name":"pw","C":37,"H":9,"W":7,"K":45,"R":1,"S":1})");
}

TEST_CASE("3x3 padding 1, odd H and W", "[e2e]") {
  run_and_check(
      R"({"type":"conv2d","name":"c3","C":33,"H":13,"W":11,"K":35,"R":3,"S":3,"padding":1})");
}

TEST_CASE("3x3 stride 2 without padding", "[e2e]") {
  run_and_check(
      R"({"type":"conv2d","name":"c3s2","C":8,"H":15,"W":17,"K":16,"R":3,"S":3,"stride":2})");
}

TEST_CASE("5x5 padding 2, no ReLU", "[e2e]") {
  run_and_check(R"({"type":"conv2d","name":"c5","C":6,"H":12,"W":10,"K":9,"R":5,"S":5,
                    "padding":2,"relu":false})");
}

TEST_CASE("7x7 stride 2 padding 3 (a ResNet stem)", "[e2e]") {
  run_and_check(R"({"type":"conv2d","name":"stem","C":3,"H":31,"W":29,"K":20,"R":7,"S":7,
                    "stride":2,"padding":3})");
}

TEST_CASE("batch of 2 images", "[e2e]") {
  run_and_check(
      R"({"type":"conv2d","name":"b2","N":2,"C":16,"H":10,"W":10,"K":24,"R":3,"S":3,"padding":1})");
}

TEST_CASE("chained 3-layer network", "[e2e]") {
  run_and_check(R"({"name":"chain","seed":7,"layers":[
      {"name":"a","C":8,"H":16,"W":16,"K":16,"R":3,"S":3,"padding":1},
      {"name":"b","C":16,"H":16,"W":16,"K":24,"R":3,"S":3,"stride":2,"padding":1},
      {"name":"c","C":24,"H":8,"W":8,"K":10,"R":1,"S":1}]})");
}

TEST_CASE("small cache: many pieces and k-tiles, three compute units", "[e2e]") {
  // 96 KiB of cache over three units leaves 7.75 KiB halves: one output row
  // per piece (seed 003 split); a 4 KiB accumulator caps layer a at 51
  // output channels per k-tile, so its 96 kernels go in two k-tiles.
  run_and_check(R"({"name":"tight","layers":[
      {"name":"a","C":32,"H":24,"W":20,"K":96,"R":3,"S":3,"padding":1},
      {"name":"b","C":96,"H":24,"W":20,"K":40,"R":3,"S":3,"padding":1}]})",
                R"({"cache":{"size_kib":96},"compute":{"units":3,"accumulator_kib":4}})");
}

TEST_CASE("single buffering is also bit-exact", "[e2e]") {
  run_and_check(
      R"({"type":"conv2d","name":"s","C":16,"H":20,"W":20,"K":32,"R":3,"S":3,"padding":1})",
      R"({"buffering":"single","cache":{"size_kib":32}})");
}
