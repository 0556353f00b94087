#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <list>

#include "sim/sweep/backends.h"
#include "sim/sweep/point_process.h"

namespace npusim::sweep {

namespace {

volatile std::sig_atomic_t g_stop = 0;
struct sigaction g_old[3];
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

void on_stop_signal(int) { g_stop = 1; }

}  // namespace

bool stop_requested() { return g_stop != 0; }

StopSignals::StopSignals() {
  g_stop = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a sleep or wait returns early
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &g_old[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_old[i], nullptr);
}

bool run_local(SweepSession& session, const std::vector<std::size_t>& indices,
               const std::string& binary, const LocalOptions& options) {
  struct Job {
    std::size_t index;
    RunningPoint point;
  };
  // The points share a cache of their layers' kernel summaries (the seeded weights' non-zero
  // counts, sim/runner/kernel_summary_cache.h): a hardware sweep's points draw the same
  // weights. It lives in the sweep's folder, so a resumed sweep keeps it; a variable the
  // caller set is left alone.
  const std::string cache = session.dir() + "/kernel-cache";
  ::mkdir(cache.c_str(), 0755);
  ::setenv("NPUSIM_KERNEL_CACHE", cache.c_str(), /*overwrite=*/0);
  std::list<Job> running;
  std::size_t next = 0;
  const unsigned jobs = options.jobs == 0 ? 1 : options.jobs;
  while (!stop_requested() && (next < indices.size() || !running.empty())) {
    while (running.size() < jobs && next < indices.size() && !stop_requested()) {
      const std::size_t index = indices[next++];
      running.push_back({index, start_point(binary, session.point_dir(index), options.timeout_s)});
    }
    bool any = false;
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      if (!poll_point(it->point, status)) {
        ++it;
        continue;
      }
      session.finished(it->index, finish_point(it->point, status));
      it = running.erase(it);
      any = true;
    }
    // A timing-only point takes about 25 ms of CPU: polling every 10 ms left a slot idle for
    // 5 ms a point on average, so poll every 2 ms (500 cheap wake-ups a second).
    if (!any) ::usleep(2000);
  }
  // Stopped: a point that has just exited is still filed; the others lose
  // their unfinished attempt and stay pending.
  for (Job& job : running) {
    int status = 0;
    if (poll_point(job.point, status))
      session.finished(job.index, finish_point(job.point, status));
    else
      abandon_point(job.point);
  }
  return !stop_requested();
}

}  // namespace npusim::sweep
