#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "sim/io/atomic_file.h"
#include "sim/sweep/backends.h"

namespace npusim::sweep {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxArrayTasks = 1000;  // Slurm's default MaxArraySize is 1001

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Sleeps `seconds` in short steps, returning early when a stop is requested.
void nap(double seconds) {
  for (double t = 0; t < seconds && !stop_requested(); t += 0.05) ::usleep(50000);
}

struct Batch {
  std::string job_id;
  std::string output_pattern;  // with %a for the task index
  std::vector<std::size_t> indices;
};

std::string write_job_script(const std::string& batch_dir, std::size_t chunk,
                             const std::vector<std::string>& ids, const std::string& sweep_dir,
                             const std::string& binary, const SlurmOptions& o,
                             std::string& output_pattern) {
  const std::string tasks = batch_dir + "/tasks-" + std::to_string(chunk) + ".txt";
  std::ofstream t(tasks);
  for (const std::string& id : ids) t << id << '\n';
  if (!t.flush()) throw std::runtime_error("cannot write " + tasks);
  output_pattern = batch_dir + "/task-" + std::to_string(chunk) + "-%a.out";
  const std::string script = batch_dir + "/job-" + std::to_string(chunk) + ".sh";
  std::ofstream s(script);
  s << "#!/bin/sh\n"
    << "# One npusim sweep point per array task (written by npusim sweep --backend slurm).\n"
    << "#SBATCH --job-name=npusim-sweep\n"
    << "#SBATCH --array=0-" << ids.size() - 1
    << (o.max_running > 0 ? "%" + std::to_string(o.max_running) : "") << "\n"
    << "#SBATCH --output=" << output_pattern << "\n"
    << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  if (o.timeout_s > 0)  // the point's own timeout fires first; the margin lets it file the result
    s << "#SBATCH --time=" << static_cast<long>(std::ceil(o.timeout_s * 1.5 / 60.0)) + 2 << "\n";
  s << "id=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " << sh_quote(tasks) << ")\n"
    << "exec " << sh_quote(binary) << " sweep-point " << sh_quote(sweep_dir) << " \"$id\"";
  if (o.timeout_s > 0) s << " --timeout-s " << o.timeout_s;
  s << "\n";
  if (!s.flush()) throw std::runtime_error("cannot write " + script);
  return script;
}

// True once none of the jobs is in the queue any more.
bool jobs_gone(const std::vector<Batch>& batches, unsigned& errors) {
  std::string ids;
  for (const Batch& b : batches) ids += (ids.empty() ? "" : ",") + b.job_id;
  std::string out;
  const int rc = capture_command("squeue -h -o %i -j " + ids + " 2>&1", out);
  if (rc == 0) {
    errors = 0;
    return trim(out).empty();
  }
  if (out.find("Invalid job id") != std::string::npos) return true;  // purged: finished
  if (++errors >= 30)
    throw std::runtime_error("squeue keeps failing (" + trim(out) + "); the jobs " + ids +
                             " may still run: collect them later by running the sweep again");
  return false;
}

}  // namespace

void check_slurm_paths(const std::string& sweep_dir, const std::string& binary) {
  // A #SBATCH line ends at its newline and cannot be quoted: a path with a control
  // character in it would end the directive and start a shell line of the job script.
  for (const auto& [what, path] :
       {std::pair<const char*, const std::string&>{"the sweep folder's path", sweep_dir},
        {"the npusim executable's path", binary}})
    for (const char c : path)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        throw std::runtime_error(std::string("--backend slurm: ") + what +
                                 " holds a newline or another control character, which a "
                                 "Slurm job script cannot carry; choose one without");
}

std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int capture_command(const std::string& command, std::string& out) {
  out.clear();
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot start: " + command);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  if (status == -1) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

bool run_slurm(SweepSession& session, const std::vector<std::size_t>& indices,
               const std::string& binary, const SlurmOptions& options) {
  if (indices.empty()) return true;
  check_slurm_paths(session.dir(), binary);
  int n = 1;
  while (fs::exists(session.dir() + "/slurm/" + std::to_string(n))) ++n;
  const std::string batch_dir = session.dir() + "/slurm/" + std::to_string(n);
  fs::create_directories(batch_dir);

  std::string extra;
  for (const std::string& a : options.sbatch_args) extra += " " + sh_quote(a);
  std::vector<Batch> batches;
  for (std::size_t first = 0, chunk = 0; first < indices.size(); first += kMaxArrayTasks, ++chunk) {
    Batch b;
    b.indices.assign(
        indices.begin() + static_cast<long>(first),
        indices.begin() + static_cast<long>(std::min(first + kMaxArrayTasks, indices.size())));
    std::vector<std::string> ids;
    for (std::size_t i : b.indices) ids.push_back(session.plan().points[i].id);
    const std::string script =
        write_job_script(batch_dir, chunk, ids, session.dir(), binary, options, b.output_pattern);
    std::string out;
    const std::string command = "sbatch --parsable" + extra + " " + sh_quote(script) + " 2>&1";
    if (capture_command(command, out) != 0) {
      for (const Batch& done : batches) capture_command("scancel " + done.job_id + " 2>&1", out);
      throw std::runtime_error("sbatch failed: " + trim(out) + "\n  command: " + command);
    }
    out = trim(out);
    b.job_id = trim(out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1));
    b.job_id = b.job_id.substr(0, b.job_id.find(';'));  // "<id>;<cluster>"
    std::fprintf(stderr, "sweep: submitted Slurm job %s (%zu array tasks, %s)\n", b.job_id.c_str(),
                 b.indices.size(), script.c_str());
    batches.push_back(std::move(b));
  }

  std::vector<bool> reported(session.plan().points.size(), false);
  auto collect = [&] {
    for (const Batch& b : batches)
      for (std::size_t i : b.indices) {
        if (reported[i]) continue;
        const PointResult r = session.load(i);
        if (r.status == Status::Pending) continue;
        reported[i] = true;
        session.finished(i, r);
      }
  };
  unsigned errors = 0;
  bool stopped = false;
  for (bool gone = false; !gone;) {
    nap(options.poll_s);
    if (stop_requested()) {
      std::string out;
      for (const Batch& b : batches) capture_command("scancel " + b.job_id + " 2>&1", out);
      std::fprintf(stderr, "sweep: stopped; cancelled the Slurm job(s)\n");
      stopped = true;
      break;
    }
    gone = jobs_gone(batches, errors);
    collect();
  }
  if (stopped) {
    collect();
    return false;
  }
  // A task that ended without filing its point (killed by Slurm, node failure).
  for (const Batch& b : batches)
    for (std::size_t k = 0; k < b.indices.size(); ++k) {
      const std::size_t i = b.indices[k];
      if (reported[i]) continue;
      std::string out = b.output_pattern;
      out.replace(out.find("%a"), 2, std::to_string(k));
      PointResult r{Status::Failed, "no result from its Slurm task (see " + out + ")", {}};
      write_file_atomically(
          session.point_dir(i) + "/status.json",
          nlohmann::json{{"status", "failed"}, {"reason", r.reason}, {"exit_code", -1}}.dump(2) +
              "\n",
          /*durable=*/true);
      session.finished(i, r);
    }
  return true;
}

}  // namespace npusim::sweep
