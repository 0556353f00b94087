#include "sim/regress/regress.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/config/json_reader.h"
#include "sim/io/atomic_file.h"
#include "sim/regress/process_pool.h"

namespace npusim::regress {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& text) {
  write_file_atomically(path, text);
}

// The last non-empty line of a log: usually the child's "error: ..." line.
std::string last_log_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

std::vector<std::string> run_command(const Options& o, const Case& c, const std::string& dir) {
  std::vector<std::string> argv = {o.binary, "run", c.workload};
  if (!c.hw.empty()) argv.insert(argv.end(), {"--hw", c.hw});
  for (const std::string& s : c.sets) argv.insert(argv.end(), {"--set", s});
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  argv.insert(argv.end(), {"--out", dir + "/run", "-q"});
  return argv;
}

std::string exit_meaning(const JobResult& r) {
  if (r.timed_out || r.signal != 0) return r.describe();
  if (r.exit_code == 1) return r.describe() + ": the simulation failed or an output differs";
  if (r.exit_code == 2) return r.describe() + ": bad input";
  return r.describe();
}

// Judges one finished case against its golden.
void evaluate(const Suite& suite, const JobResult& job, CaseResult& r) {
  r.wall_s = job.wall_s;
  if (!job.ok()) {
    r.message = exit_meaning(job);
    const std::string last = last_log_line(r.log_path);
    if (!job.timed_out && !last.empty() && last[0] != '$') r.message += " (" + last + ")";
    return;
  }
  try {
    r.record = golden_from_report(r.spec.name, load_json_file(r.dir + "/run/report.json"));
  } catch (const std::exception& e) {
    r.message = std::string("unusable report: ") + e.what();
    return;
  }
  write_text(r.dir + "/result.json", golden_text(r.record));
  const std::string golden_path = suite.golden_path(r.spec);
  if (!fs::exists(golden_path)) {
    r.status = Status::New;
    r.message = "no golden yet (--bless writes it)";
    return;
  }
  try {
    const nlohmann::json golden = load_json_file(golden_path);
    check_golden(golden, golden_path);
    r.changes = compare_golden(golden, r.record, r.spec.tolerance);
  } catch (const std::exception& e) {
    r.message = std::string("unusable golden: ") + e.what();
    return;
  }
  std::size_t moved = 0;
  for (const FieldChange& c : r.changes) moved += c.within_tolerance ? 0 : 1;
  r.status = moved > 0 ? Status::Changed : Status::Pass;
  if (moved > 0)
    r.message = std::to_string(moved) + (moved == 1 ? " field moved" : " fields moved");
  else if (!r.changes.empty())
    r.message = "moved within tolerance";
}

void bless(const Suite& suite, std::vector<CaseResult>& results) {
  fs::create_directories(suite.dir + "/goldens");
  for (CaseResult& r : results) {
    if (r.status == Status::Failed) continue;
    if (r.status == Status::Pass && r.changes.empty()) continue;
    write_text(suite.golden_path(r.spec), golden_text(r.record));
    r.blessed = true;
    r.message = r.status == Status::New ? "golden written" : r.message + "; golden rewritten";
  }
}

// The mark of a results folder npusim regress made: it removes and rewrites the
// case folders in one only when it finds the mark (or the folder is new or empty),
// so a --out that names a folder of the user's never loses a file.
constexpr const char* kResultsMark = ".npusim-regress";

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return !a.empty() && !b.empty() && fs::equivalent(a, b, ec) && !ec;
}

// What the run reads: the manifest, every case's workload and hardware file, and
// the goldens. No output may be one of them.
std::vector<std::string> suite_inputs(const Suite& suite) {
  std::vector<std::string> inputs{suite.manifest};
  for (const Case& c : suite.cases) {
    inputs.push_back(c.workload);
    inputs.push_back(c.hw);
    inputs.push_back(suite.golden_path(c));
  }
  return inputs;
}

void check_junit_target(const Options& o, const Suite& suite) {
  if (o.junit.empty()) return;
  if (fs::is_directory(o.junit))
    throw std::runtime_error("--junit " + o.junit + ": a folder; name the XML file to write");
  refuse_to_overwrite("--junit", o.junit, suite_inputs(suite));
}

std::string results_dir(const Options& o, const Suite& suite) {
  const bool chosen = !o.out_dir.empty();
  const std::string dir = chosen ? o.out_dir : suite.dir + "/.regress-out";
  if (same_file(dir, suite.dir) || same_file(dir, suite.dir + "/goldens"))
    throw std::runtime_error("--out " + dir +
                             ": the suite's own folder; give the results a folder of their own");
  std::error_code ec;
  const bool empty = !fs::exists(dir) || (fs::is_directory(dir) && fs::is_empty(dir, ec));
  // The default folder of earlier versions carries the .gitignore they wrote.
  const bool ours =
      fs::exists(dir + "/" + kResultsMark) || (!chosen && fs::exists(dir + "/.gitignore"));
  if (!empty && !ours)
    throw std::runtime_error("--out " + dir + ": " +
                             (fs::is_directory(dir)
                                  ? "a folder npusim regress did not make (it has no " +
                                        std::string(kResultsMark) +
                                        "), and not empty: its case folders would be replaced; "
                                        "give a new or empty folder"
                                  : std::string("not a folder")));
  fs::create_directories(dir);
  if (!fs::exists(dir + "/" + kResultsMark))
    write_text(dir + "/" + kResultsMark, "results of npusim regress: case folders are replaced\n");
  // Results are never committed: the default folder ignores itself.
  if (!chosen && !fs::exists(dir + "/.gitignore")) write_text(dir + "/.gitignore", "*\n");
  return dir;
}

std::string suite_name(const Suite& suite) {
  fs::path p = fs::absolute(suite.dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

}  // namespace

const char* to_string(Status s) {
  switch (s) {
    case Status::Pass:
      return "pass";
    case Status::Changed:
      return "changed";
    case Status::Failed:
      return "failed";
    case Status::New:
      return "new";
  }
  return "?";
}

int run_regress(const Options& o, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  const Suite suite = load_suite(o.suite);
  const std::vector<Case> cases = select_cases(suite, o.cases);
  check_junit_target(o, suite);
  const std::string dir = results_dir(o, suite);

  std::vector<CaseResult> results(cases.size());
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CaseResult& r = results[i];
    r.spec = cases[i];
    r.dir = dir + "/" + cases[i].name;
    r.log_path = r.dir + "/log.txt";
    fs::remove_all(r.dir);  // no stale report can pass for this run's
    fs::create_directories(r.dir);
    r.command = run_command(o, cases[i], r.dir);
    jobs.push_back(
        {r.command, r.log_path, cases[i].timeout_s > 0 ? cases[i].timeout_s : o.timeout_s});
  }
  err << "npusim regress: " << cases.size() << " cases from " << suite.manifest << ", "
      << std::min(o.jobs, cases.size()) << " at a time\n";
  std::size_t finished = 0;
  run_jobs(jobs, o.jobs, [&](std::size_t i, const JobResult& job) {
    evaluate(suite, job, results[i]);
    err << "[" << ++finished << "/" << cases.size() << "] " << cases[i].name << ": "
        << to_string(results[i].status) << "\n"
        << std::flush;
  });

  if (o.bless) bless(suite, results);
  print_table(out, results, o.bless);
  write_text(dir + "/summary.json", summary_json(results).dump(2) + "\n");
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!o.junit.empty()) {
    const fs::path parent = fs::path(o.junit).parent_path();
    if (!parent.empty()) fs::create_directories(parent);
    write_text(o.junit, junit_xml(suite_name(suite), results, wall_s));
  }
  std::ostringstream wall;
  wall.precision(3);
  wall << wall_s;
  err << "npusim regress: done in " << wall.str() << " s; results in " << dir << "\n";

  bool ok = true;
  for (const CaseResult& r : results)
    if (r.status == Status::Failed || (!o.bless && r.status != Status::Pass)) ok = false;
  return ok ? 0 : 1;
}

}  // namespace npusim::regress
