// Program files: JSON lines, one object per line (docs/traces.md has examples).
//
//   header (first line)  {"npusim_program": 3, "workload": {...}, "hardware": {...},
//                         "dram_bytes": N}   workload/hardware as their to_json() writes them
//   one line per layer   {"layer": i, "name", "N", "C", "H", "W", "K", "R", "S", "stride",
//   (numbered 0, 1, ..)   "padding", "out_h", "out_w", "relu", "shift", "input_address",
//                         "weights_address", "params_address", "output_address", "k_tile",
//                         "rows_per_piece", "rows_per_compute_stage", "half_bytes",
//                         "weight_region_bytes", "params_region_bytes", "input_from_layer"}
//                        binary layers add "dtype": "binary", "bits", "pad_mode"; a layer
//                        whose store packs its output adds "output_bits" (docs/binary.md);
//                        int8 tensors stored NCHW add "input_layout" / "output_layout":
//                        "nchw" (docs/address-generator.md); a program whose
//                        pieces use fewer than compute.units units adds "units"; a layer
//                        whose weight region holds two tiles adds "weight_buffers": 2;
//                        a layer of column pieces adds "cols_per_piece"; a
//                        feature-stationary layer adds "loop_order":
//                        "feature_stationary" (absent: the header's
//                        compiler.loop_order when feature_stationary, else
//                        weight_stationary); a layer of kernel parts adds
//                        "channels_per_part"; an output the memory plan keeps in
//                        the cache adds "resident_offset", a layer whose weights it
//                        keeps there "weights_resident_offset" (docs/memory-plan.md)
//   one line per         {"id": 3, "op": "compute", "layer": 0, "unit": 0, "half": 0, "n": 0,
//   instruction (ids      "k": [0, 32], "rows": [0, 16], "stages": 4,
//   0, 1, .. in order)    "deps": [{"on": 1, "kind": "data"}, {"on": 2, "kind": "buffer_space"}]}
//   agu_init lines also carry "registers": {"input_w": .., ...}, the address
//   generator's registers as the layer line implies them (agu_registers); on
//   reading they are optional and, when present, must match the layer line.
//
// A column piece's load, compute and store add "cols": [begin, end], its
// output columns (docs/tiling.md#column-pieces); absent: whole rows. A
// kernel part's weight load, input load and compute add "channels": [begin,
// end], its input channels (docs/tiling.md#kernel-parts); absent: all.
// "k" and "rows" are half-open ranges [begin, end); "rows" is left out for
// load_params / load_weights / agu_init (written only when not [0, 0]). "op" is a
// to_string(Opcode), "kind" a to_string(DependencyKind). When reading, unit,
// half and n default to 0, stages to 1, deps to [] and load_params' k to
// [0, K]; every other key is required, unknown keys are rejected. Blank lines
// and lines starting with '#' are comments. Every error is a ConfigError whose
// file is "<path>:<line>" and whose pointer is inside that line's JSON.
#include "sim/program/trace_io.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/load_workload.h"
#include "sim/graph/workload.h"
#include "sim/program/line_fields.h"
#include "sim/program/operator_lines.h"

namespace npusim {

namespace {

using nlohmann::json;

constexpr uint64_t kMaxDim = 65536;
constexpr uint64_t kMaxShift = 31;
constexpr uint64_t kMaxDramBytes = uint64_t(64) << 30;  // no 1 TB DRAM image from a typo
constexpr uint64_t kU32 = std::numeric_limits<uint32_t>::max();

// clang-format off
const std::vector<std::string> kHeaderKeys = {"npusim_program", "workload", "hardware", "dram_bytes",
                                               "graph_input_addresses"};
const std::vector<std::string> kLayerKeys = {
    "layer", "name", "N", "C", "H", "W", "K", "R", "S", "stride", "padding", "out_h", "out_w",
    "relu", "shift", "input_address", "weights_address", "params_address", "output_address",
    "k_tile", "rows_per_piece", "rows_per_compute_stage", "half_bytes", "weight_region_bytes",
    "params_region_bytes", "input_from_layer", "weight_format", "kernel_nonzeros", "access",
    "lowered_address", "dtype", "bits", "pad_mode", "output_bits", "input_layout",
    "output_layout", "units", "weight_buffers", "cols_per_piece", "loop_order", "channels_per_part",
    "resident_offset", "weights_resident_offset"};
const std::vector<std::string> kInstructionKeys = {
    "id",   "op",   "layer",    "unit", "half",     "n",      "k",
    "rows", "cols", "channels", "stages", "deps", "registers"};
// The layer shape, as both a LayerDescriptor and the workload's LayerConfig spell it.
using DescriptorDim = uint32_t LayerDescriptor::*;
using ConfigDim = uint32_t LayerConfig::*;
const std::tuple<const char*, DescriptorDim, ConfigDim, uint64_t> kShape[] = {
    {"N", &LayerDescriptor::N, &LayerConfig::N, 1}, {"C", &LayerDescriptor::C, &LayerConfig::C, 1},
    {"H", &LayerDescriptor::H, &LayerConfig::H, 1}, {"W", &LayerDescriptor::W, &LayerConfig::W, 1},
    {"K", &LayerDescriptor::K, &LayerConfig::K, 1}, {"R", &LayerDescriptor::R, &LayerConfig::R, 1},
    {"S", &LayerDescriptor::S, &LayerConfig::S, 1},
    {"stride", &LayerDescriptor::stride, &LayerConfig::stride, 1},
    {"padding", &LayerDescriptor::padding, &LayerConfig::padding, 0}};
// clang-format on

// Every name of an enum whose values are 0 .. count-1, as to_string spells them.
template <class Enum>
std::vector<std::string> names_of(int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.push_back(to_string(static_cast<Enum>(i)));
  return names;
}
const std::vector<std::string> kOpcodes = names_of<Opcode>(7);
const std::vector<std::string> kDependencyKinds = names_of<DependencyKind>(3);

std::string quoted(const std::string& s) { return json(s).dump(); }

bool has_rows(Opcode op) {
  return op == Opcode::LoadInput || op == Opcode::Compute || op == Opcode::Store ||
         op == Opcode::Vector;
}

// ---- reading helpers ------------------------------------------------------

struct Line {
  size_t number = 0;
  json value;
  std::string parse_error;  // non-empty: the line is not valid JSON
};

bool is_instruction_line(const json& v) {
  return v.is_object() && (v.contains("id") || v.contains("op"));
}

class ProgramReader {
 public:
  ProgramReader(std::string path, WorkloadResolver resolve)
      : path_(std::move(path)), resolve_(std::move(resolve)) {}

  ProgramFile read() {
    load_lines();
    if (lines_.empty())
      throw ConfigError(path_, "", "a header line {\"npusim_program\": 1, ...}",
                        "a file without JSON lines");
    for (size_t i = 0; i < lines_.size(); ++i) {
      const Line& line = lines_[i];
      const std::string file = where(line);
      if (!line.parse_error.empty())
        throw ConfigError(file, "", "one JSON object on one line", line.parse_error);
      const bool header = line.value.is_object() && line.value.contains("npusim_program");
      if (i == 0 && !header)
        throw ConfigError(file, "", "the header line {\"npusim_program\": 1, ...} first",
                          describe_json(line.value));
      if (i == 0) {
        read_header(line);
      } else if (header) {
        throw ConfigError(file, "", "a layer or an instruction line", "a second header line");
      } else if (is_instruction_line(line.value)) {
        read_instruction(line);
      } else if (!out_.program.instructions.empty()) {
        throw ConfigError(file, "", "an instruction line (\"id\", \"op\", ...)",
                          "a layer line after the instructions: layer lines come first");
      } else {
        read_layer(line);
      }
    }
    const size_t layers = out_.program.layers.size();
    if (network_.layers.size() != layers)
      throw ConfigError(where(lines_[0]), "/workload/layers",
                        std::to_string(layers) + " layers (one per layer line)",
                        std::to_string(network_.layers.size()) + " layers");
    // The image is allocated whole, so no more of it than the tensors reach
    // (the compiler's own dram_bytes: the last tensor's end, 64-byte aligned).
    const uint64_t needed = (tensors_end_ + 63) / 64 * 64;
    if (out_.program.dram_bytes > needed)
      throw ConfigError(where(lines_[0]), "/dram_bytes",
                        "at most " + std::to_string(needed) +
                            " (the end of the last tensor the layer lines place, rounded up to "
                            "64 bytes)",
                        std::to_string(out_.program.dram_bytes));
    try {
      validate_program(out_.program);
    } catch (const std::runtime_error& e) {
      throw ConfigError(path_, "", "a valid program", e.what());
    }
    out_.network = std::move(network_);
    return std::move(out_);
  }

 private:
  std::string where(const Line& line) const { return path_ + ":" + std::to_string(line.number); }

  void load_lines() {
    // Rejects a directory, a missing file and an oversized one with a clear error.
    std::istringstream in(read_input_file(path_, "a readable program file (JSON lines)"));
    std::string text;
    for (size_t number = 1; std::getline(in, text); ++number) {
      if (!text.empty() && text.back() == '\r') text.pop_back();
      const auto first = text.find_first_not_of(" \t");
      if (first == std::string::npos || text[first] == '#') continue;
      Line line;
      line.number = number;
      try {
        // Also rejects a duplicate key and nesting deeper than kMaxJsonDepth.
        line.value = parse_json_text(text, where(line));
      } catch (const ConfigError& e) {
        if (!e.pointer().empty() || e.expected() != "valid JSON") throw;
        std::string message = e.found();
        const auto at_line = message.find("at line 1, ");  // the line is known; keep the column
        if (at_line != std::string::npos) message.erase(at_line + 3, 8);
        line.parse_error = message;
      }
      if (is_instruction_line(line.value)) ++instruction_lines_;
      lines_.push_back(std::move(line));
    }
  }

  void read_header(const Line& line) {
    const std::string file = where(line);
    JsonReader r(line.value, file);
    reject_unknown_keys(r, kHeaderKeys);
    field_equals(r, "npusim_program", kProgramFormatVersion,
                 "the program format version; version 1 files predate agu_init and version 2 "
                 "the AGU \"layouts\" register: recompile them with npusim compile");
    for (const char* key : {"workload", "hardware"}) {
      const json* v = r.find(key);
      if (!v) r.fail(key, "object", kMissing);
      try {
        if (std::string(key) == "workload") {
          network_ = resolve_ ? resolve_(*v, file) : parse_workload(*v, file);
          out_.workload = *v;
        } else {
          hw_ = parse_hardware_config(*v, file);
          out_.hardware = *v;
        }
      } catch (const ConfigError& e) {
        throw ConfigError(e.file(), std::string("/") + key + e.pointer(), e.expected(), e.found(),
                          e.hint());
      }
    }
    out_.program.dram_bytes = field(r, "dram_bytes", 0, kMaxDramBytes);
    read_graph_input_addresses(r);
  }

  // A graph's input tensors (NHWC int8), one address each.
  void read_graph_input_addresses(JsonReader& r) {
    const json* v = r.find("graph_input_addresses");
    const size_t count = network_.graph_inputs.size();
    if (count == 0) {
      if (v != nullptr)
        r.fail("graph_input_addresses",
               "no \"graph_input_addresses\" (the workload is not a graph)", describe_json(*v));
      return;
    }
    const std::string expected =
        "array of " + std::to_string(count) + " addresses (one per graph input)";
    if (v == nullptr) r.fail("graph_input_addresses", expected, kMissing);
    if (!v->is_array() || v->size() != count)
      r.fail("graph_input_addresses", expected, describe_json(*v));
    for (size_t i = 0; i < count; ++i) {
      const GraphInput& g = network_.graph_inputs[i];
      out_.program.graph_input_addresses.push_back(tensor_address_at(
          (*v)[i], r.file(),
          json_pointer_append(r.pointer_to("graph_input_addresses"), std::to_string(i)),
          uint64_t(g.N) * g.H * g.W * g.C, out_.program.dram_bytes, tensors_end_,
          "input \"" + g.name + "\": "));
    }
  }

  void read_layer(const Line& line) {
    JsonReader r(line.value, where(line));
    const size_t i = out_.program.layers.size();
    out_.layer_lines.push_back(where(line));
    if (network_.is_graph()) {
      field_equals(r, "layer", i, "layer lines are numbered 0, 1, 2, ... in order");
      if (i >= network_.layers.size())
        r.fail("layer",
               "at most " + std::to_string(network_.layers.size()) +
                   " layer lines (one per operator of the header's workload)",
               "line for operator " + std::to_string(i));
      const OperatorLineLimits limits{out_.program.dram_bytes, hw_.cache_bytes(),
                                      hw_.compute.units};
      out_.program.layers.push_back(
          read_operator_line(r, describe_operator(network_, i, hw_), limits, tensors_end_));
      return;
    }
    reject_unknown_keys(r, kLayerKeys);
    field_equals(r, "layer", i, "layer lines are numbered 0, 1, 2, ... in order");
    LayerDescriptor d;
    d.name = r.require_string("name");
    const auto dim = [&](const char* key, uint64_t min, uint64_t max, const std::string& why) {
      return static_cast<uint32_t>(field(r, key, min, max, why));
    };
    for (const auto& [key, member, unused, min] : kShape)
      d.*member = dim(key, min, kMaxDim - 1 + min, "");
    // Check the kernel fits the padded input before deriving the output size.
    if (d.R > d.H + 2 * d.padding) dim("R", 1, d.H + 2 * d.padding, "at most H + 2*padding");
    if (d.S > d.W + 2 * d.padding) dim("S", 1, d.W + 2 * d.padding, "at most W + 2*padding");
    d.out_h = (d.H + 2 * d.padding - d.R) / d.stride + 1;
    d.out_w = (d.W + 2 * d.padding - d.S) / d.stride + 1;
    field_equals(r, "out_h", d.out_h, "(H + 2*padding - R) / stride + 1");
    field_equals(r, "out_w", d.out_w, "(W + 2*padding - S) / stride + 1");
    if (!r.has("relu")) r.fail("relu", "boolean (true or false)", kMissing);
    d.relu = r.get_bool("relu", true);
    d.shift = dim("shift", 0, kMaxShift, "");
    // Binary layers (docs/binary.md): optional (absent: int8, int8 output).
    d.binary = r.get_choice("dtype", {"int8", "binary"}, 0) == 1;
    if (d.binary) {
      d.bits = dim("bits", 32, 64, "32 or 64");
      if (d.bits != 32) d.bits = dim("bits", 64, 64, "32 or 64");
      d.pad_mode = static_cast<BinaryPadMode>(
          r.get_choice("pad_mode", {"skip", "plus_one", "minus_one"}, 0));
    }
    if (r.has("output_bits")) {
      d.output_bits = dim("output_bits", 32, 64, "32 or 64 (absent: int8 NHWC)");
      if (d.output_bits != 32) d.output_bits = dim("output_bits", 64, 64, "32 or 64");
    }
    // Int8 tensor layouts (docs/address-generator.md#layouts): optional, nhwc when absent.
    d.input_layout = static_cast<TensorLayout>(r.get_choice("input_layout", {"nhwc", "nchw"}, 0));
    d.output_layout = static_cast<TensorLayout>(r.get_choice("output_layout", {"nhwc", "nchw"}, 0));
    if (d.binary && r.has("input_layout"))
      r.fail("input_layout",
             "no \"input_layout\" on a binary layer (its input is packed N(C/b)HWb)",
             describe_json(*r.find("input_layout")));
    if (d.output_bits != 0 && r.has("output_layout"))
      r.fail("output_layout", "no \"output_layout\" with \"output_bits\" (the output is packed)",
             describe_json(*r.find("output_layout")));
    const auto address = [&](const char* key, uint64_t bytes) {
      return tensor_address(r, key, bytes, out_.program.dram_bytes, tensors_end_);
    };
    d.input_address = address("input_address", uint64_t(d.N) * d.H * d.W * d.pixel_bytes());
    d.weights_address = address("weights_address", uint64_t(d.K) * d.R * d.S * d.pixel_bytes());
    d.params_address = address("params_address", d.params_bytes());
    d.output_address = address("output_address", d.output_bytes());
    // Seed 001 lowering: optional (absent: im2col on the fly, nothing lowered).
    const LoadAccess accesses[] = {LoadAccess::Im2col, LoadAccess::HostIm2col, LoadAccess::Mec};
    d.access = accesses[r.get_choice("access", {"im2col", "host_im2col", "mec"}, 0)];
    if (d.access != LoadAccess::Im2col)
      d.lowered_address = address("lowered_address", uint64_t(d.N) * d.lowered_bytes_per_image());
    d.k_tile = dim("k_tile", 1, d.K, "at most K");
    d.rows_per_piece = dim("rows_per_piece", 1, d.out_h, "at most out_h");
    d.rows_per_compute_stage =
        dim("rows_per_compute_stage", 1, d.rows_per_piece, "at most rows_per_piece");
    const std::string cache = "at most the cache size, " + std::to_string(hw_.cache_bytes());
    d.half_bytes = field(r, "half_bytes", 0, hw_.cache_bytes(), cache);
    d.weight_region_bytes = field(r, "weight_region_bytes", 0, hw_.cache_bytes(), cache);
    d.params_region_bytes = field(r, "params_region_bytes", 0, hw_.cache_bytes(), cache);
    if (r.has("units"))
      d.units = dim("units", 1, hw_.compute.units, "at most compute.units (absent: all)");
    if (r.has("weight_buffers"))
      d.weight_buffers = dim("weight_buffers", 1, 2, "1 or 2 (absent: 1)");
    if (r.has("cols_per_piece"))
      d.cols_per_piece = dim("cols_per_piece", 1, d.out_w, "at most out_w (absent: whole rows)");
    if (r.has("channels_per_part"))
      d.channels_per_part = dim("channels_per_part", 1, d.C, "at most C (absent: whole kernels)");
    d.loop_order = read_loop_order(r, default_loop_order(hw_, d.op));
    if (r.has("resident_offset")) {
      d.output_resident = true;
      d.resident_offset = field(r, "resident_offset", 0, hw_.cache_bytes(), cache);
    }
    if (r.has("weights_resident_offset")) {
      d.weights_resident = true;
      d.weights_offset = field(r, "weights_resident_offset", 0, hw_.cache_bytes(), cache);
    }
    const json* from = r.find("input_from_layer");
    const std::string from_expected =
        i == 0 ? "-1 (the first layer reads a fresh input)"
               : "-1 or an earlier layer's index (0.." + std::to_string(i - 1) + ")";
    if (!from) r.fail("input_from_layer", from_expected, kMissing);
    const bool fresh = from->is_number_integer() && from->get<int64_t>() == -1;
    const bool earlier =
        from->is_number_integer() && from->get<int64_t>() >= 0 && from->get<uint64_t>() < i;
    if (!fresh && !earlier) r.fail("input_from_layer", from_expected, describe_json(*from));
    d.input_from_layer = static_cast<int32_t>(from->get<int64_t>());
    // Seed 002 kernel stream: optional (absent: raw, every coefficient counts).
    d.weight_format = r.get_choice("weight_format", {"raw", "entries"}, 0) == 0
                          ? WeightFormat::Raw
                          : WeightFormat::Entries;
    if (const json* nz = r.find("kernel_nonzeros")) {
      const std::string pointer = r.pointer_to("kernel_nonzeros");
      const uint64_t taps = uint64_t(d.R) * d.S * d.C;
      if (!nz->is_array() || nz->size() != d.K)
        r.fail("kernel_nonzeros", "array of K = " + std::to_string(d.K) + " counts",
               describe_json(*nz));
      std::vector<uint32_t> counts;
      for (size_t k = 0; k < nz->size(); ++k)
        counts.push_back(static_cast<uint32_t>(expect_uint(
            (*nz)[k], r.file(), json_pointer_append(pointer, std::to_string(k)), 0, taps)));
      d.kernel_nonzeros = std::move(counts);
    }
    check_against_workload(r, d, i);
    out_.program.layers.push_back(std::move(d));
  }

  // The header's workload is what a replay generates data from: each layer
  // line must describe the same layer.
  void check_against_workload(JsonReader& r, const LayerDescriptor& d, size_t i) const {
    if (i >= network_.layers.size()) return;  // read() reports the count
    const LayerConfig& w = network_.layers[i];
    const auto check_text = [&](const char* key, const std::string& have, const std::string& want) {
      if (have == want) return;
      r.fail(key,
             want + " (as in the header's workload, layer " + std::to_string(i) + " \"" + w.name +
                 "\")",
             have);
    };
    const auto check = [&](const char* key, uint64_t have, uint64_t want) {
      check_text(key, std::to_string(have), std::to_string(want));
    };
    for (const auto& [key, member, config, unused] : kShape) check(key, d.*member, w.*config);
    check("relu", d.relu, w.relu);
    check("shift", d.shift, w.requant.shift);
    check("dtype", d.binary ? 1 : 0, w.is_binary() ? 1 : 0);
    check("output_bits", d.output_bits, output_bits_of(network_, i));
    for (const char* key : {"input_layout", "output_layout"}) {
      const bool input = std::string(key) == "input_layout";
      const TensorLayout have = input ? d.input_layout : d.output_layout;
      const TensorLayout want = input ? w.input_layout : w.output_layout;
      if (have != want)
        check_text(key, r.has(key) ? to_string(have) : "nothing (absent: nhwc)", to_string(want));
    }
    if (d.binary) {
      check("bits", d.bits, w.binary.bits);
      check("pad_mode", uint64_t(d.pad_mode), uint64_t(w.binary.padding));
    }
  }

  void read_instruction(const Line& line) {
    JsonReader r(line.value, where(line));
    reject_unknown_keys(r, kInstructionKeys);
    Program& p = out_.program;
    Instruction in;
    const size_t index = p.instructions.size();
    field_equals(r, "id", index, "instruction ids are 0, 1, 2, ... in program order");
    in.id = static_cast<uint32_t>(index);
    in.op = static_cast<Opcode>(r.require_choice("op", kOpcodes));
    if (p.layers.empty())
      r.fail("layer", "a layer line before the first instruction line", "no layer lines");
    in.layer =
        static_cast<uint32_t>(field(r, "layer", 0, p.layers.size() - 1, "index of a layer line"));
    const LayerDescriptor& L = p.layers[in.layer];
    const std::string units = "hardware compute.units = " + std::to_string(hw_.compute.units);
    in.unit = static_cast<uint32_t>(field(r, "unit", 0, hw_.compute.units - 1, units, 0));
    in.half = static_cast<uint32_t>(field(r, "half", 0, 1, "ping-pong half", 0));
    in.batch = static_cast<uint32_t>(field(r, "n", 0, L.N - 1, "image index below N", 0));
    const bool params = in.op == Opcode::LoadParams || in.op == Opcode::AguInit;
    std::tie(in.k_begin, in.k_end) =
        range_field(r, "k", L.K, params, "output channels within K = " + std::to_string(L.K),
                    params ? std::optional(std::pair<uint32_t, uint32_t>(0, L.K)) : std::nullopt);
    const bool rows = has_rows(in.op);
    std::tie(in.out_row_begin, in.out_row_end) = range_field(
        r, "rows", L.out_h, !rows, "output rows within out_h = " + std::to_string(L.out_h),
        rows ? std::nullopt : std::optional(std::pair<uint32_t, uint32_t>(0, 0)));
    // A column piece's output columns (absent: whole rows).
    if (r.has("cols"))
      std::tie(in.out_col_begin, in.out_col_end) =
          range_field(r, "cols", L.out_w, false,
                      "output columns within out_w = " + std::to_string(L.out_w), std::nullopt);
    // A kernel part's input channels (absent: all).
    if (r.has("channels"))
      std::tie(in.channel_begin, in.channel_end) =
          range_field(r, "channels", L.C, false, "input channels within C = " + std::to_string(L.C),
                      std::nullopt);
    const uint64_t max_stages = rows ? in.row_count() : std::max<uint64_t>(in.k_count(), 1);
    in.stages = static_cast<uint32_t>(
        field(r, "stages", 1, max_stages,
              rows ? "at most one per output row" : "at most one per channel", 1));
    read_dependencies(r, in);
    if (r.find("registers")) check_registers(r, in, L);
    p.instructions.push_back(std::move(in));
  }

  // The registers are written for readers; they follow from the layer line.
  static void check_registers(JsonReader& r, const Instruction& in, const LayerDescriptor& L) {
    const json& v = *r.find("registers");
    if (in.op != Opcode::AguInit)
      r.fail("registers", "no \"registers\" (only agu_init lines carry them)", describe_json(v));
    const std::vector<AguRegister> want = agu_registers(L);
    if (!v.is_object())
      r.fail("registers", "object of the " + std::to_string(want.size()) + " AGU registers",
             describe_json(v));
    JsonReader regs(v, r.file(), r.pointer_to("registers"));
    std::vector<std::string> names;
    for (const AguRegister& reg : want) names.push_back(reg.name);
    reject_unknown_keys(regs, names);
    for (const AguRegister& reg : want)
      field_equals(regs, reg.name, reg.value,
                   "derived from layer line " + std::to_string(in.layer) +
                       "; edit the layer, not its registers");
  }

  void read_dependencies(JsonReader& r, Instruction& in) const {
    const json* deps = r.find("deps");
    if (!deps) return;
    if (!deps->is_array())
      r.fail("deps", "array of {\"on\": <id>, \"kind\": <kind>} objects", describe_json(*deps));
    const std::string self = "instruction #" + std::to_string(in.id);
    for (size_t j = 0; j < deps->size(); ++j) {
      JsonReader d((*deps)[j], r.file(),
                   json_pointer_append(r.pointer_to("deps"), std::to_string(j)));
      reject_unknown_keys(d, {"on", "kind"});
      const uint64_t on = field(d, "on", 0, kU32);
      const std::string expected =
          in.id == 0 ? std::string("no dependencies (") + self + " is the first)"
                     : "id of an earlier instruction (0.." + std::to_string(in.id - 1) + ")";
      if (on >= instruction_lines_) {
        d.fail("on", expected,
               "no instruction #" + std::to_string(on) + " (the file has " +
                   std::to_string(instruction_lines_) + " instructions)");
      } else if (on == in.id) {
        d.fail("on", expected, self + " depends on itself");
      } else if (on > in.id) {
        d.fail("on", expected,
               self + " depends on #" + std::to_string(on) +
                   ", which comes later: dependencies must point to earlier instructions");
      }
      const auto kind = static_cast<DependencyKind>(d.require_choice("kind", kDependencyKinds));
      in.deps.push_back({static_cast<uint32_t>(on), kind});
    }
  }

  std::string path_;
  WorkloadResolver resolve_;
  std::vector<Line> lines_;
  size_t instruction_lines_ = 0;
  uint64_t tensors_end_ = 0;  // the highest tensor end any layer line places
  ProgramFile out_;
  NetworkConfig network_;
  HardwareConfig hw_;
};

}  // namespace

void write_program_jsonl(std::ostream& out, const Program& program, const json& workload,
                         const json& hardware, bool graph) {
  out << "{\"npusim_program\": " << kProgramFormatVersion << ", \"workload\": " << workload.dump()
      << ", \"hardware\": " << hardware.dump() << ", \"dram_bytes\": " << program.dram_bytes;
  if (!program.graph_input_addresses.empty())
    out << ", \"graph_input_addresses\": " << json(program.graph_input_addresses).dump();
  out << "}\n";
  for (size_t i = 0; i < program.layers.size(); ++i) {
    const LayerDescriptor& d = program.layers[i];
    if (graph) {
      write_operator_line(out, i, d);
      continue;
    }
    out << "{\"layer\": " << i << ", \"name\": " << quoted(d.name) << ", \"N\": " << d.N
        << ", \"C\": " << d.C << ", \"H\": " << d.H << ", \"W\": " << d.W << ", \"K\": " << d.K
        << ", \"R\": " << d.R << ", \"S\": " << d.S << ", \"stride\": " << d.stride
        << ", \"padding\": " << d.padding << ", \"out_h\": " << d.out_h
        << ", \"out_w\": " << d.out_w << ", \"relu\": " << (d.relu ? "true" : "false")
        << ", \"shift\": " << d.shift << ", \"input_address\": " << d.input_address
        << ", \"weights_address\": " << d.weights_address
        << ", \"params_address\": " << d.params_address
        << ", \"output_address\": " << d.output_address << ", \"k_tile\": " << d.k_tile
        << ", \"rows_per_piece\": " << d.rows_per_piece
        << ", \"rows_per_compute_stage\": " << d.rows_per_compute_stage
        << ", \"half_bytes\": " << d.half_bytes
        << ", \"weight_region_bytes\": " << d.weight_region_bytes
        << ", \"params_region_bytes\": " << d.params_region_bytes
        << ", \"input_from_layer\": " << d.input_from_layer << ", \"weight_format\": \""
        << to_string(d.weight_format) << '"';
    if (d.binary)
      out << ", \"dtype\": \"binary\", \"bits\": " << d.bits << ", \"pad_mode\": \""
          << to_string(d.pad_mode) << '"';
    if (d.output_bits != 0) out << ", \"output_bits\": " << d.output_bits;
    if (d.units != 0) out << ", \"units\": " << d.units;
    if (d.weight_buffers != 1) out << ", \"weight_buffers\": " << d.weight_buffers;
    if (d.cols_per_piece != 0) out << ", \"cols_per_piece\": " << d.cols_per_piece;
    if (d.channels_per_part != 0) out << ", \"channels_per_part\": " << d.channels_per_part;
    if (d.output_resident) out << ", \"resident_offset\": " << d.resident_offset;
    if (d.weights_resident) out << ", \"weights_resident_offset\": " << d.weights_offset;
    // Kernel parts say their order too: a feature-stationary header's default is not theirs.
    if (d.loop_order == LoopOrder::FeatureStationary || d.channels_per_part != 0)
      out << ", \"loop_order\": \"" << to_string(d.loop_order) << '"';
    if (d.input_layout != TensorLayout::Nhwc)
      out << ", \"input_layout\": \"" << to_string(d.input_layout) << '"';
    if (d.output_layout != TensorLayout::Nhwc)
      out << ", \"output_layout\": \"" << to_string(d.output_layout) << '"';
    if (d.access != LoadAccess::Im2col)
      out << ", \"access\": \"" << to_string(d.access)
          << "\", \"lowered_address\": " << d.lowered_address;
    if (!d.kernel_nonzeros.empty()) {
      out << ", \"kernel_nonzeros\": [";
      for (size_t k = 0; k < d.kernel_nonzeros.size(); ++k)
        out << (k ? ", " : "") << d.kernel_nonzeros[k];
      out << ']';
    }
    out << "}\n";
  }
  for (const Instruction& in : program.instructions) {
    out << "{\"id\": " << in.id << ", \"op\": \"" << to_string(in.op)
        << "\", \"layer\": " << in.layer << ", \"unit\": " << in.unit << ", \"half\": " << in.half
        << ", \"n\": " << in.batch << ", \"k\": [" << in.k_begin << ", " << in.k_end << "]";
    if (has_rows(in.op) || in.out_row_begin != 0 || in.out_row_end != 0)
      out << ", \"rows\": [" << in.out_row_begin << ", " << in.out_row_end << "]";
    if (in.column_piece())
      out << ", \"cols\": [" << in.out_col_begin << ", " << in.out_col_end << "]";
    if (in.kernel_part())
      out << ", \"channels\": [" << in.channel_begin << ", " << in.channel_end << "]";
    out << ", \"stages\": " << in.stages << ", \"deps\": [";
    for (size_t j = 0; j < in.deps.size(); ++j)
      out << (j ? ", " : "") << "{\"on\": " << in.deps[j].producer << ", \"kind\": \""
          << to_string(in.deps[j].kind) << "\"}";
    out << ']';
    if (in.op == Opcode::AguInit && in.layer < program.layers.size()) {
      out << ", \"registers\": {";
      const std::vector<AguRegister> regs = agu_registers(program.layers[in.layer]);
      for (size_t j = 0; j < regs.size(); ++j)
        out << (j ? ", " : "") << '"' << regs[j].name << "\": " << regs[j].value;
      out << '}';
    }
    out << "}\n";
  }
}

ProgramFile read_program_jsonl(const std::string& path, const WorkloadResolver& resolve) {
  return ProgramReader(path, resolve).read();
}

}  // namespace npusim
