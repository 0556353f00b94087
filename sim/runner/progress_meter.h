// A progress line on stderr while a long simulation runs: layers done of all,
// the share of outputs stored, elapsed time and an estimate of what is left.
// Drawn only on a terminal (never into a log or a test's captured stderr),
// only once a run has taken a second, and erased when the run ends.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace npusim {

struct ProgressSample {
  const char* phase = "preparing";  // preparing, simulating, checking outputs
  uint64_t done = 0, total = 0;     // work units (output channel-rows stored)
  uint32_t layers_done = 0, layers = 0;
};

class ProgressMeter {
 public:
  // Starts a drawing thread when `enabled` and stderr is a terminal; `sample`
  // is called from that thread, so it must only read atomics.
  ProgressMeter(bool enabled, std::function<ProgressSample()> sample);
  ~ProgressMeter();  // stop()
  void stop();       // stops the thread and erases the line; `sample` is not called again
  // Erases the line (it is redrawn at the next tick), so a log line written
  // next starts at the left margin instead of after the progress text.
  void clear_line();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

 private:
  void draw_until_stopped();

  std::function<ProgressSample()> sample_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

// "simulating: 12/31 layers, 45 % of outputs stored, 1.3 s, about 1.6 s left":
// the text of one progress line (tested; the drawing itself needs a terminal).
std::string progress_text(const ProgressSample& s, double elapsed_seconds);

}  // namespace npusim
