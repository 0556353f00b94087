#include "sim/report/chrome_trace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/io/atomic_file.h"

namespace npusim {

namespace {

using nlohmann::json;

constexpr int kPid = 1;

json metadata(const char* name, int tid, json args) {
  json e = {{"name", name}, {"ph", "M"}, {"pid", kPid}, {"args", std::move(args)}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

}  // namespace

void write_chrome_trace(std::ostream& out, const Timeline& timeline, double clock_mhz) {
  if (!(clock_mhz > 0) || !std::isfinite(clock_mhz))
    throw std::invalid_argument("chrome trace: clock_mhz must be > 0, got " +
                                std::to_string(clock_mhz));
  const auto us = [clock_mhz](uint64_t cycles) { return double(cycles) / clock_mhz; };

  json events = json::array();
  events.push_back(metadata("process_name", -1, {{"name", "npusim"}}));

  // Thread ids 1, 2, ... in order of each track's first slice.
  std::map<std::string, int> tids;
  for (const TimelineSlice& s : timeline.slices()) {
    if (tids.count(s.track)) continue;
    const int tid = static_cast<int>(tids.size()) + 1;
    tids.emplace(s.track, tid);
    events.push_back(metadata("thread_name", tid, {{"name", s.track}}));
    events.push_back(metadata("thread_sort_index", tid, {{"sort_index", tid}}));
  }

  // Parents before their children: by start, then longest first, then the
  // instruction slice before its stages (viewers nest "X" events by time).
  std::vector<const TimelineSlice*> slices;
  for (const TimelineSlice& s : timeline.slices()) slices.push_back(&s);
  std::stable_sort(slices.begin(), slices.end(), [](const auto* a, const auto* b) {
    if (a->begin != b->begin) return a->begin < b->begin;
    if (a->end != b->end) return a->end > b->end;
    return a->stage < b->stage;
  });
  for (const TimelineSlice* s : slices) {
    const uint64_t end = std::max(s->end, s->begin);
    events.push_back({{"name", s->name},
                      {"cat", s->stage < 0 ? "instruction" : "stage"},
                      {"ph", "X"},
                      {"pid", kPid},
                      {"tid", tids.at(s->track)},
                      {"ts", us(s->begin)},
                      {"dur", us(end - s->begin)},
                      {"args",
                       {{"instruction", s->instruction},
                        {"stage", s->stage},
                        {"layer", s->layer},
                        {"begin_cycle", s->begin},
                        {"end_cycle", s->end}}}});
  }

  std::vector<const TimelineCounter*> counters;
  for (const TimelineCounter& c : timeline.counters()) counters.push_back(&c);
  std::stable_sort(counters.begin(), counters.end(),
                   [](const auto* a, const auto* b) { return a->at < b->at; });
  for (const TimelineCounter* c : counters) {
    events.push_back({{"name", c->track},
                      {"ph", "C"},
                      {"pid", kPid},
                      {"ts", us(c->at)},
                      {"args", {{"value", c->value}}}});
  }

  const json trace = {
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ns"},
      {"otherData", {{"clock_mhz", clock_mhz}, {"time_unit", "us = cycles / clock_mhz"}}}};
  out << trace.dump() << '\n';
}

void write_chrome_trace_file(const std::string& path, const Timeline& timeline, double clock_mhz) {
  std::ostringstream out;
  write_chrome_trace(out, timeline, clock_mhz);
  write_file_atomically(path, out.str());
}

}  // namespace npusim
