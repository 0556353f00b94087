// Time in npusim is counted in accelerator clock cycles; SystemC time carries
// them as 1 cycle = 1 ns of simulated time (the clock only matters when the
// report converts cycles to seconds). Helpers keep that convention in one place.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <systemc>

namespace npusim {

inline uint64_t now_cycles() { return sc_core::sc_time_stamp().value() / 1000; }

inline sc_core::sc_time cycles(uint64_t n) { return sc_core::sc_time::from_value(n * 1000); }

// Suspends the calling SystemC thread until cycle `t` (no-op when t <= now).
inline void wait_until_cycle(uint64_t t) {
  const uint64_t now = now_cycles();
  if (t > now) sc_core::wait(cycles(t - now));
}

// A start/end pair of a reservation on a shared resource, in cycles.
struct Grant {
  uint64_t start = 0, end = 0;
};

// Raised by a model when the program misbehaves (reading data that has not
// arrived, overwriting data still in use): the run stops and says where.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace npusim
