#include "tests/support/test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "sim/frontend/load_workload.h"

namespace npusim::test {

NetworkConfig workload(const std::string& json_text) {
  return parse_workload(nlohmann::json::parse(json_text), "<test>");
}

ConfigError workload_error(const nlohmann::json& j) {
  return config_error_from([&] { parse_workload(j, "net.json"); });
}

namespace {

// The per-process scratch folder, removed when the test binary exits: ctest starts
// one process per test case, so a folder left behind by each one adds up to
// gigabytes. NPUSIM_KEEP_TEST_FILES=1 keeps it for a failure's post-mortem.
struct ScratchFolder {
  std::string path =
      (std::filesystem::temp_directory_path() / ("npusim-test-" + std::to_string(::getpid())))
          .string();
  ScratchFolder() { std::filesystem::create_directories(path); }
  ~ScratchFolder() {
    const char* keep = std::getenv("NPUSIM_KEEP_TEST_FILES");
    if (keep != nullptr && std::string(keep) == "1") return;
    std::error_code ignored;  // a destructor at exit must not throw
    std::filesystem::remove_all(path, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
};

}  // namespace

std::string temp_dir() {
  static const ScratchFolder folder;
  return folder.path;
}

std::string write_temp_file(const std::string& name, const std::string& text) {
  const std::string path = temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::vector<nlohmann::json> read_json_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

std::string write_json_lines(const std::string& name, const std::vector<nlohmann::json>& lines) {
  std::string text;
  for (const nlohmann::json& j : lines) text += j.dump() + "\n";
  return write_temp_file(name, text);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string generate_onnx_models(const std::string& names) {
  if (!have_python_onnx()) return "";
  const std::string dir = temp_dir() + "/onnx";
  const std::string cmd = std::string(NPUSIM_SOURCE_DIR) + "/tools/gen-onnx-models " + dir + " " +
                          names + " > /dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return dir;
}

bool have_python_onnx() {
  return std::system("/usr/bin/python3 -c 'import onnx, numpy' > /dev/null 2>&1") == 0;
}

bool have_onnx_runtime() {
  return std::filesystem::exists(std::string(NPUSIM_SOURCE_DIR) +
                                 "/tools/ort/node_modules/onnxruntime-node") &&
         std::system("node --version > /dev/null 2>&1") == 0;
}

OrtComparison ort_compare(const std::string& model, const std::string& args) {
  const std::string out = temp_dir() + "/ort-compare.txt";
  const std::string cmd = std::string(NPUSIM_SOURCE_DIR) + "/tools/ort-compare " + model + " " +
                          args + " --npusim " + NPUSIM_BINARY + " > " + out + " 2>&1";
  OrtComparison c;
  c.status = std::system(cmd.c_str());
  c.text = read_text_file(out);
  return c;
}

bool skipped_for_want_of_vnni(const OrtComparison& c, const std::string& model) {
  if (c.status == 0 || c.text.find("this CPU has no VNNI") == std::string::npos) return false;
  // A warning, not a skip: the case's other checks still pass or fail it.
  WARN("not compared with ONNX Runtime: " << model
                                          << " differs from it on this CPU, which has no VNNI: "
                                             "ONNX Runtime's uint8 x int8 kernels saturate here "
                                             "(tools/ort-compare's note)\n"
                                          << c.text);
  return true;
}

bool cpu_has_vnni() {
  std::ifstream in("/proc/cpuinfo");
  if (!in) return true;
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0)
      return line.find(" avx512_vnni") != std::string::npos ||
             line.find(" avx_vnni") != std::string::npos;
  return true;
}

void check_ort_bit_exact(const OrtComparison& c, const std::string& output) {
  INFO(c.text);
  if (c.text.find("this CPU has no VNNI") == std::string::npos) {
    CHECK(c.status == 0);
    CHECK_THAT(c.text, Catch::Contains("[all] " + output + ": bit-exact"));
    return;
  }
  WARN(
      "compared with ONNX Runtime's unoptimised kernels only: its optimised uint8 x int8 "
      "kernels saturate on this CPU, which has no VNNI (tools/ort-compare's note)");
  CHECK_THAT(c.text, Catch::Contains("[disabled] " + output + ": bit-exact"));
}

CliResult run_command(const std::string& command) {
  const std::string out = temp_dir() + "/cli.out", err = temp_dir() + "/cli.err";
  const int status = std::system((command + " >" + out + " 2>" + err + " </dev/null").c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text_file(out);
  r.err = read_text_file(err);
  return r;
}

CliResult run_cli(const std::string& args) {
  return run_command(std::string(NPUSIM_BINARY) + " " + args);
}

const nlohmann::json* compile_trial(const nlohmann::json& trials, uint32_t units,
                                    uint32_t cache_kib, uint32_t array_rows, uint32_t array_cols) {
  const nlohmann::json& list = trials.at("trials");
  if (list.empty()) return nullptr;
  if (array_rows == 0 && array_cols == 0) {
    array_rows = list.front().at("array_rows").get<uint32_t>();
    array_cols = list.front().at("array_cols").get<uint32_t>();
  }
  for (const nlohmann::json& t : list)
    if (t.at("units") == units && t.at("cache_kib") == cache_kib &&
        t.at("array_rows") == array_rows && t.at("array_cols") == array_cols)
      return &t;
  return nullptr;
}

const nlohmann::json* chosen_compile_trial(const nlohmann::json& trials) {
  return compile_trial(
      trials, trials.at("units").get<uint32_t>(), trials.at("cache_kib").get<uint32_t>(),
      trials.at("array_rows").get<uint32_t>(), trials.at("array_cols").get<uint32_t>());
}

nlohmann::json run_report(const std::string& args) {
  static int counter = 0;
  const std::string dir = temp_dir() + "/report" + std::to_string(counter++);
  const CliResult r = run_cli(args + " -q --out " + dir);
  INFO("npusim " << args << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(read_text_file(dir + "/report.json"));
}

void check_invariants(const RunResult& r) {
  const StatsRegistry& s = *r.stats;
  const Counter& cycles = s.get("layer.cycles");
  const Counter& compute = s.get("bound.compute_cycles");
  const Counter& memory = s.get("bound.memory_cycles");
  const Counter& serial = s.get("bound.serial_cycles");
  for (uint32_t l = 0; l < s.layers(); ++l) {
    INFO("layer " << r.network.layers[l].name);
    CHECK(cycles.at(l) >= compute.at(l));
    CHECK(cycles.at(l) >= memory.at(l));
  }
  const uint64_t total = r.outcome.cycles;
  // The array and the vector unit run side by side: each bounds the run alone.
  uint64_t array = 0, vector = 0;
  for (uint32_t l = 0; l < s.layers(); ++l)
    (runs_on_array(r.network.layers[l].op) ? array : vector) += compute.at(l);
  CHECK(total >= std::max({array, vector, memory.total()}));
  CHECK(total <= serial.total());
  CHECK(compute.total() > 0);
}

std::unique_ptr<RunResult> run_bit_exact(const NetworkConfig& net, const HardwareConfig& hw) {
  RunOptions options;
  options.progress = false;
  auto r = run_network(net, hw, options);
  INFO(r->outcome.message);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  for (size_t l = 0; l < net.layers.size(); ++l) {
    INFO("operator " << net.layers[l].name << ": " << r->summary.checks[l].mismatch);
    CHECK(r->summary.checks[l].checked);
    CHECK(r->summary.checks[l].match);
  }
  check_invariants(*r);
  return r;
}

HardwareConfig residency_hw(Residency residency) {
  HardwareConfig hw = parse_hardware_config(nlohmann::json::object(), "<test>");
  hw.residency = residency;
  hw.trial_mode = TrialMode::Off;
  return hw;
}

}  // namespace npusim::test
