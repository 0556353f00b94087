// The Chrome trace a user opens in Perfetto: read it back and check its
// structure -- stage slices inside their instruction's slice, and no engine
// running two instructions at once.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>

#include "tests/support/test_support.h"

using npusim::test::run_cli;
using npusim::test::temp_dir;

TEST_CASE("the timeline nests stages in instructions and never double-books an engine",
          "[timeline]") {
  const std::string trace = temp_dir() + "/timeline.json";
  const auto r = run_cli("run -q " + std::string(NPUSIM_SOURCE_DIR) +
                         "/configs/networks/tiny3.json --policy early "
                         "--set compute.accumulator_kib=4 --set compiler.mapper=greedy --trace " +
                         trace);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(trace);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::map<int, std::string> tracks;
  struct Slice {
    uint64_t begin, end;
    int tid;
  };
  std::map<uint64_t, Slice> instructions;          // by instruction id
  std::vector<std::pair<uint64_t, Slice>> stages;  // (instruction, slice)
  size_t counters = 0;
  for (const auto& e : j.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "M" && e.at("name") == "thread_name") tracks[e.at("tid")] = e["args"]["name"];
    if (ph == "C") ++counters;
    if (ph != "X") continue;
    const Slice s{e["args"]["begin_cycle"], e["args"]["end_cycle"], e.at("tid")};
    CHECK(s.begin <= s.end);
    if (e.at("cat") == "instruction")
      instructions[e["args"]["instruction"]] = s;
    else
      stages.push_back({e["args"]["instruction"], s});
  }
  CHECK(tracks.size() == 4);  // load engine, compute unit 0, store engine, address generator
  CHECK(counters > 0);
  // Per layer: params, weights, two pieces (seed 003's N = 2) of load,
  // compute and store, and one AGU_INIT: 3 x 9 = 27.
  REQUIRE(instructions.size() == 27);
  REQUIRE(!stages.empty());
  for (const auto& [id, s] : stages) {
    INFO("instruction " << id);
    REQUIRE(instructions.count(id) == 1);
    const Slice& parent = instructions[id];
    CHECK(s.tid == parent.tid);
    CHECK(s.begin >= parent.begin);
    CHECK(s.end <= parent.end);
  }
  std::map<int, std::vector<Slice>> by_track;
  for (const auto& [id, s] : instructions) by_track[s.tid].push_back(s);
  for (auto& [tid, slices] : by_track) {
    std::sort(slices.begin(), slices.end(),
              [](const Slice& a, const Slice& b) { return a.begin < b.begin; });
    for (size_t i = 1; i < slices.size(); ++i) {
      INFO(tracks[tid]);
      CHECK(slices[i].begin >= slices[i - 1].end);
    }
  }
}
