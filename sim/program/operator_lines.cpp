#include "sim/program/operator_lines.h"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/program/line_fields.h"

namespace npusim {
namespace {

using nlohmann::json;

// clang-format off
const std::vector<std::string> kOperatorKeys = {
    "layer", "name", "operator", "N", "C", "H", "W", "K", "R", "S", "out_h", "out_w",
    "input_from_layer", "input_address", "more_input_addresses", "output_address",
    "weights_address", "params_address", "lowered_address", "k_tile", "rows_per_piece",
    "rows_per_compute_stage", "half_bytes", "weight_region_bytes", "params_region_bytes",
    "vector_region_bytes", "units", "weight_buffers", "weight_format", "kernel_nonzeros",
    "kv_on_chip", "input_channel_tiles", "cols_per_piece", "loop_order", "channels_per_part",
    "resident_offset", "weights_resident_offset"};
// clang-format on

// The shape keys, written for readers; they must equal the workload's.
const std::pair<const char*, uint32_t LayerDescriptor::*> kShapeKeys[] = {
    {"N", &LayerDescriptor::N},        {"C", &LayerDescriptor::C},
    {"H", &LayerDescriptor::H},        {"W", &LayerDescriptor::W},
    {"K", &LayerDescriptor::K},        {"R", &LayerDescriptor::R},
    {"S", &LayerDescriptor::S},        {"out_h", &LayerDescriptor::out_h},
    {"out_w", &LayerDescriptor::out_w}};

}  // namespace

void write_operator_line(std::ostream& out, size_t index, const LayerDescriptor& d) {
  // Insertion order, so a reader sees the name and operator first.
  nlohmann::ordered_json line = {{"layer", index}, {"name", d.name}, {"operator", to_string(d.op)}};
  for (const auto& [key, member] : kShapeKeys) line[key] = d.*member;
  line["input_from_layer"] = d.input_from_layer;
  line["input_address"] = d.input_address;
  if (!d.more_inputs.empty()) {
    nlohmann::ordered_json more = nlohmann::ordered_json::array();
    for (const auto& m : d.more_inputs) more.push_back(m.address);
    line["more_input_addresses"] = more;
  }
  line["output_address"] = d.output_address;
  if (runs_on_array(d.op)) {
    line["weights_address"] = d.weights_address;
    line["params_address"] = d.params_address;
    if (d.access != LoadAccess::Im2col) line["lowered_address"] = d.lowered_address;
    line["k_tile"] = d.k_tile;
    line["rows_per_piece"] = d.rows_per_piece;
    line["rows_per_compute_stage"] = d.rows_per_compute_stage;
  } else if (has_norm_params(d.op)) {
    line["params_address"] = d.params_address;  // gamma and beta
  }
  line["half_bytes"] = d.half_bytes;
  line["weight_region_bytes"] = d.weight_region_bytes;
  line["params_region_bytes"] = d.params_region_bytes;
  line["vector_region_bytes"] = d.vector_region_bytes;
  if (d.units != 0) line["units"] = d.units;
  if (d.output_on_chip) line["kv_on_chip"] = true;
  if (d.output_resident) line["resident_offset"] = d.resident_offset;
  if (d.weights_resident) line["weights_resident_offset"] = d.weights_offset;
  if (d.weight_buffers != 1) line["weight_buffers"] = d.weight_buffers;
  if (d.cols_per_piece != 0) line["cols_per_piece"] = d.cols_per_piece;
  if (d.channels_per_part != 0) line["channels_per_part"] = d.channels_per_part;
  if (d.input_channel_tiles) line["input_channel_tiles"] = true;
  // Kernel parts say their order too: a feature-stationary header's default is not theirs.
  if (d.loop_order == LoopOrder::FeatureStationary || d.channels_per_part != 0)
    line["loop_order"] = to_string(d.loop_order);
  if (runs_on_array(d.op)) {
    line["weight_format"] = to_string(d.weight_format);
    if (!d.kernel_nonzeros.empty()) line["kernel_nonzeros"] = d.kernel_nonzeros.values();
  }
  out << line.dump() << '\n';
}

LayerDescriptor read_operator_line(JsonReader& r, LayerDescriptor d,
                                   const OperatorLineLimits& limits, uint64_t& tensors_end) {
  reject_unknown_keys(r, kOperatorKeys);
  const std::string workload = "as the header's workload says for operator \"" + d.name + "\"";
  const std::string name = r.require_string("name");
  if (name != d.name)
    r.fail("name", json(d.name).dump() + " (" + workload + ")", json(name).dump());
  const std::string op = r.require_string("operator");
  if (op != to_string(d.op))
    r.fail("operator", json(to_string(d.op)).dump() + " (" + workload + ")", json(op).dump());
  for (const auto& [key, member] : kShapeKeys) field_equals(r, key, d.*member, workload);
  const json* from = r.find("input_from_layer");
  if (from == nullptr || !from->is_number_integer() || from->get<int64_t>() != d.input_from_layer)
    r.fail("input_from_layer", std::to_string(d.input_from_layer) + " (" + workload + ")",
           from ? describe_json(*from) : kMissing);
  const bool array = runs_on_array(d.op);

  // The kernel stream first: it sizes the weights.
  if (array) {
    d.weight_format = r.get_choice("weight_format", {"raw", "entries"}, 0) == 0
                          ? WeightFormat::Raw
                          : WeightFormat::Entries;
    if (const json* nz = r.find("kernel_nonzeros")) {
      const std::string pointer = r.pointer_to("kernel_nonzeros");
      if (!nz->is_array() || nz->size() != d.K)
        r.fail("kernel_nonzeros", "array of K = " + std::to_string(d.K) + " counts",
               describe_json(*nz));
      std::vector<uint32_t> counts;
      for (size_t k = 0; k < nz->size(); ++k)
        counts.push_back(static_cast<uint32_t>(
            check_uint((*nz)[k], r.file(), json_pointer_append(pointer, std::to_string(k)), 0,
                       d.kernel_coefficients(), "at most the kernel's coefficients")));
      d.kernel_nonzeros = std::move(counts);
    }
  }

  // Where the tensors lie: each must end within the DRAM image.
  const auto address = [&](const char* key, uint64_t bytes) {
    return tensor_address(r, key, bytes, limits.dram_bytes, tensors_end);
  };
  const uint64_t pixels = uint64_t(d.N) * d.H * d.W;
  d.input_address = address("input_address", pixels * d.C);
  const json* more = r.find("more_input_addresses");
  if (d.more_inputs.empty() && more != nullptr)
    r.fail("more_input_addresses", "no \"more_input_addresses\" (the operator has one input)",
           describe_json(*more));
  if (!d.more_inputs.empty()) {
    const std::string expected = "array of " + std::to_string(d.more_inputs.size()) +
                                 " addresses (the inputs after the first)";
    if (more == nullptr) r.fail("more_input_addresses", expected, kMissing);
    if (!more->is_array() || more->size() != d.more_inputs.size())
      r.fail("more_input_addresses", expected, describe_json(*more));
    const std::string pointer = r.pointer_to("more_input_addresses");
    for (size_t i = 0; i < d.more_inputs.size(); ++i) {
      d.more_inputs[i].address = tensor_address_at(
          (*more)[i], r.file(), json_pointer_append(pointer, std::to_string(i)),
          uint64_t(d.more_inputs[i].rows) * d.more_inputs[i].C, limits.dram_bytes, tensors_end);
    }
  }
  d.output_address = address("output_address", d.output_bytes());
  d.output_on_chip = r.get_bool("kv_on_chip", false);
  d.output_resident = r.has("resident_offset");
  if (d.output_resident)
    d.resident_offset = r.get_uint("resident_offset", 0, limits.cache_bytes, 0);
  d.input_channel_tiles = r.get_bool("input_channel_tiles", false);
  if (array) {
    d.weights_address = address("weights_address", d.weight_block_bytes());
    d.params_address = address("params_address", d.params_bytes());
    d.weights_resident = r.has("weights_resident_offset");
    if (d.weights_resident)
      d.weights_offset = r.get_uint("weights_resident_offset", 0, limits.cache_bytes, 0);
    if (d.access != LoadAccess::Im2col)
      d.lowered_address = address("lowered_address", uint64_t(d.N) * d.lowered_bytes_per_image());
    else if (r.has("lowered_address"))
      r.fail("lowered_address", "no \"lowered_address\" (the operator loads im2col on the fly)",
             describe_json(*r.find("lowered_address")));
    d.k_tile = uint32_t(field(r, "k_tile", 1, d.K, "at most K"));
    d.rows_per_piece = uint32_t(field(r, "rows_per_piece", 1, d.out_h, "at most out_h"));
    d.rows_per_compute_stage =
        uint32_t(field(r, "rows_per_compute_stage", 1, d.rows_per_piece, "at most rows_per_piece"));
  } else {
    const bool params = has_norm_params(d.op);  // a norm's gamma and beta
    if (params) d.params_address = address("params_address", d.params_bytes());
    for (const char* key :
         {"weights_address", "params_address", "lowered_address", "k_tile", "rows_per_piece",
          "rows_per_compute_stage", "weight_format", "kernel_nonzeros", "weights_resident_offset"})
      if (r.has(key) && !(params && std::string(key) == "params_address"))
        r.fail(key,
               std::string("no \"") + key + "\" (a " + to_string(d.op) +
                   " operator runs on the vector unit)",
               describe_json(*r.find(key)));
  }

  // The cache partition.
  const std::string cache = "at most the cache size, " + std::to_string(limits.cache_bytes);
  d.half_bytes = field(r, "half_bytes", 0, limits.cache_bytes, cache);
  d.weight_region_bytes = field(r, "weight_region_bytes", 0, limits.cache_bytes, cache);
  d.params_region_bytes = field(r, "params_region_bytes", 0, limits.cache_bytes, cache);
  d.vector_region_bytes = field(r, "vector_region_bytes", 0, limits.cache_bytes, cache);
  if (r.has("units"))
    d.units = uint32_t(field(r, "units", 1, limits.units, "at most compute.units (absent: all)"));
  if (r.has("weight_buffers"))
    d.weight_buffers = uint32_t(field(r, "weight_buffers", 1, 2, "1 or 2 (absent: 1)"));
  if (r.has("cols_per_piece"))
    d.cols_per_piece =
        uint32_t(field(r, "cols_per_piece", 1, d.out_w, "at most out_w (absent: whole rows)"));
  if (r.has("channels_per_part"))
    d.channels_per_part =
        uint32_t(field(r, "channels_per_part", 1, d.C, "at most C (absent: whole kernels)"));
  // Absent: describe_operator's (the header's feature_stationary, else weight_stationary).
  d.loop_order = read_loop_order(r, d.loop_order);
  if (d.loop_order == LoopOrder::FeatureStationary && d.input_channel_tiles)
    r.fail("loop_order",
           "\"weight_stationary\" with input_channel_tiles (a feature-stationary piece serves "
           "every k-tile, so it holds every input channel)",
           "\"feature_stationary\"");
  if (d.loop_order == LoopOrder::FeatureStationary && d.op == OpKind::BatchMatMul)
    r.fail("loop_order",
           "\"weight_stationary\" on batch_matmul (each image loads its own keys or values "
           "tile by tile)",
           "\"feature_stationary\"");
  return d;
}

}  // namespace npusim
