// Hand-edited programs (traces/) that must be refused with a clear error,
// never run into a hang or a wrong count; and the deadlock detector.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "tests/support/test_support.h"

using namespace npusim;
using npusim::test::run_cli;
using npusim::test::write_temp_file;

namespace {

std::vector<std::string> trace_lines(const std::string& name) {
  std::ifstream in(std::string(NPUSIM_SOURCE_DIR) + "/traces/" + name);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() > 3);
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

// Replaces the first occurrence of `from` in line `index`.
std::string edited(std::vector<std::string> lines, size_t index, const std::string& from,
                   const std::string& to) {
  const size_t at = lines.at(index).find(from);
  REQUIRE(at != std::string::npos);
  lines[index].replace(at, from.size(), to);
  return join(lines);
}

size_t line_of_instruction(const std::vector<std::string>& lines, int id) {
  const std::string key = "\"id\": " + std::to_string(id) + ",";
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(key) != std::string::npos) return i;
  FAIL("no instruction " << id);
  return 0;
}

}  // namespace

TEST_CASE("a committed trace replays bit-exact", "[programs]") {
  const auto r =
      run_cli("run -q --program " + std::string(NPUSIM_SOURCE_DIR) + "/traces/tiny3.jsonl");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("bit-exact vs reference (3 layers)"));
}

TEST_CASE("bad hand-edited programs are refused", "[programs]") {
  const auto lines = trace_lines("tiny3.jsonl");
  const size_t compute = line_of_instruction(lines, 5);  // first compute: deps on #3 and #4
  struct Case {
    const char* name;
    std::string text;
    const char* expected;
  };
  const Case cases[] = {
      {"later", edited(lines, compute, "\"on\": 4", "\"on\": 9"), "comes later"},
      {"missing", edited(lines, compute, "\"on\": 4", "\"on\": 99"), "no instruction #99"},
      {"self", edited(lines, compute, "\"on\": 4", "\"on\": 5"), "/deps/"},
      {"bad_kind", edited(lines, compute, "\"kind\": \"data\"", "\"kind\": \"dta\""), "data"},
      {"unknown_key", edited(lines, compute, "\"stages\"", "\"stagse\""), "stages"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      const std::string path = write_temp_file(std::string("bad_") + c.name + ".jsonl", c.text);
      const auto r = run_cli("run -q --program " + path);
      INFO(r.err);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err, Catch::Contains(path + ":" + std::to_string(compute + 1)) &&
                            Catch::Contains(c.expected));
    }
  }
}

TEST_CASE("a program whose last store was deleted is refused, also in timing-only mode",
          "[programs][robustness]") {
  // It used to run --timing-only to 1160 cycles instead of 2044 and exit 0.
  std::vector<std::string> lines = trace_lines("tiny3.jsonl");
  REQUIRE(lines.back().find("\"op\": \"store\"") != std::string::npos);
  lines.pop_back();
  const std::string path = write_temp_file("no_last_store.jsonl", join(lines));
  for (const char* mode : {"--timing-only", ""}) {
    const auto r = run_cli(std::string("run -q ") + mode + " --program " + path);
    INFO(mode << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(path) && Catch::Contains("layer 2 (conv_c)") &&
                          Catch::Contains("write 0 channels, not K = 8"));
  }
}

TEST_CASE("a program's dram_bytes beyond what its tensors reach is refused before allocating",
          "[programs][robustness]") {
  // 4 GiB from an 11 KB program used to become 4.2 GB of resident memory.
  const auto lines = trace_lines("tiny3.jsonl");
  const size_t at = lines[0].find("\"dram_bytes\": ");
  REQUIRE(at != std::string::npos);
  const std::string current = lines[0].substr(at + 14, lines[0].find('}', at) - at - 14);
  const std::string path =
      write_temp_file("huge_dram.jsonl",
                      edited(lines, 0, "\"dram_bytes\": " + current, "\"dram_bytes\": 4294967296"));
  const auto r = run_cli("run -q --timing-only --program " + path);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ":1") && Catch::Contains("/dram_bytes") &&
                        Catch::Contains("at most " + current) &&
                        Catch::Contains("found 4294967296"));
}

TEST_CASE("a program whose buffers exceed the cache is refused", "[programs]") {
  // Compiled for a 1 MiB cache, replayed on 16 KiB.
  const auto r = run_cli("run -q --program " + std::string(NPUSIM_SOURCE_DIR) +
                         "/traces/tiny3.jsonl --set cache.size_kib=16");
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("buffers over capacity"));
}

TEST_CASE("a deadlocked program is reported, not hung", "[programs]") {
  // Make the first load_input wait for the first compute, which waits for that
  // load: only possible by skipping validation (dependencies must point back).
  RunOptions options;
  options.progress = false;
  options.skip_validation = true;
  options.edit_program = [](Program& p) {
    for (Instruction& in : p.instructions)
      if (in.op == Opcode::LoadInput) {
        in.deps.push_back({in.id + 1, DependencyKind::BufferSpace});
        return;
      }
  };
  const HardwareConfig hw = parse_hardware_config(nlohmann::json::object(), "<test>");
  const auto r = run_network(
      test::workload(R"({"type":"conv2d","name":"d","C":8,"H":8,"W":8,"K":8,"R":3,"S":3})"), hw,
      options);
  INFO(r->outcome.message);
  REQUIRE(r->outcome.status == RunOutcome::Status::Deadlocked);
  CHECK_THAT(r->outcome.message,
             Catch::Contains("deadlock") && Catch::Contains("load engine waits") &&
                 Catch::Contains("compute unit 0 waits") && Catch::Contains("never started"));
}

TEST_CASE(
    "a program whose parameter region is too small for its LoadParams is refused, naming the "
    "instruction and the bank",
    "[programs][robustness]") {
  // conv_a has K = 16: its LoadParams brings 16 x 8 = 128 B; a region of 128 B has banks of 64.
  const auto lines = trace_lines("tiny3.jsonl");
  size_t conv_a = lines.size();
  for (size_t i = 0; i < lines.size() && conv_a == lines.size(); ++i)
    if (lines[i].find("\"name\": \"conv_a\"") != std::string::npos) conv_a = i;
  REQUIRE(conv_a < lines.size());
  const std::string path = write_temp_file(
      "small_params.jsonl",
      edited(lines, conv_a, "\"params_region_bytes\": 256", "\"params_region_bytes\": 128"));
  const auto r = run_cli("run -q --timing-only --program " + path);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("load_params layer conv_a") &&
                        Catch::Contains("16 channels' parameters (128 B) but a bank holds 64 B"));
}
