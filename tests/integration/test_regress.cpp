// `npusim regress`: the project's golden suite passes, results are
// deterministic (twice, and -j 1 vs -j 2), broken and slow cases fail without
// stopping the others, an injected one-cycle timing change is caught, --bless
// accepts it, and the JUnit XML is well formed with the right counts.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/support/test_support.h"

using npusim::test::read_text_file;
using npusim::test::run_cli;
using npusim::test::temp_dir;
namespace fs = std::filesystem;

namespace {

const std::string kGolden = std::string(NPUSIM_SOURCE_DIR) + "/tests/golden";

// A fresh suite folder holding `manifest` (JSON text); returns its path.
std::string make_suite(const std::string& name, const std::string& manifest) {
  const std::string dir = temp_dir() + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/manifest.json") << manifest;
  return dir;
}

std::string workload(const std::string& name) { return kGolden + "/workloads/" + name + ".json"; }

// One case of a manifest, as JSON text.
std::string case_json(const std::string& name, const std::string& workload_path,
                      const std::string& extra = "") {
  return R"({"name": ")" + name + R"(", "workload": ")" + workload_path + "\"" + extra + "}";
}

std::string manifest(const std::vector<std::string>& cases) {
  std::string text = R"({"cases": [)";
  for (size_t i = 0; i < cases.size(); ++i) text += (i ? ", " : "") + cases[i];
  return text + "]}\n";
}

// The report without its wall time, which is the one field allowed to vary.
nlohmann::json stable_report(const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(read_text_file(path));
  j.erase("wall_seconds");
  j.erase("command_line");  // names each run's own --out folder
  return j;
}

// The first line of `text` that starts with `prefix` after its indent, without
// the indent; "" when there is none.
std::string line_of(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find_first_not_of(' ') != std::string::npos &&
        line.compare(line.find_first_not_of(' '), prefix.size(), prefix) == 0)
      return line.substr(line.find_first_not_of(' '));
  return "";
}

// A small well-formedness check: balanced, properly nested tags, quoted
// attributes, and only the five predefined entities.
bool well_formed_xml(const std::string& x, std::string& why) {
  std::vector<std::string> open;
  size_t i = x.rfind("?>", 100);
  if (x.rfind("<?xml", 0) != 0 || i == std::string::npos) return why = "no XML declaration", false;
  for (i += 2; i < x.size(); ++i) {
    if (x[i] == '&') {
      const size_t end = x.find(';', i);
      const std::string entity = end == std::string::npos ? "" : x.substr(i, end - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" &&
          entity != "&apos;")
        return why = "bad entity at " + std::to_string(i), false;
    }
    if (x[i] != '<') continue;
    const size_t end = x.find('>', i);
    if (end == std::string::npos) return why = "unclosed tag", false;
    std::string tag = x.substr(i + 1, end - i - 1);
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0 || tag.find('<') != std::string::npos)
      return why = "bad tag <" + tag + ">", false;
    const bool closing = tag[0] == '/', empty = tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0, tag.find_first_of(" /", closing ? 1 : 0));
    if (closing) {
      if (open.empty() || open.back() != name) return why = "mismatched </" + name + ">", false;
      open.pop_back();
    } else if (!empty) {
      open.push_back(name);
    }
    i = end;
  }
  if (!open.empty()) return why = "unclosed <" + open.back() + ">", false;
  return true;
}

}  // namespace

TEST_CASE("the project's golden suite passes", "[regress]") {
  const std::string out = temp_dir() + "/golden-out";
  const auto r = run_cli("regress " + kGolden + " -j 2 --out " + out);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  const nlohmann::json summary = nlohmann::json::parse(read_text_file(out + "/summary.json"));
  CHECK(summary["cases"].size() >= 25);
  for (const auto& c : summary["cases"]) {
    INFO(c["name"]);
    CHECK(c["status"] == "pass");
  }
  CHECK_THAT(r.err, Catch::Contains("] hand_1x1: pass"));
}

TEST_CASE("regress results are identical run to run and with -j 1 or -j 2", "[regress][slow]") {
  const std::string base = temp_dir() + "/determinism";
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"a", "-j 2"}, {"b", "-j 2"}, {"c", "-j 1"}};
  for (const auto& [dir, jobs] : runs) {
    const auto r = run_cli("regress " + kGolden + " " + jobs + " --out " + base + "/" + dir);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
  }
  const std::string first = read_text_file(base + "/a/summary.json");
  CHECK(!first.empty());
  CHECK(read_text_file(base + "/b/summary.json") == first);
  CHECK(read_text_file(base + "/c/summary.json") == first);
  size_t compared = 0;
  for (const auto& entry : fs::directory_iterator(base + "/a")) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    INFO("case " << name);
    const std::string result = read_text_file(entry.path().string() + "/result.json");
    CHECK(!result.empty());
    for (const char* other : {"/b/", "/c/"}) {
      CHECK(read_text_file(base + other + name + "/result.json") == result);
      // Everything the run reported (all counters, every layer), not only the golden fields.
      CHECK(stable_report(base + other + name + "/run/report.json") ==
            stable_report(entry.path().string() + "/run/report.json"));
    }
    ++compared;
  }
  CHECK(compared >= 25);
}

TEST_CASE("a broken case is reported failed with its log kept, the others still run", "[regress]") {
  const std::string bad_hw = temp_dir() + "/bad_hw.json";
  std::ofstream(bad_hw) << R"({"compute": {"arary_rows": 16}})";
  const std::string dir = make_suite(
      "broken", manifest({case_json("good", workload("hand_1x1")),
                          case_json("bad_hw", workload("hand_1x1"), R"(, "hw": ")" + bad_hw + "\""),
                          case_json("missing_workload", temp_dir() + "/no-such-layer.json"),
                          case_json("good_too", workload("hand_5x5"))}));
  REQUIRE(run_cli("regress " + dir + " --bless").exit_code == 1);  // failed cases: exit 1
  const auto r = run_cli("regress " + dir + " -j 2");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("4 cases: 2 pass, 0 changed, 2 failed, 0 new"));
  CHECK_THAT(line_of(r.out, "bad_hw "), Catch::Matches("bad_hw +failed .*exit 2: bad input.*"));
  const std::string log = read_text_file(dir + "/.regress-out/bad_hw/log.txt");
  CHECK_THAT(log, Catch::Contains("/compute/arary_rows"));
  CHECK_THAT(log, Catch::Contains("$ "));  // the command line it ran
  CHECK(fs::exists(dir + "/.regress-out/missing_workload/log.txt"));
  CHECK(!fs::exists(dir + "/goldens/bad_hw.json"));  // failed cases are never blessed
  CHECK(fs::exists(dir + "/goldens/good_too.json"));
  CHECK(read_text_file(dir + "/.regress-out/.gitignore") == "*\n");
}

TEST_CASE("a case that runs past its timeout is killed and reported failed", "[regress]") {
  const std::string resnet50 = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/resnet50.json";
  const std::string dir =
      make_suite("timeout", manifest({case_json("slow", resnet50, R"(, "timeout_s": 0.2)"),
                                      case_json("quick", workload("hand_1x1"))}));
  const auto r = run_cli("regress " + dir + " -j 2");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(line_of(r.out, "slow "), Catch::Matches("slow +failed .*timed out after.*"));
  CHECK_THAT(line_of(r.out, "quick "), Catch::Matches("quick +new .*"));
  CHECK(fs::exists(dir + "/.regress-out/slow/log.txt"));
  CHECK(!fs::exists(dir + "/.regress-out/slow/run/report.json"));
}

TEST_CASE("an injected one-cycle timing change is caught and --bless accepts it", "[regress]") {
  // The golden is blessed with the default pipeline fill of 8 cycles; the
  // copied manifest then asks for 9: one extra cycle in one compute formula.
  // The tiling of the hand_1x1 golden case (241 cycles, docs/regression.md).
  const std::string layer = workload("hand_1x1");
  const auto suite = [&](int fill) {
    return manifest({case_json(
        "one_cycle", layer,
        R"(, "set": ["compute.fold=matmul", "compiler.mapper=greedy", "compiler.pieces=greedy", "store.batch_bytes=4096",
                     "compute.pipeline_latency_cycles=)" +
            std::to_string(fill) + "\"]")});
  };
  const std::string dir = make_suite("inject", suite(8));
  REQUIRE(run_cli("regress " + dir + " --bless").exit_code == 0);
  REQUIRE(run_cli("regress " + dir).exit_code == 0);
  std::ofstream(dir + "/manifest.json") << suite(9);

  const auto changed = run_cli("regress " + dir);
  INFO(changed.out << changed.err);
  CHECK(changed.exit_code == 1);
  CHECK_THAT(line_of(changed.out, "one_cycle "), Catch::Matches("one_cycle +changed +242 .*"));
  // The hand derivation gives 241 cycles (docs/regression.md); one more fill cycle is 242.
  CHECK_THAT(line_of(changed.out, "cycles "),
             Catch::Matches("cycles +241 +242  \\+1 \\(\\+0.41%\\)"));
  CHECK_THAT(changed.out, Catch::Contains("hand_1x1/cycles"));
  CHECK_THAT(changed.err, Catch::Contains("[1/1] one_cycle: changed"));

  const auto blessed = run_cli("regress " + dir + " --bless");
  CHECK(blessed.exit_code == 0);
  CHECK_THAT(blessed.out, Catch::Contains("golden rewritten"));
  CHECK(nlohmann::json::parse(read_text_file(dir + "/goldens/one_cycle.json"))["cycles"] == 242);
  CHECK(run_cli("regress " + dir).exit_code == 0);
}

TEST_CASE("a relative tolerance lets cycles move within its bound, never the digest", "[regress]") {
  const std::string layer = workload("hand_1x1");
  const auto suite = [&](int fill, const std::string& tolerance) {
    return manifest(
        {case_json("tolerant", layer,
                   R"(, "set": ["compute.pipeline_latency_cycles=)" + std::to_string(fill) +
                       R"("], "tolerance": {"cycles": )" + tolerance +
                       R"(, "stall.data_dependency_cycles": )" + tolerance + "}")});
  };
  const std::string dir = make_suite("tolerance", suite(8, "0.01"));
  REQUIRE(run_cli("regress " + dir + " --bless").exit_code == 0);
  std::ofstream(dir + "/manifest.json") << suite(9, "0.01");  // +1 of 241 = 0.41 %
  const auto within = run_cli("regress " + dir);
  CHECK(within.exit_code == 0);
  CHECK_THAT(within.out, Catch::Contains("within tolerance"));
  std::ofstream(dir + "/manifest.json") << suite(9, "0.001");
  CHECK(run_cli("regress " + dir).exit_code == 1);
  std::ofstream(dir + "/manifest.json")
      << manifest({case_json("tolerant", layer, R"(, "tolerance": {"digest": 0.5})")});
  const auto digest = run_cli("regress " + dir);
  CHECK(digest.exit_code == 2);
  CHECK_THAT(digest.err, Catch::Contains("at /cases/0/tolerance/digest"));
}

TEST_CASE("the JUnit XML is well formed and counts every status", "[regress]") {
  const std::string dir = make_suite(
      "junit",
      manifest({case_json("passes", workload("hand_1x1")), case_json("moves", workload("hand_5x5")),
                case_json("fails", workload("hand_1x1"), R"(, "set": ["compute.units=0"])")}));
  run_cli("regress " + dir + " --bless");
  // Now move one case, add a new one.
  std::ofstream(dir + "/manifest.json") << manifest(
      {case_json("passes", workload("hand_1x1")),
       case_json("moves", workload("hand_5x5"), R"(, "set": ["dram.latency_cycles=101"])"),
       case_json("fails", workload("hand_1x1"), R"(, "set": ["compute.units=0"])"),
       case_json("fresh", workload("hand_7x7s2"))});
  const std::string xml_path = temp_dir() + "/reports/junit.xml";
  const auto r = run_cli("regress " + dir + " -j 2 --junit " + xml_path);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const std::string xml = read_text_file(xml_path);
  std::string why;
  INFO(xml);
  CHECK(well_formed_xml(xml, why));
  INFO(why);
  CHECK_THAT(xml, Catch::Contains(R"(<testsuites name="npusim regress" tests="4" failures="2" )"
                                  R"(errors="1")"));
  CHECK(std::count(xml.begin(), xml.end(), '\n') > 10);
  CHECK_THAT(xml, Catch::Contains(R"(<testcase classname="regress.junit" name="moves")"));
  CHECK_THAT(xml, Catch::Contains(R"(<failure type="changed")"));
  CHECK_THAT(xml, Catch::Contains(R"(<failure type="new")"));
  CHECK_THAT(xml, Catch::Contains(R"(<error type="failed")"));
}

TEST_CASE("bad manifests and unknown case names are rejected with file and pointer", "[regress]") {
  const std::string dir =
      make_suite("bad-manifest", R"({"cases": [{"name": "x", "worklaod": "a.json"}]})");
  const auto typo = run_cli("regress " + dir);
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("manifest.json: at /cases/0/worklaod"));
  CHECK_THAT(typo.err, Catch::Contains("did you mean \"workload\""));

  std::ofstream(dir + "/manifest.json")
      << manifest({case_json("x", workload("hand_1x1"), R"(, "args": ["--out", "elsewhere"])")});
  const auto option = run_cli("regress " + dir);
  CHECK(option.exit_code == 2);
  CHECK_THAT(option.err, Catch::Contains("at /cases/0/args/0"));

  std::ofstream(dir + "/manifest.json") << manifest({case_json("x", workload("hand_1x1"))});
  const auto unknown = run_cli("regress " + dir + " --case y");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("no case named \"y\""));
}

TEST_CASE(
    "a golden record with a key twice is unusable, naming the file, the key and both lines (the "
    "last one used to win)",
    "[regress][robustness]") {
  const std::string dir =
      make_suite("dup-golden", manifest({case_json("twice", workload("hand_1x1"))}));
  REQUIRE(run_cli("regress " + dir + " --bless").exit_code == 0);
  const std::string golden = dir + "/goldens/twice.json";
  std::string text = read_text_file(golden);
  const std::size_t open = text.find('{');
  REQUIRE(open != std::string::npos);
  text.insert(open + 1, "\n  \"cycles\": 1,");  // a second "cycles" further down
  std::ofstream(golden) << text;
  const auto r = run_cli("regress " + dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("unusable golden") && Catch::Contains("twice.json") &&
                        Catch::Contains("/cycles") && Catch::Contains("each key at most once"));
}
