// The instruction set the compiler emits and the hardware executes: LOAD,
// COMPUTE and STORE instructions with explicit dependency fields (seed 004:
// "instructions carry dependency information produced by the compiler") and a
// stage count (the granularity at which an engine raises stage-end flags).
// AGU_INIT writes one register set of seed 001's address generator. The
// compiler makes every LOAD_INPUT of the layer depend on it (data), and the
// load engine stops a fetch whose layer no set holds or whose set is not
// written yet. Few LOAD_INPUTs use the generator, and only in functional
// runs: those of an NCHW int8 layer in im2col mode take each (row, channel)
// run's start from input_element, and those of a host_im2col or mec layer's
// first k-tile run the host's lowering, which walks its fetch stream. Every
// other LOAD_INPUT copies at offsets the load engine computes itself
// (models/layer_addressing.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// GCC's flow analysis warns, wrongly, about the copy of a small_vector's inline storage.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#include <boost/container/small_vector.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "sim/config/hardware_config.h"
#include "sim/graph/shared_values.h"
#include "sim/graph/workload.h"

namespace npusim {

// Each kernel's non-zero coefficient count (zero-skip, seed 002), one array for all the
// operators of a weight region.
using KernelCounts = SharedValues<uint32_t>;

// VECTOR runs one of the vector unit's operators (pooling, add, concat) over
// a range of output rows, reading its inputs from DRAM and writing its output back.
enum class Opcode : uint8_t { LoadParams, LoadWeights, LoadInput, Compute, Store, AguInit, Vector };
enum class EngineKind : uint8_t { Load, Compute, Store, Vector };

// Why an instruction waits for another: for its data in the cache, for buffer
// space the producer still uses (write-after-read), or for data in DRAM.
enum class DependencyKind : uint8_t { Data, BufferSpace, Memory };

struct Dependency {
  uint32_t producer = 0;
  DependencyKind kind = DependencyKind::Data;
};

// How a layer's kernels are laid out in DRAM (docs/zero-skip.md):
//  raw:     K x R x S x C int8, every coefficient, zeros included;
//  entries: seed 002's compressed stream: per kernel, per input channel c, a
//           count byte then that many 2-byte entries {int8 coefficient,
//           uint8 tap = r*S + s}; zero coefficients are left out.
enum class WeightFormat : uint8_t { Raw, Entries };
const char* to_string(WeightFormat f);

// Stream bytes of one kernel in `format` with `nonzeros` non-zero coefficients.
inline uint64_t kernel_stream_bytes(WeightFormat format, uint64_t R, uint64_t S, uint64_t C,
                                    uint64_t nonzeros) {
  return format == WeightFormat::Raw ? R * S * C : C + 2 * nonzeros;
}

// What the hardware knows about one layer (its "layer registers") plus where
// the compiler placed its tensors in DRAM.
struct LayerDescriptor {
  std::string name;
  uint32_t N = 1, C = 0, H = 0, W = 0, K = 0, R = 0, S = 0;
  uint32_t stride = 1, padding = 0, out_h = 0, out_w = 0;
  bool relu = true;
  uint32_t shift = 0;
  uint64_t input_address = 0;    // N,H,W,C int8
  uint64_t weights_address = 0;  // K,R,S,C int8
  uint64_t params_address = 0;   // K x {int32 bias, int32 scale}
  uint64_t output_address = 0;   // N,Ho,Wo,K int8
  // Cache plan for this layer (bytes): one weight tile, and per compute unit
  // two halves (or one when single-buffered), each holding the input rows of
  // a piece and its int32 results.
  uint32_t k_tile = 0;
  uint32_t rows_per_piece = 0;
  uint32_t rows_per_compute_stage = 0;
  // Column pieces (docs/tiling.md#column-pieces): 0, pieces of whole output
  // rows; else each piece is one output row cut along its width into
  // ceil(out_w / cols_per_piece) near-equal runs of columns, for a row too
  // wide for a half.
  uint32_t cols_per_piece = 0;
  uint64_t half_bytes = 0;
  uint64_t weight_region_bytes = 0;
  uint64_t params_region_bytes = 0;
  uint64_t vector_region_bytes = 0;  // the vector unit's (0: no vector operator in the network)
  // Its output (key-value cache blocks) lies in the cache's key-value region
  // (cache.kv_kib), not in DRAM: stored and read without the bus.
  bool output_on_chip = false;
  // The memory planner's placement (docs/memory-plan.md): the output stays in
  // the cache from its store to its last consumer's read, at resident_offset
  // bytes below the top of the cache's tile part, beside every live
  // operator's buffers; stored and read through the cache ports, never the bus.
  bool output_resident = false;
  uint64_t resident_offset = 0;
  // Weights kept on chip (docs/memory-plan.md#weights-kept-on-chip): the
  // layer's whole weight block (weight_block_bytes(), at weights_address)
  // has a home in the cache at weights_offset bytes below the top of the tile
  // part, from the first to the last operator that loads it. The first load of
  // each byte comes over the bus and is also written there; every later load
  // of it (another k-tile pass, a decode step sharing the weights) reads it
  // through the cache ports instead.
  bool weights_resident = false;
  uint64_t weights_offset = 0;
  // Whether the output is written to (and read from) the cache instead of DRAM.
  bool output_in_cache() const { return output_on_chip || output_resident; }
  // Compute units whose halves the partition sizes (half_bytes each); 0:
  // every unit of the hardware. The mapper may use fewer units with larger
  // halves (docs/mapping.md).
  uint32_t units = 0;
  // Weight slots (docs/tiling.md#weight-double-buffering): 1, one tile in the
  // whole weight region; 2, the region split into two slots of
  // weight_region_bytes / 2, weight tile t in slot t mod 2, so tile t + 1 may
  // load while tile t computes.
  uint32_t weight_buffers = 1;
  // Seed 004 rule 1's loop order of this layer (docs/scheduler.md#loop-orders):
  // weight-stationary, or feature-stationary (each piece's rows stay in its
  // half while every weight tile computes against them). Never `auto`.
  LoopOrder loop_order = LoopOrder::WeightStationary;
  // Input channel tiles (docs/tiling.md#input-channel-tiles): a grouped
  // convolution's load brings only the channels its k-tile's groups read, one
  // bus segment per pixel, so a piece needs k_tile / (K / groups) groups'
  // channels per pixel rather than all C.
  bool input_channel_tiles = false;
  // Kernel parts (docs/tiling.md#kernel-parts): 0, each kernel whole; else
  // the input channels are cut into parts of channels_per_part (the last may
  // be shorter) and a piece's sums build up over one compute per part, each
  // against that part's input channels and kernel coefficients.
  uint32_t channels_per_part = 0;
  // Index of the layer whose output this layer reads, or -1 for a fresh input.
  int32_t input_from_layer = -1;
  // Kernel stream (filled from the weights by the compiler): its format and
  // each kernel's non-zero count (empty: not known; every coefficient counts).
  WeightFormat weight_format = WeightFormat::Raw;
  KernelCounts kernel_nonzeros;  // shared by the operators of one weight region
  // Seed 001 input lowering (docs/address-generator.md). For host_im2col and
  // mec the host writes the lowered matrix at lowered_address (N images of
  // lowered_bytes_per_image()) and the load engine reads it from there.
  LoadAccess access = LoadAccess::Im2col;
  uint64_t lowered_address = 0;
  // Binary layer (seed 000, docs/binary.md): input and weights are +-1 packed
  // `bits` channels per word (input N(C/b)HWb, kernels per (k, r, s) ceil(C/b)
  // words), the array does XOR + popcount, the parameters are K x {int32
  // threshold, int32 flip} and `pad_mode` says what a tap outside the input adds.
  bool binary = false;
  uint32_t bits = 32;
  BinaryPadMode pad_mode = BinaryPadMode::Skip;
  // The format the store writes, which is the consumer's (docs/binary.md#mixed):
  // 0 = int8 NHWC; 32 or 64 = +-1 packed N(K/b)HWb with b = output_bits.
  uint32_t output_bits = 0;
  // Seed 001 layouts of the int8 tensors in DRAM (docs/address-generator.md#layouts):
  // the load engine reads the input in input_layout (an NCHW one with the
  // address generator's addresses), the store writes an int8 output
  // (output_bits 0) in output_layout. A chained layer's input_layout is its
  // producer's output_layout.
  TensorLayout input_layout = TensorLayout::Nhwc;
  TensorLayout output_layout = TensorLayout::Nhwc;
  // Graph operators (docs/graphs.md): the operator, its general geometry
  // (read through col_stride(), pad_l(), ... of workload_config.h), groups,
  // and its quantised arithmetic: zero points, the fused output range, and
  // per output channel the float32 requantisation multiplier
  // x_scale * w_scale[k] / y_scale (the parameter bank holds {bias, multiplier bits}).
  OpKind op = OpKind::Conv;
  bool quantized = false;
  std::optional<LayerConfig::Geometry> general;
  uint32_t conv_groups = 1;  // convolution groups (groups() counts packed binary words)
  OpQuant quant;
  bool ceil_mode = false, count_include_pad = false;
  std::vector<uint32_t> gather_channels;  // gather: input channel of each output channel
  // resize: the float32 scales of rows and columns (out_h and out_w the
  // output size; sim/program/resize_taps.h), and how it fills them.
  float resize_scale_h = 1, resize_scale_w = 1;
  ResizeMode resize_mode = ResizeMode::Nearest;
  ResizeCoordinates resize_coordinates = ResizeCoordinates::HalfPixel;
  ResizeRounding resize_rounding = ResizeRounding::RoundPreferFloor;
  float resize_cubic_a = -0.75f;        // cubic: cubic_coeff_a
  bool resize_exclude_outside = false;  // cubic: exclude_outside
  SequenceAttrs seq;                    // transformer operators (docs/transformers.md)
  // How the store requantises (the hardware's store.requantiser, a layer register).
  Requantiser requantiser = Requantiser::Float32;
  // The second and later inputs of add, concat and mul: where they lie in DRAM
  // and which operator stores them (-1: a graph input).
  struct MoreInput {
    uint64_t address = 0;
    int32_t from_layer = -1;
    uint32_t C = 0;
    uint32_t rows = 0;  // its N*H*W pixels (batch_matmul: a block of tokens)
  };
  std::vector<MoreInput> more_inputs;
  // Whether more_inputs[i] is one pixel per image that every pixel of the
  // first input reads: mul's per-channel operand ([N, C, 1, 1], squeeze-
  // excitation's scale). Its image n is C bytes, the single row n of its producer.
  bool per_channel_input(size_t i) const {
    return op == OpKind::Mul && more_inputs[i].rows == N && uint64_t(H) * W > 1;
  }

  // Channels one kernel reads (C / groups) and its coefficients.
  uint32_t group_channels() const { return C / conv_groups; }
  uint64_t kernel_coefficients() const { return uint64_t(R) * S * group_channels(); }
  // Bytes of one output element: 4 for raw int32 outputs, else 1.
  uint32_t output_element_bytes() const {
    return quantized && quant.output.type == QuantType::Int32 ? 4 : 1;
  }
  // The byte the load engine pads with: the input zero point (0 for plain layers).
  int8_t pad_byte() const {
    return quantized && !quant.inputs.empty() ? int8_t(quant.inputs[0].zero_point) : int8_t(0);
  }

  uint64_t kernel_bytes(uint32_t k) const {
    if (binary) return uint64_t(R) * S * pixel_bytes();
    const uint64_t dense = kernel_coefficients();
    return kernel_stream_bytes(weight_format, R, S, group_channels(),
                               kernel_nonzeros.empty() ? dense : kernel_nonzeros[k]);
  }
  // DRAM offset of kernel k's stream from weights_address (kernels are packed).
  uint64_t kernel_offset(uint32_t k) const;

  // Packed words per input pixel (binary layers).
  uint32_t groups() const { return (C + bits - 1) / bits; }
  // Bytes of one input pixel in DRAM and in the cache: C, or the packed words.
  uint64_t pixel_bytes() const { return binary ? uint64_t(groups()) * (bits / 8) : C; }
  // Bytes of one output pixel (all K channels) as the store writes it.
  uint64_t output_pixel_bytes() const {
    return output_bits == 0 ? uint64_t(K) * output_element_bytes()
                            : uint64_t(K + output_bits - 1) / output_bits * (output_bits / 8);
  }
  uint64_t output_bytes() const { return uint64_t(N) * out_h * out_w * output_pixel_bytes(); }
  // Bytes of the layer's weights in DRAM: every kernel's stream, packed.
  uint64_t weight_block_bytes() const { return kernel_offset(K); }
  uint32_t padded_w() const { return W + pad_l(*this) + pad_r(*this); }
  uint64_t params_bytes() const { return uint64_t(K) * 8; }
  // im2col: OH*OW rows of R*S*C; MEC: OW strips of Hp*S*C; 0 on the fly.
  uint64_t lowered_bytes_per_image() const;
  // Bytes of one row of an input tile in the cache: a padded input row
  // (im2col), a padded input row across the OW MEC strips (S*C each), or one
  // output row's OW im2col rows (host_im2col).
  uint64_t tile_row_bytes() const;
  // The input channels in the tile of kernels [k_begin, k_begin + k_count):
  // the first, and the bytes of one pixel (pixel_bytes() unless input_channel_tiles).
  uint32_t tile_channel_begin(uint32_t k_begin) const {
    return input_channel_tiles ? k_begin / (K / conv_groups) * group_channels() : 0;
  }
  uint64_t tile_pixel_bytes(uint32_t k_count) const {
    return input_channel_tiles ? uint64_t(k_count) / (K / conv_groups) * group_channels()
                               : pixel_bytes();
  }
  // tile_row_bytes() for the tile of k_count kernels.
  uint64_t tile_row_bytes(uint32_t k_count) const {
    return input_channel_tiles ? padded_w() * tile_pixel_bytes(k_count) : tile_row_bytes();
  }
  // Parts the input channels are cut into: 1 with whole kernels.
  uint32_t kernel_parts() const {
    return channels_per_part == 0 ? 1 : (C + channels_per_part - 1) / channels_per_part;
  }
  // Runs of columns each output row is cut into: 1 for pieces of whole rows.
  uint32_t column_runs() const {
    return cols_per_piece == 0 ? 1 : (out_w + cols_per_piece - 1) / cols_per_piece;
  }
  // The weight slot a LoadWeights or Compute of kernels from k_begin uses:
  // its tile's index (k_begin / k_tile) modulo weight_buffers.
  uint32_t weight_slot(uint32_t k_begin) const {
    return weight_buffers < 2 || k_tile == 0 ? 0 : (k_begin / k_tile) % weight_buffers;
  }
};

// The layer registers of operator `l` that follow from the workload and the
// hardware alone: name, shape and geometry, the graph operator and its
// quantisation, the array's access mode, formats and layouts, and which
// operators produce its inputs. The compiler adds the cache plan and the DRAM
// placement; a program file's graph operator lines are read on top of it
// (trace_io.h), so those lines carry only what a compiler chooses.
LayerDescriptor describe_operator(const NetworkConfig& net, size_t l, const HardwareConfig& hw);

// The loop order hw's compiler.loop_order gives an operator `op` before any
// per-layer choice: feature-stationary when it says so (batch_matmul's loops
// are its own, weight-stationary), else weight-stationary (`auto` included).
// A program line without "loop_order" takes it too.
LoopOrder default_loop_order(const HardwareConfig& hw, OpKind op);

// The float32 requantisation multiplier of output channel k of a graph
// operator, evaluated as ONNX Runtime does: (x_scale * w_scale[k]) / y_scale.
inline float requant_multiplier(const OpQuant& q, uint32_t k) {
  return q.inputs[0].scale * q.weight_scale_of(k) / q.output.scale;
}

// store.requantiser fixed_point: the multiplier m as scale / 2^shift with a
// 16-bit scale (the integer requantiser of plain layers), choosing the
// largest shift in 0..47 with round(m * 2^shift) <= 65535 (round half away
// from zero; a multiplier of 65535.5 or more saturates at scale 65535, shift 0).
// The store then computes (acc * scale + 2^(shift-1)) >> shift + zp, i.e.
// rounds half up, and clamps. In the parameter bank: scale | shift << 16.
struct FixedPointMultiplier {
  uint32_t scale = 0;
  uint32_t shift = 0;
  int32_t packed() const { return int32_t(scale | shift << 16); }
};
FixedPointMultiplier fixed_point_multiplier(float m);

// The address generator's initialisation registers for one layer (seed 001:
// input x/y size, components, memory stride, component depth, filters, filter
// x/y size, stride, padding, input and output base addresses, and the
// tensor layouts), in the order an AGU_INIT writes them. Derived from the
// layer, never set independently.
struct AguRegister {
  const char* name;
  uint64_t value;
};
std::vector<AguRegister> agu_registers(const LayerDescriptor& layer);
// The "layouts" register: input code | output code << 4, with codes 0 NHWC,
// 1 NCHW, 2 packed N(C/32)HW32, 3 packed N(C/64)HW64.
uint64_t layouts_register(const LayerDescriptor& layer);

struct Instruction {
  uint32_t id = 0;
  Opcode op = Opcode::Compute;
  uint32_t layer = 0;
  uint32_t unit = 0;   // compute unit whose buffers it uses
  uint32_t half = 0;   // ping-pong half (LoadParams: parameter bank; AguInit: register set)
  uint32_t batch = 0;  // image n
  uint32_t k_begin = 0, k_end = 0;              // output channels
  uint32_t out_row_begin = 0, out_row_end = 0;  // output rows
  // A column piece's output columns (docs/tiling.md#column-pieces); 0, 0:
  // whole rows.
  uint32_t out_col_begin = 0, out_col_end = 0;
  uint32_t stages = 1;
  // A kernel part's input channels (docs/tiling.md#kernel-parts), on the
  // weight load, input load and compute of a layer of kernel parts; 0, 0:
  // every channel.
  uint32_t channel_begin = 0, channel_end = 0;
  // Held in place up to kInlineDeps (nine in ten instructions of a decoder have at most four;
  // one heap block each was most of a large program's allocations), beyond that on the heap.
  static constexpr size_t kInlineDeps = 4;
  boost::container::small_vector<Dependency, kInlineDeps> deps;

  Instruction() = default;
  Instruction(const Instruction&) = default;
  Instruction& operator=(const Instruction&) = default;
  // noexcept, though small_vector's move does not say so for Dependency: a growing vector of
  // instructions moves them instead of copying.
  Instruction(Instruction&&) noexcept = default;
  Instruction& operator=(Instruction&&) noexcept = default;

  EngineKind engine() const;
  uint32_t k_count() const { return k_end - k_begin; }
  uint32_t row_count() const { return out_row_end - out_row_begin; }
  bool column_piece() const { return out_col_end != 0; }
  bool kernel_part() const { return channel_end != 0; }
  uint32_t channel_count() const { return channel_end - channel_begin; }
};

static_assert(std::is_nothrow_move_constructible_v<Instruction>);

// The weight slot a LoadWeights or Compute uses: its weight tile's index
// modulo the layer's weight_buffers, or with kernel parts its part's (the
// parts of one tile stream through the slots in turn).
inline uint32_t weight_slot(const LayerDescriptor& L, const Instruction& in) {
  if (in.kernel_part() && L.weight_buffers > 1 && L.channels_per_part != 0)
    return (in.channel_begin / L.channels_per_part) % L.weight_buffers;
  return L.weight_slot(in.k_begin);
}

// The output columns an instruction covers: its column piece's, or every one.
struct ColRange {
  uint32_t begin = 0, end = 0;
  uint32_t count() const { return end - begin; }
};
inline ColRange output_cols(const Instruction& in, const LayerDescriptor& L) {
  return in.column_piece() ? ColRange{in.out_col_begin, in.out_col_end} : ColRange{0, L.out_w};
}

// Column pieces (docs/tiling.md#column-pieces). A piece of output columns
// [c0, c1) reads the padded input columns [c0 * col_stride, + window); its
// tile rows hold exactly those, padding included, so the array sees a layer
// `column_view` of the same rows whose padded width is that window and whose
// out_w is c1 - c0. Every engine computes a column piece on that view.
struct PaddedCols {
  uint64_t begin = 0, width = 0;
};
PaddedCols padded_cols_for(const LayerDescriptor& layer, uint32_t col_begin, uint32_t col_end);
LayerDescriptor column_view(const LayerDescriptor& layer, uint32_t col_begin, uint32_t col_end);
// Kernel parts: the layer as a part of channels [c_begin, c_end) sees it, a
// layer of c_end - c_begin input channels (and no parts), whose input tile and
// kernels are the part's (docs/tiling.md#kernel-parts).
LayerDescriptor kernel_part_view(const LayerDescriptor& layer, uint32_t c_begin, uint32_t c_end);
// The layer as instruction `in` sees it: its column_view, made in `view`, for
// a column piece, its kernel_part_view for a kernel part; else `layer` itself
// (no copy).
const LayerDescriptor& layer_seen_by(const Instruction& in, const LayerDescriptor& layer,
                                     std::optional<LayerDescriptor>& view);
// The same without a copy per instruction: the views a run of instructions
// sees (a layer's kernel parts and column pieces come again and again) are
// made once and shared. `hold` keeps the returned view alive while the
// caller uses it, even across a wait in which another engine thread asks for
// other views. The layers must not change while the cache is in use.
class LayerViews {
 public:
  const LayerDescriptor& seen_by(const Instruction& in, const LayerDescriptor& layer,
                                 std::shared_ptr<const LayerDescriptor>& hold);

 private:
  // By layer, kind (kernel part or column piece) and range.
  using Key = std::tuple<const LayerDescriptor*, bool, uint32_t, uint32_t>;
  std::map<Key, std::shared_ptr<const LayerDescriptor>> views_;
};
// Why `layer` cannot be cut into column pieces ("" when it can): the load
// engine cuts NHWC int8 rows read through im2col, and the store writes NHWC.
std::string column_pieces_unsupported(const LayerDescriptor& layer);
// Why `layer` cannot have kernel parts ("" when it can): int8 kernels of one
// group, streamed raw, over NHWC rows read through im2col in whole-row pieces,
// weight-stationary, on the lockstep array.
std::string kernel_parts_unsupported(const LayerDescriptor& layer);

struct Program {
  std::vector<LayerDescriptor> layers;
  std::vector<Instruction> instructions;        // in program order; id == index
  uint64_t dram_bytes = 0;                      // size of the DRAM image
  std::vector<uint64_t> graph_input_addresses;  // a graph's input tensors (NHWC)
};

const char* to_string(Opcode op);
const char* to_string(EngineKind e);
const char* to_string(DependencyKind k);
// "#12 compute L3 unit0 half1 k[0,64) rows[0,14)" (a column piece adds
// "cols[0,480)") — used in every error message.
std::string describe(const Instruction& in, const Program& p);

// Input rows (in unpadded coordinates, may be < 0 or >= H: padding) that output
// rows [row_begin, row_end) of `layer` read.
struct RowRange {
  int64_t begin = 0, end = 0;
  int64_t count() const { return end - begin; }
};
RowRange input_rows_for(const LayerDescriptor& layer, uint32_t row_begin, uint32_t row_end);

// Rows of a tensor counted across its images, image * rows_per_image + row:
// the same bytes whichever view [N, C, H, 1] an operator takes of the tensor
// (a batched matmul is one image of N*H rows, docs/tiling.md#batched-matmuls).
struct GlobalRows {
  uint64_t begin = 0, end = 0;
  bool overlaps(const GlobalRows& o) const { return begin < o.end && o.begin < end; }
};
// Rows `rows` (clamped to [0, rows_per_image): padding rows are no tensor
// rows) of image `image`.
GlobalRows global_rows(uint32_t image, uint32_t rows_per_image, RowRange rows);
// The rows of the input tile holding what output rows [row_begin, row_end)
// read: input rows (im2col, mec) or the output rows themselves (host_im2col).
RowRange tile_rows_for(const LayerDescriptor& layer, uint32_t row_begin, uint32_t row_end);

// Output rows handled by stage `s` of an instruction covering rows
// [in.out_row_begin, in.out_row_end) split into in.stages near-equal stages.
RowRange stage_rows(const Instruction& in, uint32_t stage);

// Structural checks: ids match positions, dependencies point to earlier
// instructions, fields are in range for their layer. Throws std::runtime_error
// describing the first problem.
void validate_program(const Program& p);
// Part of validate_program: every output row of every layer gets each of its K
// channels from exactly one store (array operators) or vector instruction; a
// deleted or duplicated store is an error (issue 21, item 11).
void validate_outputs_written(const Program& p);

}  // namespace npusim
