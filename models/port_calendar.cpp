#include "models/port_calendar.h"

#include <algorithm>

namespace npusim {
namespace {

using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;

// Earliest start >= earliest where [start, start + duration) meets no interval.
uint64_t first_fit(const Intervals& busy, uint64_t earliest, uint64_t duration) {
  uint64_t start = earliest;
  for (const auto& [b, e] : busy) {
    if (e <= start) continue;
    if (b >= start + duration) break;  // fits in the gap before this interval
    start = e;
  }
  return start;
}

}  // namespace

Grant PortCalendar::reserve(uint64_t earliest, uint64_t duration, uint64_t now) {
  size_t best_port = 0;
  uint64_t best_start = UINT64_MAX;
  for (size_t p = 0; p < busy_.size(); ++p) {
    Intervals& busy = busy_[p];
    busy.erase(busy.begin(), std::find_if(busy.begin(), busy.end(),
                                          [now](const auto& i) { return i.second > now; }));
    const uint64_t start = first_fit(busy, earliest, duration);
    if (start < best_start) {
      best_start = start;
      best_port = p;
    }
  }
  Grant g{best_start, best_start + duration};
  if (duration > 0) {
    Intervals& busy = busy_[best_port];
    busy.insert(std::upper_bound(busy.begin(), busy.end(), std::make_pair(g.start, g.end)),
                {g.start, g.end});
  }
  return g;
}

}  // namespace npusim
