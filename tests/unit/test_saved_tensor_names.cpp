// --save-outputs file names (sim/cli/saved_tensor_names): a name from a workload
// becomes one file name inside --out, and two tensors never share a file.
#include <catch2/catch.hpp>
#include <string>

#include "sim/cli/saved_tensor_names.h"
#include "sim/graph/workload.h"

using namespace npusim;
using npusim::cli::file_safe;
using npusim::cli::saved_tensor_paths;

TEST_CASE("file_safe leaves no separator, leading dot, control character or over-long name",
          "[robustness]") {
  CHECK(file_safe("conv1") == "conv1");
  CHECK(file_safe("../../escaped") == "_._.._escaped");
  CHECK(file_safe("a\\b/c") == "a_b_c");
  CHECK(file_safe("line\nbreak") == "line_break");
  CHECK(file_safe("") == "_");
  CHECK(file_safe(".hidden") == "_hidden");
  const std::string long_a(300, 'a'), long_b = std::string(299, 'a') + "b";
  CHECK(file_safe(long_a).size() == 180 + 17);
  CHECK(file_safe(long_a) != file_safe(long_b));  // the hash keeps them apart
  CHECK(file_safe(long_a).substr(0, 180) == long_a.substr(0, 180));
}

TEST_CASE("saved tensor paths lie in the folder, and two names for one file are refused",
          "[robustness]") {
  NetworkConfig net;
  LayerConfig a, b;
  a.name = "x/y";
  b.name = "z";
  net.layers = {a, b};
  const auto paths = saved_tensor_paths("out", net, {});
  CHECK(paths.layers == std::vector<std::string>{"out/x_y.output.npy", "out/z.output.npy"});
  CHECK(paths.inputs.empty());

  net.layers[1].name = "x_y";
  try {
    saved_tensor_paths("out", net, {});
    FAIL("two layers saved as one file");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("layer \"x/y\" and layer \"x_y\"") &&
                             Catch::Contains("out/x_y.output.npy"));
  }
}
