// Reservation calendar of a few identical ports (the internal cache's).
// A request takes the earliest gap, on any port, that starts no earlier than
// it asks and is long enough. Gaps matter: a load books its cache write for
// when its DRAM data will arrive (latency cycles ahead), and a compute read
// asked for later must still be able to use the port before that slot;
// first-come-first-served booking at the end of the queue would make an
// earlier start able to delay everything behind it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/sim_time.h"

namespace npusim {

class PortCalendar {
 public:
  explicit PortCalendar(uint32_t ports) : busy_(ports) {}

  // Books `duration` cycles starting at or after `earliest`. Intervals that
  // ended before `now` are forgotten (no request can start before now).
  Grant reserve(uint64_t earliest, uint64_t duration, uint64_t now);

 private:
  // Per port: booked [start, end) intervals, sorted, non-overlapping.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> busy_;
};

}  // namespace npusim
