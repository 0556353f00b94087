#include "models/store_engine.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "models/cost/cost_model.h"
#include "models/layer_addressing.h"
#include "models/vector/requantiser.h"

namespace npusim {
namespace {

// The hardware's requantiser: 64-bit product, round half up, saturate, ReLU.
int8_t requantise_sum(int32_t sum, int32_t bias, int32_t scale, uint32_t shift, bool relu) {
  int64_t v = (int64_t(sum) + bias) * scale;
  if (shift > 0) v = (v + (int64_t(1) << (shift - 1))) >> shift;
  v = std::min<int64_t>(127, std::max<int64_t>(relu ? 0 : -128, v));
  return static_cast<int8_t>(v);
}

// The binary comparator: +1 when the sum reaches the channel's threshold
// (at or above it; at or below it when the channel's flip bit is set).
int8_t binarise(int32_t sum, int32_t threshold, int32_t flip) {
  return (flip != 0 ? sum <= threshold : sum >= threshold) ? 1 : -1;
}

}  // namespace

StoreEngine::StoreEngine(sc_core::sc_module_name name, const HardwareConfig& hw,
                         EngineOptions options, StatsRegistry& stats)
    : Engine(name, hw, options),
      busy_(stats.declare("store.busy_cycles", "cycles",
                          "cycles the store engine ran an instruction")),
      instructions_(stats.declare("store.instructions", "count", "store instructions executed")),
      batches_(stats.declare("store.batches", "count", "result batches written to DRAM")),
      standalone_cycles_(stats.declare("store.standalone_cycles", "cycles",
                                       "cycles the stores would take running alone")),
      resident_bytes_(stats.declare("store.resident_bytes", "bytes",
                                    "output bytes stored to the cache, where the memory plan "
                                    "keeps them, instead of DRAM")) {
  SC_THREAD(run);
}

void StoreEngine::run() {
  guarded([this] {
    while (const Instruction* in = scheduler->next(EngineKind::Store, 0)) {
      scheduler->wait_until_ready(*in);
      scheduler->instruction_started(*in);
      const uint64_t start = now_cycles();
      const uint64_t in_memory = store(*in);
      busy_.add(in->layer, now_cycles() - start);
      instructions_.add(in->layer, 1);
      // Free once the last batch is in the bus write buffer; the writes reach
      // memory `latency` later (seed 004 rule 3 tells these two apart).
      scheduler->instruction_done(*in, in_memory);
    }
  });
}

StoreEngine::ParamsSource StoreEngine::parameters_of(const Instruction& in) const {
  const Program& program = scheduler->program();
  for (const Dependency& d : in.deps) {
    const Instruction& p = program.instructions[d.producer];
    if (p.op == Opcode::LoadParams && p.layer == in.layer) return {p.half, p.k_begin, p.k_end};
  }
  for (uint32_t id = in.id; id-- > 0;) {
    const Instruction& p = program.instructions[id];
    if (p.op == Opcode::LoadParams && p.layer == in.layer) return {p.half, p.k_begin, p.k_end};
  }
  // No LoadParams at all: the bank's tag check reports it.
  return {in.layer % 2, 0, program.layers[in.layer].K};
}

uint64_t StoreEngine::store(const Instruction& in) {
  const LayerDescriptor& L = scheduler->program().layers[in.layer];
  const ParamsSource source = parameters_of(in);
  SumTile& params = cache->params(source.bank);
  SumTile& results = cache->result_half(in.unit, in.half);
  // Channels outside the loaded ones: expect exactly the store's, so the tag
  // check names both ranges.
  const bool covered = source.k_begin <= in.k_begin && in.k_end <= source.k_end;
  const TileTag params_tag{int32_t(in.layer),
                           0,
                           covered ? source.k_begin : in.k_begin,
                           covered ? source.k_end : in.k_end,
                           0,
                           1};
  const uint32_t first_param = covered ? in.k_begin - source.k_begin : 0;
  TileTag results_tag{int32_t(in.layer), in.batch,         in.k_begin,
                      in.k_end,          in.out_row_begin, in.out_row_end};
  // Kernel parts: the sums of every part (docs/tiling.md#kernel-parts).
  if (L.channels_per_part != 0) results_tag.channel_end = L.C;
  const uint32_t k_count = in.k_count();
  // A column piece's results hold its columns only (docs/tiling.md#column-pieces).
  const ColRange cols = output_cols(in, L);
  const uint64_t latency = dram->latency_cycles();
  // Seed 001's output generator, configured once from the layer's registers
  // (plain values: nothing on the heap across the waits below): it places
  // every element, and its layout decides how the batches split into runs.
  const OutputLayout layout = output_layout_of(L);
  // Graph operators store NHWC elements of 1 or 4 bytes at direct addresses;
  // the generator serves the plain layers' layouts. Timing needs only the
  // layout, so a timing-only run configures no generator.
  std::optional<OutputAddressGenerator> place;
  if (options_.functional && !L.quantized) place.emplace(agu_config(L), layout);
  uint64_t last_ack = now_cycles(), standalone = latency;
  for (uint32_t s = 0; s < in.stages; ++s) {
    if (s > 0) scheduler->wait_until_ready(in, s);
    const uint64_t now = now_cycles();
    const RowRange rows = stage_rows(in, s);
    params.require(params_tag, first_param, first_param + in.k_count(), now, who(in, s));
    results.require(results_tag, uint32_t(rows.begin - in.out_row_begin),
                    uint32_t(rows.end - in.out_row_begin), now, who(in, s));
    if (options_.functional && L.quantized) {
      store_operator_rows(L, in, params, first_param, results, rows);
    } else if (options_.functional) {
      // Every element where the generator says: int8 NHWC or NCHW, or one
      // bit of a packed N(K/b)HWb word.
      int8_t* out = dram->image(L.output_address, L.output_bytes());
      // Locals: the int8 stores may alias anything, so fields read in the
      // loops would be reloaded for every element.
      const bool binary = L.binary, relu = L.relu, packed = L.output_bits != 0;
      const uint32_t shift = L.shift;
      // {bias, scale}, or {threshold, flip} for a binary layer: channel k's
      // row at first_params + k * params_step.
      const int32_t* first_params = params.row(first_param);
      const uint64_t params_step = params.row_elements();
      const auto value = [&](int32_t sum, const int32_t* p) {
        return binary ? binarise(sum, p[0], p[1]) : requantise_sum(sum, p[0], p[1], shift, relu);
      };
      // Whole bytes (NHWC or NCHW): the generator places a pixel's first
      // channel and the others follow at its channel step.
      const uint64_t step = packed ? 0 : place->channel_step_bits() / 8;
      for (int64_t oh = rows.begin; oh < rows.end; ++oh) {
        const int32_t* sums = results.row(uint32_t(oh - in.out_row_begin));
        for (uint32_t ow = cols.begin; ow < cols.end; ++ow) {
          const int32_t* pixel_sums = sums + uint64_t(ow - cols.begin) * k_count;
          const int32_t* p = first_params;
          if (!packed) {
            const ElementAddress first = place->address(in.batch, uint32_t(oh), ow, in.k_begin);
            int8_t* dst = out + (uint64_t(first.byte) - L.output_address);
            for (uint32_t k = 0; k < k_count; ++k, p += params_step)
              dst[k * step] = value(pixel_sums[k], p);
            continue;
          }
          for (uint32_t k = 0; k < k_count; ++k, p += params_step) {
            const ElementAddress at = place->address(in.batch, uint32_t(oh), ow, in.k_begin + k);
            int8_t& byte = out[uint64_t(at.byte) - L.output_address];
            // +1 sets the bit, -1 clears it
            byte = int8_t(value(pixel_sums[k], p) >= 0 ? uint8_t(byte) | uint8_t(1u << at.bit)
                                                       : uint8_t(byte) & uint8_t(~(1u << at.bit)));
          }
        }
      }
    }
    const uint64_t pixels = uint64_t(rows.count()) * cols.count();
    // All channels of a pixel are contiguous in NHWC: a full-K tile is one
    // segment, a k-tile is one segment per pixel. NCHW holds each channel's
    // plane contiguously: one segment per channel, or one in all when the
    // batch covers whole planes. A packed output (N(K/b)HWb) holds the
    // batch's rows of one word group contiguously: one segment per group the
    // k-tile covers. A column piece's rows are a run each.
    const bool whole = k_count == L.K;
    const uint64_t whole_runs = in.column_piece() ? uint64_t(rows.count()) : 1;
    const bool planar = layout == OutputLayout::kNchw;
    const bool whole_planes = rows.count() == int64_t(L.out_h);
    const uint32_t ob = L.output_bits;
    const uint64_t word_groups = ob == 0 ? 0 : (in.k_end - 1) / ob - in.k_begin / ob + 1;
    const Grant read = cache->access(in.layer, false, pixels * k_count * 4, now);
    // Key-value blocks placed on chip (cache.kv_kib) go to the cache's
    // key-value region, and outputs the memory plan keeps in the cache to
    // theirs, not over the bus; they are in place when written.
    const uint64_t cache_bytes = pixels * k_count * L.output_element_bytes();
    if (L.output_resident) {
      resident_bytes_.add(in.layer, cache_bytes);
      cache->resident_written(in.layer);
    }
    // Where the runs lie (a k-tile of a column piece is timed with its rows abutting).
    const uint64_t e = L.output_element_bytes(), plane = uint64_t(L.out_h) * L.out_w;
    const uint64_t row0 = uint64_t(in.batch) * L.out_h + uint64_t(rows.begin);
    const DramAccess access =
        ob != 0  ? DramAccess{L.output_address +
                                 ((uint64_t(in.batch) * ((L.K + ob - 1) / ob) + in.k_begin / ob) *
                                      plane +
                                  uint64_t(rows.begin) * L.out_w) *
                                     (ob / 8),
                             word_groups, pixels * (ob / 8), plane * (ob / 8)}
        : planar ? DramAccess{L.output_address + ((uint64_t(in.batch) * L.K + in.k_begin) * plane +
                                                  uint64_t(rows.begin) * L.out_w) *
                                                     e,
                              whole_planes ? 1 : k_count, whole_planes ? pixels * k_count : pixels,
                              plane * e}
        : whole
            ? DramAccess{L.output_address + (row0 * L.out_w + cols.begin) * L.K * e, whole_runs,
                         pixels / whole_runs * k_count * e, uint64_t(L.out_w) * L.K * e}
            : DramAccess{L.output_address + ((row0 * L.out_w + cols.begin) * L.K + in.k_begin) * e,
                         pixels, k_count * e, uint64_t(L.K) * e};
    const Grant bus = L.output_in_cache() ? cache->access(in.layer, true, cache_bytes, now)
                                          : dram->transfer(in.layer, true, access);
    const uint64_t in_write_buffer = std::max(bus.end, read.end);
    const uint64_t ack = in_write_buffer + (L.output_in_cache() ? 0 : latency);
    dram->rows_stored(in.layer, in.batch, uint32_t(rows.begin), uint32_t(rows.end), k_count,
                      cols.count(), ack);
    standalone += std::max(bus.end - bus.start, read.end - read.start);
    batches_.add(in.layer, 1);
    scheduler->stage_done(in, s, now, in_write_buffer, ack);
    last_ack = std::max(last_ack, ack);
    wait_until_cycle(in_write_buffer);
  }
  standalone_cycles_.add(in.layer, standalone);
  results.release();
  cache->occupancy_changed(in.layer);
  return last_ack;
}

void StoreEngine::store_operator_rows(const LayerDescriptor& L, const Instruction& in,
                                      const SumTile& params, uint32_t first_param,
                                      const SumTile& results, RowRange rows) {
  const uint32_t k_count = in.k_count();
  const uint32_t bytes = L.output_element_bytes();
  const TensorQuant& out = L.quant.output;
  const int32_t lo = std::max(quant_min(out.type), L.quant.clamp_lo);
  const int32_t hi = std::min(quant_max(out.type), L.quant.clamp_hi);
  const ColRange cols = output_cols(in, L);
  for (int64_t oh = rows.begin; oh < rows.end; ++oh) {
    const int32_t* sums = results.row(uint32_t(oh - in.out_row_begin));
    for (uint32_t ow = cols.begin; ow < cols.end; ++ow) {
      const uint64_t pixel = (uint64_t(in.batch) * L.out_h + uint64_t(oh)) * L.out_w + ow;
      int8_t* dst =
          dram->image(L.output_address + (pixel * L.K + in.k_begin) * bytes, k_count * bytes);
      for (uint32_t k = 0; k < k_count; ++k) {
        const int32_t* p = params.row(first_param + k);  // {bias, multiplier bits}
        const int32_t acc = sums[uint64_t(ow - cols.begin) * k_count + k] + p[0];
        if (bytes == 4) {
          std::memcpy(dst + uint64_t(k) * 4, &acc, 4);
          continue;
        }
        if (L.requantiser == Requantiser::FixedPoint) {
          dst[k] = int8_t(requantise_fixed_point(acc, uint32_t(p[1]) & 0xffff, uint32_t(p[1]) >> 16,
                                                 out.zero_point, lo, hi));
          continue;
        }
        float multiplier;
        std::memcpy(&multiplier, &p[1], 4);
        dst[k] = int8_t(requantise_float32(acc, multiplier, out.zero_point, lo, hi));
      }
    }
  }
}

}  // namespace npusim
