#include "sim/frontend/json/workload_json.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "sim/config/checked_size.h"
#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/json/decoder_workload.h"
#include "sim/graph/operator_checks.h"

namespace npusim {

namespace {

using nlohmann::json;

// Limits that keep a typo from becoming a multi-GiB allocation.
constexpr uint64_t kMaxLayers = 4096;
constexpr uint64_t kMaxScale = 65535;
constexpr uint64_t kMaxShift = 31;
struct NpyKey {
  const char* key;
  std::string LayerConfig::*field;
};
constexpr std::array<NpyKey, 3> kNpyKeys = {{{"weights_npy", &LayerConfig::weights_npy},
                                             {"input_npy", &LayerConfig::input_npy},
                                             {"bias_npy", &LayerConfig::bias_npy}}};

std::string file_stem(const std::string& file, const std::string& fallback) {
  const std::string stem = std::filesystem::path(file).stem().string();
  return stem.empty() ? fallback : stem;
}

// A relative .npy path means "next to the config file", so configs can move as a folder.
std::string resolve_path(const std::string& path, const std::string& config_file) {
  const std::filesystem::path p(path);
  const std::filesystem::path dir = std::filesystem::path(config_file).parent_path();
  if (p.is_absolute() || dir.empty()) return path;
  return (dir / p).lexically_normal().string();
}

void parse_requant(JsonReader& layer_reader, LayerConfig& layer) {
  layer.requant.scale.assign(layer.K, 1);
  layer.requant.shift = auto_requant_shift(uint64_t(layer.C) * layer.R * layer.S);
  const json* value = layer_reader.find("requant");
  if (!value) return;
  JsonReader reader(*value, layer_reader.file(), layer_reader.pointer_to("requant"));
  const std::string& file = reader.file();

  if (const json* scale = reader.find("scale")) {
    const std::string pointer = reader.pointer_to("scale");
    const std::string expected = "integer in 1.." + std::to_string(kMaxScale) +
                                 " or an array of K = " + std::to_string(layer.K) +
                                 " such integers";
    if (scale->is_array()) {
      if (scale->size() != layer.K)
        throw ConfigError(file, pointer, expected, describe_json(*scale));
      for (std::size_t k = 0; k < layer.K; ++k) {
        layer.requant.scale[k] = static_cast<int32_t>(expect_uint(
            (*scale)[k], file, json_pointer_append(pointer, std::to_string(k)), 1, kMaxScale));
      }
    } else if (scale->is_number()) {
      layer.requant.scale.assign(
          layer.K, static_cast<int32_t>(expect_uint(*scale, file, pointer, 1, kMaxScale)));
    } else {
      throw ConfigError(file, pointer, expected, describe_json(*scale));
    }
  }

  if (const json* shift = reader.find("shift")) {
    const std::string pointer = reader.pointer_to("shift");
    if (shift->is_number()) {
      layer.requant.shift = static_cast<uint32_t>(expect_uint(*shift, file, pointer, 0, kMaxShift));
    } else if (!(shift->is_string() && shift->get<std::string>() == "auto")) {
      throw ConfigError(file, pointer, "integer in 0..31 or \"auto\"", describe_json(*shift),
                        shift->is_string() ? nearest_key(shift->get<std::string>(), {"auto"}) : "");
    }
  }
  reader.finish();
}

// A JSON integer in the int32 range (a threshold may be negative).
int32_t expect_int32(const json& value, const std::string& file, const std::string& pointer,
                     const std::string& expected) {
  if (!value.is_number_integer()) throw ConfigError(file, pointer, expected, describe_json(value));
  const int64_t v = value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX)
                        ? INT64_MAX
                        : value.get<int64_t>();
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    throw ConfigError(file, pointer, expected, describe_json(value));
  return static_cast<int32_t>(v);
}

// {"bits": 32|64, "padding": "skip"|"plus_one"|"minus_one", "tie": "minus_one"|"plus_one",
//  "threshold": t or [K ints] | "batch_norm": {"seed": s}}.
BinaryConfig parse_binary(const json& j, const std::string& file, const std::string& pointer,
                          uint32_t K) {
  JsonReader reader(j, file, pointer);
  BinaryConfig b;
  b.threshold.assign(K, 0);
  b.bits = static_cast<uint32_t>(reader.get_uint("bits", 0, kMaxDim, 32));
  if (b.bits != 32 && b.bits != 64)
    reader.fail("bits", "32 or 64", describe_json(*reader.find("bits")));
  b.padding = static_cast<BinaryPadMode>(
      reader.get_choice("padding", {"skip", "plus_one", "minus_one"}, 0));
  b.tie = static_cast<BinaryTie>(reader.get_choice("tie", {"minus_one", "plus_one"}, 0));
  const json* threshold = reader.find("threshold");
  if (threshold) {
    const std::string p = reader.pointer_to("threshold");
    const std::string expected =
        "int32 integer or an array of K = " + std::to_string(K) + " such integers";
    if (threshold->is_array()) {
      if (threshold->size() != K) throw ConfigError(file, p, expected, describe_json(*threshold));
      for (uint32_t k = 0; k < K; ++k)
        b.threshold[k] = expect_int32((*threshold)[k], file,
                                      json_pointer_append(p, std::to_string(k)), "int32 integer");
    } else {
      b.threshold.assign(K, expect_int32(*threshold, file, p, expected));
    }
  }
  if (const json* bn = reader.find("batch_norm")) {
    if (threshold)
      reader.fail("batch_norm", "either \"threshold\" or \"batch_norm\", not both", "both keys");
    JsonReader bn_reader(*bn, file, reader.pointer_to("batch_norm"));
    b.batch_norm = true;
    b.batch_norm_seed = bn_reader.require_uint("seed", 0, kMaxSeed);
    bn_reader.finish();
  }
  reader.finish();
  return b;
}

// Checks that need several fields at once; each names the field a user should change.
void validate_layer(const LayerConfig& l, const JsonReader& reader) {
  if (l.padding >= l.R || l.padding >= l.S) {
    reader.fail("padding",
                "padding < R = " + std::to_string(l.R) + " and < S = " + std::to_string(l.S),
                "padding = " + std::to_string(l.padding));
  }
  // The checks every front-end shares (sim/graph/operator_checks.h), placed at
  // the key a user of the layer list would change.
  const std::optional<OperatorProblem> p = check_operator(l, {{l.N, l.C, l.H, l.W}});
  if (!p) return;
  switch (p->part) {
    case OperatorPart::KernelRows:
      reader.fail("R", p->expected, p->found);
    case OperatorPart::KernelCols:
      reader.fail("S", p->expected, p->found);
    case OperatorPart::Operator:
    case OperatorPart::Groups:  // a layer list's conv has one group
    case OperatorPart::Input:
    case OperatorPart::InputQuant:
    case OperatorPart::OutputQuant:
    case OperatorPart::WeightQuant:
      reader.fail("", p->expected, p->found);
  }
}

// {"pattern": "unstructured"|"channel", "density": d} or {"pattern": "nm", "n": 2, "m": 4}.
SparsityConfig parse_sparsity(const json& j, const std::string& file, const std::string& pointer) {
  JsonReader reader(j, file, pointer);
  SparsityConfig s;
  const std::size_t pattern = reader.require_choice("pattern", {"unstructured", "nm", "channel"});
  if (pattern == 1) {
    s.pattern = SparsityConfig::Pattern::NM;
    s.n = static_cast<uint32_t>(reader.require_uint("n", 0, 64));
    s.m = static_cast<uint32_t>(reader.require_uint("m", 1, 64));
    if (s.n > s.m) reader.fail("n", "n <= m (" + std::to_string(s.m) + ")", std::to_string(s.n));
  } else {
    s.pattern =
        pattern == 0 ? SparsityConfig::Pattern::Unstructured : SparsityConfig::Pattern::Channel;
    const json* d = reader.find("density");
    if (d == nullptr) reader.fail("density", "number in [0, 1]", "nothing (the key is missing)");
    if (!d->is_number() || d->get<double>() < 0.0 || d->get<double>() > 1.0)
      reader.fail("density", "number in [0, 1]", describe_json(*d));
    s.density = d->get<double>();
  }
  reader.finish();
  return s;
}

// The layouts a layer's file asks for; parse_workload settles them across
// chained layers (resolve_layouts).
struct LayoutRequest {
  std::optional<TensorLayout> input, output;
};

LayerConfig parse_layer(const json& j, const std::string& file, const std::string& pointer,
                        bool type_required, uint64_t default_seed, const std::string& default_name,
                        LayoutRequest& layouts, const SparsityConfig& default_sparsity = {}) {
  JsonReader reader(j, file, pointer);
  const std::vector<std::string> types = {"conv2d"};
  if (type_required) {
    reader.require_choice("type", types);
  } else {
    reader.get_choice("type", types, 0);
  }
  LayerConfig layer;
  layer.name = reader.get_string("name", default_name);
  if (layer.name.empty()) reader.fail("name", "non-empty string", "empty string");
  auto dim = [&](const char* key) {
    return static_cast<uint32_t>(reader.require_uint(key, 1, kMaxDim));
  };
  layer.N = static_cast<uint32_t>(reader.get_uint("N", 1, kMaxDim, 1));
  layer.C = dim("C");
  layer.H = dim("H");
  layer.W = dim("W");
  layer.K = dim("K");
  layer.R = dim("R");
  layer.S = dim("S");
  layer.stride = static_cast<uint32_t>(reader.get_uint("stride", 1, kMaxDim, 1));
  layer.padding = static_cast<uint32_t>(reader.get_uint("padding", 0, kMaxDim - 1, 0));
  layer.dtype =
      reader.get_choice("dtype", {"int8", "binary"}, 0) == 1 ? DataType::Binary : DataType::Int8;
  if (layer.is_binary()) {
    // A binary layer thresholds its +-1 sums: nothing to requantise, no bias,
    // no ReLU, and no zero coefficients to make sparse.
    for (const char* key : {"relu", "requant", "bias_npy", "sparsity"}) {
      if (const json* value = reader.find(key))
        reader.fail(key,
                    std::string("no \"") + key +
                        "\" on a binary layer (its outputs are thresholded: see \"binary\")",
                    describe_json(*value));
    }
  }
  layer.relu = reader.get_bool("relu", true);
  layer.seed = reader.get_uint("seed", 0, kMaxSeed, default_seed);
  for (const auto& [key, field] : kNpyKeys) {
    const json* value = reader.find(key);
    if (!value) continue;
    const std::string path =
        expect_string(*value, file, reader.pointer_to(key), "string (path to a .npy file)");
    if (path.empty()) reader.fail(key, "string (path to a .npy file)", "empty string");
    layer.*field = resolve_path(path, file);
  }
  parse_requant(reader, layer);
  layer.sparsity =
      layer.weights_npy.empty() && !layer.is_binary() ? default_sparsity : SparsityConfig{};
  if (const json* s = reader.find("sparsity")) {
    if (!layer.weights_npy.empty())
      reader.fail("sparsity", "no sparsity with weights_npy (the data's zeros are its sparsity)",
                  "a sparsity object");
    layer.sparsity = parse_sparsity(*s, file, reader.pointer_to("sparsity"));
  }
  if (reader.find("access")) {
    if (layer.is_binary())
      reader.fail("access",
                  "no \"access\" on a binary layer (its input is always generated on "
                  "the fly)",
                  describe_json(*reader.find("access")));
    layer.access =
        static_cast<LoadAccess>(reader.get_choice("access", {"im2col", "host_im2col", "mec"}, 0));
  }
  for (const char* key : {"input_layout", "output_layout"}) {
    if (!reader.find(key)) continue;
    // A binary input is packed by definition; a binary layer's own output is
    // packed unless an int8 consumer follows, which resolve_layouts checks.
    if (layer.is_binary() && std::string(key) == "input_layout")
      reader.fail(key, "no \"input_layout\" on a binary layer (its input is packed N(C/b)HWb)",
                  describe_json(*reader.find(key)));
    const auto layout = static_cast<TensorLayout>(reader.get_choice(key, {"nhwc", "nchw"}, 0));
    (std::string(key) == "input_layout" ? layouts.input : layouts.output) = layout;
  }
  layer.binary.threshold.assign(layer.K, 0);
  if (const json* b = reader.find("binary")) {
    if (!layer.is_binary())
      reader.fail("binary", "no \"binary\" object on an int8 layer (set \"dtype\": \"binary\")",
                  describe_json(*b));
    layer.binary = parse_binary(*b, file, reader.pointer_to("binary"), layer.K);
  }
  // Unknown keys first: a misspelt "padding" would otherwise surface as a kernel-fit error.
  reader.finish();
  validate_layer(layer, reader);
  return layer;
}

std::vector<bool> compute_chaining(const std::vector<LayerConfig>& layers) {
  std::vector<bool> chained(layers.size(), false);
  for (std::size_t i = 1; i < layers.size(); ++i) {
    const LayerConfig& prev = layers[i - 1];
    const LayerConfig& cur = layers[i];
    // Explicit data wins over a matching shape (issue 21, item 7).
    chained[i] = cur.input_npy.empty() && cur.N == prev.N && cur.C == prev.K &&
                 cur.H == prev.out_h() && cur.W == prev.out_w();
  }
  return chained;
}

// A layer that neither chains nor names its input gets seeded random data:
// say so, with both shapes, since a mistyped channel count looks just like it.
// One warning for the whole network (a SCALE-Sim topology has a break at
// nearly every layer): the first break in full, then the other layers' names.
std::vector<std::string> chaining_warnings(const NetworkConfig& net) {
  std::vector<std::size_t> breaks;
  for (std::size_t i = 1; i < net.layers.size(); ++i)
    if (!net.chained[i] && net.layers[i].input_npy.empty()) breaks.push_back(i);
  if (breaks.empty()) return {};
  const auto shape = [](uint64_t n, uint64_t h, uint64_t w, uint64_t c) {
    return std::to_string(n) + "x" + std::to_string(h) + "x" + std::to_string(w) + "x" +
           std::to_string(c);
  };
  const LayerConfig& prev = net.layers[breaks[0] - 1];
  const LayerConfig& cur = net.layers[breaks[0]];
  std::string text = "layer " + cur.name + " reads N,H,W,C = " + shape(cur.N, cur.H, cur.W, cur.C) +
                     " but the layer before it, " + prev.name + ", writes " +
                     shape(prev.N, prev.out_h(), prev.out_w(), prev.K) +
                     ": they do not chain, so " + cur.name + " reads seeded random input";
  if (breaks.size() > 1) {
    constexpr std::size_t kNamed = 5;
    text += "; so do " + std::to_string(breaks.size() - 1) + " more layers (";
    for (std::size_t b = 1; b < breaks.size() && b <= kNamed; ++b)
      text += (b > 1 ? ", " : "") + net.layers[breaks[b]].name;
    text += breaks.size() - 1 > kNamed ? ", ...)" : ")";
  }
  return {text};
}

// Settles each layer's input and output layout from what the file asks: a
// chained consumer reads what its producer stores, so either side may name
// the layout (nhwc when neither does); both naming different ones, or a
// layout on an output stored packed, is an error at the key that says it.
void resolve_layouts(NetworkConfig& net, const std::vector<LayoutRequest>& asked,
                     const std::string& file, const std::string& layers_pointer) {
  const auto pointer = [&](size_t l, const char* key) {
    const std::string layer =
        layers_pointer.empty() ? "" : json_pointer_append(layers_pointer, std::to_string(l));
    return json_pointer_append(layer, key);
  };
  for (size_t l = 0; l < net.layers.size(); ++l) {
    LayerConfig& L = net.layers[l];
    const bool feeds_next = l + 1 < net.layers.size() && net.chained[l + 1];
    if (asked[l].output && output_bits_of(net, l) != 0) {
      const std::string why = feeds_next ? "binary layer " + net.layers[l + 1].name + " reads it"
                                         : "a binary layer whose output no int8 layer reads";
      throw ConfigError(file, pointer(l, "output_layout"),
                        "no \"output_layout\": the output is stored packed N(C/b)HWb (" + why + ")",
                        describe_json(to_string(*asked[l].output)));
    }
    L.output_layout = asked[l].output.value_or(TensorLayout::Nhwc);
    L.input_layout = asked[l].input.value_or(TensorLayout::Nhwc);
    if (l > 0 && net.chained[l] && !L.is_binary()) {
      LayerConfig& producer = net.layers[l - 1];
      if (asked[l].input && asked[l - 1].output && *asked[l].input != *asked[l - 1].output)
        throw ConfigError(
            file, pointer(l, "input_layout"),
            std::string("\"") + to_string(*asked[l - 1].output) + "\", the layout layer " +
                producer.name +
                " stores its output in (its \"output_layout\"), which this layer reads",
            describe_json(to_string(*asked[l].input)));
      // Whichever side named it wins; the producer's output was settled above.
      if (asked[l].input) producer.output_layout = *asked[l].input;
      L.input_layout = producer.output_layout;
    }
  }
}

}  // namespace

NetworkConfig parse_workload(const json& j, const std::string& file) {
  check_json_depth(j, file);  // JSON handed over in memory (a program header, a sweep)
  NetworkConfig net;
  std::vector<LayoutRequest> layouts;
  if (j.is_object() && j.contains("operators")) return parse_graph_workload(j, file);
  if (is_decoder_workload(j)) {  // shapes that expand into a decoder's graph
    JsonReader root(j, file);
    const std::string name = root.get_string("name", file_stem(file, "decoder"));
    const uint64_t seed = root.get_uint("seed", 0, kMaxSeed, 1);
    root.get_string("description", "");
    root.find("decoder");
    root.finish();
    return parse_graph_workload(decoder_graph(name, seed, read_decoder_shape(j, file)), file);
  }
  if (j.is_object() && j.contains("layers")) {
    JsonReader reader(j, file);
    net.name = reader.get_string("name", file_stem(file, "network"));
    const uint64_t seed = reader.get_uint("seed", 0, kMaxSeed, 1);
    reader.get_string("description", "");  // free text for people; not used
    SparsityConfig default_sparsity;       // for every layer that does not set its own
    if (const json* s = reader.find("sparsity"))
      default_sparsity = parse_sparsity(*s, file, reader.pointer_to("sparsity"));
    const json& layers = *reader.find("layers");
    reader.finish();
    const std::string expected = "array of 1.." + std::to_string(kMaxLayers) + " layer objects";
    if (!layers.is_array() || layers.empty() || layers.size() > kMaxLayers) {
      reader.fail("layers", expected, describe_json(layers));
    }
    std::map<std::string, std::string> name_pointers;
    layouts.resize(layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const std::string pointer = json_pointer_append("/layers", std::to_string(i));
      LayerConfig layer = parse_layer(layers[i], file, pointer, /*type_required=*/false, seed + i,
                                      "layer" + std::to_string(i), layouts[i], default_sparsity);
      // Reports and goldens key results by layer name, so names must be unique.
      const auto [it, inserted] = name_pointers.emplace(layer.name, pointer + "/name");
      if (!inserted) {
        throw ConfigError(file, pointer + "/name", "a name no other layer uses",
                          "\"" + layer.name + "\" (also at " + it->second + ")");
      }
      net.layers.push_back(std::move(layer));
    }
  } else if (j.is_object() && j.contains("type")) {
    layouts.resize(1);
    net.layers.push_back(
        parse_layer(j, file, "", /*type_required=*/true, 1, file_stem(file, "layer"), layouts[0]));
    net.name = net.layers[0].name;
  } else {
    std::string hint;
    if (j.is_object()) {
      for (const auto& item : j.items()) {
        if (hint.empty()) hint = nearest_key(item.key(), {"layers", "type", "operators"});
      }
    }
    throw ConfigError(
        file, "",
        "a layer ({\"type\": \"conv2d\", ...}), a network ({\"layers\": [...]}) or a graph "
        "({\"operators\": [...]})",
        j.is_object() ? "object without \"type\" or \"layers\"" : describe_json(j), hint);
  }
  net.chained = compute_chaining(net.layers);
  net.warnings = chaining_warnings(net);
  resolve_layouts(net, layouts, file, j.contains("layers") ? "/layers" : "");
  return net;
}

NetworkConfig default_network() {
  NetworkConfig net;
  net.name = "resnet18";
  // torchvision ResNet-18 at 224x224, batch 1, convolutions in execution order
  // (a block runs conv1, conv2, then its downsample). Pooling and the residual
  // adds are not convolutions and are left out. The real network applies no
  // ReLU after a block's conv2 (ReLU follows the add) nor after a downsample;
  // relu stays true everywhere here for simplicity.
  auto conv = [&net](const std::string& name, uint32_t C, uint32_t H, uint32_t K, uint32_t R,
                     uint32_t stride) {
    LayerConfig l;
    l.name = name;
    l.C = C;
    l.H = l.W = H;
    l.K = K;
    l.R = l.S = R;
    l.stride = stride;
    l.padding = R / 2;
    l.seed = 1 + net.layers.size();  // as a network file with "seed": 1
    l.requant.scale.assign(K, 1);
    l.requant.shift = auto_requant_shift(uint64_t(C) * R * R);
    net.layers.push_back(l);
  };
  conv("conv1", 3, 224, 64, 7, 2);  // -> 64 x 112 x 112, then 3x3/2 max-pool -> 56 x 56
  uint32_t channels = 64, size = 56;
  for (int stage = 1; stage <= 4; ++stage) {
    const uint32_t width = 64u << (stage - 1);
    for (int block = 0; block < 2; ++block) {
      const std::string prefix = "layer" + std::to_string(stage) + "." + std::to_string(block);
      const uint32_t stride = (stage > 1 && block == 0) ? 2 : 1;
      conv(prefix + ".conv1", channels, size, width, 3, stride);
      const uint32_t out = size / stride;
      conv(prefix + ".conv2", width, out, width, 3, 1);
      if (stride == 2) conv(prefix + ".downsample", channels, size, width, 1, 2);
      channels = width;
      size = out;
    }
  }
  net.chained = compute_chaining(net.layers);
  net.warnings = chaining_warnings(net);  // as the same network read from its file
  return net;
}

}  // namespace npusim
