// `npusim diff RUN_A RUN_B`: compare two `npusim run --out` folders side by
// side (sim/report/run_diff.h, docs/compare.md). Reads only their files.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sim/cli/commands.h"
#include "sim/io/atomic_file.h"
#include "sim/report/run_diff.h"

namespace npusim::cli {
namespace {

struct DiffArguments {
  std::string run_a, run_b;
  std::string csv_file;
  std::string labels;
};

// "A,B" -> {"A", "B"}; empty string when well formed, else the error.
std::string split_labels(const std::string& text, std::string* a, std::string* b) {
  const auto comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos || comma == 0 ||
      comma + 1 == text.size())
    return "expected two non-empty names separated by one comma (e.g. 32x32,16x16), found \"" +
           text + "\"";
  if (a != nullptr) *a = text.substr(0, comma);
  if (b != nullptr) *b = text.substr(comma + 1);
  return "";
}

// The comparison belongs to neither run: refuse a CSV path inside either
// folder, so no run's own files (report.json, layers.csv...) are overwritten.
void check_csv_target(const std::string& csv_file, const std::string& run_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(fs::absolute(csv_file), ec);
  const fs::path dir = fs::weakly_canonical(fs::absolute(run_dir), ec);
  if (ec) return;  // load_run has already checked the folder
  const fs::path rel = target.lexically_relative(dir);
  if (!rel.empty() && *rel.begin() != "..")
    throw std::runtime_error("--csv " + csv_file + ": expected a file outside the run folders, " +
                             "found a path inside " + run_dir +
                             " (the comparison is written beside the runs, never into them)");
}

int diff(const DiffArguments& args) {
  std::string label_a = "A", label_b = "B";
  if (!args.labels.empty()) split_labels(args.labels, &label_a, &label_b);
  const DiffRun a = load_run(args.run_a);
  const DiffRun b = load_run(args.run_b);
  if (!args.csv_file.empty()) {
    check_csv_target(args.csv_file, args.run_a);
    check_csv_target(args.csv_file, args.run_b);
  }
  const RunDiff d = compare_runs(a, b);
  if (!args.csv_file.empty()) {
    std::ostringstream csv;
    write_run_diff_csv(csv, d);
    write_file_atomically(args.csv_file, csv.str());
  }
  print_run_diff(std::cout, a, b, d, label_a, label_b);
  return kOk;
}

}  // namespace

void add_diff_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<DiffArguments>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "Compare two runs written by `npusim run --out DIR`: per layer (matched by name) and in "
      "total, the cycles, MAC utilisation, DRAM traffic and energy of each and the ratio B/A.");
  cmd->add_option("RUN_A", args->run_a, "First run's --out folder (A)")->required();
  cmd->add_option("RUN_B", args->run_b, "Second run's --out folder (B)")->required();
  cmd->add_option("--csv", args->csv_file,
                  "Also write the comparison as CSV to this file (not inside either run folder)");
  cmd->add_option("--labels", args->labels, "Names of the two runs in the table, e.g. 32x32,16x16")
      ->check([](const std::string& text) { return split_labels(text, nullptr, nullptr); });
  cmd->callback([args, &action] { action = [args] { return diff(*args); }; });
}

}  // namespace npusim::cli
