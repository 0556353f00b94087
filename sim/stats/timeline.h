// What happened when: slices (an instruction or one of its stages on an
// engine's track) and counter samples (buffer occupancy, DRAM bandwidth).
// Models record into it only when a timeline was asked for; the report floor
// turns it into a Chrome trace-event file for Perfetto / chrome://tracing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npusim {

struct TimelineSlice {
  std::string track;   // "load engine", "compute unit 0", "store engine"
  std::string name;    // "#12 compute layer1.0.conv1" or "stage 3"
  uint64_t begin = 0;  // cycles
  uint64_t end = 0;    // cycles, >= begin
  uint32_t instruction = 0;
  int32_t stage = -1;  // -1: the instruction itself
  uint32_t layer = 0;
};

struct TimelineCounter {
  std::string track;  // "cache occupancy (bytes)", "DRAM read (bytes/cycle)"
  uint64_t at = 0;    // cycles
  double value = 0.0;
};

class Timeline {
 public:
  explicit Timeline(bool enabled = false) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }

  void slice(TimelineSlice s) {
    if (enabled_) slices_.push_back(std::move(s));
  }
  void counter(const std::string& track, uint64_t at, double value) {
    if (enabled_) counters_.push_back({track, at, value});
  }

  const std::vector<TimelineSlice>& slices() const { return slices_; }
  const std::vector<TimelineCounter>& counters() const { return counters_; }

 private:
  bool enabled_;
  std::vector<TimelineSlice> slices_;
  std::vector<TimelineCounter> counters_;
};

}  // namespace npusim
