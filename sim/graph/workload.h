// Layer and network descriptions (what to run). A network is an ordered list of
// conv2d layers; a layer whose input shape equals the previous layer's output
// shape consumes that output unless it names its own input_npy, otherwise it
// reads its own .npy or seeded input (a warning says which layers do not chain).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/hardware_config.h"
#include "sim/graph/op_table.h"
#include "sim/graph/shared_values.h"

namespace npusim {

// int8: int8 x int8 -> int32, requantised to int8. binary: +-1 values packed
// N(C/b)HWb (seed 000), XOR + popcount, thresholded to +-1 (docs/binary.md).
enum class DataType { Int8, Binary };
const char* to_string(DataType t);

// What a binary layer's kernel tap outside the input contributes
// (docs/binary.md#padding): nothing (skip), a +1 or a -1 pad value.
enum class BinaryPadMode { Skip, PlusOne, MinusOne };
const char* to_string(BinaryPadMode m);
// What an output whose vote ties with its threshold becomes (docs/binary.md):
// -1 as seed 000's vote decides (+1 only when the 1 bits outnumber the 0
// bits), or +1 (a >= comparator).
enum class BinaryTie { MinusOne, PlusOne };
const char* to_string(BinaryTie t);

// The "binary" object of a binary layer. Output k is +1 when dot >= t[k]
// (flip 0) or dot <= t[k] (flip 1), else -1. The thresholds come either from
// `threshold` (flip 0) or from seeded batch-norm parameters folded on the
// host (sim/workload/batch_norm.h).
struct BinaryConfig {
  uint32_t bits = 32;  // b: channel bits per packed word, 32 or 64
  BinaryPadMode padding = BinaryPadMode::Skip;
  BinaryTie tie = BinaryTie::MinusOne;
  std::vector<int32_t> threshold;  // K entries (all 0 by default)
  bool batch_norm = false;
  uint64_t batch_norm_seed = 0;
};

struct RequantConfig {
  // out = clamp(round((acc + bias) * scale / 2^shift)), then ReLU if enabled.
  std::vector<int32_t> scale;  // per output channel (size K), each >= 1
  uint32_t shift = 0;          // resolved; "auto" picks a shift from C*R*S
};

// Weight sparsity applied to seeded-random weights (not to weights from .npy,
// whose sparsity is whatever the data has).
struct SparsityConfig {
  enum class Pattern { None, Unstructured, NM, Channel };
  Pattern pattern = Pattern::None;
  double density = 1.0;   // unstructured / channel: fraction of weights (kernels) kept
  uint32_t n = 2, m = 4;  // nm: keep n of every m consecutive input channels
  double effective_density() const {
    return pattern == Pattern::NM ? double(n) / double(m) : density;
  }
};
const char* to_string(SparsityConfig::Pattern p);

// How an int8 tensor lies in DRAM (docs/address-generator.md#layouts): NHWC
// (channels of a pixel contiguous, what the datapath consumes) or NCHW (one
// plane per channel). Binary tensors are always packed N(C/b)HWb.
enum class TensorLayout { Nhwc, Nchw };
const char* to_string(TensorLayout l);

// The attributes of the transformer operators (docs/transformers.md). A
// sequence tensor [tokens, heads * dim] is [N = 1, C = heads * dim, H =
// tokens, W = 1]: one row per token, the heads groups of C.
struct SequenceAttrs {
  uint32_t heads = 1;            // batch_matmul, softmax, rope: groups of C
  uint32_t kv_heads = 1;         // batch_matmul: heads of the second operand (GQA)
  bool transpose_b = false;      // batch_matmul: A x B^T (scores) instead of A x B (context)
  bool causal = false;           // softmax: mask keys after each query
  double epsilon = 1e-5;         // layernorm, rmsnorm (real units)
  double rope_base = 10000;      // rope: theta = position * base^(-2i/dim)
  uint32_t position_offset = 0;  // rope: position of row 0
  // hardsigmoid: max(0, min(1, alpha * x + beta)); leakyrelu: x < 0: alpha * x
  float alpha = 0.2f, beta = 0.5f;
};

// How a resize finds an output pixel's value (docs/graphs.md,
// sim/program/resize_taps.h): nearest copies the input pixel that its
// coordinates and rounding pick; linear interpolates the two input rows and
// two input columns around the output pixel's position; cubic the four rows
// and four columns around it (Keys' cubic convolution, coefficient a).
enum class ResizeMode { Nearest, Linear, Cubic };
const char* to_string(ResizeMode m);
// ONNX's coordinate_transformation_mode: where output index o lies on the
// input axis at the axis' scale s: half_pixel (o + 0.5) / s - 0.5;
// pytorch_half_pixel the same, 0 for an output of one; align_corners
// o * (in - 1) / (out - 1); asymmetric o / s; tf_half_pixel_for_nn
// (o + 0.5) / s (nearest only).
enum class ResizeCoordinates {
  HalfPixel,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNn
};
const char* to_string(ResizeCoordinates c);
// ONNX's nearest_mode: how nearest picks an input index from that position.
enum class ResizeRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };
const char* to_string(ResizeRounding r);

// Element types of quantised tensors: int8, uint8, or raw int32 accumulators.
enum class QuantType { Int8, Uint8, Int32 };
const char* to_string(QuantType t);
inline int32_t quant_min(QuantType t) { return t == QuantType::Uint8 ? 0 : -128; }
inline int32_t quant_max(QuantType t) { return t == QuantType::Uint8 ? 255 : 127; }

// One per-tensor quantisation (scale, zero point) of an activation tensor.
struct TensorQuant {
  QuantType type = QuantType::Int8;
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// The quantised arithmetic of a graph operator (LayerConfig::quantized).
struct OpQuant {
  std::vector<TensorQuant> inputs;  // one per input tensor
  QuantType weight_type = QuantType::Int8;
  std::vector<float> weight_scale;         // 1 (per tensor) or K (per output channel)
  std::vector<int32_t> weight_zero_point;  // 1 or K
  TensorQuant output;
  // Fused activation, resolved to output units (docs/graphs.md#activation).
  int32_t clamp_lo = INT32_MIN, clamp_hi = INT32_MAX;
  bool bias = true;  // an int32 bias added to the accumulator
  float weight_scale_of(uint32_t k) const {
    return weight_scale.size() == 1 ? weight_scale[0] : weight_scale[k];
  }
  int32_t weight_zero_point_of(uint32_t k) const {
    return weight_zero_point.size() == 1 ? weight_zero_point[0] : weight_zero_point[k];
  }
};

// The general geometry of a layer or descriptor `L` (fields stride, padding,
// general): column stride, left/bottom/right pads and dilations, which equal
// stride, padding and 1 for a plain layer (no `general`).
template <class L>
uint32_t col_stride(const L& l) {
  return l.general ? l.general->stride_w : l.stride;
}
template <class L>
uint32_t pad_l(const L& l) {
  return l.general ? l.general->pad_left : l.padding;
}
template <class L>
uint32_t pad_b(const L& l) {
  return l.general ? l.general->pad_bottom : l.padding;
}
template <class L>
uint32_t pad_r(const L& l) {
  return l.general ? l.general->pad_right : l.padding;
}
template <class L>
uint32_t dil_h(const L& l) {
  return l.general ? l.general->dilation_h : 1;
}
template <class L>
uint32_t dil_w(const L& l) {
  return l.general ? l.general->dilation_w : 1;
}
// Rows (columns) of input one output pixel's window spans: dilation*(R-1)+1.
template <class L>
uint32_t window_h(const L& l) {
  return dil_h(l) * (l.R - 1) + 1;
}
template <class L>
uint32_t window_w(const L& l) {
  return dil_w(l) * (l.S - 1) + 1;
}

struct LayerConfig {
  std::string name;
  uint32_t N = 1, C = 0, H = 0, W = 0;  // input
  uint32_t K = 0, R = 0, S = 0;         // K output channels, R x S kernel (rows x cols)
  uint32_t stride = 1;                  // rows (and columns unless stride_w says otherwise)
  uint32_t padding = 0;                 // top (and every side for a plain layer)
  // The general geometry of graph operators (docs/graphs.md), used when
  // `general` is set; a plain layer has equal strides, every pad = padding,
  // no dilation. Read it through the accessors below.
  struct Geometry {
    uint32_t stride_w = 1, pad_left = 0, pad_bottom = 0, pad_right = 0;
    uint32_t dilation_h = 1, dilation_w = 1;
  };
  std::optional<Geometry> general;
  uint32_t groups = 1;
  // Graph operators: which operator, and ONNX-exact quantised arithmetic
  // (zero points, float32 requantisation). False: a plain layer list's int8
  // layer with the fixed-point requantiser.
  OpKind op = OpKind::Conv;
  bool quantized = false;
  OpQuant quant;
  bool ceil_mode = false;          // pools
  bool count_include_pad = false;  // averagepool
  // gather: output channel k is input channel gather_channels[k] (K of them).
  std::vector<uint32_t> gather_channels;
  // resize: the output rows and columns, ONNX Runtime's float32 scale of
  // each axis (the node's scale, or out / in from its sizes), and how it
  // fills them (the rounding: nearest's nearest_mode).
  uint32_t resize_out_h = 1, resize_out_w = 1;
  float resize_scale_h = 1, resize_scale_w = 1;
  ResizeMode resize_mode = ResizeMode::Nearest;
  ResizeCoordinates resize_coordinates = ResizeCoordinates::HalfPixel;
  ResizeRounding resize_rounding = ResizeRounding::RoundPreferFloor;
  // cubic: ONNX's cubic_coeff_a and exclude_outside (taps outside the input
  // weigh 0, the rest renormalised).
  float resize_cubic_a = -0.75f;
  bool resize_exclude_outside = false;
  SequenceAttrs seq;  // transformer operators
  // A decoder workload's pass (graph key "pass"): 0 the prefill, s >= 1 decode
  // step s; -1 when the workload marks no passes (docs/decoders.md).
  int32_t pass = -1;
  // Graph operators from a model file (ONNX): their own data instead of
  // seeded values. Weights K x R x S x C/groups bytes (uint8 as their bytes),
  // bias K values; empty: seeded. `source_op` is the model's operator type
  // (e.g. "QLinearConv"), shown in reports.
  SharedValues<int8_t> weight_values;  // shared by the layer's copies
  // A model's weights kept only as their non-zeros per kernel (K counts;
  // sim/graph/weight_nonzeros.h) where the values were dropped: an ONNX import
  // for a timing-only run. Empty otherwise.
  SharedValues<uint32_t> weight_nonzeros;
  std::vector<int32_t> bias_values;
  std::string source_op;
  DataType dtype = DataType::Int8;
  bool relu = true;
  RequantConfig requant;
  uint64_t seed = 1;        // seeds random weights / input / bias
  std::string weights_npy;  // optional; shape K,R,S,C int8 (empty = random)
  std::string input_npy;    // optional; shape N,H,W,C int8 (empty = random)
  std::string bias_npy;     // optional; shape K int32 (empty = random)
  SparsityConfig sparsity;
  BinaryConfig binary;  // meaningful when dtype == Binary
  // Seed 001 input lowering for this layer; unset: the hardware's load.access.
  std::optional<LoadAccess> access;
  // Where the address generator reads an int8 input and the store writes an
  // int8 output ("input_layout" / "output_layout"). A chained pair agrees:
  // parse_workload fills one from the other. Packed tensors ignore them.
  TensorLayout input_layout = TensorLayout::Nhwc;
  TensorLayout output_layout = TensorLayout::Nhwc;

  bool is_binary() const { return dtype == DataType::Binary; }
  // The mode this layer's input loads use: its own "access", else the
  // hardware default; binary layers and graph operators always generate on the fly.
  LoadAccess access_on(const HardwareConfig& hw) const {
    // Graph operators read padded input rows (their zero point as padding).
    return is_binary() || quantized ? LoadAccess::Im2col : access.value_or(hw.load_access);
  }
  // Plain: symmetric padding, equal strides, no dilation, one group (what
  // every access mode, binary layers and the GPU path support).
  bool plain_geometry() const {
    return col_stride(*this) == stride && pad_l(*this) == padding && pad_b(*this) == padding &&
           pad_r(*this) == padding && dil_h(*this) == 1 && dil_w(*this) == 1 && groups == 1 &&
           !ceil_mode;
  }
  // Windows of the kernel's span along each axis: those that fit the padded
  // input, or under a pool's ceil mode ceil_extent's count (kept inline: the
  // mapper asks for these millions of times).
  uint32_t out_h() const {
    if (op == OpKind::Resize) return resize_out_h;
    const uint64_t span = window_h(*this), padded = uint64_t(H) + padding + pad_b(*this);
    if (padded < span) return 0;
    if (ceil_mode) return ceil_extent(uint64_t(H) + padding, padded - span, stride);
    return uint32_t((padded - span) / stride + 1);
  }
  uint32_t out_w() const {
    if (op == OpKind::Resize) return resize_out_w;
    const uint64_t span = window_w(*this), padded = uint64_t(W) + pad_l(*this) + pad_r(*this);
    if (padded < span) return 0;
    if (ceil_mode) return ceil_extent(uint64_t(W) + pad_l(*this), padded - span, col_stride(*this));
    return uint32_t((padded - span) / col_stride(*this) + 1);
  }
  // A ceil-mode pool's windows along one axis, `room` = padded input - span:
  // ceil(room / stride) + 1, less a last window that starts at or past
  // `last_start_limit`, the input's end plus its begin pad (ONNX Runtime's
  // rule, onnx/onnx#5741).
  static uint32_t ceil_extent(uint64_t last_start_limit, uint64_t room, uint64_t stride);
  // Input channels one kernel reads (C / groups).
  uint32_t group_channels() const { return C / groups; }
  // Dense array MACs; 0 for the vector unit's operators.
  uint64_t macs() const {
    return runs_on_array(op)
               ? uint64_t(N) * K * out_h() * out_w() * uint64_t(group_channels()) * R * S
               : 0;
  }
  // Bytes of one input pixel (all C channels) in DRAM: C int8 bytes, or
  // ceil(C/b) packed words of b/8 bytes for a binary layer.
  uint64_t pixel_bytes() const {
    return is_binary() ? uint64_t(C + binary.bits - 1) / binary.bits * (binary.bits / 8) : C;
  }
  // DRAM bytes of the input and the weights (packed for a binary layer).
  uint64_t input_bytes() const { return uint64_t(N) * H * W * pixel_bytes(); }
  // (batch_matmul: the second operand's bytes one pass over its kernels reads;
  // they come from an activation, not from weights in DRAM.)
  uint64_t weight_bytes() const {
    if (has_norm_params(op)) return C;
    return runs_on_array(op) ? uint64_t(K) * R * S * (groups > 1 ? group_channels() : pixel_bytes())
                             : 0;
  }
  uint32_t output_element_bytes() const {
    return quantized && quant.output.type == QuantType::Int32 ? 4 : 1;
  }
  uint64_t output_bytes() const {
    return uint64_t(N) * out_h() * out_w() * K * output_element_bytes();
  }
};

// A graph workload's input tensor (seeded data over its dtype's range).
struct GraphInput {
  std::string name;
  uint32_t N = 1, C = 0, H = 0, W = 0;
  TensorQuant quant;
  uint64_t seed = 1;
  std::vector<int8_t> values;         // N,H,W,C bytes from a file (--input, ONNX); empty: seeded
  bool quantized_from_float = false;  // an ONNX float input the model's QuantizeLinear quantises
  std::vector<uint32_t> onnx_shape;   // an ONNX input's declared shape when not [N, C, H, W]
  // An ONNX input declared [N, H, W, C] that the model transposes to NCHW:
  // its --input file and saved values keep that NHWC order (the DRAM layout).
  bool onnx_nhwc = false;
};

// Where one input of an operator comes from: another operator's output
// (op >= 0) or a graph input (graph_input >= 0).
struct TensorSource {
  int32_t op = -1;
  int32_t graph_input = -1;
};

struct NetworkConfig {
  std::string name;
  std::vector<LayerConfig> layers;
  // For layer i > 0: true when it consumes layer i-1's output tensor.
  std::vector<bool> chained;
  // Graph workloads ("operators"): layers are operators in a topological
  // order; each names its input tensors. Empty for layer lists.
  std::vector<GraphInput> graph_inputs;
  std::vector<std::vector<TensorSource>> sources;  // per layer (graph only)
  std::vector<std::string> tensor_names;           // per layer: its output tensor
  std::vector<std::string> outputs;                // graph outputs (tensor names)
  std::string graph_json;                          // the graph as read (what to_json writes back)
  // The files whose bytes the network was read from besides its JSON, as (label, path): an
  // ONNX model ("onnx model") and each --input NAME=FILE ("input NAME"). The compile trials'
  // kept choice is keyed by their digest (sim/runner/trial_choice_cache.h). Empty for JSON.
  std::vector<std::pair<std::string, std::string>> source_files;
  // What a user should hear that is not an error: a layer whose shape does not
  // chain to the previous layer's output (it reads seeded random input), a
  // SCALE-Sim row npusim reads differently from SCALE-Sim. The CLI prints each.
  std::vector<std::string> warnings;
  bool is_graph() const { return !sources.empty(); }
  // The operator whose output layer l reads first, or -1 (a graph input or
  // its own seeded input).
  int32_t producer_of(size_t l) const {
    if (is_graph()) return sources[l].empty() ? -1 : sources[l][0].op;
    return l > 0 && chained[l] ? int32_t(l - 1) : -1;
  }
};

// Every layer's input, weights and output in bytes, each counted once
// (saturating at UINT64_MAX): what a functional run holds on the host several
// times over (data, DRAM image, reference). Runs refuse a workload above
// RunOptions::max_workload_bytes (docs/robustness.md#limits).
uint64_t workload_tensor_bytes(const NetworkConfig& net);

// The weights alone, shared ones counted once: the measure a timing-only run
// is limited by, since it allocates no activations (it draws each weight set
// once to count its kernels' non-zeros).
uint64_t workload_weight_bytes(const NetworkConfig& net);

// Where layer l's input comes from, for reports: "chained from <name>", the
// .npy file it names, "graph" (a graph operator: its sources) or "random".
std::string input_source(const NetworkConfig& net, size_t l);

// The format layer `l`'s store writes: its consumer's (the next layer when
// that one is chained to it), else its own: packed b bits for a binary
// consumer (or a binary layer's own output), 0 (int8, in output_layout) otherwise.
uint32_t output_bits_of(const NetworkConfig& net, size_t l);

nlohmann::json to_json(const NetworkConfig& net);

// Everything a layer's seeded weights depend on, as text: the seed, the
// shape, the dtype and packing, the sparsity pattern and, for a graph
// operator, its weight type and zero points ("seed 3 K 64 R 3 ..."). Equal
// texts, equal weights. Empty when the weights are not seeded (a .npy file or
// a model's own). The compiler shares one weight region between operators
// with the same text; the kernel-summary cache keys its entries with it.
std::string seeded_weights_key(const LayerConfig& layer);

// The requant shift "auto" resolves to: 7 + ceil(log2(C*R*S) / 2).
// Why: a product of two uniform random int8 values has a standard deviation of
// about 2^12.4, so a sum of C*R*S of them has about 2^12.4 * sqrt(C*R*S).
// Shifting by 7 + log2(sqrt(C*R*S)) brings that to about 2^5.4 (~43): outputs
// spread over the int8 range instead of all saturating or all rounding to zero.
uint32_t auto_requant_shift(uint64_t reduction_size);

}  // namespace npusim
