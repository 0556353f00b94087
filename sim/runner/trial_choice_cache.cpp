#include "sim/runner/trial_choice_cache.h"

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "sim/config/json_reader.h"
#include "sim/io/file_digest.h"
#include "sim/io/keyed_file.h"
#include "sim/io/sha256.h"

namespace npusim {
namespace {

using nlohmann::json;

// Raise when the trials' rules or what an entry holds change meaning: entries of another
// format are never read.
constexpr int kChoiceFormat = 2;

// Field `key` of `j` as a T: an unsigned integer in T's range, or a ConfigError (nlohmann's own
// conversion of a float or an integer out of range would be undefined behaviour).
template <typename T>
T unsigned_at(const json& j, const char* key) {
  return T(expect_uint(j.at(key), "trial choice", std::string("/") + key, 0,
                       std::numeric_limits<T>::max()));
}

json trial_json(const CompileTrial& t) {
  return {{"units", t.units},
          {"cache_kib", t.cache_kib},
          {"array_rows", t.array_rows},
          {"array_cols", t.array_cols},
          {"weight_stationary", t.weight_stationary},
          {"residency_off", t.residency_off},
          {"ok", t.ok},
          {"cycles", t.cycles},
          {"dram_bytes", t.dram_bytes},
          {"estimate", t.estimate},
          {"failure", t.failure}};
}

CompileTrial trial_of(const json& j) {
  CompileTrial t;
  t.units = unsigned_at<uint32_t>(j, "units");
  t.cache_kib = unsigned_at<uint32_t>(j, "cache_kib");
  t.array_rows = unsigned_at<uint32_t>(j, "array_rows");
  t.array_cols = unsigned_at<uint32_t>(j, "array_cols");
  t.weight_stationary = j.at("weight_stationary").get<bool>();
  t.residency_off = j.at("residency_off").get<bool>();
  t.ok = j.at("ok").get<bool>();
  t.cycles = unsigned_at<uint64_t>(j, "cycles");
  t.dram_bytes = unsigned_at<uint64_t>(j, "dram_bytes");
  t.estimate = unsigned_at<uint64_t>(j, "estimate");
  t.failure = j.at("failure").get<std::string>();
  return t;
}

LoopOrder loop_order_of(const json& j) {
  const uint64_t v = expect_uint(j, "trial choice", "/loop_order", 0, UINT8_MAX);
  if (v != uint64_t(LoopOrder::WeightStationary) && v != uint64_t(LoopOrder::FeatureStationary))
    throw std::out_of_range("loop order");
  return LoopOrder(v);
}

json plan_json(const LayerTilingPlan& p) {
  return {{"fits", p.fits},
          {"why", p.why},
          {"k_tile", p.k_tile},
          {"k_tiles", p.k_tiles},
          {"rows_per_piece", p.rows_per_piece},
          {"pieces", p.pieces},
          {"cols_per_piece", p.cols_per_piece},
          {"rows_per_compute_stage", p.rows_per_compute_stage},
          {"rows_per_store_batch", p.rows_per_store_batch},
          {"weight_buffers", p.weight_buffers},
          {"params_per_tile", p.params_per_tile},
          {"input_channel_tiles", p.input_channel_tiles},
          {"loop_order", int(p.loop_order)},
          {"channels_per_part", p.channels_per_part}};
}

LayerTilingPlan plan_of(const json& j) {
  LayerTilingPlan p;
  p.fits = j.at("fits").get<bool>();
  p.why = j.at("why").get<std::string>();
  p.k_tile = unsigned_at<uint32_t>(j, "k_tile");
  p.k_tiles = unsigned_at<uint32_t>(j, "k_tiles");
  p.rows_per_piece = unsigned_at<uint32_t>(j, "rows_per_piece");
  p.pieces = unsigned_at<uint32_t>(j, "pieces");
  p.cols_per_piece = unsigned_at<uint32_t>(j, "cols_per_piece");
  p.rows_per_compute_stage = unsigned_at<uint32_t>(j, "rows_per_compute_stage");
  p.rows_per_store_batch = unsigned_at<uint32_t>(j, "rows_per_store_batch");
  p.weight_buffers = unsigned_at<uint32_t>(j, "weight_buffers");
  p.params_per_tile = j.at("params_per_tile").get<bool>();
  p.input_channel_tiles = j.at("input_channel_tiles").get<bool>();
  p.loop_order = loop_order_of(j.at("loop_order"));
  p.channels_per_part = unsigned_at<uint32_t>(j, "channels_per_part");
  return p;
}

// The estimate's partition and mappings: what compile_network reads of it.
json estimate_json(const NetworkEstimate& e) {
  const CachePartition& c = e.partition;
  json mappings = json::object();
  for (const auto& [signature, plan] : e.mappings) mappings[signature] = plan_json(plan);
  return {{"partition",
           {{"weight_region_bytes", c.weight_region_bytes},
            {"params_region_bytes", c.params_region_bytes},
            {"params_per_tile", c.params_per_tile},
            {"half_bytes", c.half_bytes},
            {"vector_region_bytes", c.vector_region_bytes},
            {"units", c.units}}},
          {"mappings", std::move(mappings)}};
}

NetworkEstimate estimate_of(const json& j) {
  NetworkEstimate e;
  const json& c = j.at("partition");
  e.partition.weight_region_bytes = unsigned_at<uint64_t>(c, "weight_region_bytes");
  e.partition.params_region_bytes = unsigned_at<uint64_t>(c, "params_region_bytes");
  e.partition.params_per_tile = c.at("params_per_tile").get<bool>();
  e.partition.half_bytes = unsigned_at<uint64_t>(c, "half_bytes");
  e.partition.vector_region_bytes = unsigned_at<uint64_t>(c, "vector_region_bytes");
  e.partition.units = unsigned_at<uint32_t>(c, "units");
  for (const auto& [signature, plan] : j.at("mappings").items())
    e.mappings.emplace(signature, plan_of(plan));
  return e;
}

// Named by the start of the key's digest.
std::string choice_entry_path(const std::string& dir, const std::string& key) {
  const size_t digest = key.rfind(' ') + 1;
  return dir + "/" + key.substr(digest, 16) + ".trials.json";
}

}  // namespace

std::string trial_choice_key(const NetworkConfig& network, const HardwareConfig& hw) {
  // The key line: the SHA-256 of the hardware as JSON, then the network's text after `kind`.
  const auto key = [&hw](std::string_view kind, std::string_view net) {
    return "npusim compile trials " + std::to_string(kChoiceFormat) + " " + NPUSIM_VERSION +
           " sha256 " + sha256_hex({to_json(hw).dump(), kind, net});
  };
  // An ONNX model's graph is written as its file's name alone: the network is the bytes of the
  // model and of its --input files, digested whole (docs/compile-trials.md).
  if (network.graph_json.rfind("{\"onnx\":", 0) == 0) {
    if (network.source_files.empty()) return "";
    const std::string files = files_digest_hex(network.source_files);
    return files.empty() ? "" : key("\nonnx ", files);
  }
  if (network.is_graph() && network.graph_json.empty()) return "";
  for (const LayerConfig& l : network.layers)
    if (l.weight_bytes() > 0 && seeded_weights_key(l).empty()) return "";
  // A decoder's graph runs to tens of MB: the key holds its digest (with the hardware's).
  const std::string layers = network.is_graph() ? "" : to_json(network).dump();
  return key("\n", network.is_graph() ? std::string_view(network.graph_json) : layers);
}

std::string trial_choice_text(const CompileTrials& choice, const NetworkEstimate& estimate) {
  json trials = json::array();
  for (const CompileTrial& t : choice.trials) trials.push_back(trial_json(t));
  const json j = {{"chosen", trial_json(choice.chosen)},
                  {"estimated", trial_json(choice.estimated)},
                  {"trials", std::move(trials)},
                  {"chosen_estimate", estimate_json(estimate)}};
  return j.dump();
}

bool parse_trial_choice(const std::string& text, CompileTrials& choice, NetworkEstimate& estimate) {
  try {
    const json j = json::parse(text);
    CompileTrials c;
    c.chosen = trial_of(j.at("chosen"));
    c.estimated = trial_of(j.at("estimated"));
    for (const json& t : j.at("trials")) c.trials.push_back(trial_of(t));
    NetworkEstimate e = estimate_of(j.at("chosen_estimate"));
    choice = std::move(c);
    estimate = std::move(e);
    return true;
  } catch (const std::exception&) {  // a torn, edited or foreign entry: worked out again
    return false;
  }
}

bool read_trial_choice(const std::string& dir, const std::string& key, CompileTrials& choice,
                       NetworkEstimate& estimate) {
  if (dir.empty() || key.empty()) return false;
  const std::optional<std::string> value = read_keyed_file(choice_entry_path(dir, key), key);
  return value && parse_trial_choice(*value, choice, estimate);
}

void write_trial_choice(const std::string& dir, const std::string& key, const CompileTrials& choice,
                        const NetworkEstimate& estimate) {
  if (dir.empty() || key.empty()) return;
  // One that cannot be written costs the trials again next time.
  write_keyed_file(choice_entry_path(dir, key), key, trial_choice_text(choice, estimate));
}

}  // namespace npusim
