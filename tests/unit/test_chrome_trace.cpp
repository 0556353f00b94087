// Chrome trace-event output (sim/report/chrome_trace.h): a timeline with
// slices on two tracks, stages inside an instruction and a counter becomes
// one process, one named thread per track, "X" slices in microseconds
// (cycles / clock_mhz) and "C" counter samples.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/report/chrome_trace.h"
#include "tests/support/test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

Timeline sample_timeline() {
  Timeline t(true);
  t.slice({"load engine", "#0 load_weights layer a", 0, 100, 0, -1, 0});
  t.slice({"compute unit 0", "#1 compute layer a", 100, 350, 1, -1, 0});
  t.slice({"compute unit 0", "stage 0", 100, 200, 1, 0, 0});
  t.slice({"compute unit 0", "stage 1", 200, 350, 1, 1, 0});
  t.slice({"load engine", "#2 load_input layer b", 120, 131, 2, -1, 1});
  t.counter("cache occupancy (bytes)", 0, 0);
  t.counter("cache occupancy (bytes)", 100, 4096);
  return t;
}

json trace_of(const Timeline& t, double clock_mhz) {
  std::ostringstream out;
  write_chrome_trace(out, t, clock_mhz);
  return json::parse(out.str());
}

std::vector<json> events_with(const json& trace, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == ph) out.push_back(e);
  return out;
}

const json& slice_named(const std::vector<json>& slices, const std::string& name) {
  for (const json& e : slices)
    if (e.at("name") == name) return e;
  throw std::logic_error("no slice named " + name);
}

}  // namespace

TEST_CASE("timeline: chrome trace has one process and one named thread per track", "[timeline]") {
  const json trace = trace_of(sample_timeline(), 500);
  CHECK(trace.at("displayTimeUnit") == "ns");
  CHECK(trace.at("otherData").at("clock_mhz") == 500.0);
  CHECK(trace.at("otherData").at("time_unit") == "us = cycles / clock_mhz");

  const std::vector<json> meta = events_with(trace, "M");
  REQUIRE(meta.size() == 5);  // process name, 2 x (thread name, sort index)
  CHECK(meta[0].at("name") == "process_name");
  CHECK(meta[0].at("pid") == 1);
  CHECK(meta[0].at("args").at("name") == "npusim");
  // Threads in order of first appearance.
  CHECK(meta[1].at("name") == "thread_name");
  CHECK(meta[1].at("tid") == 1);
  CHECK(meta[1].at("args").at("name") == "load engine");
  CHECK(meta[2].at("name") == "thread_sort_index");
  CHECK(meta[2].at("args").at("sort_index") == 1);
  CHECK(meta[3].at("tid") == 2);
  CHECK(meta[3].at("args").at("name") == "compute unit 0");
  CHECK(meta[4].at("args").at("sort_index") == 2);
}

TEST_CASE("timeline: slices are complete events in microseconds at the clock", "[timeline]") {
  const json trace = trace_of(sample_timeline(), 500);
  const std::vector<json> slices = events_with(trace, "X");
  REQUIRE(slices.size() == 5);
  for (const json& e : slices) CHECK(e.at("pid") == 1);

  const json& compute = slice_named(slices, "#1 compute layer a");
  CHECK(compute.at("cat") == "instruction");
  CHECK(compute.at("tid") == 2);
  CHECK(compute.at("ts").get<double>() == Approx(0.2));   // 100 cycles at 500 MHz
  CHECK(compute.at("dur").get<double>() == Approx(0.5));  // 250 cycles
  CHECK(compute.at("args") == json{{"instruction", 1},
                                   {"stage", -1},
                                   {"layer", 0},
                                   {"begin_cycle", 100},
                                   {"end_cycle", 350}});

  // Fractional microseconds are kept: 11 cycles at 500 MHz are 0.022 us.
  const json& load = slice_named(slices, "#2 load_input layer b");
  CHECK(load.at("tid") == 1);
  CHECK(load.at("ts").get<double>() == Approx(0.24));
  CHECK(load.at("dur").get<double>() == Approx(0.022));
  CHECK(load.at("args").at("layer") == 1);

  const json& stage = slice_named(slices, "stage 1");
  CHECK(stage.at("cat") == "stage");
  CHECK(stage.at("args").at("stage") == 1);
  CHECK(stage.at("args").at("instruction") == 1);
}

TEST_CASE("timeline: stage slices nest inside their instruction slice", "[timeline]") {
  const json trace = trace_of(sample_timeline(), 500);
  const std::vector<json> slices = events_with(trace, "X");
  int stages = 0;
  for (size_t i = 0; i < slices.size(); ++i) {
    const json& s = slices[i];
    if (s.at("cat") != "stage") continue;
    ++stages;
    const json* parent = nullptr;
    size_t parent_index = 0;
    for (size_t j = 0; j < slices.size(); ++j) {
      if (slices[j].at("cat") == "instruction" &&
          slices[j].at("args").at("instruction") == s.at("args").at("instruction")) {
        parent = &slices[j];
        parent_index = j;
      }
    }
    REQUIRE(parent != nullptr);
    INFO(s.dump() << " in " << parent->dump());
    CHECK(s.at("tid") == parent->at("tid"));
    CHECK(parent_index < i);  // the parent comes first
    const double ts = s.at("ts"), end = ts + s.at("dur").get<double>();
    const double pts = parent->at("ts"), pend = pts + parent->at("dur").get<double>();
    CHECK(ts >= pts);
    CHECK(end <= pend + 1e-9);
  }
  CHECK(stages == 2);
}

TEST_CASE("timeline: counters are C events named by their track", "[timeline]") {
  const json trace = trace_of(sample_timeline(), 500);
  const std::vector<json> counters = events_with(trace, "C");
  REQUIRE(counters.size() == 2);
  CHECK(counters[0].at("name") == "cache occupancy (bytes)");
  CHECK(counters[0].at("pid") == 1);
  CHECK(counters[0].at("ts").get<double>() == 0.0);
  CHECK(counters[0].at("args").at("value") == 0.0);
  CHECK(counters[1].at("ts").get<double>() == Approx(0.2));
  CHECK(counters[1].at("args").at("value") == 4096.0);
}

TEST_CASE("timeline: empty timeline, bad clock and unwritable path", "[timeline]") {
  const json empty = trace_of(Timeline(false), 1000);
  REQUIRE(empty.at("traceEvents").size() == 1);
  CHECK(empty.at("traceEvents")[0].at("name") == "process_name");

  std::ostringstream out;
  CHECK_THROWS_AS(write_chrome_trace(out, sample_timeline(), 0), std::invalid_argument);

  const std::string bad = test::temp_dir() + "/no_such_dir/trace.json";
  CHECK_THROWS_WITH(write_chrome_trace_file(bad, sample_timeline(), 500), Contains(bad));

  const std::string good = test::temp_dir() + "/trace.json";
  write_chrome_trace_file(good, sample_timeline(), 500);
  std::ifstream in(good);
  CHECK(json::parse(in).at("traceEvents").size() == 1 + 4 + 5 + 2);
}
