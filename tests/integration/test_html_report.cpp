// `npusim report` end to end (docs/html-report.md): a run folder and a sweep
// folder made by the CLI become one self-contained page each, with Chart.js
// inlined, the operator table's rows, one data record per sweep point and the
// front flagged, under the size limit; a folder that is neither is refused.
// tests/browser/ opens the same pages in headless Chromium.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

using npusim::test::read_text_file;
using npusim::test::run_cli;
using npusim::test::temp_dir;
using npusim::test::write_temp_file;

namespace {

const std::string kHtmlSource = NPUSIM_SOURCE_DIR;
// docs/html-report.md: the page of the shipped area sweep stays under 2 MB.
constexpr std::size_t kHtmlSizeLimit = 2u * 1000u * 1000u;

// A build configured without tools/web/node_modules has no Chart.js to inline:
// `npusim report` says so, and the test is skipped (tools/install-deps --web).
bool html_report_unavailable(const npusim::test::CliResult& r) {
  if (r.exit_code == 0 || r.err.find("built without Chart.js") == std::string::npos) return false;
  std::printf("SKIPPED: this npusim was built without Chart.js (tools/install-deps --web)\n");
  WARN("SKIPPED: this npusim was built without Chart.js (tools/install-deps --web)");
  return true;
}

// The page's data block, parsed.
nlohmann::json html_data_block(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"npusim-data\">";
  const auto begin = html.find(open);
  REQUIRE(begin != std::string::npos);
  const auto end = html.find("</script>", begin);
  REQUIRE(end != std::string::npos);
  return nlohmann::json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

std::size_t html_occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Nothing the page needs comes from the network.
void check_self_contained(const std::string& html) {
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::Contains("Chart.js v4.6.1"));  // the library with its licence header
  CHECK_THAT(html, Catch::Contains("Released under the MIT License"));
  CHECK_THAT(html, Catch::Contains("window.Chart="));
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("sourceMappingURL") == std::string::npos);
  CHECK(html_occurrences(html, "<script") == html_occurrences(html, "</script>"));
}

// Column `name` of every row of a sweep CSV, by the header.
std::vector<std::string> html_csv_column(const std::string& path, const std::string& name) {
  std::istringstream in(read_text_file(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream h(line);
  for (std::string cell; std::getline(h, cell, ',');) header.push_back(cell);
  std::size_t column = header.size();
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) column = i;
  REQUIRE(column < header.size());
  std::vector<std::string> out;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string cell;
    for (std::size_t i = 0; i <= column; ++i) std::getline(row, cell, ',');
    out.push_back(cell);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "html report of a run folder is one self-contained page: Chart.js inlined, the summary's "
    "totals and one operator table row per layer",
    "[report][html]") {
  const std::string run = temp_dir() + "/html_run";
  const auto made =
      run_cli("run " + kHtmlSource + "/configs/networks/tiny3.json --timing-only -q --out " + run);
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  const std::string page = temp_dir() + "/run.html";
  const auto r = run_cli("report " + run + " -o " + page);
  if (html_report_unavailable(r)) return;
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("-> " + page));
  const std::string html = read_text_file(page);
  check_self_contained(html);
  CHECK(html.size() < kHtmlSizeLimit);

  const nlohmann::json report = nlohmann::json::parse(read_text_file(run + "/report.json"));
  const auto& layers = report.at("layers");
  CHECK(html_occurrences(html, "<tr data-index=\"") == layers.size());
  for (const auto& layer : layers)
    CHECK_THAT(html, Catch::Contains("<td>" + layer.at("name").get<std::string>() + "</td>"));
  const std::string cycles = std::to_string(report.at("totals").at("cycles").get<uint64_t>());
  CHECK_THAT(html, Catch::Contains("total cycles     </b>: " + cycles + " ("));
  CHECK_THAT(html, Catch::Contains("not checked (timing-only mode)"));
  CHECK_THAT(html, Catch::Contains("<canvas id=\"roofline\">"));
  CHECK_THAT(html, Catch::Contains("<canvas id=\"cycles\">"));

  const nlohmann::json data = html_data_block(html);
  CHECK(data.at("kind") == "run");
  CHECK(data.at("layers").size() == layers.size());
  CHECK(data.at("units").get<double>() == report.at("hardware").at("compute").at("units"));
}

TEST_CASE(
    "html report of the shipped area sweep's grid has one data record per point that ran, flags "
    "exactly pareto.csv's points and stays under 2 MB",
    "[report][html]") {
  // configs/sweeps/resnet18_area.json as shipped (80 points, 60 pruned, three objectives) on
  // tiny3 instead of ResNet-18, to keep the test fast: the page's size grows with the points,
  // not with the workload.
  nlohmann::json spec =
      nlohmann::json::parse(read_text_file(kHtmlSource + "/configs/sweeps/resnet18_area.json"));
  spec["base_hw"] = kHtmlSource + "/configs/hw/default.json";
  spec["workload"] = kHtmlSource + "/configs/networks/tiny3.json";
  const std::string file = write_temp_file("html_area_sweep.json", spec.dump());
  const std::string sweep = temp_dir() + "/html_sweep";
  const auto made = run_cli("sweep " + file + " --out " + sweep + " -j 2 -q");
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  const auto r = run_cli("report " + sweep);  // default: DIR/report.html
  if (html_report_unavailable(r)) return;
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string html = read_text_file(sweep + "/report.html");
  check_self_contained(html);
  CHECK(html.size() < kHtmlSizeLimit);
  CHECK_THAT(html, Catch::Contains("<canvas id=\"pareto\">"));
  CHECK_THAT(html, Catch::Contains("80: 20 ok, 60 pruned by constraints"));

  const std::vector<std::string> ids = html_csv_column(sweep + "/results.csv", "id");
  const std::vector<std::string> statuses = html_csv_column(sweep + "/results.csv", "status");
  std::set<std::string> ran;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (statuses[i] != "pruned") ran.insert(ids[i]);
  REQUIRE(ran.size() == 20);
  const std::vector<std::string> front_ids = html_csv_column(sweep + "/pareto.csv", "id");
  const std::set<std::string> front(front_ids.begin(), front_ids.end());
  REQUIRE(!front.empty());

  const nlohmann::json data = html_data_block(html);
  CHECK(data.at("kind") == "sweep");
  CHECK(data.at("objectives").size() == 3);
  CHECK(data.at("pruned") == 60);
  const auto& points = data.at("points");
  CHECK(points.size() == ran.size());
  std::set<std::string> recorded, flagged;
  for (const auto& p : points) {
    recorded.insert(p.at("id").get<std::string>());
    if (p.at("front").get<bool>()) flagged.insert(p.at("id").get<std::string>());
    CHECK(p.at("values").size() == data.at("parameters").size() + data.at("metrics").size());
  }
  CHECK(recorded == ran);
  CHECK(flagged == front);
  for (const std::string& id : front) CHECK_THAT(html, Catch::Contains("<code>" + id + "</code>"));
}

TEST_CASE(
    "html report of a folder that is neither a run nor a sweep exits 2, naming the folder and the "
    "files it expected, and writes nothing",
    "[report][html]") {
  const std::string empty = temp_dir() + "/html_neither";
  std::filesystem::create_directories(empty);
  write_temp_file("html_neither/notes.txt", "not a run");
  const auto r = run_cli("report " + empty + " -o " + empty + "/report.html");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(empty + ": neither a run nor a sweep folder"));
  CHECK_THAT(r.err, Catch::Contains("report.json and layers.csv"));
  CHECK_THAT(r.err, Catch::Contains("results.csv and sweep.json"));
  CHECK(!std::filesystem::exists(empty + "/report.html"));

  const auto missing = run_cli("report " + temp_dir() + "/html_no_such_folder");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("html_no_such_folder: no such folder"));
}
