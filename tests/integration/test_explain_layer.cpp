// `npusim compile --explain-layer NAME` (docs/mapping.md#one-layers-candidates):
// a layer's candidate mappings ranked by estimate, checked against what
// `--explain-mapping` says the compiler chose, and its errors on bad names.
#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace {

const std::string kResNet50 = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/resnet50.json";

struct Row {
  uint64_t rank = 0, k_tile = 0, pieces = 0, rows = 0, stage = 0, estimate = 0;
  std::string weights, input;
};

// The ranked rows of an --explain-layer listing (lines that start with a rank).
std::vector<Row> ranked_rows(const std::string& out) {
  std::vector<Row> rows;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    Row r;
    if (fields >> r.rank >> r.k_tile >> r.pieces >> r.rows >> r.stage >> r.weights >> r.input >>
        r.estimate)
      rows.push_back(r);
  }
  return rows;
}

// The --explain-mapping line of `layer`, split into fields.
std::vector<std::string> mapping_line(const std::string& out, const std::string& layer) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind(layer + " ", 0) == 0) {
      std::istringstream fields(line);
      std::vector<std::string> f;
      for (std::string w; fields >> w;) f.push_back(w);
      return f;
    }
  return {};
}

}  // namespace

TEST_CASE(
    "compile --explain-layer ranks every candidate by estimate, the compiler's choice first, "
    "and places the greedy mapping at the rank of its estimate",
    "[heavy][mapper][explain]") {
  const std::string layer = "layer4.1.conv1";
  const auto chosen = npusim::test::run_cli("compile " + kResNet50 + " --explain-mapping");
  REQUIRE(chosen.exit_code == 0);
  // layer candidates k_tile pieces rows/piece rows/stage estimate greedy_est weights input order
  const std::vector<std::string> m = mapping_line(chosen.out, layer);
  REQUIRE(m.size() == 11);
  CHECK(m[10] == "weight");  // compiler.loop_order weight_stationary, the default

  const auto all = npusim::test::run_cli("compile " + kResNet50 + " --explain-layer " + layer +
                                         " --candidates 0");
  INFO(all.out << all.err);
  REQUIRE(all.exit_code == 0);
  const std::vector<Row> rows = ranked_rows(all.out);
  REQUIRE(rows.size() == std::stoull(m[1]));  // every candidate --explain-mapping counted
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i].rank == i + 1);
    if (i > 0) CHECK(rows[i - 1].estimate <= rows[i].estimate);
  }
  // Rank 1 is the mapping the compiler chose.
  CHECK(rows[0].k_tile == std::stoull(m[2]));
  CHECK(rows[0].pieces == std::stoull(m[3]));
  CHECK(rows[0].rows == std::stoull(m[4]));
  CHECK(rows[0].stage == std::stoull(m[5]));
  CHECK(rows[0].estimate == std::stoull(m[6]));
  CHECK(rows[0].weights == m[8]);
  CHECK(rows[0].input == m[9]);
  // The greedy mapping's line gives its estimate, and its rank is a row with that estimate.
  const std::string greedy_tag = "greedy mapping (";
  const size_t at = all.out.find(greedy_tag);
  REQUIRE(at != std::string::npos);
  const std::string greedy_line = all.out.substr(at, all.out.find('\n', at) - at);
  INFO(greedy_line);
  CHECK(greedy_line.find(", " + m[7] + " cycles") != std::string::npos);
  const size_t rank_at = greedy_line.find("): rank ");
  REQUIRE(rank_at != std::string::npos);
  const uint64_t greedy_rank = std::stoull(greedy_line.substr(rank_at + 8));
  REQUIRE(greedy_rank >= 1);
  REQUIRE(greedy_rank <= rows.size());
  CHECK(rows[greedy_rank - 1].estimate == std::stoull(m[7]));
  CHECK(all.out.find("runner-up: rank ") != std::string::npos);

  // By default the ten cheapest, and a note of how many there are.
  const auto ten = npusim::test::run_cli("compile " + kResNet50 + " --explain-layer " + layer);
  REQUIRE(ten.exit_code == 0);
  CHECK(ranked_rows(ten.out).size() == 10);
  CHECK(ten.out.find("(the 10 cheapest of " + m[1] + ";") != std::string::npos);
}

TEST_CASE(
    "compile --explain-layer refuses a name that is no array layer with exit 2, naming the "
    "nearest layer or saying it is a vector operator",
    "[heavy][mapper][explain]") {
  const auto typo =
      npusim::test::run_cli("compile " + kResNet50 + " --explain-layer layer4.1.conv");
  INFO(typo.out << typo.err);
  CHECK(typo.exit_code == 2);
  CHECK(typo.out.empty());
  CHECK(typo.err.find("found \"layer4.1.conv\"") != std::string::npos);
  CHECK(typo.err.find("did you mean \"layer4.1.conv1\"") != std::string::npos);

  const std::string graph = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/resnet18_full.json";
  const auto vector = npusim::test::run_cli("compile " + graph + " --explain-layer layer1.0.add");
  INFO(vector.out << vector.err);
  CHECK(vector.exit_code == 2);
  CHECK(vector.err.find("\"layer1.0.add\" is a vector operator") != std::string::npos);

  const auto orphan = npusim::test::run_cli("compile " + kResNet50 + " --candidates 3");
  CHECK(orphan.exit_code == 2);
  CHECK(orphan.err.find("--candidates requires --explain-layer") != std::string::npos);
}
