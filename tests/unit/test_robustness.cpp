// Robustness of the input floors (issue 21, docs/robustness.md): absurd sizes,
// huge keys, duplicate keys and deep nesting are clear ConfigErrors, never a
// crash, a wrap-around or a silent choice.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/config/checked_size.h"
#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/load_workload.h"
#include "sim/frontend/scalesim/scalesim_topology.h"
#include "sim/graph/workload.h"
#include "sim/program/trace_io.h"
#include "sim/regress/manifest.h"
#include "sim/sweep/sweep_spec.h"
#include "sim/tensor/tensor.h"
#include "tests/support/test_support.h"

using nlohmann::json;
using namespace npusim;
using npusim::test::config_error_from;
using npusim::test::write_temp_file;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `levels` nested arrays around 1: [[[...[1]...]]].
std::string nested_arrays(std::size_t levels) {
  return std::string(levels, '[') + "1" + std::string(levels, ']');
}

}  // namespace

TEST_CASE("saturating size arithmetic never wraps around", "[robustness]") {
  CHECK(saturating_product({2, 3, 4}) == 24);
  CHECK(saturating_product({65536, 65536, 65536, 65536}) == UINT64_MAX);
  CHECK(saturating_product({0, UINT64_MAX, UINT64_MAX}) == 0);
  CHECK(saturating_sum(UINT64_MAX, 1) == UINT64_MAX);
  CHECK(product_text({65536, 65536, 65536, 65536}, "bytes") ==
        "65536*65536*65536*65536 = more than 2^64 - 1 bytes");
}

TEST_CASE("a layer whose tensor sizes wrap 64 bits to 0 is rejected, not simulated",
          "[robustness]") {
  // The issue's layer: every tensor product is 2^64, which wrapped to 0 and passed.
  const json absurd =
      json::parse(R"({"type":"conv2d","N":65536,"C":65536,"H":65536,"W":65536,"K":65536,"R":65536,)"
                  R"("S":65536,"stride":2,"padding":65535})");
  const ConfigError e = config_error_from([&] { parse_workload(absurd, "absurd.json"); });
  CHECK(e.pointer() == "");
  CHECK(contains(e.expected(), "input tensor N*C*H*W <= 268435456 elements"));
  CHECK(e.found() == "65536*65536*65536*65536 = more than 2^64 - 1 elements");

  // Input fits; the weights K*R*S*C are exactly 2^64.
  const json weights = {{"type", "conv2d"}, {"C", 65536}, {"H", 1},     {"W", 1},
                        {"K", 65536},       {"R", 65536}, {"S", 65536}, {"padding", 65535}};
  const ConfigError w = config_error_from([&] { parse_workload(weights, "weights.json"); });
  CHECK(contains(w.expected(), "weight tensor K*R*S*(C/groups)"));
  CHECK(w.found() == "65536*65536*65536*65536 = more than 2^64 - 1 elements");
}

TEST_CASE("a 4 MiB unknown key is rejected at once, with no suggestion", "[robustness]") {
  // The edit-distance table was 4 Mi x 20 entries: 3.6 s and 506 MB per candidate list.
  json hw = json::object();
  const std::string huge(4 << 20, 'x');
  hw[huge] = 1;
  const auto start = std::chrono::steady_clock::now();
  const ConfigError e = config_error_from([&] { parse_hardware_config(hw, "hw.json"); });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 0.5);
  CHECK(e.hint().empty());
  CHECK(std::string(e.what()).size() < 2000);  // the key is cut in the message
  // Ordinary typos still get their suggestion.
  CHECK(nearest_key("arary_rows", {"array_rows", "array_cols"}) == "array_rows");
  CHECK(nearest_key("STRIDE", {"stride"}) == "stride");
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("arary", "array") == 1);
}

TEST_CASE("a duplicate key is rejected with its pointer and both places", "[robustness]") {
  SECTION("hardware file") {
    const std::string path =
        write_temp_file("dup_hw.json", "{\"compute\": {\"array_rows\": 16,\n  \"array_rows\": 8}}");
    const ConfigError e = config_error_from([&] { load_hardware_config(path); });
    CHECK(e.file() == path);
    CHECK(e.pointer() == "/compute/array_rows");
    CHECK(e.expected() == "each key at most once in an object");
    CHECK(contains(e.found(), "at line 1, column 14 and again at line 2, column 3"));
  }
  SECTION("inside an array of layers") {
    const ConfigError e = config_error_from([&] {
      parse_json_text(R"({"layers": [{"C": 1}, {"C": 1, "H": 2, "C": 2}]})", "net.json");
    });
    CHECK(e.pointer() == "/layers/1/C");
  }
  SECTION("the same key in different objects is fine") {
    CHECK_NOTHROW(
        parse_json_text(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})", "ok.json"));
  }
  SECTION("a program line") {
    const std::string path =
        write_temp_file("dup_program.jsonl", "{\"npusim_program\": 3, \"npusim_program\": 3}\n");
    const ConfigError e = config_error_from([&] { read_program_jsonl(path); });
    CHECK(e.file() == path + ":1");
    CHECK(e.pointer() == "/npusim_program");
  }
  SECTION("a --set value") {
    json hw = to_json(HardwareConfig{});
    const ConfigError e = config_error_from(
        [&] { apply_override(hw, R"(compute={"array_rows": 8, "array_rows": 16})", "hw.json"); });
    CHECK(e.pointer() == "/array_rows");
  }
}

TEST_CASE(
    "two million objects in one array parse in linear time, each key still checked (a reader "
    "that rescans the array after each object runs past the case's timeout)",
    "[robustness]") {
  // nlohmann's callback parser took 1.7 s for 100,000 empty objects and 25 s for
  // 400,000 (time in N^2: about 400 s here); the checking reader takes about 1 s.
  constexpr std::size_t kObjects = 2'000'000;
  std::string text = "{\"layers\": [";
  text.reserve(kObjects * 3 + 64);
  for (std::size_t i = 0; i < kObjects; ++i) text += i ? ",{}" : "{}";
  text += "]}";
  const json parsed = parse_json_text(text, "many.json");
  CHECK(parsed.at("layers").size() == kObjects);
  // The last object's duplicate key is still found, at its index.
  text.insert(text.size() - 3, "\"k\": 1, \"k\": 2");
  const ConfigError e = config_error_from([&] { parse_json_text(text, "many.json"); });
  CHECK(e.pointer() == "/layers/" + std::to_string(kObjects - 1) + "/k");
}

TEST_CASE("JSON nested deeper than the limit is rejected wherever JSON enters", "[robustness]") {
  SECTION("parsed text: the limit itself passes, one more level fails") {
    CHECK_NOTHROW(parse_json_text(nested_arrays(kMaxJsonDepth), "ok.json"));
    const ConfigError e =
        config_error_from([&] { parse_json_text(nested_arrays(kMaxJsonDepth + 1), "deep.json"); });
    CHECK(e.expected() == "JSON nested at most 128 levels deep");
    CHECK(contains(e.found(), "line 1, column 129"));
  }
  SECTION("a sweep's inline base_hw 100,000 deep (overflowed the stack when copied)") {
    std::string hw = "{\"x\": ";
    for (int i = 0; i < 100000; ++i) hw += "{\"x\": ";
    hw += "1" + std::string(100001, '}');
    const std::string path = write_temp_file(
        "deep_sweep.json", "{\"base_hw\": " + hw +
                               ", \"parameters\": [{\"pointer\": \"compute.array_rows\", "
                               "\"values\": [8, 16]}]}");
    const ConfigError e = config_error_from([&] { sweep::load_sweep(path); });
    CHECK(e.file() == path);
    CHECK(e.pointer().rfind("/base_hw/x/x/x", 0) == 0);
  }
  SECTION("JSON built in memory and handed to a parser") {
    json deep = 1;
    for (int i = 0; i < 1000; ++i) deep = json::array({std::move(deep)});
    const json layer = {{"type", "conv2d"}, {"C", 8}, {"H", 8}, {"W", 8},
                        {"K", 4},           {"R", 3}, {"S", 3}, {"zzz", deep}};
    std::string pointer = "/zzz";
    for (std::size_t i = 1; i < kMaxJsonDepth; ++i) pointer += "/0";
    CHECK(config_error_from([&] { parse_workload(layer, "mem.json"); }).pointer() == pointer);
    const json hw = {{"compute", deep}};
    CHECK(config_error_from([&] { parse_hardware_config(hw, "hw.json"); }).expected() ==
          "JSON nested at most 128 levels deep");
    const json sweep_spec = {{"base_hw", {{"compute", deep}}}};
    CHECK(config_error_from([&] { sweep::parse_sweep(sweep_spec, "s.json"); }).file() == "s.json");
  }
  SECTION("a --set value") {
    json hw = to_json(HardwareConfig{});
    const ConfigError e = config_error_from(
        [&] { apply_override(hw, "compute.x=" + nested_arrays(1000), "hw.json"); });
    CHECK(e.expected() == "JSON nested at most 128 levels deep");
  }
}

TEST_CASE("a directory or an empty path given as a file is a clear error", "[robustness]") {
  const std::string dir = npusim::test::temp_dir();
  ConfigError e = config_error_from([&] { load_hardware_config(dir); });
  CHECK(e.file() == dir);
  CHECK(e.found() == "a directory");
  e = config_error_from([&] { load_workload(""); });
  CHECK(e.found() == "an empty file name");
}

TEST_CASE("a SCALE-Sim layer name that is not UTF-8 is rejected at its line before any run",
          "[robustness]") {
  const std::string header = npusim::test::kScaleSimHeader;
  for (const std::string& bad : {std::string("conv\xff"), std::string("conv\xc3"),
                                 std::string("\xed\xa0\x80x"), std::string("\xc0\xafx")}) {
    const ConfigError e = config_error_from(
        [&] { parse_scalesim_topology(header + bad + ", 8, 8, 3, 3, 4, 8, 1,\n", "t.csv"); });
    CHECK(e.file() == "t.csv:2");
    CHECK(e.pointer() == "/Layer name");
    CHECK(e.found() == "bytes that are not UTF-8");
  }
  // UTF-8 names (here "cœur") still parse.
  CHECK(parse_scalesim_topology(header + "c\xc5\x93ur, 8, 8, 3, 3, 4, 8, 1,\n", "t.csv")
            .layers[0]
            .name == "c\xc5\x93ur");
}

TEST_CASE("a number too large for a double is a JSON error naming file and place", "[robustness]") {
  // Found by the hardware fuzz target: nlohmann throws out_of_range (406), not
  // parse_error, and it escaped as a raw "[json.exception.out_of_range.406]".
  const ConfigError e =
      config_error_from([&] { parse_json_text("{\"clock_mhz\":\n 1e400}", "hw.json"); });
  CHECK(e.file() == "hw.json");
  CHECK(e.expected() == "valid JSON");
  CHECK(contains(e.found(), "number overflow"));
  CHECK(contains(e.found(), "line 2"));
}

TEST_CASE(
    "a clock below 1 kHz, a denormal one included, is refused at /clock_mhz (it gave inf times)",
    "[robustness]") {
  for (const double mhz : {1e-310, 0.0005}) {
    INFO(mhz);
    const ConfigError e = config_error_from([&] {
      parse_hardware_config(json{{"clock_mhz", mhz}}, "hw.json");
    });
    CHECK(e.pointer() == "/clock_mhz");
    CHECK(e.expected() == "a number from 0.001 to 100000");
  }
  CHECK(parse_hardware_config(json{{"clock_mhz", 0.001}}, "hw.json").clock_mhz == 0.001);
  // Denormals are refused wherever a positive number is read (an epsilon of 1e-310).
  const json object{{"epsilon", 1e-310}};
  JsonReader reader(object, "ln.json");
  const ConfigError e =
      config_error_from([&] { reader.get_positive_number("epsilon", 1.0, 1e-5); });
  CHECK(e.pointer() == "/epsilon");
  CHECK_THAT(e.expected(), Catch::Contains("number > 0"));
}

TEST_CASE(
    "a 1 MiB value is cut in the message: a SCALE-Sim cell, a regression manifest's set and a "
    ".npy dtype",
    "[robustness]") {
  const std::string huge(1 << 20, 'y');
  const ConfigError cell = config_error_from([&] {
    parse_scalesim_topology(
        "Layer name,IFMAP Height,IFMAP Width,Filter Height,Filter Width,"
        "Channels,Num Filter,Strides,\nconv1," +
            huge + ",4,1,1,4,4,1,\n",
        "t.csv");
  });
  CHECK(cell.found().size() > huge.size());  // kept whole for callers
  CHECK(std::string(cell.what()).size() < 500);
  CHECK(contains(cell.what(), "(1048578 bytes)"));

  const std::string manifest = write_temp_file(
      "huge-set-manifest.json",
      json{{"cases", {{{"name", "a"}, {"workload", "w.json"}, {"set", {huge}}}}}}.dump());
  try {
    regress::load_suite(manifest);
    FAIL("the manifest was accepted");
  } catch (const ConfigError& e) {
    CHECK(e.pointer() == "/cases/0/set/0");
    CHECK(std::string(e.what()).size() < 500);
  }

  const std::string header = "{'descr': '" + huge + "', 'fortran_order': False, 'shape': (2,), }\n";
  std::string npy = std::string("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) npy += char((header.size() >> (8 * i)) & 0xff);
  const std::string path = write_temp_file("huge-descr.npy", npy + header);
  try {
    read_npy_int8(path);
    FAIL("the .npy was accepted");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).size() < 500);
    CHECK(contains(e.what(), "'descr' of 1048576 characters"));
  }
}
