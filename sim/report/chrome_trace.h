// The timeline as a Chrome trace-event JSON file (object format), for Perfetto
// (ui.perfetto.dev) or chrome://tracing: one process "npusim", one thread per
// slice track (engine) in order of first appearance, each instruction or
// stage a complete ("X") event, each counter sample a "C" event. Times are in
// microseconds as the format requires: ts = cycles / clock_mhz (fractional).
#pragma once

#include <ostream>
#include <string>

#include "sim/stats/timeline.h"

namespace npusim {

// Throws std::invalid_argument unless clock_mhz > 0.
void write_chrome_trace(std::ostream& out, const Timeline& timeline, double clock_mhz);

// Throws std::runtime_error naming `path` when it cannot be written.
void write_chrome_trace_file(const std::string& path, const Timeline& timeline, double clock_mhz);

}  // namespace npusim
