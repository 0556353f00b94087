// Tensor layouts on whole runs (seed 001's layouts, docs/address-generator.md#layouts):
// the address generator reads NCHW inputs and the store writes NCHW outputs
// bit-exactly in every access mode and next to binary layers (each run checks
// every layer's output, read back from its layout in DRAM, against the
// reference), and NCHW's one-run-per-channel DRAM transfers cost the bursts
// the formulas say.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <string>

#include "sim/graph/workload.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

// a: NCHW in, NCHW out; b: NCHW in, NHWC out; c: NHWC in, NCHW out.
const char* kLayoutsChain = R"({"name":"layouts","layers":[
  {"name":"a","C":8,"H":10,"W":10,"K":16,"R":3,"S":3,"padding":1,
   "input_layout":"nchw","output_layout":"nchw"},
  {"name":"b","C":16,"H":10,"W":10,"K":24,"R":3,"S":3,"stride":2,"padding":1},
  {"name":"c","C":24,"H":5,"W":5,"K":8,"R":1,"S":1,"output_layout":"nchw"}]})";

// Runs `workload` (JSON text) through the CLI (one simulation per process)
// and returns report.json; requires a completed run whose every layer matched
// the reference and whose cycles respect the bounds.
nlohmann::json layouts_run(const std::string& name, const std::string& workload,
                           const std::string& options = "") {
  const std::string path = test::write_temp_file(name + ".json", workload);
  const nlohmann::json report = test::run_report("run " + path + " " + options);
  for (const nlohmann::json& layer : report.at("layers")) {
    INFO(name << " layer " << layer.at("name") << ": " << layer.at("check").at("mismatch"));
    CHECK(layer.at("check").at("checked") == true);
    CHECK(layer.at("check").at("match") == true);
  }
  CHECK(report.at("totals").at("within_bounds") == true);
  return report;
}

uint64_t layouts_counter(const nlohmann::json& report, const char* name) {
  return report.at("layers")[0].at("counters").at(name).get<uint64_t>();
}

uint64_t layouts_cycles(const nlohmann::json& report) { return report.at("totals").at("cycles"); }

}  // namespace

TEST_CASE("NCHW and NHWC layers chain bit-exactly in every access mode", "[layout][e2e]") {
  const NetworkConfig net = test::workload(kLayoutsChain);
  REQUIRE(net.layers[1].input_layout == TensorLayout::Nchw);
  REQUIRE(net.layers[2].input_layout == TensorLayout::Nhwc);
  std::string all_nhwc = kLayoutsChain;
  for (const char* key : {R"(,
   "input_layout":"nchw","output_layout":"nchw")",
                          R"(,"output_layout":"nchw")"}) {
    const size_t at = all_nhwc.find(key);
    REQUIRE(at != std::string::npos);
    all_nhwc.erase(at, std::string(key).size());
  }
  const nlohmann::json reference = layouts_run("all_nhwc", all_nhwc);
  for (const char* access : {"im2col", "host_im2col", "mec"}) {
    INFO("load.access " << access);
    const nlohmann::json r =
        layouts_run("layouts", kLayoutsChain, std::string("--set load.access=") + access);
    // The digest is of each output's NHWC view, whatever its layout in DRAM.
    for (size_t l = 0; l < 3; ++l)
      CHECK(r.at("layers")[l].at("check").at("digest") ==
            reference.at("layers")[l].at("check").at("digest"));
  }
}

TEST_CASE("binary layers read and write next to NCHW int8 layers", "[layout][binary][e2e]") {
  // int8 (NCHW in) -> binary (packed in, NCHW +-1 out) -> int8 (NCHW in, NCHW out).
  const char* mixed = R"({"name":"mixed","layers":[
    {"name":"stem","C":3,"H":12,"W":12,"K":32,"R":3,"S":3,"padding":1,"input_layout":"nchw"},
    {"name":"bin","C":32,"H":12,"W":12,"K":16,"R":3,"S":3,"padding":1,"dtype":"binary",
     "output_layout":"nchw"},
    {"name":"head","C":16,"H":12,"W":12,"K":10,"R":1,"S":1,"output_layout":"nchw"}]})";
  const NetworkConfig net = test::workload(mixed);
  REQUIRE(output_bits_of(net, 0) == 32);
  REQUIRE(net.layers[2].input_layout == TensorLayout::Nchw);
  CHECK(layouts_run("mixed", mixed).at("layers").size() == 3);
}

TEST_CASE("NCHW stores cost one burst-rounded run per channel plane", "[layout][e2e]") {
  // 1x1, C 8 -> K 64 on 20x20, store batches of at least 1024 B: one output
  // row (20 x 64 = 1280 B) each, 20 batches.
  // NHWC: a row is one 1280 B run = 20 bursts of 64 B.
  // NCHW: 64 runs (one per channel plane) of 20 B, each a whole burst:
  // 64 x 64 = 4096 B. Twenty rows: 25,600 B vs 81,920 B.
  const std::string layer = R"({"type":"conv2d","name":"wide","C":8,"H":20,"W":20,"K":64,
    "R":1,"S":1)";
  const std::string hw = "--set store.batch_bytes=1024 --set compiler.pieces=greedy";
  const nlohmann::json nhwc = layouts_run("wide", layer + "}", hw);
  const nlohmann::json nchw = layouts_run("wide_nchw", layer + R"(,"output_layout":"nchw"})", hw);
  CHECK(layouts_counter(nhwc, "store.batches") == 20);
  CHECK(layouts_counter(nchw, "store.batches") == 20);
  CHECK(layouts_counter(nhwc, "dram.write_bytes") == 20 * 1280);
  CHECK(layouts_counter(nchw, "dram.write_bytes") == 20 * 64 * 64);
  CHECK(layouts_cycles(nchw) > layouts_cycles(nhwc));

  // A whole image in one batch (one greedy piece) is whole planes: one run either way.
  // 4 rows x 10 columns: 640 B in one run (10 bursts); taken for one plane per
  // channel (a batch of 4 rows is not out_w = 10 rows), it would be 16 x 64 B.
  const std::string small = R"({"type":"conv2d","name":"small","C":8,"H":4,"W":10,"K":16,
    "R":1,"S":1)";
  const nlohmann::json whole_nhwc = layouts_run("small", small + "}", hw);
  const nlohmann::json whole_nchw =
      layouts_run("small_nchw", small + R"(,"output_layout":"nchw"})", hw);
  CHECK(layouts_counter(whole_nchw, "dram.write_bytes") == 4 * 10 * 16);
  CHECK(layouts_counter(whole_nchw, "dram.write_bytes") ==
        layouts_counter(whole_nhwc, "dram.write_bytes"));
  CHECK(layouts_cycles(whole_nchw) == layouts_cycles(whole_nhwc));
}

TEST_CASE("an NCHW input is read one run per channel plane", "[layout][e2e]") {
  // 3x3 on 16x16, C 4, in a cache small enough that the input comes in pieces
  // of a few rows: a piece's real rows are C runs of rows x 16 B in NCHW, one
  // run of rows x 64 B in NHWC. The same bytes, more bursts.
  const std::string layer = R"({"type":"conv2d","name":"in","C":4,"H":16,"W":16,"K":8,
    "R":3,"S":3,"padding":1)";
  const std::string hw = "--set cache.size_kib=4";
  const nlohmann::json nhwc = layouts_run("in", layer + "}", hw);
  const nlohmann::json nchw = layouts_run("in_nchw", layer + R"(,"input_layout":"nchw"})", hw);
  CHECK(layouts_counter(nchw, "load.input_dram_bytes") ==
        layouts_counter(nhwc, "load.input_dram_bytes"));
  CHECK(layouts_counter(nchw, "dram.read_bytes") > layouts_counter(nhwc, "dram.read_bytes"));
}

TEST_CASE("a compiled NCHW program replays, and its layouts must match the workload",
          "[layout][programs]") {
  const std::string workload = test::write_temp_file("layouts.json", kLayoutsChain);
  const std::string program = test::temp_dir() + "/layouts.jsonl";
  REQUIRE(test::run_cli("compile " + workload + " -o " + program).exit_code == 0);
  const auto replay = test::run_cli("run -q --program " + program);
  INFO(replay.out << replay.err);
  CHECK(replay.exit_code == 0);
  CHECK_THAT(replay.out, Catch::Contains("bit-exact vs reference (3 layers)"));

  // The layer line of a says "output_layout": "nchw"; drop it.
  std::ifstream in(program);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string key = R"(, "output_layout": "nchw")";
  const size_t at = text.find(key);
  REQUIRE(at != std::string::npos);
  text.erase(at, key.size());
  const std::string edited = test::write_temp_file("layouts_edited.jsonl", text);
  const auto refused = test::run_cli("run -q --program " + edited);
  INFO(refused.err);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("/output_layout") &&
                              Catch::Contains("nchw (as in the header's workload") &&
                              Catch::Contains("found nothing (absent: nhwc)"));
}
