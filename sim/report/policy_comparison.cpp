#include "sim/report/policy_comparison.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace npusim {
namespace {

double gain_percent(uint64_t strict, uint64_t early) {
  return strict == 0 ? 0.0 : 100.0 * (double(strict) - double(early)) / double(strict);
}

void row(std::ostream& out, size_t name_width, const std::string& name, uint64_t strict,
         uint64_t early, uint64_t early_starts) {
  char line[256];
  std::snprintf(line, sizeof line, "%-*s  %12llu  %12llu  %7.2f %%  %14llu\n", int(name_width),
                name.c_str(), static_cast<unsigned long long>(strict),
                static_cast<unsigned long long>(early), gain_percent(strict, early),
                static_cast<unsigned long long>(early_starts));
  out << line;
}

}  // namespace

void print_policy_comparison(std::ostream& out, const nlohmann::json& strict_report,
                             const nlohmann::json& early_report) {
  const auto& strict_layers = strict_report.at("layers");
  const auto& early_layers = early_report.at("layers");
  if (strict_layers.size() != early_layers.size())
    throw std::runtime_error("the two runs report different layer counts");
  size_t width = 5;
  for (const auto& l : strict_layers)
    width = std::max(width, l.at("name").get<std::string>().size());
  char header[256];
  std::snprintf(header, sizeof header, "%-*s  %12s  %12s  %9s  %14s\n", int(width), "layer",
                "strict", "early", "gain", "early_starts");
  out << header << std::string(width + 57, '-') << '\n';
  const char* kEarlyStart = "overlap.early_start_cycles";
  for (size_t i = 0; i < strict_layers.size(); ++i)
    row(out, width, strict_layers[i].at("name").get<std::string>(),
        strict_layers[i].at("cycles").get<uint64_t>(), early_layers[i].at("cycles").get<uint64_t>(),
        early_layers[i].at("counters").value(kEarlyStart, uint64_t(0)));
  out << std::string(width + 57, '-') << '\n';
  const auto& st = strict_report.at("totals");
  const auto& et = early_report.at("totals");
  row(out, width, "total", st.at("cycles").get<uint64_t>(), et.at("cycles").get<uint64_t>(),
      et.at("counters").value(kEarlyStart, uint64_t(0)));
  out << "layer cycles are spans (first start to last finish) and may overlap; the total is the "
         "run's.\nearly_starts: cycles consumers started before their producers finished (early "
         "run).\n";
}

}  // namespace npusim
