// Seed 003's ping-pong pair of one compute unit: two equal halves, each holding
// a piece's input rows and its int32 results. While the unit computes from one
// half, the load engine fills the other; the compiler alternates them. With
// `buffering: single` only half 0 is used, so loading and computing serialise.
#pragma once

#include <array>
#include <string>

#include "models/tile_buffer.h"

namespace npusim {

class PingPongBuffer {
 public:
  explicit PingPongBuffer(const std::string& name)
      : input_{ByteTile(name + ".half0.input"), ByteTile(name + ".half1.input")},
        results_{SumTile(name + ".half0.results"), SumTile(name + ".half1.results")} {}

  ByteTile& input(uint32_t half) { return input_.at(half); }
  SumTile& results(uint32_t half) { return results_.at(half); }

  uint64_t held_bytes() const {
    uint64_t b = 0;
    for (const ByteTile& t : input_) b += t.held() ? t.bytes() : 0;
    for (const SumTile& t : results_) b += t.held() ? t.bytes() : 0;
    return b;
  }

 private:
  std::array<ByteTile, 2> input_;
  std::array<SumTile, 2> results_;
};

}  // namespace npusim
