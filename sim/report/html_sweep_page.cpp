// The sweep page of the HTML report: what was swept, the Pareto front as a
// table, and the data of the interactive Pareto scatter, the comparison of two
// points and the sensitivity plots, from a `npusim sweep --out` folder's
// sweep.json, results.csv and pareto.csv (docs/html-report.md#a-sweep).
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "sim/config/json_reader.h"
#include "sim/report/html_pages.h"

namespace npusim {
namespace {

using nlohmann::json;

// "20 ok, 60 pruned".
std::string status_counts(const std::map<std::string, std::size_t>& counts) {
  std::string out;
  for (const char* status : {"ok", "failed", "timeout", "pending", "pruned"}) {
    const auto it = counts.find(status);
    if (it == counts.end()) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(it->second) + " " + status;
    if (std::string(status) == "pruned") out += " by constraints";
  }
  for (const auto& [status, n] : counts)  // a status this page does not know
    if (status != "ok" && status != "failed" && status != "timeout" && status != "pending" &&
        status != "pruned")
      out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + status;
  return out;
}

std::string string_at(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

HtmlPage sweep_html_page(const std::string& dir) {
  const std::string sweep_path = dir + "/sweep.json";
  const json sweep = load_json_file(sweep_path);
  if (!sweep.is_object() || !sweep.contains("parameters") || !sweep["parameters"].is_array() ||
      !sweep.contains("objectives") || !sweep["objectives"].is_array())
    throw std::runtime_error(sweep_path +
                             ": expected the sweep.json `npusim sweep` writes (with "
                             "\"parameters\" and \"objectives\" lists), found other content");
  std::vector<std::string> parameters;
  for (const json& p : sweep["parameters"])
    if (p.is_string()) parameters.push_back(p.get<std::string>());
  json objectives = json::array();
  for (const json& o : sweep["objectives"])
    if (o.is_object() && o.contains("metric") && o["metric"].is_string())
      objectives.push_back({{"metric", o["metric"]}, {"goal", o.value("goal", "min")}});

  const CsvTable results = read_csv_table(dir + "/results.csv");
  const std::size_t c_id = results.column("id"), c_status = results.column("status");
  std::vector<std::size_t> c_params;
  for (const std::string& p : parameters) c_params.push_back(results.column(p));
  for (const json& o : objectives) results.column(o["metric"].get<std::string>());
  std::vector<std::string> metrics;
  std::vector<std::size_t> c_metrics;
  for (std::size_t c = 0; c < results.header.size(); ++c) {
    const std::string& name = results.header[c];
    if (name == "id" || name == "status" || name == "reason" ||
        std::find(parameters.begin(), parameters.end(), name) != parameters.end())
      continue;
    metrics.push_back(name);
    c_metrics.push_back(c);
  }
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const std::size_t c_reason = results.has("reason") ? results.column("reason") : kNone;

  // The front: pareto.csv's ids (a sweep killed before its first point may have none).
  std::set<std::string> front;
  std::vector<std::vector<std::string>> front_rows;
  const std::string pareto_path = dir + "/pareto.csv";
  std::error_code ec;
  if (std::filesystem::is_regular_file(pareto_path, ec)) {
    const CsvTable pareto = read_csv_table(pareto_path);
    const std::size_t p_id = pareto.column("id");
    for (const auto& row : pareto.rows) front.insert(row[p_id]);
  }

  std::map<std::string, std::size_t> counts;
  json points = json::array();
  for (const auto& row : results.rows) {
    const std::string& status = row[c_status];
    ++counts[status];
    if (status == "pruned") continue;  // never ran: no mark, no record
    json values = json::array();
    for (std::size_t c : c_params) {
      const json v = csv_value(row[c]);
      values.push_back(v.is_null() ? json(row[c]) : v);
    }
    for (std::size_t c : c_metrics) values.push_back(csv_value(row[c]));
    const bool on_front = status == "ok" && front.count(row[c_id]) > 0;
    points.push_back({{"id", row[c_id]},
                      {"status", status},
                      {"front", on_front},
                      {"values", values},
                      {"reason", c_reason != kNone ? row[c_reason] : ""}});
    if (on_front) front_rows.push_back(row);
  }

  const std::string name = string_at(sweep, "name");
  const std::string title = "npusim sweep: " + name;
  std::ostringstream body;
  body << "<header><h1>" << html_escape(title) << "</h1>\n<pre id=\"summary\">";
  const auto line = [&](const std::string& label, const std::string& text) {
    std::string padded = label;
    padded.resize(12, ' ');
    body << "<b>" << html_escape(padded) << "</b>" << html_escape(text) << "\n";
  };
  std::string base_hw = "'" + string_at(sweep.value("base_hw", json::object()), "name") + "'";
  line("workload",
       string_at(sweep, "workload") + (sweep.value("timing_only", false) ? " (timing only)" : ""));
  line("base hw", base_hw);
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    std::vector<std::string> distinct;
    for (const auto& row : results.rows)
      if (row[c_status] != "pruned" &&
          std::find(distinct.begin(), distinct.end(), row[c_params[i]]) == distinct.end())
        distinct.push_back(row[c_params[i]]);
    std::string values;
    for (const std::string& v : distinct) values += (values.empty() ? "" : ", ") + v;
    line(i == 0 ? "parameters" : "", parameters[i] + ": " + values);
  }
  std::string objective_text;
  for (const json& o : objectives)
    objective_text += (objective_text.empty() ? "" : ", ") + o["goal"].get<std::string>() + " " +
                      o["metric"].get<std::string>();
  line("objectives", objective_text);
  line("points", std::to_string(results.rows.size()) + ": " + status_counts(counts));
  line("front", std::to_string(front_rows.size()) + " Pareto-optimal points (pareto.csv)");
  body << "</pre>\n</header>\n";

  const std::string x = objectives.size() > 0 ? objectives[0]["metric"].get<std::string>() : "";
  const std::string y = objectives.size() > 1 ? objectives[1]["metric"].get<std::string>() : "";
  body << "<section id=\"pareto-section\"><h2>Pareto front</h2>\n"
       << "<p class=\"note\">Every finished point is one mark: " << html_escape(x) << " against "
       << html_escape(y)
       << (objectives.size() > 2
               ? " (the first two objectives; the front, in red, is Pareto-optimal over all "
                 "of them, so some of its points may look dominated in this projection)"
               : "")
       << ". Hover a mark for its parameters and figures; click two marks to compare them "
          "below.</p>\n"
       << "<div class=\"chart pareto\"><canvas id=\"pareto\"></canvas></div>\n"
       << "<div id=\"selection\"><p class=\"note\">No points selected: click a mark, then "
          "another.</p></div>\n</section>\n";
  body << "<section id=\"sensitivity-section\"><h2>Sensitivity</h2>\n"
       << "<p class=\"note\">" << html_escape(x)
       << " against each varied parameter: every finished point a dot, the median per value "
          "a line, as <code>tools/plot_sweep</code> draws it.</p>\n"
       << "<div id=\"sensitivity\" class=\"grid\"></div>\n</section>\n";

  // The front as a table, readable without the script.
  body << "<section id=\"front-section\"><h2>Front points</h2>\n<table id=\"front\" "
          "class=\"sortable\">\n<thead><tr><th>id</th>";
  for (const std::string& p : parameters) body << "<th>" << html_escape(p) << "</th>";
  for (const json& o : objectives)
    body << "<th class=\"num\">" << html_escape(o["metric"].get<std::string>()) << "</th>";
  body << "</tr></thead>\n<tbody>\n";
  for (const auto& row : front_rows) {
    body << "<tr><td><code>" << html_escape(row[c_id]) << "</code></td>";
    for (std::size_t c : c_params) body << "<td>" << html_escape(row[c]) << "</td>";
    for (const json& o : objectives)
      body << "<td class=\"num\">"
           << html_escape(row[results.column(o["metric"].get<std::string>())]) << "</td>";
    body << "</tr>\n";
  }
  body << "</tbody>\n</table>\n</section>\n";

  HtmlPage page;
  page.title = title;
  page.body = body.str();
  page.script = "sweep_page.js";
  page.data = {{"kind", "sweep"},           {"name", name},
               {"parameters", parameters},  {"metrics", metrics},
               {"objectives", objectives},  {"points", points},
               {"pruned", counts["pruned"]}};
  return page;
}

}  // namespace npusim
