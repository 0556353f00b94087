#include "models/compute_engine.h"

#include <algorithm>
#include <optional>

#include "models/binary_array.h"
#include "models/coefficient_broadcast.h"
#include "models/cost/cost_model.h"
#include "models/int8_kernels.h"
#include "models/kernel_decompressor.h"
#include "models/operand_fetch.h"

namespace npusim {

ComputeEngine::ComputeEngine(sc_core::sc_module_name name, const HardwareConfig& hw,
                             EngineOptions options, StatsRegistry& stats)
    : Engine(name, hw, options),
      busy_(stats.declare("compute.busy_cycles", "cycles",
                          "cycles compute units ran an instruction (summed over units)")),
      instructions_(
          stats.declare("compute.instructions", "count", "compute instructions executed")),
      work_cycles_(stats.declare("compute.work_cycles", "cycles",
                                 "array cycles by the cost formula, pipeline fill included")),
      macs_performed_(stats.declare("compute.macs_performed", "MACs",
                                    "MACs the arrays performed (padding taps included)")),
      macs_useful_(
          stats.declare("compute.macs_useful", "MACs", "the layer's dense MACs N*K*Ho*Wo*C*R*S")),
      macs_skipped_(
          stats.declare("compute.macs_skipped", "MACs",
                        "dense MACs not performed: zero coefficients skipped (seed 002)")),
      dense_work_cycles_(stats.declare("compute.dense_work_cycles", "cycles",
                                       "array cycles the same stages take applying every "
                                       "coefficient (the dense ablation)")),
      standalone_cycles_(stats.declare("compute.standalone_cycles", "cycles",
                                       "cycles the computes would take running alone")),
      register_fetch_bytes_(stats.declare(
          "compute.register_fetch_bytes", "bytes",
          "lowered input bytes fetch_ml bursts moved into data register sets (seed 001; "
          "compute.data_registers double or single)")),
      register_stall_cycles_(
          stats.declare("compute.register_stall_cycles", "cycles",
                        "array cycles spent waiting for data register sets to load (seed 001)")),
      // At elaboration, so a bad NPUSIM_ISA stops the run before it starts.
      dots_(int8_kernels::active()) {
  unit_kernels_.resize(hw.compute.units);
  for (uint32_t u = 0; u < hw.compute.units; ++u)
    sc_core::sc_spawn(sc_bind(&ComputeEngine::run_unit, this, u),
                      ("unit" + std::to_string(u)).c_str());
}

void ComputeEngine::run_unit(uint32_t unit) {
  guarded([this, unit] {
    while (const Instruction* in = scheduler->next(EngineKind::Compute, unit)) {
      scheduler->wait_until_ready(*in);
      scheduler->instruction_started(*in);
      const uint64_t start = now_cycles();
      compute(*in);
      busy_.add(in->layer, now_cycles() - start);
      instructions_.add(in->layer, 1);
      scheduler->instruction_done(*in, now_cycles());
    }
  });
}

void ComputeEngine::compute(const Instruction& in) {
  // A column piece computes its columns on the view of them: a layer whose
  // padded width is the window its tile rows hold (docs/tiling.md#column-pieces).
  std::shared_ptr<const LayerDescriptor> view;
  const LayerDescriptor& L = views_.seen_by(in, layer_of(in), view);
  // Per kernel: its coefficients (int8), or its packed words (binary: one
  // lane step each, so the MAC counters count word steps).
  const uint64_t coefficients =
      L.binary ? uint64_t(L.R) * L.S * L.groups() : L.kernel_coefficients();
  const RowRange piece_rows = tile_rows_for(L, in.out_row_begin, in.out_row_end);
  const TileTag input_tag{int32_t(in.layer), in.batch,       in.out_col_begin, in.out_col_end,
                          piece_rows.begin,  piece_rows.end, in.channel_begin, in.channel_end};
  // batch_matmul's kernels are image n's own keys or values; weights are every image's.
  const uint32_t weights_image = L.op == OpKind::BatchMatMul ? in.batch : 0;
  const TileTag weight_tag{int32_t(in.layer), weights_image, in.k_begin, in.k_end, 0, 1,
                           in.channel_begin,  in.channel_end};

  ByteTile& input = cache->input_half(in.unit, in.half);
  ByteTile& weights = cache->weights(weight_slot(layer_of(in), in));
  SumTile& results = cache->result_half(in.unit, in.half);
  // Kernel parts (docs/tiling.md#kernel-parts): the first part starts the
  // piece's sums, each later one adds to the sums of the parts before it;
  // the tag names the channels summed so far.
  TileTag sums_tag{int32_t(in.layer), in.batch,         in.k_begin,
                   in.k_end,          in.out_row_begin, in.out_row_end};
  sums_tag.channel_end = in.channel_end;
  const bool adds_to_sums = in.kernel_part() && in.channel_begin > 0;
  if (adds_to_sums) {
    TileTag before = sums_tag;
    before.channel_end = in.channel_begin;
    results.reopen(before, sums_tag, who(in, 0));
  } else {
    results.begin_fill(sums_tag, in.row_count(), uint64_t(L.out_w) * in.k_count(),
                       options_.functional);
  }
  cache->occupancy_changed(in.layer);

  // Each kernel's non-zero coefficients: what a zero-skip array row works
  // through. The dense ablation applies every coefficient.
  // A kernel part applies every coefficient: the program holds each whole
  // kernel's non-zero count, not each part's.
  const bool skip_zeros = hw_.compute_mode == ComputeMode::ZeroSkip && !L.kernel_nonzeros.empty() &&
                          !L.binary && !in.kernel_part();
  std::vector<uint32_t>& nonzeros = unit_kernels_[in.unit].nonzeros;
  nonzeros.assign(in.k_count(), uint32_t(coefficients));
  uint64_t stream_bytes = 0, tile_nonzeros = 0;
  for (uint32_t k = 0; k < in.k_count(); ++k) {
    if (skip_zeros) nonzeros[k] = L.kernel_nonzeros[in.k_begin + k];
    tile_nonzeros += nonzeros[k];
    stream_bytes += L.kernel_bytes(in.k_begin + k);
  }

  std::vector<uint32_t>& dense_counts = unit_kernels_[in.unit].dense_counts;
  dense_counts.assign(in.k_count(), uint32_t(coefficients));
  // Seed 002's own engine (docs/zero-skip.md#dataflows); binary layers keep their lanes.
  const bool broadcast = hw_.dataflow == Dataflow::Broadcast && !L.binary;
  // Seed 001's data register sets feed the lockstep array of plain int8
  // layers (compute_rows); the other data paths read the tile in place.
  const bool register_fed =
      hw_.data_registers != DataRegisters::InPlace && !L.binary && !L.quantized && !broadcast;
  uint64_t standalone = 0;
  UnitKernels& unit = unit_kernels_[in.unit];
  for (uint32_t s = 0; s < in.stages; ++s) {
    if (s > 0) scheduler->wait_until_ready(in, s);
    const uint64_t now = now_cycles();
    const RowRange out = stage_rows(in, s);
    const RowRange need = tile_rows_for(L, uint32_t(out.begin), uint32_t(out.end));
    // Seed 004 rule 1: the first compute unit's kernels now; the later
    // groups when their turn comes (weight_groups_end).
    weights.require(weight_tag, 0, std::min(in.k_count(), hw_.compute.array_rows), now, who(in, s));
    input.require(input_tag, uint32_t(need.begin - piece_rows.begin),
                  uint32_t(need.end - piece_rows.begin), now, who(in, s));
    const uint64_t pixels = uint64_t(out.count()) * L.out_w;
    const uint64_t dense_array = L.binary
                                     ? cost::binary_stage_cycles(hw_.compute, pixels, in.k_count(),
                                                                 uint64_t(L.R) * L.S, L.groups())
                                     : array_cycles(L, in, pixels, dense_counts.data());
    const uint64_t skipping =
        skip_zeros ? array_cycles(L, in, pixels, nonzeros.data()) : dense_array;
    // Waiting for data register sets to load (seed 001), ahead of the array's
    // work. With two sets, this stage's first burst may load in the free set
    // while the unit's stage before (of the same layer: one generator stream)
    // multiplies its last pass, once the stage's rows are in.
    uint64_t overlap = 0;
    if (register_fed && unit.last_fed_layer == int32_t(in.layer)) {
      uint64_t rows_in = 0;
      for (int64_t r = need.begin; r < need.end; ++r)
        rows_in = std::max(rows_in, input.valid_at(uint32_t(r - piece_rows.begin)));
      const uint64_t window =
          std::max(rows_in, unit.last_array_end - std::min(unit.last_array_end, unit.last_pass));
      overlap = now > window ? now - window : 0;
    }
    const auto register_stall = [&](uint64_t multiply) {
      if (!register_fed) return uint64_t(0);
      return cost::register_fed_stage_cycles(hw_.compute, hw_.data_registers, pixels, coefficients,
                                             multiply, overlap) -
             multiply;
    };
    const uint64_t stall = register_stall(skipping);
    if (register_fed) {
      register_fetch_bytes_.add(in.layer, pixels * coefficients);
      register_stall_cycles_.add(in.layer, stall);
    }
    const uint64_t fill = (s == 0 ? hw_.compute.pipeline_latency_cycles : 0);
    const uint64_t array = skipping + stall + fill;
    dense_work_cycles_.add(in.layer, dense_array + register_stall(dense_array) + fill);
    const uint64_t read_bytes =
        uint64_t(need.count()) * L.tile_row_bytes(in.k_count()) + stream_bytes;
    const uint64_t write_bytes = pixels * in.k_count() * 4;
    const Grant read = cache->access(in.layer, false, read_bytes, now);
    const Grant write = cache->access(in.layer, true, write_bytes, now);
    // Array cycles of the tile's first `kernels` kernels.
    const auto prefix_cycles = [&](uint32_t kernels) {
      if (L.binary)
        return cost::binary_stage_cycles(hw_.compute, pixels, kernels, uint64_t(L.R) * L.S,
                                         L.groups());
      return array_cycles(L, in, pixels, skip_zeros ? nonzeros.data() : dense_counts.data(),
                          kernels);
    };
    // (May wait: a kernel group whose weights are not announced yet.)
    const uint64_t array_end =
        weight_groups_end(in, weights, weight_tag, now, array - skipping, prefix_cycles, s);
    // The arithmetic, once every kernel group of the tile has been issued
    // (weight_groups_end waited for the late ones).
    if (options_.functional && L.binary) {
      if (s == 0)
        unit_kernels_[in.unit].binary = binary_array::decode_kernels(weights, L, in.k_count());
      binary_array::compute_rows(L, in, input, piece_rows.begin, unit_kernels_[in.unit].binary,
                                 results, uint32_t(out.begin), uint32_t(out.end));
    } else if (options_.functional) {
      if (s == 0) {  // the decompressor expands the tile's kernel streams once
        unit_kernels_[in.unit].kernels.resize(uint64_t(in.k_count()) * coefficients);
        for (uint32_t k = 0; k < in.k_count(); ++k)
          decompress_kernel(
              weights.row(k), L.weight_format, L.R, L.S, L.group_channels(),
              L.kernel_bytes(in.k_begin + k),
              unit_kernels_[in.unit].kernels.data() + k * coefficients,
              L.quantized ? int8_t(L.quant.weight_zero_point_of(in.k_begin + k)) : int8_t(0));
        if (L.quantized || broadcast) center_kernels(L, in, coefficients);
      }
      if (broadcast)
        coefficient_broadcast::compute_rows(L, in, input, piece_rows.begin,
                                            unit_kernels_[in.unit].centered, results,
                                            uint32_t(out.begin), uint32_t(out.end), regions_);
      else if (L.quantized)
        compute_rows_quantized(L, in, input, results, uint32_t(out.begin), uint32_t(out.end),
                               adds_to_sums);
      else
        compute_rows(L, in, input, results, uint32_t(out.begin), uint32_t(out.end), adds_to_sums);
    }

    const uint64_t end = std::max({array_end, read.end, write.end});
    if (register_fed) {
      unit.last_fed_layer = int32_t(in.layer);
      unit.last_array_end = array_end;
      unit.last_pass = cost::last_pass_cycles(hw_.compute, pixels, skipping);
    }
    standalone += std::max(array, (read.end - read.start) + (write.end - write.start));
    work_cycles_.add(in.layer, array);
    // Useful: the layer's dense MACs; performed: those with a non-zero
    // coefficient (all of them in dense mode); the rest were skipped.
    const uint64_t useful = cost::compute_stage_macs(pixels, in.k_count(), coefficients);
    const uint64_t performed = pixels * tile_nonzeros;
    macs_useful_.add(in.layer, useful);
    macs_performed_.add(in.layer, performed);
    macs_skipped_.add(in.layer, useful - performed);
    wait_until_cycle(end);
    for (int64_t r = out.begin; r < out.end; ++r)
      results.mark_valid(uint32_t(r - in.out_row_begin), end);
    scheduler->stage_done(in, s, now, end, end);
  }
  standalone_cycles_.add(in.layer, standalone);
  // Feature-stationary programs (seed 004 rule 1) compute one piece's rows
  // against every weight tile in turn: the rows stay until the last tile.
  if (L.loop_order == LoopOrder::WeightStationary || in.k_end == L.K) input.release();
  cache->occupancy_changed(in.layer);
}

uint64_t ComputeEngine::array_cycles(const LayerDescriptor& L, const Instruction& in,
                                     uint64_t pixels, const uint32_t* counts,
                                     uint32_t kernels) const {
  if (kernels == UINT32_MAX) kernels = in.k_count();
  if (hw_.dataflow == Dataflow::Broadcast)
    return cost::broadcast_stage_cycles(hw_.compute, pixels, counts, kernels);
  // Folded stages (compute.fold "stages", or "auto" without data register
  // sets): the stage's columns split into the groups with the fewest cycles
  // for its whole tile (prefixes of it keep that fold and split).
  if (folds_stages(hw_) && (!L.quantized || L.conv_groups == 1)) {
    const cost::StageFold f = cost::stage_fold(hw_, pixels, in.k_count(), L.kernel_coefficients());
    return cost::folded_stage_cycles(hw_.compute, pixels, counts, kernels, f.fold, f.split);
  }
  // Lockstep; with every coefficient counted this is cost::compute_stage_cycles.
  if (!L.quantized) return cost::zero_skip_stage_cycles(hw_.compute, pixels, counts, kernels);
  // The split follows the whole tile, so a prefix of it (weight groups still
  // arriving) keeps the tile's split.
  if (L.op == OpKind::MatMul)
    return cost::matmul_stage_cycles(
        hw_.compute, pixels, counts, kernels,
        cost::coefficient_split(hw_, cost::matmul_fold(hw_.compute, pixels), in.k_count()));
  return cost::grouped_stage_cycles(hw_.compute, pixels, counts, in.k_begin, kernels,
                                    L.K / L.conv_groups);
}

template <class PrefixCycles>
uint64_t ComputeEngine::weight_groups_end(const Instruction& in, const ByteTile& weights,
                                          const TileTag& weight_tag, uint64_t now, uint64_t fill,
                                          const PrefixCycles& prefix_cycles, uint32_t stage) {
  const uint32_t kernels = in.k_count(), group = hw_.compute.array_rows;
  uint64_t last_weight = 0;
  for (uint32_t k = 0; k < kernels; ++k) last_weight = std::max(last_weight, weights.valid_at(k));
  if (last_weight <= now) {
    // (The first group was checked with the stage's input.)
    if (kernels > group) weights.require(weight_tag, 0, kernels, now, who(in, stage));
    return now + fill + prefix_cycles(kernels);
  }
  // Seed 004 rule 1: the weights are still arriving, a group of array_rows
  // kernels at a time; each group of the stage starts once its kernels are in
  // and the group before it is done. A group still unannounced when its turn
  // comes is waited for (valid_at is kNever until the load engine issues it).
  uint64_t t = now + fill, before = 0;
  for (uint32_t k0 = 0; k0 < kernels; k0 += group) {
    const uint32_t k1 = std::min(kernels, k0 + group);
    const auto arrival = [&] {
      uint64_t at = now;
      for (uint32_t k = k0; k < k1; ++k) at = std::max(at, weights.valid_at(k));
      return at;
    };
    // Not announced yet: reach the group's turn, then wait for the load
    // engine to issue the group (it marks the rows with their arrival).
    if (arrival() == ByteTile::kNever) wait_until_cycle(t);
    while (arrival() == ByteTile::kNever) scheduler->wait_for_progress();
    t = std::max(t, arrival());
    weights.require(weight_tag, k0, k1, t, who(in, stage));
    const uint64_t upto = prefix_cycles(k1);
    t += upto - before;
    before = upto;
  }
  return t;
}

void ComputeEngine::center_kernels(const LayerDescriptor& L, const Instruction& in,
                                   uint64_t coefficients) {
  const bool w_unsigned = L.quantized && L.quant.weight_type == QuantType::Uint8;
  unit_kernels_[in.unit].centered.resize(uint64_t(in.k_count()) * coefficients);
  for (uint32_t k = 0; k < in.k_count(); ++k) {
    const int32_t w_zp = L.quantized ? L.quant.weight_zero_point_of(in.k_begin + k) : 0;
    for (uint64_t i = 0; i < coefficients; ++i) {
      const int8_t w = unit_kernels_[in.unit].kernels[k * coefficients + i];
      unit_kernels_[in.unit].centered[k * coefficients + i] =
          int16_t((w_unsigned ? int32_t(uint8_t(w)) : int32_t(w)) - w_zp);
    }
  }
}

void ComputeEngine::compute_rows_quantized(const LayerDescriptor& L, const Instruction& in,
                                           const ByteTile& input, SumTile& results,
                                           uint32_t row_begin, uint32_t row_end,
                                           bool adds_to_sums) {
  // Graph operators: 9-bit operands (x - x_zp) * (w - w_zp), a kernel of group
  // g reading channels [g*C/groups, (g+1)*C/groups), taps dilated, rows and
  // columns strided apart. Tile rows are padded input rows (pad_left + W +
  // pad_right pixels of all C channels), padding holding x_zp.
  const uint32_t Cg = L.group_channels(), kernels_per_group = L.K / L.conv_groups;
  const uint64_t coefficients = L.kernel_coefficients();
  const RowRange piece_rows = tile_rows_for(L, in.out_row_begin, in.out_row_end);
  const uint32_t k_count = in.k_count();
  const int32_t x_zp = L.quant.inputs[0].zero_point;
  const bool x_unsigned = L.quant.inputs[0].type == QuantType::Uint8;
  const uint32_t sw = col_stride(L), dh = dil_h(L), dw = dil_w(L);
  // The stage's input rows minus the zero point, once, as int16 (exact: 9 bits).
  // With input channel tiles a pixel holds `channels` channels from c_first.
  const uint64_t channels = L.tile_pixel_bytes(k_count);
  const uint64_t c_first = L.tile_channel_begin(in.k_begin);
  const uint64_t row_len = uint64_t(L.padded_w()) * channels;
  const int64_t lo = int64_t(row_begin) * L.stride - L.padding - piece_rows.begin;
  const int64_t hi =
      int64_t(row_end - 1) * L.stride - L.padding - piece_rows.begin + int64_t(L.R - 1) * dh + 1;
  centered_input_.resize(uint64_t(hi - lo) * row_len);
  for (int64_t r = lo; r < hi; ++r) {
    const int8_t* from = input.row(uint32_t(r));
    int16_t* to = centered_input_.data() + uint64_t(r - lo) * row_len;
    for (uint64_t i = 0; i < row_len; ++i)
      to[i] = int16_t((x_unsigned ? int32_t(uint8_t(from[i])) : int32_t(from[i])) - x_zp);
  }
  // One group and no column dilation: a kernel row is S*C contiguous values,
  // so one call sums every kernel of the tile over it.
  const bool contiguous = Cg == L.C && dw == 1;
  // Below a few channels per group a call costs more than its loop.
  const bool short_runs = !contiguous && Cg < 8;
  const auto dot = [](const int16_t* x, const int16_t* w, uint64_t n) {
    uint32_t acc = 0;  // wraps as the int32 sums of the kernels do
    for (uint64_t i = 0; i < n; ++i) acc += uint32_t(int32_t(x[i]) * int32_t(w[i]));
    return acc;
  };
  for (uint32_t oh = row_begin; oh < row_end; ++oh) {
    int32_t* out_row = results.row(oh - in.out_row_begin);
    const int64_t first_in_row = int64_t(oh) * L.stride - L.padding - piece_rows.begin - lo;
    for (uint32_t ow = 0; ow < L.out_w; ++ow) {
      int32_t* sums = out_row + uint64_t(ow) * k_count;
      if (!adds_to_sums) std::fill(sums, sums + k_count, 0);
      for (uint32_t r = 0; r < L.R; ++r) {
        const int16_t* row =
            centered_input_.data() + uint64_t(first_in_row + int64_t(r) * dh) * row_len;
        if (contiguous) {
          dots_.dots_s16(row + uint64_t(ow) * sw * L.C,
                         unit_kernels_[in.unit].centered.data() + uint64_t(r) * L.S * Cg,
                         coefficients, uint64_t(L.S) * Cg, k_count, sums);
          continue;
        }
        // The tile's kernels of one group read the same channels: one call each run.
        for (uint32_t k = 0; k < k_count;) {
          const uint32_t group = (in.k_begin + k) / kernels_per_group;
          const uint32_t run =
              std::min(k_count - k, (group + 1) * kernels_per_group - (in.k_begin + k));
          const uint64_t c0 = uint64_t(group) * Cg - c_first;
          for (uint32_t t = 0; t < L.S; ++t) {
            const int16_t* x = row + (uint64_t(ow) * sw + uint64_t(t) * dw) * channels + c0;
            const int16_t* w = unit_kernels_[in.unit].centered.data() + k * coefficients +
                               (uint64_t(r) * L.S + t) * Cg;
            if (!short_runs) {
              dots_.dots_s16(x, w, coefficients, Cg, run, sums + k);
              continue;
            }
            for (uint32_t j = 0; j < run; ++j)
              sums[k + j] = int32_t(uint32_t(sums[k + j]) + dot(x, w + j * coefficients, Cg));
          }
          k += run;
        }
      }
    }
  }
}

void ComputeEngine::compute_rows(const LayerDescriptor& L, const Instruction& in,
                                 const ByteTile& input, SumTile& results, uint32_t row_begin,
                                 uint32_t row_end, bool adds_to_sums) {
  // Seed 001: the address generator streams the stage's lowered matrix out of
  // the tile (whatever the access mode laid it out as), a pass of array_cols
  // pixels at a time into a data register set, and the array multiplies the
  // set: each pixel's R*S*C entries against every kernel of the tile.
  const uint64_t coefficients = uint64_t(L.C) * L.R * L.S;
  const RowRange piece_rows = tile_rows_for(L, in.out_row_begin, in.out_row_end);
  const uint32_t k_count = in.k_count();
  InputAddressGenerator generator(
      tile_lowering(L, input.row_elements(), piece_rows.begin, row_begin, row_end - row_begin),
      LoweringKind::kIm2col);
  const uint64_t pixels = uint64_t(row_end - row_begin) * L.out_w;
  const uint64_t tile_bytes = uint64_t(input.rows()) * input.row_elements();
  int32_t* stage_sums = results.row(row_begin - in.out_row_begin);
  const int8_t* kernels = unit_kernels_[in.unit].kernels.data();
  for (uint64_t first = 0; first < pixels; first += hw_.compute.array_cols) {
    const uint64_t pass = std::min<uint64_t>(hw_.compute.array_cols, pixels - first);
    const int8_t* rows =
        data_registers_.fetch(generator, input.row(0), tile_bytes, pass, coefficients);
    for (uint64_t p = 0; p < pass; ++p) {
      int32_t* sums = stage_sums + (first + p) * k_count;
      if (!adds_to_sums) std::fill(sums, sums + k_count, 0);
      dots_.dots_s8(rows + p * coefficients, kernels, coefficients, coefficients, k_count, sums);
    }
  }
}

}  // namespace npusim
