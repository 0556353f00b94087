#include "models/load_engine.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "models/cost/cost_model.h"
#include "models/layer_addressing.h"
#include "models/operand_gather.h"

namespace npusim {

LoadEngine::LoadEngine(sc_core::sc_module_name name, const HardwareConfig& hw,
                       EngineOptions options, StatsRegistry& stats)
    : Engine(name, hw, options),
      busy_(
          stats.declare("load.busy_cycles", "cycles", "cycles the load engine ran an instruction")),
      instructions_(stats.declare("load.instructions", "count", "load instructions executed")),
      standalone_cycles_(
          stats.declare("load.standalone_cycles", "cycles",
                        "cycles the loads would take running alone (no contention)")),
      input_dram_bytes_(stats.declare(
          "load.input_dram_bytes", "bytes",
          "DRAM bytes the input loads read: the input (im2col on the fly) or the lowered "
          "matrix (host_im2col, mec)")),
      host_lowering_bytes_(stats.declare("load.host_lowering_bytes", "bytes",
                                         "bytes the host wrote materialising the lowered matrix "
                                         "(host_im2col, mec; outside the accelerator's time)")),
      im2col_matrix_bytes_(stats.declare(
          "load.im2col_matrix_bytes", "bytes",
          "im2col matrix bytes of the rows the input loads cover: what host_im2col reads for "
          "them (divide load.input_dram_bytes by it for the ratio)")),
      input_rows_bytes_(stats.declare("load.input_rows_bytes", "bytes",
                                      "input bytes of the rows the input loads cover: what "
                                      "im2col on the fly reads for them")),
      mec_matrix_bytes_(stats.declare("load.mec_matrix_bytes", "bytes",
                                      "MEC matrix bytes of the rows the input loads cover: what "
                                      "mec reads for them")),
      footprint_im2col_(stats.declare("load.footprint_im2col_bytes", "bytes",
                                      "largest input tile in the cache with im2col on the fly",
                                      Counter::Reduce::Max)),
      footprint_host_im2col_(stats.declare("load.footprint_host_im2col_bytes", "bytes",
                                           "largest input tile in the cache with host_im2col",
                                           Counter::Reduce::Max)),
      footprint_mec_(stats.declare("load.footprint_mec_bytes", "bytes",
                                   "largest input tile in the cache with mec",
                                   Counter::Reduce::Max)),
      agu_inits_(stats.declare("load.agu_inits", "count",
                               "address-generator register sets written (AGU_INIT)")),
      operand_on_chip_bytes_(stats.declare(
          "load.operand_on_chip_bytes", "bytes",
          "bytes batch_matmul read from key-value blocks in the cache's key-value region "
          "(cache.kv_kib) instead of DRAM")),
      resident_bytes_(stats.declare(
          "load.resident_bytes", "bytes",
          "input bytes read from an output the memory plan keeps in the cache, not from DRAM")),
      weight_resident_bytes_(stats.declare(
          "load.weight_resident_bytes", "bytes",
          "weight bytes read from a weight block the memory plan keeps in the cache (loaded "
          "over the bus once before), not from DRAM")),
      operand_bytes_(stats.declare("load.operand_bytes", "bytes",
                                   "DRAM bytes batch_matmul read from its second operand (keys "
                                   "and values: in a decode step, the key-value cache)")) {
  SC_THREAD(run);
}

bool LoadEngine::input_resident(const LayerDescriptor& L) const {
  return L.input_from_layer >= 0 &&
         scheduler->program().layers[size_t(L.input_from_layer)].output_resident;
}

void LoadEngine::run() {
  guarded([this] {
    while (const Instruction* in = scheduler->next(EngineKind::Load, 0)) {
      scheduler->wait_until_ready(*in);
      scheduler->instruction_started(*in);
      const uint64_t start = now_cycles();
      standalone_ = dram->latency_cycles();
      const uint64_t complete = in->op == Opcode::LoadParams    ? load_params(*in)
                                : in->op == Opcode::LoadWeights ? load_weights(*in)
                                : in->op == Opcode::AguInit     ? agu_init(*in)
                                                                : load_input(*in);
      busy_.add(in->layer, now_cycles() - start);
      instructions_.add(in->layer, 1);
      standalone_cycles_.add(in->layer, standalone_);
      // The DMA is free once the last request has crossed the bus; the data
      // lands `latency` later, while the next load's requests already go out.
      scheduler->instruction_done(*in, complete);
    }
  });
}

uint64_t LoadEngine::transfer_stage(const Instruction& in, const DramAccess& access,
                                    uint64_t cache_bytes, bool from_cache) {
  const uint64_t now = now_cycles();
  const uint64_t dram_bytes = access.segments * access.segment_bytes;
  Grant bus{now, now};
  uint64_t arrival = now;
  const uint64_t latency = from_cache ? 0 : dram->latency_cycles();
  if (dram_bytes > 0) {
    // An output the memory plan keeps in the cache is read through its ports.
    bus = from_cache ? cache->access(in.layer, false, dram_bytes, now)
                     : dram->transfer(in.layer, false, access);
    arrival = bus.end + latency;
  }
  const uint64_t first_data = dram_bytes > 0 ? bus.start + latency : now;
  const Grant write = cache->access(in.layer, true, cache_bytes, first_data);
  standalone_ += std::max(bus.end - bus.start, write.end - write.start);
  wait_until_cycle(bus.end);  // the next stage's request may go out now
  return std::max(arrival, write.end);
}

uint64_t LoadEngine::load_params(const Instruction& in) {
  const LayerDescriptor& L = layer_of(in);
  // Channels [k_begin, k_end): the whole layer's, or one weight tile's when
  // the compiler loads parameters tile by tile (docs/mapping.md).
  SumTile& bank = cache->params(in.half);
  const uint32_t channels = in.k_count();
  bank.begin_fill({int32_t(in.layer), 0, in.k_begin, in.k_end, 0, 1}, channels, 2,
                  options_.functional);
  cache->occupancy_changed(in.layer);
  const uint64_t bytes = uint64_t(channels) * 8;
  if (options_.functional) {
    const int8_t* src = dram->image(L.params_address + uint64_t(in.k_begin) * 8, bytes);
    for (uint32_t k = 0; k < channels; ++k) std::memcpy(bank.row(k), src + uint64_t(k) * 8, 8);
  }
  const uint64_t begin = now_cycles();
  const uint64_t ready =
      transfer_stage(in, {L.params_address + uint64_t(in.k_begin) * 8, 1, bytes}, bytes);
  for (uint32_t k = 0; k < channels; ++k) bank.mark_valid(k, ready);
  scheduler->stage_done(in, 0, begin, now_cycles(), ready);
  return ready;
}

template <class KernelRow>
uint64_t LoadEngine::load_weight_stages(const Instruction& in, ByteTile& weights,
                                        const KernelRow& kernel_row, uint64_t segments_per_kernel,
                                        uint64_t run_stride, uint64_t offset) {
  const LayerDescriptor& L = layer_of(in);
  const uint32_t group = hw_.compute.array_rows;
  uint64_t last = now_cycles();
  for (uint32_t s = 0; s < in.stages; ++s) {
    const uint32_t k0 = std::min(in.k_count(), s * group);
    const uint32_t k1 = std::min(in.k_count(), (s + 1) * group);
    uint64_t bytes = 0;
    for (uint32_t k = k0; k < k1; ++k) bytes += kernel_row(k);
    const uint64_t begin = now_cycles();
    const uint64_t segments =
        segments_per_kernel == 0 ? 1 : uint64_t(k1 - k0) * segments_per_kernel;
    // The tile's kernels lie one after another in DRAM.
    const uint64_t address = L.weights_address + L.kernel_offset(in.k_begin + k0) + offset;
    const DramAccess access{address, segments, bytes / segments, run_stride};
    // A kept weight block (docs/memory-plan.md#weights-kept-on-chip) is where
    // the tile lies: bytes it holds already need no transfer (the array reads
    // them from there, as from any weight tile); others come over the bus into it.
    const bool on_chip = L.weights_resident && weights_kept(in, s, access);
    if (on_chip) weight_resident_bytes_.add(in.layer, bytes);
    const uint64_t ready = on_chip ? begin : transfer_stage(in, access, bytes);
    for (uint32_t k = k0; k < k1; ++k) weights.mark_valid(k, ready);
    scheduler->stage_done(in, s, begin, now_cycles(), ready);
    last = std::max(last, ready);
  }
  return last;
}

bool LoadEngine::weights_kept(const Instruction& in, uint32_t stage, const DramAccess& access) {
  const std::string why = cache->resident_weights_problem(in.layer);
  if (!why.empty()) throw SimulationError(who(in, stage).str() + " " + why);
  const uint64_t block = layer_of(in).weights_address;
  const uint64_t step = access.stride != 0 ? access.stride : access.segment_bytes;
  bool all = true;  // every segment is asked, so the block records each one it gets
  for (uint64_t g = 0; g < access.segments; ++g) {
    const uint64_t begin = access.address - block + g * step;
    all = cache->resident_weights_on_chip(in.layer, begin, begin + access.segment_bytes) && all;
  }
  return all;
}

uint64_t LoadEngine::load_weights(const Instruction& in) {
  const LayerDescriptor& L = layer_of(in);
  if (L.op == OpKind::BatchMatMul) return load_operand_kernels(in);
  if (in.kernel_part()) return load_kernel_part(in);
  // One row per kernel, each holding its stream (raw or seed 002 entries);
  // rows are sized for the longest stream, occupancy counts the real bytes.
  uint64_t longest = 0, tile_bytes = 0;
  for (uint32_t k = in.k_begin; k < in.k_end; ++k) {
    longest = std::max(longest, L.kernel_bytes(k));
    tile_bytes += L.kernel_bytes(k);
  }
  ByteTile& weights = cache->take_weights(weight_slot(L, in), L.weight_buffers);
  weights.begin_fill({int32_t(in.layer), 0, in.k_begin, in.k_end, 0, 1}, in.k_count(), longest,
                     options_.functional, tile_bytes);
  cache->occupancy_changed(in.layer);
  // The tile's kernels lie one after another in DRAM.
  uint64_t address = L.weights_address + L.kernel_offset(in.k_begin);
  const auto kernel_row = [&](uint32_t k) {
    const uint64_t kernel = L.kernel_bytes(in.k_begin + k);
    if (options_.functional) std::memcpy(weights.row(k), dram->image(address, kernel), kernel);
    address += kernel;
    return kernel;
  };
  return load_weight_stages(in, weights, kernel_row, 0);
}

uint64_t LoadEngine::load_kernel_part(const Instruction& in) {
  // Kernel parts (docs/tiling.md#kernel-parts): of each raw K,R,S,C kernel,
  // the part's channels at every tap, R*S runs of channel_count bytes (one
  // bus segment each), side by side in the kernel's row as the part's
  // R,S,c kernel.
  const LayerDescriptor& L = layer_of(in);
  const uint64_t run = in.channel_count(), taps = uint64_t(L.R) * L.S;
  const uint64_t row = taps * run;
  ByteTile& weights = cache->take_weights(weight_slot(L, in), L.weight_buffers);
  weights.begin_fill(
      {int32_t(in.layer), 0, in.k_begin, in.k_end, 0, 1, in.channel_begin, in.channel_end},
      in.k_count(), row, options_.functional);
  cache->occupancy_changed(in.layer);
  const auto kernel_row = [&](uint32_t k) {
    const uint64_t kernel = L.weights_address + L.kernel_offset(in.k_begin + k);
    for (uint64_t t = 0; options_.functional && t < taps; ++t)
      std::memcpy(weights.row(k) + t * run, dram->image(kernel + t * L.C + in.channel_begin, run),
                  run);
    return row;
  };
  // Runs of a raw K,R,S,C kernel's taps are C apart, and its kernels abut.
  return load_weight_stages(in, weights, kernel_row, taps, L.C, in.channel_begin);
}

uint64_t LoadEngine::agu_init(const Instruction& in) {
  const LayerDescriptor& L = layer_of(in);
  try {
    // The generator's plain view; a graph operator's general geometry rides
    // in its extra registers (the config parser checked it).
    if (!L.general) validate(agu_config(L));
  } catch (const std::invalid_argument& e) {
    throw SimulationError(scheduler->who(in, 0) +
                          ": address generator rejects the layer: " + e.what());
  }
  // One register write path: a second AGU_INIT queues behind the first.
  const uint64_t now = now_cycles();
  const uint64_t write_start = std::max(now, agu_write_free_at_);
  const uint64_t ready = write_start + agu_init_cycles(agu_registers(L).size());
  standalone_ = ready - write_start;  // register writes only: no DRAM latency
  agu_write_free_at_ = ready;
  set_layer_[in.half] = in.layer;
  set_ready_at_[in.half] = ready;
  agu_inits_.add(in.layer, 1);
  scheduler->stage_done(in, 0, write_start, now, ready);
  return ready;
}

uint32_t LoadEngine::configured_set(const Instruction& in) const {
  for (uint32_t set = 0; set < 2; ++set) {
    if (set_layer_[set] != int64_t(in.layer)) continue;
    if (set_ready_at_[set] > now_cycles())
      throw SimulationError(scheduler->who(in, 0) + ": fetch at cycle " +
                            std::to_string(now_cycles()) + " before AGU_INIT finished writing " +
                            "register set " + std::to_string(set) + " (cycle " +
                            std::to_string(set_ready_at_[set]) + ")");
    return set;
  }
  const auto holds = [&](uint32_t set) {
    return set_layer_[set] < 0 ? std::string("nothing")
                               : "layer " + scheduler->program().layers.at(set_layer_[set]).name;
  };
  throw SimulationError(scheduler->who(in, 0) +
                        ": the address generator is not configured for this layer (set 0 holds " +
                        holds(0) + ", set 1 holds " + holds(1) + "): no AGU_INIT before it?");
}

namespace {
// The real input columns [begin, end) instruction `in` reads: a column piece's
// padded window less the pads on either side, else every column.
std::pair<int64_t, int64_t> real_input_cols(const LayerDescriptor& L, const Instruction& in) {
  if (!in.column_piece()) return {0, int64_t(L.W)};
  const PaddedCols window = padded_cols_for(L, in.out_col_begin, in.out_col_end);
  const int64_t left = pad_l(L);
  const int64_t begin = std::max<int64_t>(int64_t(window.begin) - left, 0);
  const int64_t end = std::min<int64_t>(int64_t(window.begin + window.width) - left, L.W);
  return {begin, std::max(begin, end)};
}
}  // namespace

void LoadEngine::count_mode_figures(const Instruction& in) {
  // A column piece counts the figures of its columns (column_view).
  std::shared_ptr<const LayerDescriptor> view;
  const LayerDescriptor& L = views_.seen_by(in, layer_of(in), view);
  const RowRange rows = input_rows_for(L, in.out_row_begin, in.out_row_end);
  const int64_t real_rows = std::min<int64_t>(rows.end, L.H) - std::max<int64_t>(rows.begin, 0);
  // Each mode reads the channels the tile holds (its k-tile's, with input channel tiles).
  const uint64_t pixel = L.tile_pixel_bytes(in.k_count());
  const uint64_t SC = uint64_t(L.S) * pixel;
  const uint64_t host_row = uint64_t(L.out_w) * L.R * SC;  // one output row's im2col rows
  const uint64_t mec_row = uint64_t(L.out_w) * SC;         // one padded row across the strips
  im2col_matrix_bytes_.add(in.layer, in.row_count() * host_row);
  const auto [x_begin, x_end] = real_input_cols(layer_of(in), in);
  input_rows_bytes_.add(
      in.layer, uint64_t(std::max<int64_t>(real_rows, 0)) * uint64_t(x_end - x_begin) * pixel);
  mec_matrix_bytes_.add(in.layer, uint64_t(rows.count()) * mec_row);
  footprint_im2col_.raise_to(in.layer, uint64_t(rows.count()) * L.padded_w() * pixel);
  footprint_host_im2col_.raise_to(in.layer, in.row_count() * host_row);
  footprint_mec_.raise_to(in.layer, uint64_t(rows.count()) * mec_row);
}

uint64_t LoadEngine::load_input(const Instruction& in) {
  const LayerDescriptor& L = layer_of(in);
  configured_set(in);
  count_mode_figures(in);
  if (L.access != LoadAccess::Im2col) return load_lowered_input(in);
  if (in.column_piece()) return load_column_piece(in);
  const RowRange rows = input_rows_for(L, in.out_row_begin, in.out_row_end);
  // A binary input (N(C/b)HWb) lands pixel-major in the tile: each pixel's
  // ceil(C/b) words side by side, as the array reads them (docs/binary.md).
  // Input channel tiles: the tile's pixels hold only the k-tile's groups'
  // channels [c0, c0 + channels), each pixel's run its own bus segment.
  // Kernel parts: the part's channels [c0, c0 + channels) likewise.
  const bool channel_runs = L.input_channel_tiles || in.kernel_part();
  const uint64_t c0 = in.kernel_part() ? in.channel_begin : L.tile_channel_begin(in.k_begin);
  const uint64_t channels =
      in.kernel_part() ? in.channel_count() : L.tile_pixel_bytes(in.k_count());
  const uint64_t padded_row =
      in.kernel_part() ? L.padded_w() * channels : L.tile_row_bytes(in.k_count());
  const uint64_t dram_row = uint64_t(L.W) * channels;
  const bool planar = !L.binary && L.input_layout == TensorLayout::Nchw;
  ByteTile& half = cache->input_half(in.unit, in.half);
  half.begin_fill(
      {int32_t(in.layer), in.batch, 0, 0, rows.begin, rows.end, in.channel_begin, in.channel_end},
      uint32_t(rows.count()), padded_row, options_.functional);
  // Padding holds the input zero point (graph operators; 0 otherwise).
  if (options_.functional && L.pad_byte() != 0)
    for (int64_t r = rows.begin; r < rows.end; ++r)
      std::memset(half.row(uint32_t(r - rows.begin)), L.pad_byte(), padded_row);
  cache->occupancy_changed(in.layer);
  int64_t loaded_end = rows.begin;
  uint64_t last = now_cycles();
  for (uint32_t s = 0; s < in.stages; ++s) {
    if (s > 0) scheduler->wait_until_ready(in, s);
    const RowRange out = stage_rows(in, s);
    const RowRange need = input_rows_for(L, uint32_t(out.begin), uint32_t(out.end));
    const int64_t first = loaded_end, end = std::max(loaded_end, need.end);
    const int64_t real_first = std::max<int64_t>(first, 0);
    const int64_t real_end = std::min<int64_t>(end, L.H);
    const uint64_t real_rows = real_end > real_first ? uint64_t(real_end - real_first) : 0;
    if (L.input_from_layer >= 0 && real_rows > 0)
      dram->require_rows_stored(who(in, s), uint32_t(L.input_from_layer),
                                global_rows(in.batch, L.H, {real_first, real_end}));
    if (options_.functional && L.binary) {
      copy_binary_rows(L, in.batch, real_first, real_end, half, rows.begin);
    } else if (options_.functional && planar) {
      copy_planar_rows(L, in.batch, real_first, real_end, half, rows.begin);
    } else if (options_.functional && channel_runs) {
      for (int64_t r = real_first; r < real_end; ++r) {
        const uint64_t src = L.input_address + (uint64_t(in.batch) * L.H + uint64_t(r)) * L.W * L.C;
        const int8_t* from = dram->image(src, uint64_t(L.W) * L.C);
        int8_t* to = half.row(uint32_t(r - rows.begin)) + uint64_t(pad_l(L)) * channels;
        for (uint32_t x = 0; x < L.W; ++x)
          std::memcpy(to + uint64_t(x) * channels, from + uint64_t(x) * L.C + c0, channels);
      }
    } else if (options_.functional) {
      // Padding rows keep the pad value; real rows land after the left padding.
      for (int64_t r = real_first; r < real_end; ++r) {
        const uint64_t src = L.input_address + (uint64_t(in.batch) * L.H + uint64_t(r)) * dram_row;
        std::memcpy(half.row(uint32_t(r - rows.begin)) + uint64_t(pad_l(L)) * L.C,
                    dram->image(src, dram_row), dram_row);
      }
    }
    const uint64_t begin = now_cycles();
    const bool resident = input_resident(L);
    if (resident && real_rows > 0) require_resident(in, s, uint32_t(L.input_from_layer));
    (resident ? resident_bytes_ : input_dram_bytes_).add(in.layer, real_rows * dram_row);
    // NHWC rows are one run; packed rows one run per word group; NCHW rows one
    // run per channel plane, unless they are whole planes (which abut).
    const uint64_t segments = L.binary                    ? L.groups()
                              : channel_runs              ? real_rows * L.W
                              : planar && real_rows < L.H ? L.C
                                                          : 1;
    const uint64_t plane = uint64_t(L.H) * L.W;  // bytes of one channel (group) plane
    const uint64_t image = L.binary ? L.groups() * plane * (L.bits / 8) : plane * L.C;
    const uint64_t start = L.input_address + in.batch * image;
    const DramAccess access =
        L.binary ? DramAccess{start + uint64_t(real_first) * L.W * (L.bits / 8), segments,
                              real_rows * dram_row / segments, plane * (L.bits / 8)}
        : channel_runs
            ? DramAccess{start + uint64_t(real_first) * L.W * L.C + c0, segments, channels, L.C}
        : planar ? DramAccess{start + uint64_t(real_first) * L.W, segments,
                              real_rows * dram_row / segments, plane}
                 : DramAccess{start + uint64_t(real_first) * dram_row, 1, real_rows * dram_row};
    const uint64_t ready = transfer_stage(in, access, uint64_t(end - first) * padded_row, resident);
    for (int64_t r = first; r < end; ++r) half.mark_valid(uint32_t(r - rows.begin), ready);
    scheduler->stage_done(in, s, begin, now_cycles(), ready);
    last = std::max(last, ready);
    loaded_end = end;
  }
  return last;
}

uint64_t LoadEngine::load_column_piece(const Instruction& in) {
  // The piece's input rows, each cut to the padded columns its output
  // columns read (column_pieces_unsupported: NHWC int8 rows through im2col).
  // The tile's rows hold that window, padding included, as column_view sees it.
  const LayerDescriptor& L = layer_of(in);
  const RowRange rows = input_rows_for(L, in.out_row_begin, in.out_row_end);
  const PaddedCols window = padded_cols_for(L, in.out_col_begin, in.out_col_end);
  const auto [x_begin, x_end] = real_input_cols(L, in);
  const uint64_t run = x_end > x_begin ? uint64_t(x_end - x_begin) * L.C : 0;  // a row's bytes
  const uint64_t tile_row = window.width * L.C;
  ByteTile& half = cache->input_half(in.unit, in.half);
  half.begin_fill(
      {int32_t(in.layer), in.batch, in.out_col_begin, in.out_col_end, rows.begin, rows.end},
      uint32_t(rows.count()), tile_row, options_.functional);
  if (options_.functional && L.pad_byte() != 0)
    for (int64_t r = rows.begin; r < rows.end; ++r)
      std::memset(half.row(uint32_t(r - rows.begin)), L.pad_byte(), tile_row);
  cache->occupancy_changed(in.layer);
  const int64_t real_first = std::max<int64_t>(rows.begin, 0);
  const int64_t real_end = std::min<int64_t>(rows.end, L.H);
  const uint64_t real_rows = real_end > real_first ? uint64_t(real_end - real_first) : 0;
  if (L.input_from_layer >= 0 && real_rows > 0)
    dram->require_rows_stored(who(in, 0), uint32_t(L.input_from_layer),
                              global_rows(in.batch, L.H, {real_first, real_end}));
  if (options_.functional && run > 0)
    for (int64_t r = real_first; r < real_end; ++r) {
      const uint64_t src =
          L.input_address + ((uint64_t(in.batch) * L.H + uint64_t(r)) * L.W + x_begin) * L.C;
      std::memcpy(
          half.row(uint32_t(r - rows.begin)) + (x_begin + pad_l(L) - int64_t(window.begin)) * L.C,
          dram->image(src, run), run);
    }
  const uint64_t begin = now_cycles();
  const bool resident = input_resident(L);
  if (resident && real_rows > 0) require_resident(in, 0, uint32_t(L.input_from_layer));
  (resident ? resident_bytes_ : input_dram_bytes_).add(in.layer, real_rows * run);
  // Rows cut short are a run each; rows of the whole width abut.
  const uint64_t segments = run == uint64_t(L.W) * L.C ? 1 : std::max<uint64_t>(real_rows, 1);
  const uint64_t row_bytes = uint64_t(L.W) * L.C;
  const DramAccess access{L.input_address +
                              (uint64_t(in.batch) * L.H + uint64_t(real_first)) * row_bytes +
                              uint64_t(x_begin) * L.C,
                          segments, real_rows * run / segments, row_bytes};
  const uint64_t ready = transfer_stage(in, access, uint64_t(rows.count()) * tile_row, resident);
  for (int64_t r = rows.begin; r < rows.end; ++r) half.mark_valid(uint32_t(r - rows.begin), ready);
  scheduler->stage_done(in, 0, begin, now_cycles(), ready);
  return ready;
}

void LoadEngine::copy_binary_rows(const LayerDescriptor& L, uint32_t batch, int64_t first,
                                  int64_t end, ByteTile& half, int64_t tile_first_row) {
  const uint64_t word = L.bits / 8, groups = L.groups();
  for (uint32_t g = 0; g < groups; ++g) {
    for (int64_t r = first; r < end; ++r) {
      // Word (n, g, r, x) of N(C/b)HWb; a row of one group is W contiguous words.
      const uint64_t src =
          L.input_address + ((uint64_t(batch) * groups + g) * L.H + uint64_t(r)) * L.W * word;
      const int8_t* from = dram->image(src, L.W * word);
      int8_t* to = half.row(uint32_t(r - tile_first_row));
      for (uint32_t x = 0; x < L.W; ++x)
        std::memcpy(to + ((uint64_t(L.padding) + x) * groups + g) * word, from + x * word, word);
    }
  }
}

void LoadEngine::copy_planar_rows(const LayerDescriptor& L, uint32_t batch, int64_t first,
                                  int64_t end, ByteTile& half, int64_t tile_first_row) {
  // The generator says where each (row, channel) run of W components starts;
  // the tile holds the row pixel-major (all C of a pixel together), as the
  // array reads it.
  AddressGeneratorInit init = agu_config(L);
  init.input_base += uint64_t(batch) * L.H * L.W * L.C;
  const InputAddressGenerator input(init, LoweringKind::kIm2col);
  for (int64_t r = first; r < end; ++r) {
    int8_t* to = half.row(uint32_t(r - tile_first_row)) + uint64_t(L.padding) * L.C;
    for (uint32_t c = 0; c < L.C; ++c) {
      const int8_t* from = dram->image(uint64_t(input.input_element(uint32_t(r), 0, c).byte), L.W);
      for (uint32_t x = 0; x < L.W; ++x) to[uint64_t(x) * L.C + c] = from[x];
    }
  }
}

uint64_t LoadEngine::host_lower(const LayerDescriptor& L, uint32_t batch, int64_t begin,
                                int64_t end) {
  if (end <= begin) return 0;
  const uint64_t SC = uint64_t(L.S) * L.C;
  const uint64_t written = uint64_t(end - begin) * L.tile_row_bytes();
  if (!options_.functional) return written;
  // The host walks the same address stream the on-the-fly generator would,
  // writing each entry (zero for padding) into the matrix in DRAM.
  AddressGeneratorInit init = agu_config(L);
  init.input_base = 0;  // addresses are offsets into image `batch`
  init.row_stride = 0;
  const uint64_t image_bytes = uint64_t(L.H) * L.W * L.C;
  const int8_t* input = dram->image(L.input_address + batch * image_bytes, image_bytes);
  const uint64_t base = L.lowered_address + batch * L.lowered_bytes_per_image();
  const auto copy = [&](InputAddressGenerator& gen, uint64_t first, uint64_t count) {
    gen.seek(first);  // 8-bit elements: entry index == byte offset in the matrix
    int8_t* out = dram->image(base + first, count);
    for (const ElementAddress& a : gen.fetch(uint32_t(count)))
      *out++ = a.is_padding() ? int8_t(0) : input[a.byte];
  };
  if (L.access == LoadAccess::HostIm2col) {
    InputAddressGenerator gen(init, LoweringKind::kIm2col);
    copy(gen, uint64_t(begin) * L.tile_row_bytes(), written);
  } else {
    // MEC: rows are padded input rows; each of the OW strips holds S*C of each.
    InputAddressGenerator gen(init, LoweringKind::kMec);
    const uint64_t strip = uint64_t(L.H + 2 * L.padding) * SC;
    for (uint32_t ox = 0; ox < L.out_w; ++ox)
      copy(gen, ox * strip + uint64_t(begin + L.padding) * SC, uint64_t(end - begin) * SC);
  }
  return written;
}

uint64_t LoadEngine::load_lowered_input(const Instruction& in) {
  const LayerDescriptor& L = layer_of(in);
  const bool mec = L.access == LoadAccess::Mec;
  const RowRange rows = tile_rows_for(L, in.out_row_begin, in.out_row_end);
  const uint64_t row_bytes = L.tile_row_bytes();
  const uint64_t SC = uint64_t(L.S) * L.C;
  const uint64_t strip = uint64_t(L.H + 2 * L.padding) * SC;
  const uint64_t base = L.lowered_address + uint64_t(in.batch) * L.lowered_bytes_per_image();
  ByteTile& half = cache->input_half(in.unit, in.half);
  half.begin_fill({int32_t(in.layer), in.batch, 0, 0, rows.begin, rows.end}, uint32_t(rows.count()),
                  row_bytes, options_.functional);
  cache->occupancy_changed(in.layer);
  // The host lowers each image once, during the first k-tile's loads; MEC
  // pieces share halo rows, so only rows past the high-water mark count.
  const auto key = std::make_pair(in.layer, in.batch);
  if (in.k_begin == 0 && in.out_row_begin == 0) lowered_end_[key] = rows.begin;
  int64_t loaded_end = rows.begin;
  uint64_t last = now_cycles();
  for (uint32_t s = 0; s < in.stages; ++s) {
    if (s > 0) scheduler->wait_until_ready(in, s);
    const RowRange out = stage_rows(in, s);
    const RowRange need = tile_rows_for(L, uint32_t(out.begin), uint32_t(out.end));
    const int64_t first = loaded_end, end = std::max(loaded_end, need.end);
    if (in.k_begin == 0 && end > first) {
      const RowRange reads = input_rows_for(L, uint32_t(out.begin), uint32_t(out.end));
      const int64_t real_first = std::max<int64_t>(reads.begin, 0);
      const int64_t real_end = std::min<int64_t>(reads.end, L.H);
      if (L.input_from_layer >= 0 && real_end > real_first)
        dram->require_rows_stored(who(in, s), uint32_t(L.input_from_layer),
                                  global_rows(in.batch, L.H, {real_first, real_end}));
      int64_t& lowered = lowered_end_[key];
      const uint64_t bytes = host_lower(L, in.batch, first, end);
      if (end > lowered) {
        host_lowering_bytes_.add(
            in.layer, bytes / uint64_t(end - first) * uint64_t(end - std::max(first, lowered)));
        lowered = end;
      }
    }
    if (options_.functional) {
      for (int64_t r = first; r < end; ++r) {
        int8_t* dst = half.row(uint32_t(r - rows.begin));
        if (!mec) {
          std::memcpy(dst, dram->image(base + uint64_t(r) * row_bytes, row_bytes), row_bytes);
          continue;
        }
        for (uint32_t ox = 0; ox < L.out_w; ++ox)
          std::memcpy(dst + ox * SC,
                      dram->image(base + ox * strip + uint64_t(r + L.padding) * SC, SC), SC);
      }
    }
    const uint64_t bytes = uint64_t(end - first) * row_bytes;
    input_dram_bytes_.add(in.layer, bytes);
    const uint64_t begin = now_cycles();
    // host_im2col rows are contiguous; a MEC row range is one run per strip.
    const DramAccess access =
        mec && bytes > 0
            ? DramAccess{base + uint64_t(first + L.padding) * SC, L.out_w, bytes / L.out_w, strip}
            : DramAccess{base + uint64_t(first) * row_bytes, 1, bytes};
    const uint64_t ready = transfer_stage(in, access, bytes);
    for (int64_t r = first; r < end; ++r) half.mark_valid(uint32_t(r - rows.begin), ready);
    scheduler->stage_done(in, s, begin, now_cycles(), ready);
    last = std::max(last, ready);
    loaded_end = end;
  }
  return last;
}

}  // namespace npusim

namespace npusim {

// batch_matmul (docs/transformers.md#batch_matmul): the weight tile is
// gathered from the second operand's blocks of tokens (models/operand_gather.h
// says which bytes of which block); each stage's bus bytes are one transfer,
// its bytes from the cache's key-value region a read of the cache's ports.
uint64_t LoadEngine::load_operand_kernels(const Instruction& in) {
  const LayerDescriptor& L = layer_of(in);
  for (const auto& block : L.more_inputs)
    if (block.from_layer >= 0) {
      const uint32_t rows = block.rows / L.N;
      dram->require_rows_stored(who(in, 0), uint32_t(block.from_layer),
                                global_rows(in.batch, rows, {0, rows}));
      if (scheduler->program().layers[size_t(block.from_layer)].output_resident)
        require_resident(in, 0, uint32_t(block.from_layer));
    }
  const OperandGather gather(scheduler->program(), L, in.batch, in.k_begin);
  const uint32_t coefficients = gather.coefficients();
  ByteTile& weights = cache->take_weights(L.weight_slot(in.k_begin), L.weight_buffers);
  weights.begin_fill({int32_t(in.layer), in.batch, in.k_begin, in.k_end, 0, 1}, in.k_count(),
                     coefficients, options_.functional, uint64_t(in.k_count()) * coefficients);
  cache->occupancy_changed(in.layer);
  const uint32_t group = hw_.compute.array_rows;
  uint64_t last = now_cycles();
  for (uint32_t s = 0; s < in.stages; ++s) {
    const uint32_t k0 = in.k_begin + std::min(in.k_count(), s * group);
    const uint32_t k1 = in.k_begin + std::min(in.k_count(), (s + 1) * group);
    if (options_.functional)
      for (uint32_t k = k0; k < k1; ++k)
        gather.copy_kernel(*dram.operator->(), k, weights.row(k - in.k_begin));
    const GatherStage plan = gather.stage(k0, k1);
    operand_bytes_.add(in.layer, plan.bus_bytes);
    operand_on_chip_bytes_.add(in.layer, plan.chip_bytes);
    const uint64_t begin = now_cycles();
    const Grant kv_read = cache->access(in.layer, false, plan.chip_bytes, begin);
    const uint64_t bytes = uint64_t(k1 - k0) * coefficients;
    const uint64_t ready = std::max(kv_read.end, transfer_stage(in, plan.access, bytes));
    for (uint32_t k = k0; k < k1; ++k) weights.mark_valid(k - in.k_begin, ready);
    scheduler->stage_done(in, s, begin, now_cycles(), ready);
    last = std::max(last, ready);
  }
  return last;
}

}  // namespace npusim
