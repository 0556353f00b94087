// `npusim regress`: run a suite's cases as child `npusim run` processes,
// compare each with its golden record, report, and optionally bless.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sim/regress/golden.h"
#include "sim/regress/manifest.h"

namespace npusim::regress {

struct Options {
  std::string suite;               // folder with manifest.json, or the manifest itself
  std::string binary;              // the npusim executable that runs each case
  std::string out_dir;             // results folder; empty = <suite>/.regress-out
  std::vector<std::string> cases;  // only these (all when empty)
  std::size_t jobs = 1;            // cases at a time
  double timeout_s = 300;          // per case, unless the case sets its own timeout_s
  bool bless = false;              // rewrite the goldens from this run
  std::string junit;               // write JUnit XML here when set
};

enum class Status { Pass, Changed, Failed, New };
const char* to_string(Status s);

struct CaseResult {
  Case spec;
  Status status = Status::Failed;
  std::vector<FieldChange> changes;  // against the golden (Pass may hold in-tolerance moves)
  std::string message;               // why it failed, or a note
  std::string log_path, dir;         // kept in the results folder
  nlohmann::json record;             // this run's golden-format record (null when failed)
  std::vector<std::string> command;  // the `npusim run` command line
  double wall_s = 0;
  bool blessed = false;  // the golden was rewritten from this run
};

// Runs the suite; writes the table to `out` and progress to `err`. Returns
// the exit code: 0 when every case passed (or, with bless, none failed),
// 1 otherwise. Bad manifests and unknown --case names throw ConfigError.
int run_regress(const Options& options, std::ostream& out, std::ostream& err);

// Reporting (regress_report.cpp).
void print_table(std::ostream& out, const std::vector<CaseResult>& results, bool bless);
// JUnit XML: one <testsuite> named after the suite; changed and new cases are
// <failure>s, failed cases <error>s (with the tail of their log).
std::string junit_xml(const std::string& suite_name, const std::vector<CaseResult>& results,
                      double wall_s);
// summary.json in the results folder: status and moved fields per case, no
// timings, so two runs of a deterministic suite write identical files.
nlohmann::json summary_json(const std::vector<CaseResult>& results);

}  // namespace npusim::regress
