// A regression suite: a folder holding manifest.json (the cases) and
// goldens/<case>.json (one golden record per case). See docs/regression.md.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace npusim::regress {

// One case: an `npusim run` of a workload on a hardware config.
struct Case {
  std::string name;                         // unique; also the golden's file name
  std::string description;                  // free text for people
  std::string workload;                     // resolved against the manifest's folder
  std::string hw;                           // resolved likewise; empty = built-in defaults
  std::vector<std::string> sets;            // --set key=value overrides
  std::vector<std::string> args;            // further `npusim run` options (checked)
  std::map<std::string, double> tolerance;  // field class -> relative tolerance
  double timeout_s = 0;                     // 0 = the command line's --timeout-s
};

struct Suite {
  std::string manifest;  // path of manifest.json
  std::string dir;       // the folder holding it
  std::vector<Case> cases;

  std::string golden_path(const Case& c) const { return dir + "/goldens/" + c.name + ".json"; }
};

// The `npusim run` options a case may pass in "args", and whether each takes a value.
const std::map<std::string, bool>& allowed_run_options();

// Field classes a tolerance may name: "cycles" (total and per-layer cycles)
// and the golden counters (kGoldenCounters in golden.h).
std::vector<std::string> tolerance_keys();

// Reads a suite from a folder (its manifest.json) or a manifest file. Every
// unknown key, wrong type or bad value throws ConfigError(file, JSON pointer, ...).
Suite load_suite(const std::string& dir_or_manifest);

// The cases named in `names` (all when empty), in manifest order; an unknown
// name throws ConfigError naming the manifest.
std::vector<Case> select_cases(const Suite& suite, const std::vector<std::string>& names);

}  // namespace npusim::regress
