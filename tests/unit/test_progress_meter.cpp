// The progress line's text (the drawing needs a terminal and is not tested
// here): phase, layers, share stored, elapsed time, and an estimate of the
// time left only once enough of the run is done to trust the rate.
#include <catch2/catch.hpp>

#include "sim/runner/progress_meter.h"

using namespace npusim;

TEST_CASE("progress text: layers, share stored, elapsed and the time left by the rate so far",
          "[progress]") {
  ProgressSample s;
  s.phase = "simulating";
  s.done = 45;
  s.total = 100;
  s.layers_done = 12;
  s.layers = 31;
  // 1.3 s for 45 %: the other 55 % at the same rate take 1.3 * 55 / 45 = 1.59 s.
  CHECK(progress_text(s, 1.3) ==
        "simulating: 12/31 layers, 45 % of outputs stored, 1.3 s, about 1.6 s left");
  s.done = 1;  // 1 %: too early for an estimate
  CHECK(progress_text(s, 1.3) == "simulating: 12/31 layers, 1 % of outputs stored, 1.3 s");
  s.done = 100;  // done: nothing left to estimate
  s.phase = "checking outputs";
  CHECK(progress_text(s, 2.0) == "checking outputs: 12/31 layers, 100 % of outputs stored, 2.0 s");
  s.total = 0;  // before the accelerator exists
  s.phase = "preparing";
  CHECK(progress_text(s, 1.0) == "preparing: 12/31 layers, 0 % of outputs stored, 1.0 s");
}
