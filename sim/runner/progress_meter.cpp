#include "sim/runner/progress_meter.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace npusim {

namespace {
constexpr auto kFirstDraw = std::chrono::seconds(1);  // short runs stay silent
constexpr auto kRedraw = std::chrono::milliseconds(250);
}  // namespace

std::string progress_text(const ProgressSample& s, double elapsed) {
  const double fraction = s.total == 0 ? 0.0 : double(s.done) / double(s.total);
  char text[200];
  int n = std::snprintf(text, sizeof text, "%s: %u/%u layers, %.0f %% of outputs stored, %.1f s",
                        s.phase, s.layers_done, s.layers, 100.0 * fraction, elapsed);
  // The rate so far holds well for a network: no estimate before 2 % is done.
  if (fraction >= 0.02 && fraction < 1.0 && n > 0 && size_t(n) < sizeof text)
    std::snprintf(text + n, sizeof text - size_t(n), ", about %.1f s left",
                  elapsed * (1.0 - fraction) / fraction);
  return text;
}

ProgressMeter::ProgressMeter(bool enabled, std::function<ProgressSample()> sample)
    : sample_(std::move(sample)), start_(std::chrono::steady_clock::now()) {
  if (enabled && isatty(STDERR_FILENO) == 1)
    thread_ = std::thread([this] { draw_until_stopped(); });
}

ProgressMeter::~ProgressMeter() { stop(); }

void ProgressMeter::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressMeter::clear_line() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

void ProgressMeter::draw_until_stopped() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_for(lock, kFirstDraw, [this] { return stop_; })) return;
  do {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "\r\033[K%s", progress_text(sample_(), elapsed).c_str());
    std::fflush(stderr);
    drawn_ = true;
  } while (!wake_.wait_for(lock, kRedraw, [this] { return stop_; }));
  if (drawn_) {
    std::fprintf(stderr, "\r\033[K");  // erase: the summary follows on stdout
    std::fflush(stderr);
  }
}

}  // namespace npusim
