// SCALE-Sim topology CSVs as workloads (sim/config/scalesim_topology.h): both
// formats, the loose formatting real files have, and errors that name the
// line and the column.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "sim/config/config_error.h"
#include "sim/frontend/load_workload.h"
#include "sim/frontend/scalesim/scalesim_topology.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

ConfigError topology_error(const std::string& text) {
  return test::config_error_from([&] { parse_scalesim_topology(text, "net.csv"); });
}

const char* kHeader = test::kScaleSimHeader;

}  // namespace

TEST_CASE("a convolution topology becomes a network with padding 0", "[scalesim][config]") {
  // Spaces around cells, a row of empty cells, trailing commas and note
  // columns after Strides, as SCALE-Sim's own files have them.
  const std::string text = std::string(
                               "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter "
                               "Width, Channels, Num Filter, Strides,,,Eh,Ew\n") +
                           ",,,,,,,,,,,\n"
                           "Conv1 ,230,230,7,7,3,64,2,,,112,112\n"
                           "\n"
                           "Conv2,  112 , 112 ,1,1,64,32,1,\n"
                           "FC,1,1,1,1,2048,1000,1,\n";
  const NetworkConfig net = parse_scalesim_topology(text, "dir/resnet_part.csv");
  CHECK(net.name == "resnet_part");
  REQUIRE(net.layers.size() == 3);
  const LayerConfig& c1 = net.layers[0];
  CHECK(c1.name == "Conv1");
  CHECK(c1.H == 230);
  CHECK(c1.W == 230);
  CHECK(c1.R == 7);
  CHECK(c1.S == 7);
  CHECK(c1.C == 3);
  CHECK(c1.K == 64);
  CHECK(c1.stride == 2);
  CHECK(c1.padding == 0);
  CHECK(c1.out_h() == 112);  // (230 - 7) / 2 + 1, as SCALE-Sim computes it
  // Conv2 reads Conv1's 64 x 112 x 112 output: chained like any network.
  CHECK(net.chained[1]);
  CHECK_FALSE(net.chained[2]);
  CHECK(net.layers[2].macs() == 2048u * 1000u);
  // Seeds, requantisation and names follow the JSON network rules.
  CHECK(net.layers[1].seed == net.layers[0].seed + 1);
  CHECK(net.layers[1].requant.shift == auto_requant_shift(64));
}

TEST_CASE("a GEMM topology becomes 1x1 layers over M pixels", "[scalesim][config]") {
  const NetworkConfig net =
      parse_scalesim_topology("Layer, M, N, K,\nQK, 128, 64, 32,\nproj,128,256,64,\n", "g.csv");
  REQUIRE(net.layers.size() == 2);
  const LayerConfig& qk = net.layers[0];
  // M x K times K x N: M pixels, K input channels, N output channels.
  CHECK(qk.H == 128);
  CHECK(qk.W == 1);
  CHECK(qk.C == 32);
  CHECK(qk.K == 64);
  CHECK(qk.R == 1);
  CHECK(qk.S == 1);
  CHECK(qk.macs() == 128u * 64u * 32u);
  CHECK(net.chained[1]);  // proj's K (64) is QK's N
}

TEST_CASE("topology errors name the line and the column", "[scalesim][config]") {
  SECTION("not a SCALE-Sim header") {
    const ConfigError e = topology_error("name,C,H\nx,1,2\n");
    CHECK(e.file() == "net.csv:1");
    CHECK_THAT(e.expected(), Catch::Contains("Layer name, IFMAP Height"));
  }
  SECTION("a cell that is not a positive integer") {
    const ConfigError e =
        topology_error(std::string(kHeader) + "a,8,8,3,3,4,8,1,\nb,8,8,3,3,x4,8,1,\n");
    CHECK(e.file() == "net.csv:3");
    CHECK(e.pointer() == "/Channels");
    CHECK(e.found() == "\"x4\"");
  }
  SECTION("a missing cell") {
    const ConfigError e = topology_error(std::string(kHeader) + "a,8,8,3,3,4,8\n");
    CHECK(e.file() == "net.csv:2");
    CHECK(e.pointer() == "/Strides");
    CHECK(e.found() == "an empty cell");
  }
  SECTION("a filter larger than the input, found by the layer checks") {
    const ConfigError e =
        topology_error(std::string(kHeader) + "a,8,8,3,3,4,8,1,\nb,2,8,3,3,4,8,1,\n");
    CHECK(e.file() == "net.csv:3");
    CHECK(e.pointer() == "/Filter Height");
  }
  SECTION("two rows with one name") {
    const ConfigError e =
        topology_error(std::string(kHeader) + "a,8,8,3,3,4,8,1,\na,6,6,1,1,8,8,1,\n");
    CHECK(e.file() == "net.csv:3");
    CHECK(e.found() == "\"a\" (also on line 2)");
  }
  SECTION("a column stride unlike the row stride") {
    const ConfigError e = topology_error(
        "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num "
        "Filter, Stride Height, Stride Width\na,9,9,3,3,4,8,2,1\n");
    CHECK(e.pointer() == "/Stride Width");
    CHECK_THAT(e.expected(), Catch::Contains("one stride for both axes"));
  }
  SECTION("a header and no layers") {
    CHECK(topology_error(kHeader).expected() == "at least one layer row after the header");
  }
}

TEST_CASE("load_workload reads a .csv file as a topology", "[scalesim][config]") {
  const std::string path = test::write_temp_file(
      "tiny_topology.CSV", std::string(kHeader) + "a,10,10,3,3,8,16,1,\nb,8,8,3,3,16,8,1,\n");
  CHECK(is_scalesim_topology(path));
  CHECK_FALSE(is_scalesim_topology("net.json"));
  const NetworkConfig net = load_workload(path);
  REQUIRE(net.layers.size() == 2);
  CHECK(net.chained[1]);  // a: 10 - 3 + 1 = 8
}

TEST_CASE("a byte-order mark and CRLF or CR line ends read like plain lines",
          "[scalesim][config]") {
  const std::string rows = "a,10,10,3,3,8,16,1,\nb,8,8,3,3,16,8,1,\n";
  const NetworkConfig plain = parse_scalesim_topology(std::string(kHeader) + rows, "t.csv");
  std::string crlf, cr;
  for (char c : std::string(kHeader) + rows) {
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    cr += c == '\n' ? '\r' : c;
  }
  for (const std::string& text : {"\xEF\xBB\xBF" + crlf, cr}) {
    const NetworkConfig net = parse_scalesim_topology(text, "t.csv");
    REQUIRE(net.layers.size() == 2);
    CHECK(net.layers[1].name == "b");
    CHECK(net.layers[1].C == plain.layers[1].C);
    CHECK(net.chained == plain.chained);
  }
  // The mark is not part of the first column's name in errors.
  const ConfigError e = topology_error("\xEF\xBB\xBF" + std::string(kHeader) +
                                       "a,8,8,3,3,4,8,1,\na,8,8,3,3,4,8,1,\n");
  CHECK(e.pointer() == "/Layer name");
}

TEST_CASE("a check on the whole layer points at the row's name", "[scalesim][config]") {
  // 4096 x 4096 x 64 int8 is 1 GiB of input, over the 256 MiB tensor limit.
  const ConfigError e = topology_error(std::string(kHeader) + "big,4096,4096,1,1,64,8,1,\n");
  CHECK(e.file() == "net.csv:2");
  CHECK(e.pointer() == "/Layer name");
  CHECK_THAT(e.expected(), Catch::Contains("input tensor"));
}
