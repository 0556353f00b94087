// `npusim report DIR` (docs/html-report.md): one self-contained HTML page for
// a run's or a sweep's output folder. The figures are static HTML, the data a
// JSON block, and Chart.js and the page's script are inlined at build time, so
// the page opens offline. Reads only the folder's files: no models, no SystemC.
#pragma once

#include <string>

namespace npusim {

enum class ReportFolder { Run, Sweep };

// What `dir` holds: a run (`npusim run --out`: report.json and layers.csv) or a
// sweep (`npusim sweep --out`: results.csv and sweep.json). Throws
// std::runtime_error naming the folder and the files expected of each when it
// is neither (or does not exist).
ReportFolder report_folder_kind(const std::string& dir);

// Whether this build inlines Chart.js (tools/web/node_modules, installed by
// `tools/install-deps --web`, present when CMake configured the build).
bool html_report_has_chart_library();

// The whole page for `dir`. Throws std::runtime_error or ConfigError naming the
// file when one is missing, unreadable or malformed, and std::runtime_error
// when the build lacks Chart.js (saying how to get it).
std::string html_report(const std::string& dir);

}  // namespace npusim
