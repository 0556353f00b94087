// The views of a layer that kernel parts and column pieces see, shared across
// instructions (sim/program/program.h, LayerViews): the same view
// layer_seen_by makes, made once per layer and range, and alive as long as a
// caller holds it.
#include <catch2/catch.hpp>
#include <memory>
#include <optional>

#include "sim/program/program.h"
#include "tests/support/hand_mapping.h"

using namespace npusim;

namespace {

// The column-piece tests' layer (5 channels, out_w 19), with per-kernel
// non-zero counts: the member a copy per instruction would copy.
LayerDescriptor viewed_layer() {
  LayerDescriptor d = test::wide_kernel_descriptor();
  d.kernel_nonzeros = {120, 121, 122};
  return d;
}

Instruction part_of(uint32_t c_begin, uint32_t c_end) {
  Instruction in;
  in.channel_begin = c_begin, in.channel_end = c_end;
  return in;
}

}  // namespace

TEST_CASE(
    "layer views: a kernel part or column piece sees layer_seen_by's view, one shared view per "
    "layer and range, the layer itself otherwise",
    "[program][views]") {
  const LayerDescriptor d = viewed_layer();
  LayerViews views;
  std::shared_ptr<const LayerDescriptor> a, b, c;
  // A whole-layer instruction sees the layer itself, no copy.
  CHECK(&views.seen_by(Instruction{}, d, a) == &d);
  // Channels [2, 5): a layer of 3 channels and no parts, as layer_seen_by gives it.
  const LayerDescriptor& part = views.seen_by(part_of(2, 5), d, a);
  std::optional<LayerDescriptor> made;
  const LayerDescriptor& expected = layer_seen_by(part_of(2, 5), d, made);
  CHECK(part.C == 3);
  CHECK(part.C == expected.C);
  CHECK(part.channels_per_part == expected.channels_per_part);
  CHECK(part.kernel_nonzeros == d.kernel_nonzeros);
  // The same range again: the same view object; another range: another view.
  CHECK(&views.seen_by(part_of(2, 5), d, b) == &part);
  CHECK(&views.seen_by(part_of(0, 2), d, c) != &part);
  // Columns [5, 9): column_view's 4 output columns and padded width 13.
  Instruction cols;
  cols.out_col_begin = 5, cols.out_col_end = 9;
  const LayerDescriptor& piece = views.seen_by(cols, d, c);
  CHECK(piece.out_w == 4);
  CHECK(piece.padded_w() == 13);
}

TEST_CASE("layer views: a held view outlives the cache's clearing of its views",
          "[program][views]") {
  const LayerDescriptor d = viewed_layer();
  LayerViews views;
  std::shared_ptr<const LayerDescriptor> held;
  const LayerDescriptor& part = views.seen_by(part_of(1, 4), d, held);
  // Many other ranges: the bounded cache clears itself on the way.
  for (uint32_t end = 1; end <= 200; ++end) {
    std::shared_ptr<const LayerDescriptor> other;
    views.seen_by(part_of(0, end), d, other);
  }
  // Still the held view, not freed memory (the sanitizer tier reports a read
  // of freed memory here should the cache free a view a caller holds).
  CHECK(part.C == 3);
  CHECK(held.get() == &part);
}
