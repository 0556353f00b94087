#include "sim/program/program.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "sim/program/batch_rows.h"
#include "sim/program/resize_taps.h"

namespace npusim {

EngineKind Instruction::engine() const {
  switch (op) {
    case Opcode::LoadParams:
    case Opcode::LoadWeights:
    case Opcode::LoadInput:
    case Opcode::AguInit:
      return EngineKind::Load;
    case Opcode::Compute:
      return EngineKind::Compute;
    case Opcode::Store:
      return EngineKind::Store;
    case Opcode::Vector:
      return EngineKind::Vector;
  }
  return EngineKind::Load;
}

const char* to_string(Opcode op) {
  switch (op) {
    case Opcode::LoadParams:
      return "load_params";
    case Opcode::LoadWeights:
      return "load_weights";
    case Opcode::LoadInput:
      return "load_input";
    case Opcode::Compute:
      return "compute";
    case Opcode::Store:
      return "store";
    case Opcode::AguInit:
      return "agu_init";
    case Opcode::Vector:
      return "vector";
  }
  return "?";
}

FixedPointMultiplier fixed_point_multiplier(float m) {
  FixedPointMultiplier f;
  for (uint32_t shift = 47;; --shift) {
    const double scaled = std::round(double(m) * std::ldexp(1.0, int(shift)));
    if (scaled <= 65535.0 || shift == 0) {
      f.scale = uint32_t(std::min(scaled, 65535.0));
      f.shift = shift;
      return f;
    }
  }
}

uint64_t layouts_register(const LayerDescriptor& L) {
  const auto code = [](bool packed, uint32_t bits, TensorLayout layout) -> uint64_t {
    if (packed) return bits == 64 ? 3 : 2;
    return layout == TensorLayout::Nchw ? 1 : 0;
  };
  return code(L.binary, L.bits, L.input_layout) |
         code(L.output_bits != 0, L.output_bits, L.output_layout) << 4;
}

std::vector<AguRegister> agu_registers(const LayerDescriptor& L) {
  // NCHW rows are W components of one channel plane; NHWC rows hold all C.
  const bool planar = !L.binary && L.input_layout == TensorLayout::Nchw;
  std::vector<AguRegister> regs = {{"input_w", L.W},
                                   {"input_h", L.H},
                                   {"channels", L.C},
                                   {"row_stride", uint64_t(L.W) * (planar ? 1 : L.pixel_bytes())},
                                   {"element_bits", L.binary ? 1u : 8u},
                                   {"filters", L.K},
                                   {"filter_w", L.S},
                                   {"filter_h", L.R},
                                   {"stride", L.stride},
                                   {"padding", L.padding},
                                   {"input_base", L.input_address},
                                   {"output_base", L.output_address},
                                   {"layouts", layouts_register(L)}};
  // Graph operators add their general geometry and the padding value (the
  // input zero point); plain layers keep the 13 registers above.
  if (L.quantized)
    for (const AguRegister& r : std::vector<AguRegister>{{"stride_w", col_stride(L)},
                                                         {"pad_left", pad_l(L)},
                                                         {"pad_bottom", pad_b(L)},
                                                         {"pad_right", pad_r(L)},
                                                         {"dilation_h", dil_h(L)},
                                                         {"dilation_w", dil_w(L)},
                                                         {"groups", L.conv_groups},
                                                         {"pad_value", uint8_t(L.pad_byte())}})
      regs.push_back(r);
  return regs;
}

const char* to_string(EngineKind e) {
  switch (e) {
    case EngineKind::Load:
      return "load";
    case EngineKind::Compute:
      return "compute";
    case EngineKind::Store:
      return "store";
    case EngineKind::Vector:
      return "vector";
  }
  return "?";
}

const char* to_string(WeightFormat f) { return f == WeightFormat::Raw ? "raw" : "entries"; }

LoopOrder default_loop_order(const HardwareConfig& hw, OpKind op) {
  return hw.loop_order == LoopOrder::FeatureStationary && op != OpKind::BatchMatMul
             ? LoopOrder::FeatureStationary
             : LoopOrder::WeightStationary;
}

LayerDescriptor describe_operator(const NetworkConfig& net, size_t l, const HardwareConfig& hw) {
  const LayerConfig& L = net.layers[l];
  const ProgramImages images = program_images(L);  // a batched matmul: one image of rows
  LayerDescriptor d;
  d.name = L.name;
  d.N = images.N, d.C = L.C, d.H = images.H, d.W = L.W, d.K = L.K, d.R = L.R, d.S = L.S;
  d.stride = L.stride, d.padding = L.padding, d.out_h = images.out_h, d.out_w = L.out_w();
  d.relu = L.relu;
  d.op = L.op;
  d.quantized = L.quantized;
  d.general = L.general;
  d.conv_groups = L.groups;
  d.quant = L.quant;
  d.ceil_mode = L.ceil_mode;
  d.count_include_pad = L.count_include_pad;
  d.gather_channels = L.gather_channels;
  d.resize_scale_h = L.resize_scale_h, d.resize_scale_w = L.resize_scale_w;
  d.resize_mode = L.resize_mode, d.resize_coordinates = L.resize_coordinates;
  d.resize_rounding = L.resize_rounding;
  d.resize_cubic_a = L.resize_cubic_a, d.resize_exclude_outside = L.resize_exclude_outside;
  d.seq = L.seq;
  if (runs_on_array(L.op)) {
    d.shift = L.requant.shift;
    // Binary layers load their packed rows on the fly (docs/binary.md).
    d.access = L.access_on(hw);
    d.binary = L.is_binary();
    d.bits = L.binary.bits;
    d.pad_mode = L.binary.padding;
    d.input_layout = L.input_layout;
    d.output_layout = L.output_layout;
    d.requantiser = hw.requantiser;
    d.output_bits = output_bits_of(net, l);
    d.loop_order = default_loop_order(hw, L.op);
  }
  if (!net.is_graph()) {
    d.input_from_layer = l > 0 && net.chained[l] ? int32_t(l - 1) : -1;
    return d;
  }
  const std::vector<TensorSource>& sources = net.sources[l];
  d.input_from_layer = sources[0].op;
  for (size_t i = 1; i < sources.size(); ++i) {
    const TensorSource& s = sources[i];
    const uint32_t C =
        s.op >= 0 ? net.layers[size_t(s.op)].K : net.graph_inputs[size_t(s.graph_input)].C;
    const uint32_t rows = s.op >= 0
                              ? net.layers[size_t(s.op)].N * net.layers[size_t(s.op)].out_h() *
                                    net.layers[size_t(s.op)].out_w()
                              : net.graph_inputs[size_t(s.graph_input)].N *
                                    net.graph_inputs[size_t(s.graph_input)].H *
                                    net.graph_inputs[size_t(s.graph_input)].W;
    d.more_inputs.push_back({0, s.op, C, rows});
  }
  return d;
}

uint64_t LayerDescriptor::kernel_offset(uint32_t k) const {
  if (weight_format == WeightFormat::Raw) return uint64_t(k) * kernel_bytes(0);
  uint64_t offset = 0;
  for (uint32_t i = 0; i < k; ++i) offset += kernel_bytes(i);
  return offset;
}

const char* to_string(DependencyKind k) {
  switch (k) {
    case DependencyKind::Data:
      return "data";
    case DependencyKind::BufferSpace:
      return "buffer_space";
    case DependencyKind::Memory:
      return "memory";
  }
  return "?";
}

std::string describe(const Instruction& in, const Program& p) {
  std::ostringstream s;
  s << '#' << in.id << ' ' << to_string(in.op);
  if (in.layer < p.layers.size()) s << " layer " << p.layers[in.layer].name;
  if (in.op == Opcode::AguInit) return s.str() + " set" + std::to_string(in.half);
  if (in.op != Opcode::LoadParams)
    s << " unit" << in.unit << " half" << in.half << " n" << in.batch << " k[" << in.k_begin << ','
      << in.k_end << ')';
  else if (in.layer < p.layers.size() && (in.k_begin != 0 || in.k_end != p.layers[in.layer].K))
    s << " bank" << in.half << " k[" << in.k_begin << ',' << in.k_end << ')';  // one tile's
  if (in.op != Opcode::LoadParams && in.op != Opcode::LoadWeights)
    s << " rows[" << in.out_row_begin << ',' << in.out_row_end << ')';
  if (in.column_piece()) s << " cols[" << in.out_col_begin << ',' << in.out_col_end << ')';
  if (in.kernel_part()) s << " channels[" << in.channel_begin << ',' << in.channel_end << ')';
  return s.str();
}

PaddedCols padded_cols_for(const LayerDescriptor& layer, uint32_t col_begin, uint32_t col_end) {
  const uint64_t stride = col_stride(layer);
  return {uint64_t(col_begin) * stride,
          uint64_t(col_end - col_begin - 1) * stride + window_w(layer)};
}

LayerDescriptor column_view(const LayerDescriptor& layer, uint32_t col_begin, uint32_t col_end) {
  LayerDescriptor view = layer;
  const uint64_t window = padded_cols_for(layer, col_begin, col_end).width;
  // The padding stays as it is (rows use it); the width makes the padded
  // width the window (column_pieces_unsupported checked window >= padding).
  view.W = uint32_t(window - pad_l(layer) - pad_r(layer));
  view.out_w = col_end - col_begin;
  return view;
}

LayerDescriptor kernel_part_view(const LayerDescriptor& layer, uint32_t c_begin, uint32_t c_end) {
  LayerDescriptor view = layer;
  view.C = c_end - c_begin;
  view.channels_per_part = 0;
  return view;
}

const LayerDescriptor& layer_seen_by(const Instruction& in, const LayerDescriptor& layer,
                                     std::optional<LayerDescriptor>& view) {
  if (in.kernel_part()) {
    view = kernel_part_view(layer, in.channel_begin, in.channel_end);
    return *view;
  }
  if (!in.column_piece()) return layer;
  view = column_view(layer, in.out_col_begin, in.out_col_end);
  return *view;
}

const LayerDescriptor& LayerViews::seen_by(const Instruction& in, const LayerDescriptor& layer,
                                           std::shared_ptr<const LayerDescriptor>& hold) {
  const bool part = in.kernel_part();
  if (!part && !in.column_piece()) return layer;
  const Key key{&layer, part, part ? in.channel_begin : in.out_col_begin,
                part ? in.channel_end : in.out_col_end};
  auto it = views_.find(key);
  if (it == views_.end()) {
    // A bounded cache: the views held by callers outlive a clear.
    constexpr size_t kMaxViews = 64;
    if (views_.size() >= kMaxViews) views_.clear();
    std::optional<LayerDescriptor> view;
    layer_seen_by(in, layer, view);
    it = views_.emplace(key, std::make_shared<const LayerDescriptor>(std::move(*view))).first;
  }
  hold = it->second;
  return *hold;
}

std::string kernel_parts_unsupported(const LayerDescriptor& L) {
  if (!runs_on_array(L.op) || L.op == OpKind::BatchMatMul)
    return "kernel parts are for convolutions and matmuls with weights";
  if (L.binary) return "kernel parts are not built for binary layers";
  if (L.conv_groups != 1) return "kernel parts need one group";
  if (L.access != LoadAccess::Im2col) return "kernel parts need im2col access";
  if (L.input_layout != TensorLayout::Nhwc) return "kernel parts need an NHWC input";
  if (L.input_channel_tiles) return "kernel parts exclude input_channel_tiles";
  if (L.cols_per_piece != 0) return "kernel parts need pieces of whole rows";
  if (L.loop_order != LoopOrder::WeightStationary) return "kernel parts are weight-stationary";
  if (L.weight_format != WeightFormat::Raw) return "kernel parts stream raw kernels";
  return "";
}

std::string column_pieces_unsupported(const LayerDescriptor& L) {
  if (!runs_on_array(L.op) || L.op == OpKind::BatchMatMul || L.op == OpKind::MatMul)
    return "column pieces are for convolutions";
  if (L.binary) return "column pieces are not built for binary layers";
  if (L.access != LoadAccess::Im2col) return "column pieces need im2col access";
  if (L.input_layout != TensorLayout::Nhwc) return "column pieces need an NHWC input";
  if (L.output_bits != 0 || L.output_layout != TensorLayout::Nhwc)
    return "column pieces need an int8 NHWC output";
  if (L.input_channel_tiles) return "column pieces hold every input channel";
  if (window_w(L) < uint64_t(pad_l(L)) + pad_r(L))
    return "the left and right padding exceed one output column's input window";
  return "";
}

GlobalRows global_rows(uint32_t image, uint32_t rows_per_image, RowRange rows) {
  const int64_t begin = std::clamp<int64_t>(rows.begin, 0, rows_per_image);
  const int64_t end = std::clamp<int64_t>(rows.end, begin, rows_per_image);
  const uint64_t first = uint64_t(image) * rows_per_image;
  return {first + uint64_t(begin), first + uint64_t(end)};
}

RowRange input_rows_for(const LayerDescriptor& layer, uint32_t row_begin, uint32_t row_end) {
  if (layer.op == OpKind::Resize) {  // the taps of the first and last rows (they only grow)
    const ResizeAxis rows{layer.H, layer.out_h, layer.resize_scale_h};
    const ResizeCoordinates c = layer.resize_coordinates;
    switch (layer.resize_mode) {
      case ResizeMode::Linear:
        return RowRange{linear_tap(c, rows, row_begin).lo,
                        int64_t(linear_tap(c, rows, row_end - 1).hi) + 1};
      case ResizeMode::Cubic: {
        const float a = layer.resize_cubic_a;
        const bool exclude = layer.resize_exclude_outside;
        return RowRange{cubic_tap(c, rows, a, exclude, row_begin).index[0],
                        int64_t(cubic_tap(c, rows, a, exclude, row_end - 1).index[3]) + 1};
      }
      case ResizeMode::Nearest:
        break;
    }
    return RowRange{nearest_tap(c, layer.resize_rounding, rows, row_begin),
                    int64_t(nearest_tap(c, layer.resize_rounding, rows, row_end - 1)) + 1};
  }
  RowRange r;
  r.begin = int64_t(row_begin) * layer.stride - layer.padding;
  r.end = int64_t(row_end - 1) * layer.stride - layer.padding + window_h(layer);
  return r;
}

RowRange tile_rows_for(const LayerDescriptor& layer, uint32_t row_begin, uint32_t row_end) {
  if (layer.access == LoadAccess::HostIm2col) return RowRange{row_begin, row_end};
  return input_rows_for(layer, row_begin, row_end);
}

uint64_t LayerDescriptor::lowered_bytes_per_image() const {
  const uint64_t SC = uint64_t(S) * C;
  switch (access) {
    case LoadAccess::HostIm2col:
      return uint64_t(out_h) * out_w * R * SC;
    case LoadAccess::Mec:
      return uint64_t(out_w) * (H + 2 * padding) * SC;
    case LoadAccess::Im2col:
      break;
  }
  return 0;
}

uint64_t LayerDescriptor::tile_row_bytes() const {
  const uint64_t SC = uint64_t(S) * C;
  switch (access) {
    case LoadAccess::HostIm2col:
      return uint64_t(out_w) * R * SC;
    case LoadAccess::Mec:
      return uint64_t(out_w) * SC;
    case LoadAccess::Im2col:
      break;
  }
  return uint64_t(padded_w()) * pixel_bytes();
}

RowRange stage_rows(const Instruction& in, uint32_t stage) {
  const uint32_t rows = in.row_count();
  const uint32_t per = (rows + in.stages - 1) / in.stages;
  RowRange r;
  r.begin = in.out_row_begin + std::min<uint64_t>(uint64_t(stage) * per, rows);
  r.end = in.out_row_begin + std::min<uint64_t>(uint64_t(stage + 1) * per, rows);
  return r;
}

void validate_program(const Program& p) {
  auto fail = [&](const Instruction& in, const std::string& why) {
    throw std::runtime_error("bad program: instruction " + describe(in, p) + ": " + why);
  };
  for (size_t i = 0; i < p.instructions.size(); ++i) {
    const Instruction& in = p.instructions[i];
    if (in.id != i) fail(in, "id " + std::to_string(in.id) + " at position " + std::to_string(i));
    if (in.layer >= p.layers.size()) fail(in, "layer index out of range");
    const LayerDescriptor& L = p.layers[in.layer];
    if (in.stages == 0) fail(in, "stages must be >= 1");
    // A LoadParams covers its layer's channels, or one weight tile's.
    if (in.k_begin >= in.k_end || in.k_end > L.K) fail(in, "channel range outside [0, K)");
    if (in.op == Opcode::LoadParams && in.half > 1) fail(in, "parameter bank must be 0 or 1");
    if (in.op != Opcode::LoadParams) {
      if (in.batch >= L.N) fail(in, "batch index outside [0, N)");
      if (in.half > 1)
        fail(in, in.op == Opcode::AguInit ? "register set must be 0 or 1" : "half must be 0 or 1");
    }
    if (runs_on_array(L.op) == (in.op == Opcode::Vector))
      fail(in, in.op == Opcode::Vector ? "a vector instruction on an array operator"
                                       : "an array instruction on a vector-unit operator");
    if (in.op == Opcode::LoadInput || in.op == Opcode::Compute || in.op == Opcode::Store ||
        in.op == Opcode::Vector) {
      if (in.out_row_begin >= in.out_row_end || in.out_row_end > L.out_h)
        fail(in, "output rows outside [0, out_h)");
      if (in.column_piece()) {
        if (in.op == Opcode::Vector) fail(in, "a vector instruction with output columns");
        if (in.out_col_begin >= in.out_col_end || in.out_col_end > L.out_w)
          fail(in, "output columns outside [0, out_w)");
        if (in.row_count() != 1) fail(in, "a column piece covers one output row");
        const std::string why = column_pieces_unsupported(L);
        if (!why.empty()) fail(in, why);
      }
      if (in.stages > in.row_count()) fail(in, "more stages than output rows");
      const uint32_t per_stage = (in.row_count() + in.stages - 1) / in.stages;
      if (per_stage * (in.stages - 1) >= in.row_count())
        fail(in, std::to_string(in.stages) + " stages over " + std::to_string(in.row_count()) +
                     " rows leave a stage empty (stages split rows ceil(rows/stages) at a time)");
    }
    // Kernel parts: a layer's weight loads, input loads and computes each
    // take one part of its channels; no other instruction takes any.
    const bool part_op =
        in.op == Opcode::LoadWeights || in.op == Opcode::LoadInput || in.op == Opcode::Compute;
    if (in.kernel_part() && (!part_op || L.channels_per_part == 0))
      fail(in, L.channels_per_part == 0
                   ? "input channels on a layer without kernel parts (channels_per_part)"
                   : "input channels on an instruction that takes every channel");
    if (part_op && L.channels_per_part != 0) {
      if (!in.kernel_part())
        fail(in, "no input channels, but its layer has kernel parts of " +
                     std::to_string(L.channels_per_part) + " channels");
      const uint32_t part_end = std::min(L.C, in.channel_begin + L.channels_per_part);
      if (in.channel_begin % L.channels_per_part != 0 || in.channel_end != part_end)
        fail(in, "input channels [" + std::to_string(in.channel_begin) + ", " +
                     std::to_string(in.channel_end) + ") are not one of the layer's parts of " +
                     std::to_string(L.channels_per_part) + " channels");
      const std::string why = kernel_parts_unsupported(L);
      if (!why.empty()) fail(in, why);
    }
    for (const Dependency& d : in.deps) {
      if (d.producer >= in.id)
        fail(in, "depends on #" + std::to_string(d.producer) +
                     ", which is not an earlier instruction (dependencies must point backwards)");
    }
  }
  validate_outputs_written(p);
}

void validate_outputs_written(const Program& p) {
  // The store (array operators) and vector instructions of each layer, in
  // program order: a counting sort of their ids by layer, so each layer is
  // checked on its own with buffers the size of its largest.
  std::vector<uint32_t> first(p.layers.size() + 1, 0);
  for (const Instruction& in : p.instructions)
    if (in.op == Opcode::Store || in.op == Opcode::Vector) ++first[in.layer + 1];
  for (size_t l = 0; l < p.layers.size(); ++l) first[l + 1] += first[l];
  std::vector<uint32_t> writers(first.back());
  {
    std::vector<uint32_t> next(first.begin(), first.end() - 1);
    for (const Instruction& in : p.instructions)
      if (in.op == Opcode::Store || in.op == Opcode::Vector) writers[next[in.layer]++] = in.id;
  }
  // Channels written per output row (N * out_h counters, as the DRAM model
  // keeps), counted in channel-columns: a store writes k_count channels of
  // each row it covers, a column piece part of a row.
  std::vector<uint64_t> channels;
  for (size_t l = 0; l < p.layers.size(); ++l) {
    const LayerDescriptor& L = p.layers[l];
    channels.assign(uint64_t(L.N) * L.out_h, 0);
    bool column_pieces = false;  // written in runs of columns
    for (uint32_t w = first[l]; w < first[l + 1]; ++w) {
      const Instruction& in = p.instructions[writers[w]];
      const uint64_t cols = output_cols(in, L).count();
      if (in.column_piece()) column_pieces = true;
      for (uint32_t r = in.out_row_begin; r < in.out_row_end; ++r)
        channels[uint64_t(in.batch) * L.out_h + r] += in.k_count() * cols;
    }
    const uint64_t whole = uint64_t(L.K) * L.out_w;
    for (uint64_t i = 0; i < channels.size(); ++i) {
      if (channels[i] == whole) continue;
      const char* what = runs_on_array(L.op) ? "store" : "vector";
      const uint64_t n = channels[i];
      const std::string written =
          !column_pieces && L.out_w != 0 && n % L.out_w == 0
              ? std::to_string(n / L.out_w) + " channels, not K = " + std::to_string(L.K)
              : std::to_string(n) + " channel-columns, not K x out_w = " + std::to_string(whole);
      throw std::runtime_error(
          "bad program: layer " + std::to_string(l) + " (" + L.name + ") image " +
          std::to_string(i / L.out_h) + " output row " + std::to_string(i % L.out_h) + ": its " +
          what + " instructions write " + written + " (every output must be written exactly once)");
    }
  }
  // Equal counts could still hide one part written twice and another never:
  // no two instructions may write the same channel of the same column of a
  // row. Each row's parts sorted by channels, then columns, a rectangle can
  // overlap only the ones after it that start below its last channel. The
  // parts are bucketed by row (a counting sort); a row's few are then sorted
  // unless the program wrote them in order already.
  struct Written {
    uint32_t k_begin, k_end, col_begin, col_end, id;
  };
  std::vector<Written> parts;
  std::vector<uint64_t> row_first;
  for (size_t l = 0; l < p.layers.size(); ++l) {
    const LayerDescriptor& L = p.layers[l];
    const uint64_t rows = uint64_t(L.N) * L.out_h;
    row_first.assign(rows + 1, 0);
    for (uint32_t w = first[l]; w < first[l + 1]; ++w) {
      const Instruction& in = p.instructions[writers[w]];
      for (uint32_t r = in.out_row_begin; r < in.out_row_end; ++r)
        ++row_first[uint64_t(in.batch) * L.out_h + r + 1];
    }
    for (uint64_t r = 0; r < rows; ++r) row_first[r + 1] += row_first[r];
    parts.resize(row_first[rows]);
    for (uint32_t w = first[l]; w < first[l + 1]; ++w) {
      const Instruction& in = p.instructions[writers[w]];
      const ColRange cols = output_cols(in, L);
      for (uint32_t r = in.out_row_begin; r < in.out_row_end; ++r)
        parts[row_first[uint64_t(in.batch) * L.out_h + r]++] = {in.k_begin, in.k_end, cols.begin,
                                                                cols.end, in.id};
    }
    // Each row's bucket now ends where the next begins: row_first[r] is row r + 1's start.
    const auto before = [](const Written& a, const Written& b) {
      return std::tie(a.k_begin, a.col_begin) < std::tie(b.k_begin, b.col_begin);
    };
    for (uint64_t row = 0; row < rows; ++row) {
      const auto begin = parts.begin() + std::ptrdiff_t(row == 0 ? 0 : row_first[row - 1]);
      const auto end = parts.begin() + std::ptrdiff_t(row_first[row]);
      if (!std::is_sorted(begin, end, before)) std::sort(begin, end, before);
      for (auto a = begin; a != end; ++a)
        for (auto b = a + 1; b != end && b->k_begin < a->k_end; ++b) {
          if (b->col_begin >= a->col_end || a->col_begin >= b->col_end) continue;
          throw std::runtime_error("bad program: layer " + std::to_string(l) + " (" + L.name +
                                   ") image " + std::to_string(row / L.out_h) + " output row " +
                                   std::to_string(row % L.out_h) + ": " +
                                   describe(p.instructions[a->id], p) + " and " +
                                   describe(p.instructions[b->id], p) + " both write channel " +
                                   std::to_string(b->k_begin) + " of column " +
                                   std::to_string(std::max(a->col_begin, b->col_begin)) +
                                   " (every output must be written exactly once)");
        }
    }
  }
}

}  // namespace npusim
