// `npusim report DIR [-o FILE]`: the interactive HTML report of a run's or a
// sweep's --out folder (sim/report/html_report.h, docs/html-report.md).
#include <iostream>
#include <memory>
#include <string>

#include "sim/cli/commands.h"
#include "sim/io/atomic_file.h"
#include "sim/report/html_report.h"

namespace npusim::cli {
namespace {

struct ReportArguments {
  std::string dir;
  std::string output;  // default DIR/report.html
};

int report(const ReportArguments& args) {
  const ReportFolder kind = report_folder_kind(args.dir);
  const std::string output = args.output.empty() ? args.dir + "/report.html" : args.output;
  // The page is written beside the folder's files, never over one of them.
  refuse_to_overwrite(
      "-o", output,
      {args.dir + "/report.json", args.dir + "/layers.csv", args.dir + "/stats.json",
       args.dir + "/results.csv", args.dir + "/pareto.csv", args.dir + "/sweep.json"});
  const std::string page = html_report(args.dir);
  write_file_atomically(output, page);
  std::cout << "report: " << (kind == ReportFolder::Run ? "run" : "sweep") << " " << args.dir
            << " -> " << output << " (" << (page.size() + 1023) / 1024 << " KiB)\n";
  return kOk;
}

}  // namespace

void add_report_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<ReportArguments>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write one self-contained HTML page for a run's or a sweep's --out folder: for a run the "
      "summary, a sortable operator table, a roofline and where the cycles went; for a sweep an "
      "interactive Pareto scatter (hover, click two points to compare) and sensitivity plots.");
  cmd->add_option("DIR", args->dir, "The --out folder of `npusim run` or `npusim sweep`")
      ->required();
  cmd->add_option("-o,--output", args->output, "HTML file to write (default DIR/report.html)");
  cmd->callback([&action, args] { action = [args] { return report(*args); }; });
}

}  // namespace npusim::cli
