// Layer and network descriptions (what to run). A network is an ordered list of
// conv2d layers; a layer whose input shape equals the previous layer's output
// shape consumes that output, otherwise it gets its own seeded input.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/hardware_config.h"

namespace npusim {

// int8: int8 x int8 -> int32, requantised to int8. binary: +-1 values packed
// N(C/b)HWb (seed 000), XOR + popcount, thresholded to +-1 (docs/binary.md).
enum class DataType { Int8, Binary };
const char* to_string(DataType t);

// What a binary layer's kernel tap outside the input contributes
// (docs/binary.md#padding): nothing (skip), a +1 or a -1 pad value.
enum class BinaryPadMode { Skip, PlusOne, MinusOne };
const char* to_string(BinaryPadMode m);

// The "binary" object of a binary layer. Output k is +1 when dot >= t[k]
// (flip 0) or dot <= t[k] (flip 1), else -1. The thresholds come either from
// `threshold` (flip 0) or from seeded batch-norm parameters folded on the
// host (sim/workload/batch_norm.h).
struct BinaryConfig {
  uint32_t bits = 32;  // b: channel bits per packed word, 32 or 64
  BinaryPadMode padding = BinaryPadMode::Skip;
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

struct LayerConfig {
  std::string name;
  uint32_t N = 1, C = 0, H = 0, W = 0;  // input
  uint32_t K = 0, R = 0, S = 0;         // K output channels, R x S kernel (rows x cols)
  uint32_t stride = 1;
  uint32_t padding = 0;  // symmetric, rows and columns
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
  // hardware default; binary layers always generate on the fly.
  LoadAccess access_on(const HardwareConfig& hw) const {
    return is_binary() ? LoadAccess::Im2col : access.value_or(hw.load_access);
  }
  uint32_t out_h() const { return (H + 2 * padding - R) / stride + 1; }
  uint32_t out_w() const { return (W + 2 * padding - S) / stride + 1; }
  uint64_t macs() const { return uint64_t(N) * K * out_h() * out_w() * uint64_t(C) * R * S; }
  // Bytes of one input pixel (all C channels) in DRAM: C int8 bytes, or
  // ceil(C/b) packed words of b/8 bytes for a binary layer.
  uint64_t pixel_bytes() const {
    return is_binary() ? uint64_t(C + binary.bits - 1) / binary.bits * (binary.bits / 8) : C;
  }
  // DRAM bytes of the input and the weights (packed for a binary layer).
  uint64_t input_bytes() const { return uint64_t(N) * H * W * pixel_bytes(); }
  uint64_t weight_bytes() const { return uint64_t(K) * R * S * pixel_bytes(); }
  uint64_t output_bytes() const { return uint64_t(N) * out_h() * out_w() * K; }
};

struct NetworkConfig {
  std::string name;
  std::vector<LayerConfig> layers;
  // For layer i > 0: true when it consumes layer i-1's output tensor.
  std::vector<bool> chained;
};

// The format layer `l`'s store writes: its consumer's (the next layer when
// that one is chained to it), else its own: packed b bits for a binary
// consumer (or a binary layer's own output), 0 (int8, in output_layout) otherwise.
uint32_t output_bits_of(const NetworkConfig& net, size_t l);

// A file holding either one layer ({"type": "conv2d", ...}) or a network
// ({"layers": [...]}) becomes a NetworkConfig. Relative .npy paths resolve
// against the config file's folder. Throws ConfigError.
NetworkConfig parse_workload(const nlohmann::json& j, const std::string& file);
// load_workload also reads SCALE-Sim topology CSVs (a path ending in .csv;
// sim/config/scalesim_topology.h).
NetworkConfig load_workload(const std::string& path);
nlohmann::json to_json(const NetworkConfig& net);

// The requant shift "auto" resolves to: 7 + ceil(log2(C*R*S) / 2).
// Why: a product of two uniform random int8 values has a standard deviation of
// about 2^12.4, so a sum of C*R*S of them has about 2^12.4 * sqrt(C*R*S).
// Shifting by 7 + log2(sqrt(C*R*S)) brings that to about 2^5.4 (~43): outputs
// spread over the int8 range instead of all saturating or all rounding to zero.
uint32_t auto_requant_shift(uint64_t reduction_size);

// The embedded default workload (ResNet-18's convolution layers, batch 1).
NetworkConfig default_network();

}  // namespace npusim
