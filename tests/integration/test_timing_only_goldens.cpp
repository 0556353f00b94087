// The lean timing-only path (no inputs, no DRAM image, only each kernel's non-zero count; see
// sim/runner/runner.cpp) against the full functional path on every case of the project's golden
// suite: each functional case runs again with --timing-only and must reproduce its golden's
// cycles and every counter, total and per layer, exactly (only the digests, which a timing-only
// run does not compute, are dropped from the expected record).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/test_support.h"

using npusim::test::run_cli;
using npusim::test::temp_dir;
namespace fs = std::filesystem;

namespace {

const std::string kGoldenDir = std::string(NPUSIM_SOURCE_DIR) + "/tests/golden";

nlohmann::json timing_only_goldens_read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

bool has_arg(const nlohmann::json& c, const std::string& arg) {
  if (!c.contains("args")) return false;
  for (const auto& a : c["args"])
    if (a == arg) return true;
  return false;
}

}  // namespace

TEST_CASE(
    "every functional golden case run with --timing-only gives exactly its golden's cycles and "
    "counters",
    "[heavy][regress][timing_only]") {
  const nlohmann::json manifest = timing_only_goldens_read_json(kGoldenDir + "/manifest.json");
  const std::string suite = temp_dir() + "/timing-only-goldens";
  fs::remove_all(suite);
  fs::create_directories(suite + "/goldens");
  nlohmann::json cases = nlohmann::json::array();
  for (nlohmann::json c : manifest["cases"]) {
    if (has_arg(c, "--timing-only")) continue;
    const std::string name = c["name"];
    nlohmann::json golden =
        timing_only_goldens_read_json(kGoldenDir + "/goldens/" + name + ".json");
    golden["timing_only"] = true;
    for (auto& layer : golden["layers"]) layer["digest"] = nullptr;
    std::ofstream(suite + "/goldens/" + name + ".json") << golden.dump(2) << "\n";
    for (const char* key : {"workload", "hw"})
      if (c.contains(key)) c[key] = kGoldenDir + "/" + c[key].get<std::string>();
    c["args"].push_back("--timing-only");
    c.erase("tolerance");  // exactly, whatever the functional case allows
    cases.push_back(c);
  }
  REQUIRE(cases.size() >= 40);
  std::ofstream(suite + "/manifest.json") << nlohmann::json{{"cases", cases}}.dump(2) << "\n";

  const std::string out = temp_dir() + "/timing-only-goldens-out";
  const auto r = run_cli("regress " + suite + " -j 2 --out " + out);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  const nlohmann::json summary = timing_only_goldens_read_json(out + "/summary.json");
  CHECK(summary["cases"].size() == cases.size());
  for (const auto& c : summary["cases"]) {
    INFO(c["name"]);
    CHECK(c["status"] == "pass");
  }
}
