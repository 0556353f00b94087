// Config floor: every bad input names file, JSON pointer, expected and found;
// defaults, shipped configs and the embedded network stay consistent.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "sim/cli/workload_options.h"
#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/load_workload.h"
#include "sim/graph/workload.h"
#include "tests/support/test_support.h"

using nlohmann::json;
using namespace npusim;
using npusim::test::config_error_from;
using npusim::test::workload_error;

namespace {

const std::string kSourceDir = NPUSIM_SOURCE_DIR;

ConfigError hw_error(const json& j) {
  return config_error_from([&] { parse_hardware_config(j, "hw.json"); });
}

// A valid single layer that tests break one field at a time.
json good_layer() {
  return {{"type", "conv2d"}, {"C", 8}, {"H", 8}, {"W", 8},
          {"K", 4},           {"R", 3}, {"S", 3}, {"padding", 1}};
}

json network_of(json layers) { return {{"name", "n"}, {"layers", std::move(layers)}}; }

}  // namespace

#define CHECK_CONFIG_ERROR(error, ptr, exp, fnd) \
  do {                                           \
    CHECK((error).pointer() == (ptr));           \
    CHECK((error).expected() == (exp));          \
    CHECK((error).found() == (fnd));             \
  } while (false)

TEST_CASE("unknown keys are rejected with the nearest valid key", "[config]") {
  auto e = hw_error({{"compute", {{"arary_rows", 16}}}});
  CHECK_CONFIG_ERROR(
      e, "/compute/arary_rows",
      "one of the keys units, array_rows, array_cols, pipeline_latency_cycles, "
      "mode, dataflow, fold, spare_fold_groups, data_registers, register_fetch_bytes_per_cycle, "
      "accumulator_kib",
      "unknown key \"arary_rows\"");
  CHECK(e.hint() == "array_rows");
  CHECK(e.file() == "hw.json");
  CHECK(std::string(e.what()) ==
        "hw.json: at /compute/arary_rows: expected " + e.expected() +
            ", found unknown key \"arary_rows\" (did you mean \"array_rows\"?)");

  CHECK(hw_error({{"compte", json::object()}}).hint() == "compute");

  json layer = good_layer();
  layer["strde"] = 2;
  e = workload_error(network_of({layer}));
  CHECK(e.pointer() == "/layers/0/strde");
  CHECK(e.found() == "unknown key \"strde\"");
  CHECK(e.hint() == "stride");

  layer = good_layer();
  layer["n"] = 1;  // case typo for "N"
  CHECK(workload_error(layer).hint() == "N");

  CHECK(workload_error({{"bogus_key", 1}}).hint().empty());
}

TEST_CASE("integer fields reject strings, floats, negatives and out-of-range values", "[config]") {
  CHECK_CONFIG_ERROR(hw_error({{"compute", {{"units", "4"}}}}), "/compute/units",
                     "integer in 1..64", "string \"4\"");
  CHECK_CONFIG_ERROR(hw_error({{"compute", {{"array_rows", 16.5}}}}), "/compute/array_rows",
                     "integer in 1..1024", "floating-point number 16.5");
  CHECK_CONFIG_ERROR(hw_error({{"compute", {{"units", 65}}}}), "/compute/units", "integer in 1..64",
                     "number 65");
  CHECK_CONFIG_ERROR(hw_error({{"cache", {{"size_kib", 4194304}}}}), "/cache/size_kib",
                     "integer in 1..1048576", "number 4194304");

  json layer = good_layer();
  layer["padding"] = -1;
  CHECK_CONFIG_ERROR(workload_error(layer), "/padding", "integer in 0..65535", "number -1");
  layer = good_layer();
  layer["seed"] = -5;
  CHECK_CONFIG_ERROR(workload_error(layer), "/seed", "integer >= 0", "number -5");
}

TEST_CASE("hardware values must be in range and of the right kind", "[config]") {
  CHECK_CONFIG_ERROR(hw_error({{"dram", {{"burst_bytes", 48}}}}), "/dram/burst_bytes",
                     "power of two in 1..65536", "number 48");
  CHECK_CONFIG_ERROR(hw_error({{"clock_mhz", 0}}), "/clock_mhz", "a number from 0.001 to 100000",
                     "number 0");
  CHECK_CONFIG_ERROR(hw_error({{"compute", 5}}), "/compute", "object", "number 5");
  CHECK_CONFIG_ERROR(hw_error(json::array()), "", "object", "empty array");

  auto e = hw_error({{"buffering", "double"}});
  CHECK_CONFIG_ERROR(e, "/buffering", "one of \"pingpong\", \"single\"", "string \"double\"");
  e = hw_error({{"scheduler", {{"policy", "Early"}}}});
  CHECK_CONFIG_ERROR(e, "/scheduler/policy", "one of \"strict\", \"early\"", "string \"Early\"");
  CHECK(e.hint() == "early");
}

TEST_CASE("layer dimensions are required and must fit together", "[config]") {
  json layer = good_layer();
  layer.erase("K");
  CHECK_CONFIG_ERROR(workload_error(layer), "/K", "integer in 1..65536",
                     "nothing (required key is missing)");

  layer = good_layer();
  layer["C"] = 0;
  CHECK_CONFIG_ERROR(workload_error(layer), "/C", "integer in 1..65536", "number 0");

  // Kernel larger than the padded input, in the second layer of a network.
  json small = good_layer();
  small.erase("type");
  small["H"] = 4;
  small["R"] = 7;
  small["S"] = 7;
  CHECK_CONFIG_ERROR(workload_error(network_of({good_layer(), small})), "/layers/1/R",
                     "R <= H + pads = 6 (a window that fits the padded input)", "R = 7");

  layer = good_layer();
  layer["padding"] = 3;
  CHECK_CONFIG_ERROR(workload_error(layer), "/padding", "padding < R = 3 and < S = 3",
                     "padding = 3");

  layer = {{"type", "conv2d"}, {"C", 64}, {"H", 4096}, {"W", 4096}, {"K", 1}, {"R", 1}, {"S", 1}};
  CHECK_CONFIG_ERROR(workload_error(network_of({layer})), "/layers/0",
                     "input tensor N*C*H*W <= 268435456 elements (256 MiB as the host holds it)",
                     "1*64*4096*4096 = 1073741824 elements");

  layer = good_layer();
  layer["type"] = "conv3d";
  CHECK_CONFIG_ERROR(workload_error(layer), "/type", "one of \"conv2d\"", "string \"conv3d\"");
}

TEST_CASE("network structure errors", "[config]") {
  CHECK_CONFIG_ERROR(workload_error(network_of(json::array())), "/layers",
                     "array of 1..4096 layer objects", "empty array");

  auto e = workload_error({{"layer", json::array({good_layer()})}});
  CHECK(e.pointer() == "");
  CHECK(e.found() == "object without \"type\" or \"layers\"");
  CHECK(e.hint() == "layers");

  json a = good_layer(), b = good_layer();
  a["name"] = "same";
  b["name"] = "same";
  CHECK_CONFIG_ERROR(workload_error(network_of({a, b})), "/layers/1/name",
                     "a name no other layer uses", "\"same\" (also at /layers/0/name)");
}

TEST_CASE("npy paths and requant values are checked", "[config]") {
  json layer = good_layer();
  layer["weights_npy"] = 5;
  CHECK_CONFIG_ERROR(workload_error(network_of({layer})), "/layers/0/weights_npy",
                     "string (path to a .npy file)", "number 5");

  layer = good_layer();
  layer["requant"] = {{"scale", {1, 2}}};
  CHECK_CONFIG_ERROR(workload_error(layer), "/requant/scale",
                     "integer in 1..65535 or an array of K = 4 such integers",
                     "array of 2 elements");
  layer["requant"] = {{"scale", {1, 2, 0, 4}}};
  CHECK_CONFIG_ERROR(workload_error(layer), "/requant/scale/2", "integer in 1..65535", "number 0");
  layer["requant"] = {{"shift", "Auto"}};
  auto e = workload_error(layer);
  CHECK_CONFIG_ERROR(e, "/requant/shift", "integer in 0..31 or \"auto\"", "string \"Auto\"");
  CHECK(e.hint() == "auto");
  layer["requant"] = {{"shift", 32}};
  CHECK_CONFIG_ERROR(workload_error(layer), "/requant/shift", "integer in 0..31", "number 32");
}

TEST_CASE("bad --set overrides are rejected", "[config]") {
  json config = json::object();
  auto set_error = [&](const std::string& assignment) {
    return config_error_from([&] { apply_override(config, assignment, "--set"); });
  };
  auto e = set_error("compute.array_rows");
  CHECK_CONFIG_ERROR(e, "", "an override path=value (e.g. compute.array_rows=16)",
                     "\"compute.array_rows\" (no \"=\")");
  CHECK(e.file() == "--set");
  CHECK(set_error("=16").found() == "\"=16\" (empty path)");
  CHECK(set_error("compute..units=2").expected() ==
        "an override path of non-empty keys separated by \".\" or \"/\"");

  config = {{"name", "x"}, {"layers", json::array({good_layer()})}};
  CHECK_CONFIG_ERROR(set_error("layers.3.stride=2"), "/layers/3",
                     "an index of an existing element (the array has 1)", "\"3\"");
  CHECK_CONFIG_ERROR(set_error("name.first=2"), "/name",
                     "an object to hold \"first\" (override path)", "string \"x\"");
}

TEST_CASE(
    "sizes in B and KiB keys take a unit: 24 MiB is 24576 KiB, and a part of a unit is refused",
    "[config]") {
  // Whole numbers of the key's unit, from B, KiB, MiB or GiB, with or without a space.
  const HardwareConfig hw =
      parse_hardware_config({{"cache", {{"size_kib", "24 MiB"}, {"kv_kib", "512KiB"}}},
                             {"store", {{"batch_bytes", "1.5 KiB"}}},   // 1536 B
                             {"dram", {{"burst_bytes", "0.125KiB"}}}},  // 128 B, a power of two
                            "hw.json");
  CHECK(hw.cache.size_kib == 24576);  // 24 x 1024
  CHECK(hw.cache.kv_kib == 512);
  CHECK(hw.store.batch_bytes == 1536);
  CHECK(hw.dram.burst_bytes == 128);
  // Written back as the plain integer of the key's unit.
  CHECK(to_json(hw)["cache"]["size_kib"] == 24576);
  // --set takes the same text unquoted (not JSON, so a string).
  json set = json::object();
  apply_override(set, "cache.size_kib=2MiB", "--set");
  CHECK(parse_hardware_config(set, "--set").cache.size_kib == 2048);

  const std::string kib_expected =
      "integer in 1..1048576 (KiB), or a size such as \"24 MiB\" (B, KiB, MiB, GiB)";
  // 1.5 KiB is not a whole number of KiB.
  CHECK_CONFIG_ERROR(hw_error({{"cache", {{"size_kib", "1.5 KiB"}}}}), "/cache/size_kib",
                     "a whole number of KiB (" + kib_expected + ")", "string \"1.5 KiB\", 1536 B");
  // 2 GiB is 2097152 KiB, above the key's range.
  CHECK_CONFIG_ERROR(hw_error({{"cache", {{"size_kib", "2 GiB"}}}}), "/cache/size_kib",
                     kib_expected, "string \"2 GiB\" = 2097152 KiB");
  // Decimal units, unknown text and a unit on a key that is not a size are refused.
  CHECK_CONFIG_ERROR(hw_error({{"cache", {{"size_kib", "24 MB"}}}}), "/cache/size_kib",
                     kib_expected, "string \"24 MB\"");
  CHECK_CONFIG_ERROR(hw_error({{"cache", {{"size_kib", "many"}}}}), "/cache/size_kib", kib_expected,
                     "string \"many\"");
  CHECK_CONFIG_ERROR(hw_error({{"cache", {{"size_kib", "24 MiB extra"}}}}), "/cache/size_kib",
                     kib_expected, "string \"24 MiB extra\"");
  CHECK_CONFIG_ERROR(hw_error({{"compute", {{"units", "4 KiB"}}}}), "/compute/units",
                     "integer in 1..64", "string \"4 KiB\"");
  // The power-of-two rule still holds after the conversion: 1.5 KiB = 1536 B.
  CHECK_CONFIG_ERROR(hw_error({{"dram", {{"burst_bytes", "1.5 KiB"}}}}), "/dram/burst_bytes",
                     "power of two in 1..65536", "number 1536");
}

TEST_CASE("a bad value given by --set is reported as that --set, and one in the file as the file's",
          "[config]") {
  const std::string hw_file = npusim::test::write_temp_file(
      "set_blame.json", R"({"cache": {"size_kib": 512}, "compute": {"units": 99}})");
  cli::WorkloadOptions options;
  // The built-in defaults with a bad --set: the error names the --set, not the defaults.
  options.overrides = {"compute.units=2", "cache.size_kib=abc"};
  ConfigError e = config_error_from([&] { cli::resolve_hardware(options, {}, nullptr, ""); });
  CHECK(e.file() == "--set cache.size_kib=abc");
  CHECK(e.pointer() == "/cache/size_kib");
  CHECK(e.found() == "string \"abc\"");
  // A misspelt key keeps its hint.
  options.overrides = {"cache.sizekib=3"};
  e = config_error_from([&] { cli::resolve_hardware(options, {}, nullptr, ""); });
  CHECK(e.file() == "--set cache.sizekib=3");
  CHECK(e.hint() == "size_kib");
  // A section replaced by a --set owns the errors inside it.
  options.overrides = {"compute={\"units\": 0}"};
  e = config_error_from([&] { cli::resolve_hardware(options, {}, nullptr, ""); });
  CHECK(e.file() == "--set compute={\"units\": 0}");
  CHECK(e.pointer() == "/compute/units");
  // The last --set of a key is the one that stands.
  options.overrides = {"cache.size_kib=abc", "cache.size_kib=-1"};
  e = config_error_from([&] { cli::resolve_hardware(options, {}, nullptr, ""); });
  CHECK(e.file() == "--set cache.size_kib=-1");
  // The file's own bad value is the file's, even beside a --set of another key.
  options.hw_file = hw_file;
  options.overrides = {"cache.size_kib=256"};
  e = config_error_from([&] { cli::resolve_hardware(options, {}, nullptr, ""); });
  CHECK(e.file() == hw_file);
  CHECK(e.pointer() == "/compute/units");
  // ...and a --set that mends it makes the config good.
  options.overrides = {"compute.units=2"};
  CHECK(cli::resolve_hardware(options, {}, nullptr, "").compute.units == 2);
}

TEST_CASE("overrides set fields by dotted path or JSON pointer", "[config]") {
  json hw = json::object();
  apply_override(hw, "compute.array_rows=16", "--set");
  apply_override(hw, "/dram/burst_bytes=128", "--set");
  apply_override(hw, "buffering=single", "--set");  // not JSON: taken as a string
  apply_override(hw, "name=\"fast one\"", "--set");
  const HardwareConfig parsed = parse_hardware_config(hw, "--set");
  CHECK(parsed.compute.array_rows == 16);
  CHECK(parsed.dram.burst_bytes == 128);
  CHECK(parsed.buffering == Buffering::Single);
  CHECK(parsed.name == "fast one");

  json net = network_of({good_layer()});
  apply_override(net, "layers.0.stride=2", "--set");
  CHECK(parse_workload(net, "net.json").layers[0].stride == 2);

  // A misspelt override lands in the config and is caught, with a suggestion, by the parser.
  apply_override(hw, "compute.array_row=8", "--set");
  CHECK(hw_error(hw).hint() == "array_rows");
}

TEST_CASE("hardware defaults round-trip and match configs/hw/default.json", "[config]") {
  const HardwareConfig defaults;
  const json j = to_json(defaults);
  CHECK(to_json(parse_hardware_config(j, "defaults")) == j);
  CHECK(to_json(parse_hardware_config(json::object(), "empty")) == j);

  HardwareConfig custom;
  custom.compute.units = 4;
  custom.cache.size_kib = 256;
  custom.policy = SchedulerPolicy::Early;
  custom.clock_mhz = 800.5;
  const HardwareConfig back = parse_hardware_config(to_json(custom), "custom");
  CHECK(back.compute.units == 4);
  CHECK(back.cache.size_kib == 256);
  CHECK(back.policy == SchedulerPolicy::Early);
  CHECK(back.clock_mhz == 800.5);

  const std::string path = kSourceDir + "/configs/hw/default.json";
  CHECK(to_json(load_hardware_config(path)) == j);
  // "Every default explicitly": the file spells out every key of the resolved config.
  std::ifstream in(path);
  CHECK(json::parse(in) == j);

  const std::string reference = hardware_parameter_reference();
  CHECK(reference.find("| `dram.burst_bytes` | `64` | B | power of two in 1..65536 |") !=
        std::string::npos);
  CHECK(reference.find("`scheduler.policy`") != std::string::npos);
}

TEST_CASE("docs/config.md holds the current hardware parameter reference", "[config]") {
  std::ifstream in(kSourceDir + "/docs/config.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(doc.find(hardware_parameter_reference()) != std::string::npos);
}

TEST_CASE("every shipped config parses", "[config]") {
  int files = 0;
  for (const char* folder : {"hw", "layers", "networks"}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(kSourceDir + "/configs/" + folder)) {
      // .csv: SCALE-Sim topologies (sim/config/scalesim_topology.h).
      if (entry.path().extension() != ".json" && entry.path().extension() != ".csv") continue;
      INFO(entry.path().string());
      ++files;
      if (std::string(folder) == "hw") {
        CHECK_NOTHROW(load_hardware_config(entry.path().string()));
      } else {
        CHECK_NOTHROW(load_workload(entry.path().string()));
      }
    }
  }
  CHECK(files >= 8);

  const NetworkConfig resnet50 = load_workload(kSourceDir + "/configs/networks/resnet50.json");
  CHECK(resnet50.layers.size() == 53);
  // The same layers as a SCALE-Sim topology: padding folded into the IFMAP
  // sizes, so every layer has the same output shape and MACs.
  const NetworkConfig topology =
      load_workload(kSourceDir + "/configs/networks/resnet50_scalesim.csv");
  REQUIRE(topology.layers.size() == 53);
  for (size_t l = 0; l < 53; ++l) {
    INFO(resnet50.layers[l].name);
    CHECK(topology.layers[l].name == resnet50.layers[l].name);
    CHECK(topology.layers[l].out_h() == resnet50.layers[l].out_h());
    CHECK(topology.layers[l].macs() == resnet50.layers[l].macs());
  }
  const NetworkConfig tiny = load_workload(kSourceDir + "/configs/networks/tiny3.json");
  CHECK(tiny.chained == std::vector<bool>{false, true, true});
}

TEST_CASE("default_network is ResNet-18 and equals configs/networks/resnet18.json", "[config]") {
  const NetworkConfig net = default_network();
  REQUIRE(net.layers.size() == 20);
  REQUIRE(net.chained.size() == 20);
  const LayerConfig& conv1 = net.layers[0];
  CHECK(conv1.name == "conv1");
  CHECK((conv1.N == 1 && conv1.C == 3 && conv1.H == 224 && conv1.W == 224));
  CHECK((conv1.K == 64 && conv1.R == 7 && conv1.S == 7 && conv1.stride == 2 && conv1.padding == 3));
  CHECK((conv1.out_h() == 112 && conv1.out_w() == 112));
  CHECK(net.layers.back().name == "layer4.1.conv2");
  CHECK((net.layers.back().K == 512 && net.layers.back().out_h() == 7));

  // Not chained: the first layer, the layer after the max-pool, and each downsample
  // (it reads the block input, not conv2's output).
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    INFO(net.layers[i].name);
    const bool expect_chained = i != 0 && net.layers[i].name != "layer1.0.conv1" &&
                                net.layers[i].name.find("downsample") == std::string::npos;
    CHECK(net.chained[i] == expect_chained);
    CHECK(net.layers[i].seed == 1 + i);
  }

  const NetworkConfig file = load_workload(kSourceDir + "/configs/networks/resnet18.json");
  CHECK(to_json(file) == to_json(net));
  CHECK(file.chained == net.chained);
  CHECK(to_json(parse_workload(to_json(net), "round-trip")) == to_json(net));
}

TEST_CASE("auto requant shift follows the documented rule", "[config]") {
  CHECK(auto_requant_shift(1) == 7);
  CHECK(auto_requant_shift(16) == 9);     // log2 = 4 exactly
  CHECK(auto_requant_shift(17) == 10);    // just above 4^2
  CHECK(auto_requant_shift(27) == 10);    // 3x3x3
  CHECK(auto_requant_shift(147) == 11);   // 7x7x3 (ResNet conv1)
  CHECK(auto_requant_shift(4608) == 14);  // 3x3x512

  const NetworkConfig net = parse_workload(good_layer(), "layer.json");  // C*R*S = 72
  CHECK(net.layers[0].requant.shift == 11);
  CHECK(net.layers[0].requant.scale == std::vector<int32_t>(4, 1));
}

TEST_CASE("layer defaults, seeds and npy paths", "[config]") {
  json layer = good_layer();
  layer["weights_npy"] = "data/w.npy";
  layer["bias_npy"] = "/abs/b.npy";
  layer["requant"] = {{"scale", {1, 2, 3, 4}}, {"shift", 9}};
  const NetworkConfig single = parse_workload(layer, "cfg/layers/small.json");
  REQUIRE(single.layers.size() == 1);
  const LayerConfig& l = single.layers[0];
  CHECK(single.name == "small");  // default name: the file's stem
  CHECK(l.name == "small");
  CHECK((l.N == 1 && l.stride == 1 && l.relu && l.seed == 1));
  CHECK(l.weights_npy == "cfg/layers/data/w.npy");
  CHECK(l.bias_npy == "/abs/b.npy");
  CHECK(l.input_npy.empty());
  CHECK(l.requant.scale == std::vector<int32_t>{1, 2, 3, 4});
  CHECK(l.requant.shift == 9);
  CHECK(single.chained == std::vector<bool>{false});

  json net = network_of({good_layer(), good_layer()});
  net["seed"] = 40;
  net["layers"][0].erase("type");  // optional inside a network
  net["layers"][1]["seed"] = 3;
  const NetworkConfig parsed = parse_workload(net, "net.json");
  CHECK(parsed.layers[0].seed == 40);
  CHECK(parsed.layers[1].seed == 3);
  CHECK(parsed.layers[0].name == "layer0");
  CHECK(parsed.chained == std::vector<bool>{false, false});  // 4 output channels != C = 8
}

TEST_CASE("file errors name the file", "[config]") {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string missing = (dir / "npusim_no_such_config.json").string();
  auto e = config_error_from([&] { load_workload(missing); });
  CHECK_CONFIG_ERROR(e, "", "a readable JSON file", "a file that cannot be opened");
  CHECK(e.file() == missing);

  const std::string broken = (dir / "npusim_test_broken_config.json").string();
  std::ofstream(broken) << "{\"name\": \"x\",\n  \"clock_mhz\": }\n";
  e = config_error_from([&] { load_hardware_config(broken); });
  CHECK(e.expected() == "valid JSON");
  CHECK(e.found().find("line 2") != std::string::npos);
  std::filesystem::remove(broken);
}
