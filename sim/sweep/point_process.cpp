#include "sim/sweep/point_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "sim/io/atomic_file.h"
#include "sim/sweep/sweep_store.h"

namespace npusim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

double monotonic_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

RunningPoint start_point(const std::string& binary, const std::string& point_dir,
                         double timeout_s) {
  std::ifstream in(point_dir + "/point.json");
  if (!in) throw std::runtime_error("cannot read " + point_dir + "/point.json");
  std::vector<std::string> args = point_arguments(json::parse(in));
  static unsigned attempt = 0;
  RunningPoint p;
  p.point_dir = point_dir;
  p.attempt_dir =
      point_dir + "/.attempt-" + std::to_string(::getpid()) + "-" + std::to_string(attempt++);
  p.timeout_s = timeout_s;
  fs::remove_all(p.attempt_dir);
  args.insert(args.end(), {"--out", p.attempt_dir});

  // Everything the child needs is built before fork().
  std::string header = "$ " + binary;
  for (const std::string& a : args) header += " " + a;
  header += "\n";
  std::vector<std::string> argv_text = {binary};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = point_dir + "/log";
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw std::runtime_error("cannot write " + log);
  if (::write(log_fd, header.data(), header.size()) < 0) {
    ::close(log_fd);
    throw std::runtime_error("cannot write " + log);
  }
  const pid_t parent = ::getpid();
  p.start_s = monotonic_seconds();
  p.pid = ::fork();
  if (p.pid < 0) {
    ::close(log_fd);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  }
  if (p.pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the sweep died before prctl
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    ::execv(binary.c_str(), argv.data());
    const char msg[] = "sweep: cannot execute the npusim binary\n";
    if (::write(2, msg, sizeof msg - 1) < 0) {
    }
    ::_exit(127);
  }
  ::close(log_fd);
  return p;
}

bool poll_point(RunningPoint& p, int& wait_status) {
  const pid_t r = ::waitpid(p.pid, &wait_status, WNOHANG);
  if (r == p.pid) return true;
  if (r < 0 && errno != EINTR) {
    wait_status = 127 << 8;  // lost the child: treat as a failure
    return true;
  }
  if (!p.timed_out && p.timeout_s > 0 && monotonic_seconds() - p.start_s > p.timeout_s) {
    p.timed_out = true;
    ::kill(p.pid, SIGKILL);
  }
  return false;
}

namespace {

void write_status(const RunningPoint& p, const std::string& status, const std::string& reason,
                  int exit_code) {
  const json s = {{"status", status},
                  {"reason", reason},
                  {"exit_code", exit_code},
                  {"seconds", monotonic_seconds() - p.start_s}};
  write_file_atomically(p.point_dir + "/status.json", s.dump(2) + "\n", /*durable=*/true);
}

// The last "error: ..." line of a log, without the prefix, cut to 200 characters.
std::string last_error_line(const std::string& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (line.rfind("error: ", 0) == 0) last = line.substr(7);
  if (last.size() > 200) last = last.substr(0, 197) + "...";
  return last;
}

}  // namespace

PointResult finish_point(const RunningPoint& p, int wait_status) {
  PointResult r;
  const bool exited = WIFEXITED(wait_status);
  const int code = exited ? WEXITSTATUS(wait_status) : -1;
  if (p.timed_out) {
    r.status = Status::Timeout;
    char buf[64];
    std::snprintf(buf, sizeof buf, "timeout after %g s", p.timeout_s);
    r.reason = buf;
  } else if (!exited) {
    r.status = Status::Failed;
    const int sig = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
    r.reason = "signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  } else if (code != 0) {
    r.status = Status::Failed;
    r.reason = "exit " + std::to_string(code);
    const std::string error = last_error_line(p.point_dir + "/log");
    r.reason += error.empty() ? std::string(" (see log)") : ": " + error;
  } else {
    const std::string report = p.attempt_dir + "/report.json";
    try {
      std::ifstream in(report);
      r = result_from_report(json::parse(in));
    } catch (const std::exception& e) {
      r.status = Status::Failed;
      r.reason = std::string("exit 0 but no usable report.json: ") + e.what();
    }
  }
  if (r.status != Status::Ok) {
    std::error_code ignored;
    fs::remove(p.point_dir + "/report.json", ignored);
    write_status(p, to_string(r.status), r.reason, code);
    fs::remove_all(p.attempt_dir, ignored);
    return r;
  }
  for (const auto& entry : fs::directory_iterator(p.attempt_dir))
    if (entry.path().filename() != "report.json")
      fs::rename(entry.path(), p.point_dir + "/" + entry.path().filename().string());
  fs::rename(p.attempt_dir + "/report.json", p.point_dir + "/report.json");
  write_status(p, "ok", "", 0);
  fs::remove_all(p.attempt_dir);
  return r;
}

void abandon_point(RunningPoint& p) {
  ::kill(p.pid, SIGKILL);
  int status = 0;
  while (::waitpid(p.pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::error_code ignored;
  fs::remove_all(p.attempt_dir, ignored);
}

PointResult run_point(const std::string& binary, const std::string& point_dir, double timeout_s) {
  RunningPoint p = start_point(binary, point_dir, timeout_s);
  int status = 0;
  while (!poll_point(p, status)) ::usleep(20000);
  return finish_point(p, status);
}

}  // namespace npusim::sweep
