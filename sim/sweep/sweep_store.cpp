#include "sim/sweep/sweep_store.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "sim/config/config_error.h"
#include "sim/config/content_hash.h"
#include "sim/config/json_reader.h"
#include "sim/io/atomic_file.h"

namespace npusim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Temporaries (NAME.tmp.PID) of a sweep process that is gone, say killed with -9
// mid-write: a resumed sweep removes them, leaving those of live processes.
void remove_stale_temporaries(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const auto at = name.rfind(".tmp.");
    if (at == std::string::npos || !e.is_regular_file()) continue;
    const std::string pid = name.substr(at + 5);
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH)
      fs::remove(e.path(), ec);
  }
}

// What a resumed sweep must find unchanged of its workload: the JSON it
// varies, or an ONNX model's bytes (it has no JSON); "" for the default.
std::string workload_hash_of(const SweepSpec& spec) {
  if (!spec.workload.is_null()) return fnv1a64_hex(spec.workload.dump());
  if (spec.workload_path.empty() || spec.workload_path.front() == '<') return "";
  return fnv1a64_hex(read_input_file(spec.workload_path, "a readable ONNX model"));
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return json::parse(in);  // throws json::parse_error
}

// Relative .npy paths of a workload written into a point folder must still
// point at the files next to the original workload.
void absolutise_npy_paths(json& j, const fs::path& base) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      if (it.value().is_string() && key.size() > 4 && key.compare(key.size() - 4, 4, "_npy") == 0) {
        const fs::path p(it.value().get<std::string>());
        if (p.is_relative()) it.value() = (base / p).lexically_normal().string();
      } else {
        absolutise_npy_paths(it.value(), base);
      }
    }
  } else if (j.is_array()) {
    for (json& e : j) absolutise_npy_paths(e, base);
  }
}

// Removes the attempt folders of a point (see point_process.h). A finished
// point can keep an empty one when the sweep was killed right after filing it.
void remove_attempts(const std::string& point_dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(point_dir, ec))
    if (entry.path().filename().string().rfind(".attempt", 0) == 0) fs::remove_all(entry.path());
}

std::string format_duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  return buf;
}

}  // namespace

std::vector<std::string> point_arguments(const json& point_json) {
  return point_json.at("arguments").get<std::vector<std::string>>();
}

PointResult load_point_state(const std::string& point_dir) {
  const std::string report = point_dir + "/report.json";
  if (fs::exists(report)) {
    try {
      return result_from_report(read_json(report));
    } catch (const std::exception&) {
      return PointResult{};  // unreadable: run it again
    }
  }
  const std::string status = point_dir + "/status.json";
  if (fs::exists(status)) {
    try {
      const json s = read_json(status);
      PointResult r;
      r.status = s.at("status").get<std::string>() == "timeout" ? Status::Timeout : Status::Failed;
      r.reason = s.at("reason").get<std::string>();
      return r;
    } catch (const std::exception&) {
    }
  }
  return PointResult{};
}

SweepSession::SweepSession(const SweepSpec& spec, Plan plan, const std::string& dir, bool quiet)
    : spec_(spec),
      plan_(std::move(plan)),
      dir_(fs::absolute(dir).lexically_normal().string()),
      quiet_(quiet) {
  if (!dir_.empty() && dir_.back() == '/') dir_.pop_back();
  const std::string marker = dir_ + "/sweep.json";
  std::error_code ec;
  // A folder of the user's: its results.csv would be replaced.
  if (fs::exists(dir_) && !fs::exists(marker) && !fs::is_empty(dir_, ec))
    throw std::runtime_error(dir_ +
                             " is not empty and holds no sweep (no sweep.json); give a new or "
                             "empty --out folder, or the folder of an earlier run of this sweep");
  fs::create_directories(dir_ + "/points");
  remove_stale_temporaries(dir_);
  json identity = {{"base_hw", spec_.base_hw},
                   {"workload_hash", workload_hash_of(spec_)},
                   {"timing_only", spec_.timing_only},
                   {"estimate_only", spec_.estimate_only}};
  if (fs::exists(marker)) {
    json old;
    try {
      old = read_json(marker);
    } catch (const std::exception& e) {
      throw std::runtime_error(marker + " is unreadable (" + e.what() +
                               "); use another --out folder or delete it");
    }
    // (Sweeps from before estimate-only runs lack the key: they simulated.)
    if (!old.contains("estimate_only")) old["estimate_only"] = false;
    for (const char* key : {"base_hw", "workload_hash", "timing_only", "estimate_only"})
      if (old.value(key, json()) != identity[key])
        throw std::runtime_error(dir_ + " holds a sweep with a different " + key +
                                 "; use another --out folder, or delete it to start over");
  }
  json objectives = json::array();
  for (const Objective& o : spec_.objectives)
    objectives.push_back({{"metric", o.metric}, {"goal", o.maximise ? "max" : "min"}});
  json params = json::array();
  for (const Parameter& p : spec_.parameters) params.push_back(p.name);
  identity["name"] = spec_.name;
  identity["sweep_file"] = fs::absolute(spec_.file).lexically_normal().string();
  identity["workload"] = spec_.workload_path;
  identity["parameters"] = params;
  identity["objectives"] = objectives;
  write_file_atomically(marker, identity.dump(2) + "\n", /*durable=*/true);
  write_file_atomically(dir_ + "/base_hw.json", spec_.base_hw.dump(2) + "\n", /*durable=*/true);

  total_ = plan_.points.size();
  for (std::size_t i = 0; i < plan_.points.size(); ++i) {
    results_.push_back(load(i));
    if (results_.back().status != Status::Ok) continue;
    ++started_done_;
    remove_attempts(point_dir(i));
  }
}

std::string SweepSession::point_dir(std::size_t index) const {
  return dir_ + "/points/" + plan_.points[index].id;
}

PointResult SweepSession::load(std::size_t index) const {
  return load_point_state(point_dir(index));
}

std::vector<std::size_t> SweepSession::pending() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < results_.size(); ++i)
    if (results_[i].status != Status::Ok) out.push_back(i);
  return out;
}

void SweepSession::prepare(const std::vector<std::size_t>& indices) const {
  bool workload_params = false;
  for (const Parameter& p : spec_.parameters) workload_params |= p.target == Target::Workload;
  for (std::size_t i : indices) {
    const Point& p = plan_.points[i];
    const std::string pd = point_dir(i);
    fs::create_directories(pd);
    remove_attempts(pd);
    fs::remove(pd + "/status.json");  // a failure from an earlier run is retried
    std::vector<std::string> args = {spec_.estimate_only ? "estimate" : "run"};
    if (workload_params) {
      json w = point_workload(spec_, p);
      if (spec_.workload_path.front() != '<')
        absolutise_npy_paths(w, fs::path(spec_.workload_path).parent_path());
      write_file_atomically(pd + "/workload.json", w.dump(2) + "\n", /*durable=*/true);
      args.push_back(pd + "/workload.json");
    } else if (!spec_.workload_path.empty()) {
      args.push_back(fs::absolute(spec_.workload_path).lexically_normal().string());
    }
    args.insert(args.end(), {"--hw", dir_ + "/base_hw.json"});
    json values = json::object();
    for (std::size_t k = 0; k < spec_.parameters.size(); ++k) {
      const Parameter& param = spec_.parameters[k];
      values[param.name] = p.values[k];
      if (param.target == Target::Hardware)
        args.insert(args.end(), {"--set", param.path + "=" + p.values[k].dump()});
    }
    args.push_back("-q");
    if (spec_.timing_only && !spec_.estimate_only) args.push_back("--timing-only");
    write_file_atomically(
        pd + "/point.json",
        json{{"id", p.id}, {"values", values}, {"arguments", args}}.dump(2) + "\n",
        /*durable=*/true);
  }
}

std::size_t SweepSession::ok_count() const {
  std::size_t n = 0;
  for (const PointResult& r : results_) n += r.status == Status::Ok;
  return n;
}

void SweepSession::write_tables() const {
  std::vector<Point> points = plan_.points;
  std::vector<PointResult> results = results_;
  for (const Point& p : plan_.pruned) {
    points.push_back(p);
    results.push_back(PointResult{Status::Pruned, "constraint", {}});
  }
  write_file_atomically(dir_ + "/results.csv", results_csv(spec_, points, results),
                        /*durable=*/true);
  std::vector<Point> front_points;
  std::vector<PointResult> front_results;
  for (std::size_t i : pareto_indices(spec_, plan_.points, results_)) {
    front_points.push_back(plan_.points[i]);
    front_results.push_back(results_[i]);
  }
  write_file_atomically(dir_ + "/pareto.csv", results_csv(spec_, front_points, front_results),
                        /*durable=*/true);
}

void SweepSession::finished(std::size_t index, const PointResult& result) {
  results_[index] = result;
  ++done_this_run_;
  if (result.status != Status::Ok) ++failed_;
  write_tables();
  if (quiet_) return;
  const std::size_t done = started_done_ + done_this_run_;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = elapsed / static_cast<double>(done_this_run_) *
                     static_cast<double>(total_ > done ? total_ - done : 0);
  std::string what = to_string(result.status);
  if (result.status == Status::Ok)
    what += ", " + std::to_string(static_cast<uint64_t>(result.metrics[0])) + " cycles";
  else
    what += ": " + result.reason;
  std::cerr << "sweep: " << done << "/" << total_ << " done, " << failed_ << " failed, ETA "
            << format_duration(eta) << "  (" << plan_.points[index].id << " " << what << ")\n";
}

}  // namespace npusim::sweep
