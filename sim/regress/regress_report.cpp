// What `npusim regress` leaves for people and CI: the table on stdout, the
// JUnit XML and summary.json.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "sim/regress/process_pool.h"
#include "sim/regress/regress.h"

namespace npusim::regress {
namespace {

using nlohmann::json;

std::string value_text(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string text;
    for (const json& e : v) text += (text.empty() ? "" : ",") + value_text(e);
    return text.size() > 40 ? text.substr(0, 37) + "..." : text;
  }
  return v.dump();
}

std::string cycles_text(const CaseResult& r) {
  if (r.record.is_null() || !r.record.contains("cycles")) return "-";
  return r.record["cycles"].dump();
}

void print_changes(std::ostream& out, const std::vector<FieldChange>& changes) {
  std::size_t width = 5;
  for (const FieldChange& c : changes) width = std::max(width, c.field.size());
  out << "    " << std::left << std::setw(int(width)) << "field" << std::right << std::setw(18)
      << "old" << std::setw(18) << "new"
      << "  difference\n";
  for (const FieldChange& c : changes)
    out << "    " << std::left << std::setw(int(width)) << c.field << std::right << std::setw(18)
        << value_text(c.old_value) << std::setw(18) << value_text(c.new_value) << "  "
        << c.difference() << "\n";
}

std::string escape_xml(const std::string& text) {
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
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
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters (e.g. terminal colour codes).
        if (c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r')
          out += '?';
        else
          out += ch;
    }
  }
  return out;
}

std::string log_tail(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> tail;
  std::string line;
  while (std::getline(in, line)) {
    tail.push_back(line);
    if (tail.size() > lines) tail.pop_front();
  }
  std::string text;
  for (const std::string& l : tail) text += l + "\n";
  return text;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::size_t count(const std::vector<CaseResult>& results, Status s) {
  return static_cast<std::size_t>(std::count_if(
      results.begin(), results.end(), [s](const CaseResult& r) { return r.status == s; }));
}

}  // namespace

void print_table(std::ostream& out, const std::vector<CaseResult>& results, bool bless) {
  std::size_t width = 4;
  for (const CaseResult& r : results) width = std::max(width, r.spec.name.size());
  const std::string rule(width + 40, '-');
  out << std::left << std::setw(int(width)) << "case"
      << "  " << std::setw(8) << "status" << std::right << std::setw(10) << "cycles"
      << "  detail\n"
      << rule << "\n";
  std::size_t blessed = 0;
  for (const CaseResult& r : results) {
    std::string detail = r.message;
    if (r.status == Status::Failed) detail += "; log: " + r.log_path;
    blessed += r.blessed ? 1 : 0;
    out << std::left << std::setw(int(width)) << r.spec.name << "  " << std::setw(8)
        << to_string(r.status) << std::right << std::setw(10) << cycles_text(r)
        << (detail.empty() ? "" : "  " + detail) << "\n";
    if (!r.changes.empty()) print_changes(out, r.changes);
  }
  out << rule << "\n"
      << results.size() << (results.size() == 1 ? " case: " : " cases: ")
      << count(results, Status::Pass) << " pass, " << count(results, Status::Changed)
      << " changed, " << count(results, Status::Failed) << " failed, "
      << count(results, Status::New) << " new\n";
  if (bless) out << "blessed: " << blessed << " goldens written\n";
}

std::string junit_xml(const std::string& suite_name, const std::vector<CaseResult>& results,
                      double wall_s) {
  const std::size_t errors = count(results, Status::Failed);
  const std::size_t failures = count(results, Status::Changed) + count(results, Status::New);
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuites name=\"npusim regress\" tests=\"" << results.size() << "\" failures=\""
    << failures << "\" errors=\"" << errors << "\" time=\"" << seconds(wall_s) << "\">\n"
    << "  <testsuite name=\"" << escape_xml(suite_name) << "\" tests=\"" << results.size()
    << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"0\" time=\""
    << seconds(wall_s) << "\">\n";
  for (const CaseResult& r : results) {
    x << "    <testcase classname=\"regress." << escape_xml(suite_name) << "\" name=\""
      << escape_xml(r.spec.name) << "\" time=\"" << seconds(r.wall_s) << "\">\n";
    if (r.status == Status::Changed || r.status == Status::New) {
      std::ostringstream body;
      if (r.status == Status::Changed) print_changes(body, r.changes);
      x << "      <failure type=\"" << to_string(r.status) << "\" message=\""
        << escape_xml(r.message) << "\">" << escape_xml(body.str()) << "</failure>\n";
    } else if (r.status == Status::Failed) {
      x << "      <error type=\"failed\" message=\"" << escape_xml(r.message) << "\">"
        << escape_xml(log_tail(r.log_path, 30)) << "</error>\n";
    }
    x << "      <system-out>" << escape_xml(command_line(r.command) + "\nlog: " + r.log_path + "\n")
      << "</system-out>\n"
      << "    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

json summary_json(const std::vector<CaseResult>& results) {
  json cases = json::array();
  for (const CaseResult& r : results) {
    json changes = json::array();
    for (const FieldChange& c : r.changes)
      changes.push_back({{"field", c.field},
                         {"old", c.old_value},
                         {"new", c.new_value},
                         {"within_tolerance", c.within_tolerance}});
    // Timeouts and signals carry times; keep the message only where it is stable.
    const bool stable = r.status != Status::Failed;
    cases.push_back({{"name", r.spec.name},
                     {"status", to_string(r.status)},
                     {"cycles", r.record.is_null() ? json() : r.record.value("cycles", json())},
                     {"message", stable ? r.message : std::string()},
                     {"changes", changes}});
  }
  return {{"cases", cases}};
}

}  // namespace npusim::regress
