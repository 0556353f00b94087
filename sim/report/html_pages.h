// The parts of the HTML report (sim/report/html_report.h) its pages share: the
// files inlined at build time (sim/report/html_assets/embed.cmake writes
// kHtmlAssets), a page's pieces, CSV and JSON reading and HTML escaping.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace npusim {

// One inlined file: Chart.js (chart.umd.js, when the build found it) and the
// page's own style and scripts (sim/report/html_assets/).
struct EmbeddedAsset {
  const char* name;
  const unsigned char* bytes;
  std::size_t size;
};
extern const EmbeddedAsset kHtmlAssets[];
extern const std::size_t kHtmlAssetCount;

// What a page adds to the common frame: its title, its static HTML (header and
// tables, readable without script), the data its script plots, and the name of
// that script among the assets.
struct HtmlPage {
  std::string title;
  std::string body;
  nlohmann::json data;
  std::string script;
};

HtmlPage run_html_page(const std::string& dir);
HtmlPage sweep_html_page(const std::string& dir);

// A CSV file (RFC 4180 quoting) as its header and rows; every row has the
// header's width. Throws std::runtime_error naming the file otherwise.
struct CsvTable {
  std::string path;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // The column's position; throws naming the file and the column when absent.
  std::size_t column(const std::string& name) const;
  bool has(const std::string& name) const;
};
CsvTable read_csv_table(const std::string& path);

// `text` with &, <, >, " and ' as entities.
std::string html_escape(const std::string& text);
// A cell's text as a number when it is one ("12", "0.5"); null otherwise.
nlohmann::json csv_value(const std::string& text);
// printf("%.*f").
std::string fixed(double v, int decimals);

}  // namespace npusim
