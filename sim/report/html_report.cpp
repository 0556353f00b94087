#include "sim/report/html_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "sim/report/html_pages.h"

namespace npusim {
namespace {

namespace fs = std::filesystem;

const EmbeddedAsset* find_asset(const std::string& name) {
  for (std::size_t i = 0; i < kHtmlAssetCount; ++i)
    if (kHtmlAssets[i].bytes != nullptr && name == kHtmlAssets[i].name) return &kHtmlAssets[i];
  return nullptr;
}

// An inlined script or style sheet; it must not end its <script> element early.
std::string asset_text(const std::string& name) {
  const EmbeddedAsset* a = find_asset(name);
  if (a == nullptr)
    throw std::logic_error("html report: asset " + name + " was not embedded by the build");
  std::string text(reinterpret_cast<const char*>(a->bytes), a->size);
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.find("</script") != std::string::npos || lower.find("</style") != std::string::npos)
    throw std::logic_error("html report: asset " + name + " holds a closing </script> or </style>");
  return text;
}

// Chart.js as shipped, its licence header kept; only the source-map comment is
// dropped (the map is not inlined, and a browser's tools would look for it).
std::string chart_library() {
  std::string text = asset_text("chart.umd.js");
  const auto map = text.rfind("\n//# sourceMappingURL=");
  if (map != std::string::npos) text.erase(map + 1);
  return text;
}

// The data block: JSON inside <script type="application/json">. No '<' may
// appear raw there ("</script>" would end it), and inside JSON a '<' can only
// be in a string, where \u003c reads the same.
std::string script_json(const nlohmann::json& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 64);
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::vector<std::string> split_csv_record(const std::string& line, bool* open_quote) {
  std::vector<std::string> out(1);
  bool quoted = *open_quote;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else if (c != '\r' || quoted) {
      out.back() += c;
    }
  }
  *open_quote = quoted;
  return out;
}

}  // namespace

std::size_t CsvTable::column(const std::string& name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end())
    throw std::runtime_error(path + ": expected a column \"" + name + "\", found none");
  return static_cast<std::size_t>(it - header.begin());
}

bool CsvTable::has(const std::string& name) const {
  return std::find(header.begin(), header.end(), name) != header.end();
}

CsvTable read_csv_table(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read the file");
  CsvTable t;
  t.path = path;
  std::string line;
  std::size_t line_number = 0;
  bool open_quote = false;
  std::vector<std::string> record;
  while (std::getline(in, line)) {
    ++line_number;
    std::vector<std::string> fields = split_csv_record(line, &open_quote);
    if (!record.empty()) {  // a quoted field with a newline continues
      record.back() += "\n" + fields.front();
      record.insert(record.end(), fields.begin() + 1, fields.end());
    } else {
      record = std::move(fields);
    }
    if (open_quote) continue;
    if (t.header.empty()) {
      t.header = std::move(record);
    } else if (record.size() != t.header.size()) {
      throw std::runtime_error(path + ": line " + std::to_string(line_number) + ": expected " +
                               std::to_string(t.header.size()) + " fields (as the header), found " +
                               std::to_string(record.size()));
    } else {
      t.rows.push_back(std::move(record));
    }
    record.clear();
  }
  if (t.header.empty() || (t.header.size() == 1 && t.header[0].empty()))
    throw std::runtime_error(path + ": expected a header row, found an empty file");
  return t;
}

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

nlohmann::json csv_value(const std::string& text) {
  if (text.empty()) return nullptr;
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end != begin + text.size() || !std::isfinite(v)) return nullptr;
  return v;
}

std::string fixed(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

ReportFolder report_folder_kind(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(dir +
                             ": no such folder (expected the --out folder of `npusim run` "
                             "or `npusim sweep`)");
  const fs::path d(dir);
  if (is_file(d / "report.json") && is_file(d / "layers.csv")) return ReportFolder::Run;
  if (is_file(d / "results.csv") && is_file(d / "sweep.json")) return ReportFolder::Sweep;
  throw std::runtime_error(
      dir +
      ": neither a run nor a sweep folder: expected report.json and layers.csv (the --out "
      "folder of `npusim run`) or results.csv and sweep.json (the --out folder of "
      "`npusim sweep`)");
}

bool html_report_has_chart_library() { return find_asset("chart.umd.js") != nullptr; }

std::string html_report(const std::string& dir) {
  const ReportFolder kind = report_folder_kind(dir);
  if (!html_report_has_chart_library())
    throw std::runtime_error(
        "this npusim was built without Chart.js, which the HTML report inlines: run "
        "tools/install-deps --web (it installs tools/web/node_modules), then configure and build "
        "again");
  const HtmlPage page = kind == ReportFolder::Run ? run_html_page(dir) : sweep_html_page(dir);
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<meta name=\"generator\" content=\"npusim " << NPUSIM_VERSION << "\">\n"
      << "<title>" << html_escape(page.title) << "</title>\n<style>\n"
      << asset_text("report.css") << "</style>\n</head>\n<body>\n<main id=\"report\" data-kind=\""
      << (kind == ReportFolder::Run ? "run" : "sweep") << "\">\n"
      << page.body
      << "</main>\n"
      // The script writes its counts here once it has drawn (tests/browser reads them).
      << "<pre id=\"npusim-report-state\" hidden></pre>\n"
      << "<script type=\"application/json\" id=\"npusim-data\">" << script_json(page.data)
      << "</script>\n"
      << "<script>\n"
      << chart_library() << "\n</script>\n"
      << "<script>\n"
      << asset_text("report_common.js") << "\n"
      << asset_text(page.script) << "\n</script>\n</body>\n</html>\n";
  return out.str();
}

}  // namespace npusim
