// The cache's record of kept outputs (models/resident_regions.h): a first
// store takes an output's bytes, an output sharing one of them is then
// overwritten, and a read of an overwritten or unwritten output is refused
// with both operators named. Hand-built placements, no simulation.
#include <catch2/catch.hpp>

#include "models/resident_regions.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

// Three kept outputs of 1 x 4 x 6 x K int8: a (K 8, 192 B at 0), b (K 4, 96 B
// at 192: beside a) and c (K 8, 192 B at 100: over the end of a and all of b).
Program kept_outputs() {
  Program p;
  const auto add = [&](const char* name, uint32_t K, uint64_t offset) {
    LayerDescriptor d;
    d.name = name;
    d.N = 1, d.out_h = 4, d.out_w = 6, d.K = K;
    d.output_resident = true;
    d.resident_offset = offset;
    p.layers.push_back(d);
  };
  add("a", 8, 0);
  add("b", 4, 192);
  add("c", 8, 100);
  return p;
}

}  // namespace

TEST_CASE(
    "resident regions: outputs side by side stay readable, one stored over them is refused "
    "to their readers naming both operators",
    "[memory_plan]") {
  const Program p = kept_outputs();
  REQUIRE(p.layers[0].output_bytes() == 192);
  ResidentRegions r(p);
  CHECK_THAT(r.problem(0), Contains("layer a's output") && Contains("before its store wrote it"));
  r.written(0);
  r.written(1);
  CHECK(r.problem(0).empty());
  CHECK(r.problem(1).empty());
  r.written(0);  // a later store of the same output changes nothing
  CHECK(r.problem(0).empty());
  r.written(2);  // bytes [100, 292): the end of a and all of b
  CHECK_THAT(r.problem(0), Contains("layer a's output") && Contains("bytes [0, 192)") &&
                               Contains("layer c's store has overwritten them"));
  CHECK_THAT(r.problem(1), Contains("layer b's output") && Contains("layer c's store"));
  CHECK(r.problem(2).empty());
}

TEST_CASE(
    "resident regions: outputs that only touch (end of one = start of the next) share no "
    "byte",
    "[memory_plan]") {
  Program p = kept_outputs();
  p.layers[2].resident_offset = 288;  // right after b's [192, 288)
  ResidentRegions r(p);
  r.written(1);
  r.written(2);
  CHECK(r.problem(1).empty());
}
