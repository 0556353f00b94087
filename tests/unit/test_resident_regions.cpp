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

TEST_CASE(
    "resident regions: a kept weight block serves from the cache exactly the byte ranges "
    "loaded over the bus before, and a load after an output overwrote it is refused naming both",
    "[memory_plan]") {
  // Two operators sharing one 4 x 1x1x8 raw weight block (32 B at weights
  // address 1000) kept at offset 300, and a kept output d (192 B at 200:
  // over the block's bytes [300, 332)).
  Program p = kept_outputs();
  p.layers.resize(1);  // a: 192 B at 0, beside the block
  const auto user = [&](const char* name) {
    LayerDescriptor d;
    d.name = name;
    d.K = 4, d.R = 1, d.S = 1, d.C = 8;
    d.weights_address = 1000;
    d.weights_resident = true;
    d.weights_offset = 300;
    p.layers.push_back(d);
  };
  user("w1");
  user("w2");
  LayerDescriptor d;
  d.name = "d";
  d.N = 1, d.out_h = 4, d.out_w = 6, d.K = 8;
  d.output_resident = true;
  d.resident_offset = 200;
  p.layers.push_back(d);
  REQUIRE(p.layers[1].weight_block_bytes() == 32);
  ResidentRegions r(p);
  r.written(0);
  CHECK(!r.weights_on_chip(1, 0, 16));  // kernels 0 and 1 come over the bus
  CHECK(r.weights_on_chip(2, 0, 16));   // the other operator finds them
  CHECK(r.weights_on_chip(2, 8, 16));   // and any part of them
  CHECK(!r.weights_on_chip(2, 8, 24));  // kernel 2 is not there yet: over the bus
  CHECK(r.weights_on_chip(1, 0, 24));   // now kernels 0..2 are, as one range
  CHECK(!r.weights_on_chip(1, 28, 32));
  CHECK(!r.weights_on_chip(1, 24, 28));  // fills the gap between the two ranges
  CHECK(r.weights_on_chip(2, 0, 32));
  CHECK(r.problem(0).empty());  // the block at [300, 332) misses a's [0, 192)
  CHECK(r.weights_problem(2).empty());
  r.written(3);  // d's store takes [200, 392)
  CHECK_THAT(r.weights_problem(2), Contains("layer w1's weights") && Contains("bytes [300, 332)") &&
                                       Contains("layer d's store has overwritten them"));
}

TEST_CASE(
    "resident regions: a kept weight block's first load overwrites a kept output sharing its "
    "bytes",
    "[memory_plan]") {
  Program p = kept_outputs();
  p.layers.resize(1);  // a: 192 B at 0
  LayerDescriptor w;
  w.name = "w";
  w.K = 2, w.R = 3, w.S = 3, w.C = 4;  // 72 B
  w.weights_address = 64;
  w.weights_resident = true;
  w.weights_offset = 150;  // [150, 222): over a's end
  p.layers.push_back(w);
  ResidentRegions r(p);
  r.written(0);
  CHECK(!r.weights_on_chip(1, 0, 36));
  CHECK_THAT(r.problem(0), Contains("layer a's output") &&
                               Contains("layer w's weights' first load has overwritten them"));
}
