// The compile trials' outcome kept between runs (sim/runner/trial_choice_cache.h): an entry
// gives back every field it was written with, a damaged one is not read, and the key tells
// apart what the trials depend on (the hardware, the network, a model's own weights).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/runner/trial_choice_cache.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

// A trial whose every field differs from the default and from the other trials' (`n`).
CompileTrial trial(uint32_t n) {
  CompileTrial t;
  t.units = n + 1;
  t.cache_kib = 100 + n;
  t.array_rows = 200 + n;
  t.array_cols = 300 + n;
  t.weight_stationary = true;
  t.residency_off = true;
  t.ok = true;
  t.cycles = (uint64_t(1) << 40) + n;  // past 32 bits
  t.dram_bytes = 500 + n;
  t.estimate = 600 + n;
  t.failure = "does not fit " + std::to_string(n);
  return t;
}

void check_same_trial(const CompileTrial& a, const CompileTrial& b) {
  CHECK(a.units == b.units);
  CHECK(a.cache_kib == b.cache_kib);
  CHECK(a.array_rows == b.array_rows);
  CHECK(a.array_cols == b.array_cols);
  CHECK(a.weight_stationary == b.weight_stationary);
  CHECK(a.residency_off == b.residency_off);
  CHECK(a.ok == b.ok);
  CHECK(a.cycles == b.cycles);
  CHECK(a.dram_bytes == b.dram_bytes);
  CHECK(a.estimate == b.estimate);
  CHECK(a.failure == b.failure);
}

LayerTilingPlan plan() {
  LayerTilingPlan p;
  p.fits = true;
  p.why = "why";
  p.k_tile = 11;
  p.k_tiles = 12;
  p.rows_per_piece = 13;
  p.pieces = 14;
  p.cols_per_piece = 15;
  p.rows_per_compute_stage = 16;
  p.rows_per_store_batch = 17;
  p.weight_buffers = 2;
  p.params_per_tile = true;
  p.input_channel_tiles = true;
  p.loop_order = LoopOrder::FeatureStationary;
  p.channels_per_part = 18;
  return p;
}

NetworkEstimate estimate() {
  NetworkEstimate e;
  e.partition.weight_region_bytes = uint64_t(5) << 33;
  e.partition.params_region_bytes = 21;
  e.partition.params_per_tile = true;
  e.partition.half_bytes = 22;
  e.partition.vector_region_bytes = 23;
  e.partition.units = 24;
  e.mappings["conv K 64 ..."] = plan();
  e.mappings["other"] = LayerTilingPlan{};
  return e;
}

}  // namespace

TEST_CASE(
    "a kept trial choice reads back every field of every trial and the chosen estimate's partition "
    "and mappings",
    "[trial_choice_cache]") {
  CompileTrials choice;
  choice.chosen = trial(1);
  choice.estimated = trial(2);
  choice.trials = {trial(3), trial(4), CompileTrial{}};
  const NetworkEstimate written = estimate();
  CompileTrials c;
  NetworkEstimate e;
  REQUIRE(parse_trial_choice(trial_choice_text(choice, written), c, e));
  check_same_trial(c.chosen, choice.chosen);
  check_same_trial(c.estimated, choice.estimated);
  REQUIRE(c.trials.size() == 3);
  for (size_t i = 0; i < 3; ++i) check_same_trial(c.trials[i], choice.trials[i]);

  CHECK(e.partition.weight_region_bytes == written.partition.weight_region_bytes);
  CHECK(e.partition.params_region_bytes == 21);
  CHECK(e.partition.params_per_tile);
  CHECK(e.partition.half_bytes == 22);
  CHECK(e.partition.vector_region_bytes == 23);
  CHECK(e.partition.units == 24);
  REQUIRE(e.mappings.size() == 2);
  REQUIRE(e.mappings.count("conv K 64 ...") == 1);
  const LayerTilingPlan& p = e.mappings.at("conv K 64 ...");
  const LayerTilingPlan q = plan();
  CHECK(p.fits == q.fits);
  CHECK(p.why == q.why);
  CHECK(p.k_tile == q.k_tile);
  CHECK(p.k_tiles == q.k_tiles);
  CHECK(p.rows_per_piece == q.rows_per_piece);
  CHECK(p.pieces == q.pieces);
  CHECK(p.cols_per_piece == q.cols_per_piece);
  CHECK(p.rows_per_compute_stage == q.rows_per_compute_stage);
  CHECK(p.rows_per_store_batch == q.rows_per_store_batch);
  CHECK(p.weight_buffers == q.weight_buffers);
  CHECK(p.params_per_tile == q.params_per_tile);
  CHECK(p.input_channel_tiles == q.input_channel_tiles);
  CHECK(p.loop_order == q.loop_order);
  CHECK(p.channels_per_part == q.channels_per_part);
  CHECK_FALSE(e.mappings.at("other").fits);
}

TEST_CASE(
    "a kept trial choice is read only under its own key and whole: another key, a cut entry or "
    "an edited field reads nothing",
    "[trial_choice_cache]") {
  namespace fs = std::filesystem;
  const std::string dir = test::temp_dir() + "/trial-choice-unit";
  fs::remove_all(dir);
  fs::create_directories(dir);
  CompileTrials choice;
  choice.chosen = trial(1);
  choice.trials = {trial(1), trial(2)};
  // Two keys whose digests start alike: one file, told apart by its first line.
  const std::string one = "npusim compile trials 1 x sha256 0123456789abcdef0123";
  const std::string two = "npusim compile trials 2 x sha256 0123456789abcdef0123";
  write_trial_choice(dir, one, choice, estimate());
  CompileTrials c;
  NetworkEstimate e;
  REQUIRE(read_trial_choice(dir, one, c, e));
  CHECK(c.trials.size() == 2);
  CHECK_FALSE(read_trial_choice(dir, two, c, e));
  REQUIRE(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  const fs::path entry = fs::directory_iterator(dir)->path();
  const std::string whole = test::read_text_file(entry.string());
  std::ofstream(entry, std::ios::binary) << whole.substr(0, whole.size() - 20);
  CHECK_FALSE(read_trial_choice(dir, one, c, e));
  std::string edited = whole;
  const size_t at = edited.find("\"loop_order\":1");
  REQUIRE(at != std::string::npos);
  edited.replace(at, 14, "\"loop_order\":2");  // auto: never a plan's
  std::ofstream(entry, std::ios::binary) << edited;
  CHECK_FALSE(read_trial_choice(dir, one, c, e));
}

TEST_CASE(
    "a kept trial choice with a fraction, a negative number or a number past its field's range "
    "where an unsigned integer belongs is not read",
    "[trial_choice_cache]") {
  CompileTrials choice;
  choice.chosen = trial(1);
  choice.trials = {trial(1)};
  const std::string text = trial_choice_text(choice, estimate());
  CompileTrials c;
  NetworkEstimate e;
  REQUIRE(parse_trial_choice(text, c, e));
  // Each an integer field of the entry: a trial's, a plan's and the partition's.
  for (const std::string field : {"\"array_cols\":301", "\"k_tile\":11", "\"units\":24"}) {
    const size_t at = text.find(field);
    REQUIRE(at != std::string::npos);
    const std::string name = field.substr(0, field.find(':') + 1);
    for (const std::string bad : {"3.7e59", "1.5", "-1", "4294967296"}) {
      INFO(name << bad);
      std::string edited = text;
      edited.replace(at, field.size(), name + bad);
      CHECK_FALSE(parse_trial_choice(edited, c, e));
    }
  }
}

TEST_CASE(
    "the trial choice key differs with the hardware and the network and is empty for weights "
    "the key cannot read",
    "[trial_choice_cache]") {
  const NetworkConfig net = test::workload(R"({"name": "n", "layers": [
      {"name": "a", "N": 1, "C": 8, "H": 6, "W": 5, "K": 16, "R": 3, "S": 3, "stride": 1,
       "padding": 1}]})");
  const HardwareConfig hw;
  const std::string key = trial_choice_key(net, hw);
  REQUIRE_FALSE(key.empty());
  CHECK(key.find('\n') == std::string::npos);  // the entry's first line
  CHECK(trial_choice_key(net, hw) == key);
  HardwareConfig other = hw;
  other.dram.bytes_per_cycle = hw.dram.bytes_per_cycle * 2;
  CHECK(trial_choice_key(net, other) != key);
  NetworkConfig wider = net;
  wider.layers[0].W = 7;
  CHECK(trial_choice_key(wider, hw) != key);
  NetworkConfig reseeded = net;
  reseeded.layers[0].seed += 1;
  CHECK(trial_choice_key(reseeded, hw) != key);
  NetworkConfig from_file = net;
  from_file.layers[0].weights_npy = "w.npy";
  CHECK(trial_choice_key(from_file, hw).empty());
}

TEST_CASE(
    "an ONNX network's trial choice key is the digest of its model's and input files' bytes: the "
    "same for a copy elsewhere, another for a byte changed, an input added or renamed or the "
    "files run together, and empty for a file that cannot be read",
    "[trial_choice_cache]") {
  const std::string dir = test::temp_dir() + "/trial-choice-onnx-key";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    return dir + "/" + name;
  };
  const std::string model = write("m.onnx", std::string("model\0bytes", 11));
  const std::string copy = write("copy.onnx", std::string("model\0bytes", 11));
  const std::string changed = write("changed.onnx", std::string("model\0bytez", 11));
  const std::string input = write("x.npy", "input");
  // A model whose bytes are the first model's, the input's label and the input's: one file
  // that would digest as the model and its input if the files were only run together.
  const std::string joined =
      write("joined.onnx", std::string("model\0bytes", 11) + "input x\ninput");
  NetworkConfig net = test::workload(R"({"name": "n", "layers": [
      {"name": "a", "N": 1, "C": 8, "H": 6, "W": 5, "K": 16, "R": 3, "S": 3}]})");
  net.graph_json = nlohmann::json{{"onnx", model}}.dump();  // as the importer writes it
  const HardwareConfig hw;
  CHECK(trial_choice_key(net, hw).empty());  // no files named: nothing to key it by
  const auto key = [&](std::vector<std::pair<std::string, std::string>> files) {
    NetworkConfig n = net;
    n.source_files = std::move(files);
    return trial_choice_key(n, hw);
  };
  const std::string base = key({{"onnx model", model}});
  REQUIRE_FALSE(base.empty());
  CHECK(base.find('\n') == std::string::npos);
  CHECK(key({{"onnx model", copy}}) == base);
  CHECK(key({{"onnx model", changed}}) != base);
  const std::string with_input = key({{"onnx model", model}, {"input x", input}});
  CHECK(with_input != base);
  CHECK(key({{"onnx model", joined}}) != with_input);
  CHECK(key({{"onnx model", model}, {"input y", input}}) != with_input);
  HardwareConfig other = hw;
  other.dram.bytes_per_cycle = hw.dram.bytes_per_cycle * 2;
  NetworkConfig n = net;
  n.source_files = {{"onnx model", model}};
  CHECK(trial_choice_key(n, other) != base);
  CHECK(key({{"onnx model", dir + "/missing.onnx"}}).empty());
}
