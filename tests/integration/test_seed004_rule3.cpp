// Seed 004 rule 3 in compiled programs (compiler.load_after_store
// write_buffer, docs/scheduler.md#loads-after-a-store): every load waits for
// the store before it in the seed's stream, which issues each load one piece
// ahead of its compute; a load that reads none of the store's rows starts when
// the store's data is in the bus write buffer under the early policy, and when
// memory acknowledges it under strict.
//
// conv3x3 (C16, 16x16, K16) in a 16 KiB cache, trials off: one weight tile and
// six pieces, emitted per piece as load_input, compute, store:
//   #3 L0  #4 C0  #5 S0  #6 L1  #7 C1  #8 S1  #9 L2  #10 C2  #11 S2  #12 L3 ...
// The seed's stream is L0 L1 C0 S0 L2 C1 S1 L3 ...: L2 follows S0, L3 follows
// S1, and L0, L1 follow no store.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/test_support.h"

using npusim::test::read_text_file;
using npusim::test::run_cli;
using npusim::test::temp_dir;

namespace {

const std::string kSet = std::string(NPUSIM_SOURCE_DIR) +
                         "/configs/layers/conv3x3.json --set cache.size_kib=16"
                         " --set compiler.trials=off --set compiler.load_after_store=";

// The memory dependencies of each instruction of a compiled program.
std::map<uint32_t, std::set<uint32_t>> memory_deps(const std::string& policy) {
  const std::string file = temp_dir() + "/rule3_" + policy + ".jsonl";
  const auto r = run_cli("compile " + kSet + policy + " -o " + file);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::map<uint32_t, std::set<uint32_t>> deps;
  std::istringstream lines(read_text_file(file));
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (!j.contains("op")) continue;  // the header and layer lines
    for (const auto& d : j.value("deps", nlohmann::json::array()))
      if (d.at("kind") == "memory") deps[j.at("id")].insert(d.at("on").get<uint32_t>());
  }
  return deps;
}

struct Slice {
  uint64_t begin = 0, end = 0;
};

// Each instruction's slice in a run's trace: a load from its start to its
// last bus transfer, a store until its last batch is in the bus write buffer.
std::map<uint32_t, Slice> slices(const std::string& load_after_store, const std::string& policy) {
  const std::string trace = temp_dir() + "/rule3_" + load_after_store + "_" + policy + ".json";
  const auto r = run_cli("run " + kSet + load_after_store + " --set scheduler.policy=" + policy +
                         " -q --trace " + trace);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::map<uint32_t, Slice> out;
  const nlohmann::json events = nlohmann::json::parse(read_text_file(trace)).at("traceEvents");
  for (const auto& e : events)
    if (e.value("cat", "") == "instruction")
      out[e.at("args").at("instruction").get<uint32_t>()] = {
          e.at("args").at("begin_cycle").get<uint64_t>(),
          e.at("args").at("end_cycle").get<uint64_t>()};
  REQUIRE(out.size() == 21);
  return out;
}

}  // namespace

TEST_CASE(
    "seed 004 rule 3 in compiled programs: each load depends on the store before it in the "
    "seed's stream",
    "[scheduler][seed004]") {
  const auto seed = memory_deps("write_buffer");
  // L2 on S0, L3 on S1, L4 on S2, L5 on S3; L0, L1 (and the weights) on none.
  const std::map<uint32_t, std::set<uint32_t>> want = {{9, {5}}, {12, {8}}, {15, {11}}, {18, {14}}};
  CHECK(seed == want);
  // any_time: a single layer's loads read no stored rows, so no memory dependency.
  CHECK(memory_deps("any_time").empty());
}

TEST_CASE(
    "seed 004 rule 3 in compiled programs: a load that reads none of the stored rows starts when "
    "the store's data is in the bus write buffer (early), or in memory (strict)",
    "[scheduler][seed004]") {
  // dram.latency_cycles = 100: memory acknowledges a batch 100 cycles after
  // it enters the write buffer.
  const auto early = slices("write_buffer", "early");
  const auto strict = slices("write_buffer", "strict");
  const auto free = slices("any_time", "early");
  for (const auto& [load, store] : std::map<uint32_t, uint32_t>{{9, 5}, {12, 8}}) {
    INFO("load #" << load << " after store #" << store);
    CHECK(early.at(load).begin == early.at(store).end);
    CHECK(strict.at(load).begin == strict.at(store).end + 100);
  }
  // Without the rule L2 starts while S0 is still on the bus.
  CHECK(free.at(9).begin < free.at(5).end);
}
