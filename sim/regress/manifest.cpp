#include "sim/regress/manifest.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"
#include "sim/regress/golden.h"

namespace npusim::regress {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string resolve(const std::string& dir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(dir) / path).lexically_normal().string();
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 100 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

std::vector<std::string> string_array(JsonReader& reader, const std::string& key) {
  std::vector<std::string> out;
  const json* value = reader.find(key);
  if (value == nullptr) return out;
  if (!value->is_array()) reader.fail(key, "array of strings", describe_json(*value));
  for (std::size_t i = 0; i < value->size(); ++i)
    out.push_back(expect_string((*value)[i], reader.file(),
                                json_pointer_append(reader.pointer_to(key), std::to_string(i))));
  return out;
}

void check_sets(const std::vector<std::string>& sets, const JsonReader& reader) {
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const auto equals = sets[i].find('=');
    if (equals == std::string::npos || equals == 0)
      throw ConfigError(reader.file(),
                        json_pointer_append(reader.pointer_to("set"), std::to_string(i)),
                        "key=value (e.g. compute.array_rows=16)", describe_json(sets[i]));
  }
}

void check_args(const std::vector<std::string>& args, const JsonReader& reader) {
  std::vector<std::string> names;
  for (const auto& [option, takes_value] : allowed_run_options()) names.push_back(option);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string pointer = json_pointer_append(reader.pointer_to("args"), std::to_string(i));
    const auto it = allowed_run_options().find(args[i]);
    if (it == allowed_run_options().end()) {
      std::string expected = "one of the options";
      for (const std::string& n : names) expected += " " + n;
      expected += " (output options are set by npusim regress; use \"set\" for --set)";
      throw ConfigError(reader.file(), pointer, expected, describe_json(args[i]),
                        nearest_key(args[i], names));
    }
    if (it->second && ++i >= args.size())
      throw ConfigError(reader.file(), pointer, "a value after " + args[i - 1],
                        "the end of the array");
  }
}

std::map<std::string, double> parse_tolerance(const json& j, const std::string& file,
                                              const std::string& pointer) {
  JsonReader reader(j, file, pointer);
  std::map<std::string, double> out;
  for (const std::string& key : tolerance_keys()) {
    const json* value = reader.find(key);
    if (value == nullptr) continue;
    if (!value->is_number() || value->get<double>() < 0 || value->get<double>() > 1)
      reader.fail(key, "relative tolerance, a number in [0, 1]", describe_json(*value));
    out[key] = value->get<double>();
  }
  reader.finish();  // "digest" and friends are unknown keys: results are always exact
  return out;
}

Case parse_case(const json& j, const std::string& file, const std::string& pointer,
                const std::string& dir) {
  JsonReader reader(j, file, pointer);
  // Unknown keys first: a misspelt "workload" would otherwise read as a missing one.
  for (const char* key :
       {"name", "description", "workload", "hw", "set", "args", "tolerance", "timeout_s"})
    reader.find(key);
  reader.finish();
  Case c;
  c.name = reader.require_string("name");
  if (!valid_name(c.name))
    reader.fail("name",
                "a name of letters, digits, '_', '-' and '.' (a file name; not starting "
                "with '.')",
                describe_json(*reader.find("name")));
  c.description = reader.get_string("description", "");
  c.workload = resolve(dir, reader.require_string("workload"));
  if (c.workload.empty()) reader.fail("workload", "a path to a workload file", "empty string");
  // An empty "hw" would silently run the default hardware: leave the key out for that.
  if (reader.has("hw") && reader.get_string("hw", "").empty())
    reader.fail("hw", "a path to a hardware file (leave \"hw\" out for the default hardware)",
                "empty string");
  c.hw = resolve(dir, reader.get_string("hw", ""));
  c.sets = string_array(reader, "set");
  check_sets(c.sets, reader);
  c.args = string_array(reader, "args");
  check_args(c.args, reader);
  if (const json* t = reader.find("tolerance"))
    c.tolerance = parse_tolerance(*t, file, reader.pointer_to("tolerance"));
  c.timeout_s = reader.get_positive_number("timeout_s", 86400, 0);
  return c;
}

}  // namespace

const std::map<std::string, bool>& allowed_run_options() {
  static const std::map<std::string, bool> options = {
      {"--policy", true}, {"--buffering", true}, {"--timing-only", false}};
  return options;
}

std::vector<std::string> tolerance_keys() {
  std::vector<std::string> keys = {"cycles"};
  keys.insert(keys.end(), kGoldenCounters.begin(), kGoldenCounters.end());
  return keys;
}

Suite load_suite(const std::string& dir_or_manifest) {
  Suite suite;
  if (fs::is_directory(dir_or_manifest)) {
    suite.dir = dir_or_manifest;
    suite.manifest = (fs::path(dir_or_manifest) / "manifest.json").string();
  } else {
    suite.manifest = dir_or_manifest;
    suite.dir = fs::path(dir_or_manifest).parent_path().string();
    if (suite.dir.empty()) suite.dir = ".";
  }
  const json j = load_json_file(suite.manifest);
  JsonReader root(j, suite.manifest);
  root.get_string("description", "");
  const json* cases = root.find("cases");
  if (cases == nullptr)
    root.fail("cases", "array of case objects", "nothing (required key is missing)");
  root.finish();
  if (!cases->is_array() || cases->empty())
    root.fail("cases", "non-empty array of case objects", describe_json(*cases));
  std::set<std::string> names;
  for (std::size_t i = 0; i < cases->size(); ++i) {
    const std::string pointer = json_pointer_append("/cases", std::to_string(i));
    Case c = parse_case((*cases)[i], suite.manifest, pointer, suite.dir);
    if (!names.insert(c.name).second)
      throw ConfigError(suite.manifest, pointer + "/name", "a case name not used before",
                        "duplicate name \"" + c.name + "\"");
    suite.cases.push_back(std::move(c));
  }
  return suite;
}

std::vector<Case> select_cases(const Suite& suite, const std::vector<std::string>& names) {
  if (names.empty()) return suite.cases;
  std::vector<std::string> known;
  for (const Case& c : suite.cases) known.push_back(c.name);
  for (const std::string& n : names)
    if (std::find(known.begin(), known.end(), n) == known.end())
      throw ConfigError(suite.manifest, "/cases", "the name of a case (--case)",
                        "no case named \"" + n + "\"", nearest_key(n, known));
  std::vector<Case> out;
  for (const Case& c : suite.cases)
    if (std::find(names.begin(), names.end(), c.name) != names.end()) out.push_back(c);
  return out;
}

}  // namespace npusim::regress
