// Operator names cut to the compact table's column (sim/report/row_selection.h):
// the middle goes, but two names that differ never print alike.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/report/row_selection.h"

using namespace npusim;

TEST_CASE("short names: a long name loses its middle and keeps its start and end",
          "[report][names]") {
  CHECK(shortened("layer4.0.downsample.0", 20) == "layer4.0.~wnsample.0");  // 9 + "~" + 10
  CHECK(shortened("conv1", 20) == "conv1");
  CHECK(shortened("abcdefghij", 10) == "abcdefghij");
  CHECK(shortened("abcdefghijk", 10) == "abcd~ghijk");  // 4 + "~" + 5
}

TEST_CASE(
    "short names: names whose middle cut would print alike keep their end instead, and an index "
    "where even that is alike",
    "[report][names]") {
  // torch.onnx names: the block differs in the middle only.
  const std::vector<std::string> torch = {"/layer1/layer1.0/conv1/Conv",
                                          "/layer1/layer1.1/conv1/Conv", "/fc/Gemm"};
  CHECK(shortened(torch[0], 20) == shortened(torch[1], 20));  // the cut alone clashes
  CHECK(distinct_short_names(torch, {3, 7, 60}, 20) ==
        std::vector<std::string>{"~layer1.0/conv1/Conv", "~layer1.1/conv1/Conv", "/fc/Gemm"});
  // Alike at both ends: the middle cut with the operator's index.
  const std::string tail(20, 's');
  const std::vector<std::string> same_ends = {"abcdefghij_1_" + tail, "abcdefghij_2_" + tail};
  const std::vector<std::string> tagged = distinct_short_names(same_ends, {5, 12}, 20);
  CHECK(tagged[0] == "abcdefgh~sssssssss#5");  // 18 characters cut, then the tag
  CHECK(tagged[1] == "abcdefgh~ssssssss#12");  // 17, then the tag
  // The same name twice (two rows of one operator) is not a clash.
  CHECK(distinct_short_names({torch[0], torch[0]}, {1, 2}, 20) ==
        std::vector<std::string>{shortened(torch[0], 20), shortened(torch[0], 20)});
}
