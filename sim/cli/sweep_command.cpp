// `npusim sweep`: design-space exploration (docs/sweeps.md). Each point runs as
// a child `npusim run` process, locally or as a Slurm array task; the hidden
// `npusim sweep-point` runs one point inside such a task.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sim/cli/child_process.h"
#include "sim/cli/commands.h"
#include "sim/cli/workload_options.h"
#include "sim/sweep/backends.h"
#include "sim/sweep/point_process.h"

namespace npusim::cli {
namespace {

constexpr int kInterrupted = 130;

std::string points(std::size_t n) { return std::to_string(n) + (n == 1 ? " point" : " points"); }

struct SweepArguments {
  std::string sweep_file;
  std::string out_dir;
  unsigned jobs = 0;
  std::string backend = "local";
  double timeout_s = 0;
  double poll_s = 2;
  std::vector<std::string> sbatch_args;
  bool dry_run = false;
  bool quiet = false;
};

int dry_run(const sweep::SweepSpec& spec, const sweep::Plan& plan) {
  std::vector<sweep::Point> points = plan.points;
  std::vector<sweep::PointResult> results(points.size());
  for (const sweep::Point& p : plan.pruned) {
    points.push_back(p);
    results.push_back({sweep::Status::Pruned, "constraint", {}});
  }
  std::cout << sweep::results_csv(spec, points, results);
  return kOk;
}

int sweep(const SweepArguments& a) {
  const sweep::SweepSpec spec = sweep::load_sweep(a.sweep_file);
  sweep::Plan plan = sweep::make_plan(spec);
  std::cerr << "sweep: " << spec.name << ": " << points(plan.points.size()) << " to run ("
            << plan.pruned.size() << " pruned by constraints";
  if (plan.duplicates > 0) std::cerr << ", " << plan.duplicates << " duplicate samples merged";
  std::cerr << ")\n";
  if (a.dry_run) return dry_run(spec, plan);
  if (a.out_dir.empty()) throw std::runtime_error("--out DIR is required (except with --dry-run)");

  if (a.backend == "slurm")  // before the folder is made
    sweep::check_slurm_paths(std::filesystem::absolute(a.out_dir).string(), self_path());
  sweep::SweepSession session(spec, std::move(plan), a.out_dir, a.quiet);
  const std::vector<std::size_t> pending = session.pending();
  const std::size_t total = session.plan().points.size();
  const unsigned jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::cerr << "sweep: " << total - pending.size() << " finished earlier, " << pending.size()
            << " to run";
  if (a.backend == "local") std::cerr << " with -j " << jobs;
  std::cerr << " (" << session.dir() << ")\n";
  session.prepare(pending);
  session.write_tables();

  bool completed;
  {
    sweep::StopSignals signals;
    if (a.backend == "slurm") {
      sweep::SlurmOptions o;
      o.max_running = a.jobs;
      o.timeout_s = a.timeout_s;
      o.poll_s = a.poll_s;
      o.sbatch_args = a.sbatch_args;
      completed = sweep::run_slurm(session, pending, self_path(), o);
    } else {
      completed = sweep::run_local(session, pending, self_path(), {jobs, a.timeout_s});
    }
  }
  session.write_tables();
  const std::size_t ok = session.ok_count();
  const std::size_t front =
      sweep::pareto_indices(spec, session.plan().points, session.results()).size();
  std::cerr << "sweep: " << ok << "/" << total << " points ok, " << session.failures()
            << " failed in this run";
  if (!completed) std::cerr << "; interrupted: run the same command again to resume";
  std::cerr << "\nsweep: results in " << session.dir() << "/results.csv, Pareto front ("
            << points(front) << ") in " << session.dir() << "/pareto.csv\n";
  if (!completed) return kInterrupted;
  return ok == total ? kOk : kSimulationFailed;
}

int sweep_point(const std::string& dir, const std::string& id, double timeout_s) {
  const std::string point_dir = dir + "/points/" + id;
  const sweep::PointResult r = sweep::run_point(self_path(), point_dir, timeout_s);
  std::cerr << "sweep-point " << id << ": " << sweep::to_string(r.status)
            << (r.reason.empty() ? "" : ": " + r.reason) << '\n';
  return kOk;  // the outcome is filed in the point's folder
}

}  // namespace

void add_sweep_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<SweepArguments>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Design-space exploration: run every point of a sweep file (one npusim process each), "
      "write results.csv and the Pareto front; re-running resumes (docs/sweeps.md).");
  cmd->add_option("sweep", args->sweep_file, "Sweep JSON (configs/sweeps/*.json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", args->out_dir,
                  "Output folder: results.csv, pareto.csv, points/<id>/ (required; reuse it to "
                  "resume)");
  cmd->add_option("-j,--jobs", args->jobs,
                  "Points running at once (local: default the number of CPUs; slurm: the "
                  "array's throttle, default none)");
  cmd->add_option("--backend", args->backend, "Where points run (default local)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--timeout-s", args->timeout_s,
                  "Per-point wall-clock limit in seconds; a point past it is recorded as timeout")
      ->check(non_negative_number());
  cmd->add_option("--sbatch-arg", args->sbatch_args,
                  "Extra sbatch argument for --backend slurm, e.g. --sbatch-arg=--partition=short "
                  "(repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--poll-s", args->poll_s, "Slurm queue polling interval (default 2 s)")
      ->check(positive_number());
  cmd->add_flag("--dry-run", args->dry_run,
                "Print the points (CSV, pruned ones included) and run nothing");
  cmd->add_flag("-q,--quiet", args->quiet, "No per-point progress lines");
  cmd->callback([args, &action] { action = [args] { return sweep(*args); }; });

  // One point inside a Slurm array task; hidden from --help.
  auto point = std::make_shared<std::tuple<std::string, std::string, double>>();
  CLI::App* pcmd = app.add_subcommand("sweep-point", "Run one prepared sweep point");
  pcmd->group("");
  pcmd->add_option("dir", std::get<0>(*point), "Sweep output folder")->required();
  pcmd->add_option("id", std::get<1>(*point), "Point id")->required();
  pcmd->add_option("--timeout-s", std::get<2>(*point), "Wall-clock limit in seconds");
  pcmd->callback([point, &action] {
    action = [point] {
      return sweep_point(std::get<0>(*point), std::get<1>(*point), std::get<2>(*point));
    };
  });
}

}  // namespace npusim::cli
