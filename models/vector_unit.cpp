#include "models/vector_unit.h"

#include <algorithm>
#include <vector>

#include "models/cost/cost_model.h"
#include "models/cost/vector_cost.h"
#include "models/vector/vector_kernels.h"
#include "sim/program/vector_tiling.h"

namespace npusim {

VectorUnit::VectorUnit(sc_core::sc_module_name name, const HardwareConfig& hw,
                       EngineOptions options, StatsRegistry& stats)
    : Engine(name, hw, options),
      busy_(stats.declare("vector.busy_cycles", "cycles",
                          "cycles the vector unit ran an instruction")),
      instructions_(stats.declare("vector.instructions", "count", "vector instructions executed")),
      work_cycles_(stats.declare("vector.work_cycles", "cycles",
                                 "lane cycles by the cost formula, pipeline fill included")),
      standalone_cycles_(stats.declare("vector.standalone_cycles", "cycles",
                                       "cycles the vector instructions would take running alone")),
      resident_read_bytes_(stats.declare("vector.resident_read_bytes", "bytes",
                                         "input bytes read from outputs the memory plan keeps in "
                                         "the cache, not from DRAM")),
      resident_write_bytes_(stats.declare("vector.resident_write_bytes", "bytes",
                                          "output bytes written to the cache, where the memory "
                                          "plan keeps them, instead of DRAM")) {
  SC_THREAD(run);
}

void VectorUnit::run() {
  guarded([this] {
    while (const Instruction* in = scheduler->next(EngineKind::Vector, 0)) {
      scheduler->wait_until_ready(*in);
      scheduler->instruction_started(*in);
      const uint64_t start = now_cycles();
      const uint64_t in_memory = execute(*in);
      busy_.add(in->layer, now_cycles() - start);
      instructions_.add(in->layer, 1);
      scheduler->instruction_done(*in, in_memory);
    }
  });
}

uint64_t VectorUnit::execute(const Instruction& in) {
  const LayerDescriptor& L = layer_of(in);
  const uint64_t latency = dram->latency_cycles();
  const uint64_t begin = now_cycles();
  // The input rows the outputs read (global pooling: all of them), for
  // every input tensor; rows outside the input are padding, never fetched.
  const RowRange window = L.op == OpKind::GlobalAveragePool
                              ? RowRange{0, L.H}
                              : input_rows_for(L, in.out_row_begin, in.out_row_end);
  const int64_t first = std::max<int64_t>(window.begin, 0);
  const int64_t end = std::min<int64_t>(window.end, L.H);
  const uint64_t rows = end > first ? uint64_t(end - first) : 0;
  // An instruction over part of the channels (vector_splits_channels) reads
  // and writes those channels of each pixel: one bus segment per pixel.
  const uint32_t k_count = in.k_count();
  uint64_t read_bytes = 0, resident_read = 0, arrival = begin, bus_time = 0;
  {
    // Scoped: a thread still waiting when another one stops the run is never
    // unwound, so no heap object may live across a wait.
    std::vector<int32_t> producers = {L.input_from_layer};
    std::vector<uint32_t> channels = {L.C};
    for (const auto& m : L.more_inputs) producers.push_back(m.from_layer), channels.push_back(m.C);
    for (size_t i = 0; i < producers.size(); ++i) {
      // A per-channel operand: image n's C bytes, row n of its producer.
      const bool per_channel = i > 0 && L.per_channel_input(i - 1);
      if (producers[i] >= 0 && rows > 0)
        dram->require_rows_stored(who(in, 0), uint32_t(producers[i]),
                                  per_channel ? global_rows(in.batch, 1, {0, 1})
                                              : global_rows(in.batch, L.H, {first, end}));
      const BusSegments s =
          vector_bus_segments(L, vector_input_pixels(L, i, rows), channels[i], k_count);
      const uint64_t bytes = s.count * s.bytes;
      if (bytes == 0) continue;
      if (producers[i] >= 0 && scheduler->program().layers[size_t(producers[i])].output_resident) {
        require_resident(in, 0, uint32_t(producers[i]));
        // Kept in the cache by the memory plan: read in place, no bus, no fill.
        resident_read += bytes;
        continue;
      }
      // NHWC rows of image in.batch from row `first`; a channel split reads
      // each pixel's run of the instruction's channels.
      const uint64_t base = i == 0 ? L.input_address : L.more_inputs[i - 1].address;
      const uint64_t start =
          per_channel ? base + uint64_t(in.batch) * channels[i]
                      : base + ((uint64_t(in.batch) * L.H + uint64_t(first)) * L.W) * channels[i];
      const Grant bus = dram->transfer(in.layer, false,
                                       {start + (s.count > 1 ? in.k_begin : 0), s.count, s.bytes,
                                        s.count > 1 ? channels[i] : 0});
      bus_time += bus.end - bus.start;
      arrival = std::max(arrival, bus.end + latency);
      read_bytes += bytes;
    }
    resident_read_bytes_.add(in.layer, resident_read);
    if (has_norm_params(L.op)) {  // the norm's gamma and beta bank
      const Grant bus = dram->transfer(in.layer, false, {L.params_address, 1, L.params_bytes()});
      bus_time += bus.end - bus.start;
      arrival = std::max(arrival, bus.end + latency);
      read_bytes += L.params_bytes();
    }
    const Grant fill = cache->access(in.layer, true, read_bytes, begin + latency);
    arrival = std::max(arrival, fill.end);

    if (options_.functional) {
      std::vector<vector_kernels::InputView> views(producers.size());
      for (size_t i = 0; i < producers.size(); ++i) {
        const uint64_t base = i == 0 ? L.input_address : L.more_inputs[i - 1].address;
        views[i].pixels = vector_input_pixels(L, i, L.H);  // of one image
        const uint64_t image_bytes = views[i].pixels * channels[i];
        views[i].image = dram->image(base + in.batch * image_bytes, image_bytes);
        views[i].C = channels[i];
        views[i].quant = L.quant.inputs[i];
      }
      const uint64_t out_row = uint64_t(L.out_w) * L.K;
      const int8_t* params =
          has_norm_params(L.op) ? dram->image(L.params_address, L.params_bytes()) : nullptr;
      for (uint32_t oh = in.out_row_begin; oh < in.out_row_end; ++oh) {
        int8_t* out =
            dram->image(L.output_address + (uint64_t(in.batch) * L.out_h + oh) * out_row, out_row);
        vector_kernels::compute_row(L, views.data(), oh, in.k_begin, in.k_end, params, out);
      }
    }
  }

  const uint64_t lanes =
      cost::vector_stage_cycles(hw_.vector,
                                cost::vector_row_element_ops(L, k_count) * in.row_count()) +
      cost::vector_special_cycles(hw_.vector, cost::vector_row_special_ops(L) * in.row_count()) +
      hw_.vector.latency_cycles;
  work_cycles_.add(in.layer, lanes);
  const BusSegments out = vector_bus_segments(L, uint64_t(in.row_count()) * L.out_w, L.K, k_count);
  const uint64_t out_start =
      L.output_address + (uint64_t(in.batch) * L.out_h + in.out_row_begin) * L.out_w * L.K;
  const DramAccess output_access{out_start + (out.count > 1 ? in.k_begin : 0), out.count, out.bytes,
                                 out.count > 1 ? uint64_t(L.K) : 0};
  const uint64_t out_bytes = out.count * out.bytes;
  const Grant read = cache->access(in.layer, false, read_bytes + resident_read, arrival);
  const Grant write = cache->access(in.layer, true, out_bytes, arrival);
  const uint64_t computed = std::max({arrival + lanes, read.end, write.end});
  wait_until_cycle(computed);
  const Grant drain = cache->access(in.layer, false, out_bytes, computed);
  // Key-value blocks placed on chip (cache.kv_kib) stay in the cache's
  // key-value region: written there, not over the bus.
  // Outputs the memory plan keeps in the cache likewise.
  if (L.output_resident) {
    resident_write_bytes_.add(in.layer, out_bytes);
    cache->resident_written(in.layer);
  }
  const Grant bus = L.output_in_cache() ? cache->access(in.layer, true, out_bytes, computed)
                                        : dram->transfer(in.layer, true, output_access);
  const uint64_t in_write_buffer = std::max(bus.end, drain.end);
  const uint64_t ack = in_write_buffer + (L.output_in_cache() ? 0 : latency);
  dram->rows_stored(in.layer, in.batch, in.out_row_begin, in.out_row_end, k_count, L.out_w, ack);
  standalone_cycles_.add(in.layer, 2 * latency + bus_time + lanes + (bus.end - bus.start));
  scheduler->stage_done(in, 0, begin, in_write_buffer, ack);
  wait_until_cycle(in_write_buffer);
  return ack;
}

}  // namespace npusim
