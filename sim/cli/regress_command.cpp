// `npusim regress`: run a golden suite, each case in its own `npusim run`
// child process, and compare with the goldens (sim/regress, docs/regression.md).
#include <iostream>
#include <memory>
#include <thread>

#include "sim/cli/child_process.h"
#include "sim/cli/commands.h"
#include "sim/cli/workload_options.h"
#include "sim/regress/regress.h"

namespace npusim::cli {

void add_regress_command(CLI::App& app, std::function<int()>& action) {
  auto o = std::make_shared<regress::Options>();
  o->jobs = std::max(1u, std::thread::hardware_concurrency());
  CLI::App* cmd = app.add_subcommand(
      "regress",
      "Run a regression suite (a folder with manifest.json and goldens/) and compare every "
      "case's output digests, cycles and key counters with its golden record. Exit 1 on any "
      "change, failure or new case.");
  cmd->add_option("suite", o->suite, "Suite folder (holding manifest.json) or a manifest file")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("-j,--jobs", o->jobs, "Cases run at a time, each in its own process")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_flag("--bless", o->bless,
                "Rewrite the goldens of the cases run (all, or those of --case) from this run "
                "and print what changed; failed cases are not blessed");
  cmd->add_option("--case", o->cases, "Run only this case (repeatable)");
  cmd->add_option("--junit", o->junit, "Write a JUnit XML report to this file");
  cmd->add_option("--timeout-s", o->timeout_s,
                  "Kill a case after this many seconds (a case's own timeout_s wins)")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--out", o->out_dir,
                  "Results folder: each case's run outputs, log and result (default "
                  "<suite>/.regress-out)");
  cmd->callback([o, &action] {
    action = [o] {
      o->binary = self_path();
      return regress::run_regress(*o, std::cout, std::cerr);
    };
  });
}

}  // namespace npusim::cli
