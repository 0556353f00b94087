#include "sim/regress/process_pool.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace npusim::regress {
namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  std::size_t index;
  pid_t pid;
  Clock::time_point start, deadline;
};

std::string quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./=:,+@%") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

pid_t start(const Job& job) {
  {
    std::ofstream log(job.log_path, std::ios::trunc);
    if (!log) throw std::runtime_error("cannot write " + job.log_path);
    log << "$ " << command_line(job.argv) << "\n";
  }
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls.
  std::vector<char*> argv;
  for (const std::string& a : job.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const char* log_path = job.log_path.c_str();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    const int log = open(log_path, O_WRONLY | O_APPEND);
    const int null = open("/dev/null", O_RDONLY);
    if (log < 0 || null < 0) _exit(127);
    dup2(null, 0);
    dup2(log, 1);
    dup2(log, 2);
    execv(argv[0], argv.data());
    static const char message[] = "npusim regress: cannot execute the case's command\n";
    if (write(2, message, sizeof message - 1) < 0) _exit(127);
    _exit(127);
  }
  return pid;
}

void poll_loop(const std::vector<Job>& jobs, std::size_t parallel,
               const std::function<void(std::size_t, const JobResult&)>& done,
               std::vector<Running>& running);

JobResult finish(const Running& r, int status, bool timed_out) {
  JobResult result;
  result.timed_out = timed_out;
  result.wall_s = std::chrono::duration<double>(Clock::now() - r.start).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace

std::string JobResult::describe() const {
  char buf[128];
  if (timed_out) {
    std::snprintf(buf, sizeof buf, "timed out after %.3g s (killed)", wall_s);
  } else if (signal != 0) {
    std::snprintf(buf, sizeof buf, "killed by signal %d (%s)", signal, strsignal(signal));
  } else {
    std::snprintf(buf, sizeof buf, "exit %d", exit_code);
  }
  return buf;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + quote(a);
  return line;
}

void run_jobs(const std::vector<Job>& jobs, std::size_t parallel,
              const std::function<void(std::size_t, const JobResult&)>& done) {
  if (parallel == 0) parallel = 1;
  std::vector<Running> running;
  try {
    poll_loop(jobs, parallel, done, running);
  } catch (...) {
    for (const Running& r : running) {  // leave no child behind
      kill(r.pid, SIGKILL);
      int status = 0;
      waitpid(r.pid, &status, 0);
    }
    throw;
  }
}

namespace {

void poll_loop(const std::vector<Job>& jobs, std::size_t parallel,
               const std::function<void(std::size_t, const JobResult&)>& done,
               std::vector<Running>& running) {
  std::size_t next = 0;
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && running.size() < parallel) {
      const Job& job = jobs[next];
      const Clock::time_point now = Clock::now();
      const auto limit =
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(job.timeout_s));
      running.push_back({next, start(job), now, now + limit});
      ++next;
    }
    bool progressed = false;
    for (std::size_t i = 0; i < running.size();) {
      const Running r = running[i];
      int status = 0;
      bool timed_out = false;
      pid_t got = waitpid(r.pid, &status, WNOHANG);
      if (got == 0 && Clock::now() >= r.deadline) {
        kill(r.pid, SIGKILL);
        got = waitpid(r.pid, &status, 0);
        timed_out = true;
      }
      if (got == 0) {
        ++i;
        continue;
      }
      if (got < 0) status = 127 << 8;  // lost the child: report it as a failed start
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      done(r.index, finish(r, status, timed_out));
      progressed = true;
    }
    if (!progressed && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

}  // namespace npusim::regress
