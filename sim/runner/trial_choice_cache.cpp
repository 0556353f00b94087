#include "sim/runner/trial_choice_cache.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "sim/io/keyed_file.h"
#include "sim/io/sha256.h"

namespace npusim {
namespace {

using nlohmann::json;

// Raise when the trials' rules or what an entry holds change meaning: entries of another
// format are never read.
constexpr int kChoiceFormat = 2;

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
  t.units = j.at("units").get<uint32_t>();
  t.cache_kib = j.at("cache_kib").get<uint32_t>();
  t.array_rows = j.at("array_rows").get<uint32_t>();
  t.array_cols = j.at("array_cols").get<uint32_t>();
  t.weight_stationary = j.at("weight_stationary").get<bool>();
  t.residency_off = j.at("residency_off").get<bool>();
  t.ok = j.at("ok").get<bool>();
  t.cycles = j.at("cycles").get<uint64_t>();
  t.dram_bytes = j.at("dram_bytes").get<uint64_t>();
  t.estimate = j.at("estimate").get<uint64_t>();
  t.failure = j.at("failure").get<std::string>();
  return t;
}

LoopOrder loop_order_of(const json& j) {
  const int v = j.get<int>();
  if (v != int(LoopOrder::WeightStationary) && v != int(LoopOrder::FeatureStationary))
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
  p.k_tile = j.at("k_tile").get<uint32_t>();
  p.k_tiles = j.at("k_tiles").get<uint32_t>();
  p.rows_per_piece = j.at("rows_per_piece").get<uint32_t>();
  p.pieces = j.at("pieces").get<uint32_t>();
  p.cols_per_piece = j.at("cols_per_piece").get<uint32_t>();
  p.rows_per_compute_stage = j.at("rows_per_compute_stage").get<uint32_t>();
  p.rows_per_store_batch = j.at("rows_per_store_batch").get<uint32_t>();
  p.weight_buffers = j.at("weight_buffers").get<uint32_t>();
  p.params_per_tile = j.at("params_per_tile").get<bool>();
  p.input_channel_tiles = j.at("input_channel_tiles").get<bool>();
  p.loop_order = loop_order_of(j.at("loop_order"));
  p.channels_per_part = j.at("channels_per_part").get<uint32_t>();
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
  e.partition.weight_region_bytes = c.at("weight_region_bytes").get<uint64_t>();
  e.partition.params_region_bytes = c.at("params_region_bytes").get<uint64_t>();
  e.partition.params_per_tile = c.at("params_per_tile").get<bool>();
  e.partition.half_bytes = c.at("half_bytes").get<uint64_t>();
  e.partition.vector_region_bytes = c.at("vector_region_bytes").get<uint64_t>();
  e.partition.units = c.at("units").get<uint32_t>();
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
  // An ONNX model's graph is written as its file's name alone, and its weights are its own.
  if (network.graph_json.rfind("{\"onnx\":", 0) == 0) return "";
  if (network.is_graph() && network.graph_json.empty()) return "";
  for (const LayerConfig& l : network.layers)
    if (l.weight_bytes() > 0 && seeded_weights_key(l).empty()) return "";
  // A decoder's graph runs to tens of MB: the key holds its digest (with the hardware's).
  const std::string hardware = to_json(hw).dump();
  const std::string layers = network.is_graph() ? "" : to_json(network).dump();
  const std::string_view net = network.is_graph() ? std::string_view(network.graph_json) : layers;
  return "npusim compile trials " + std::to_string(kChoiceFormat) + " " + NPUSIM_VERSION +
         " sha256 " + sha256_hex({hardware, "\n", net});
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
