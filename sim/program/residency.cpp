#include "sim/program/residency.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "sim/program/program_fit.h"
#include "sim/program/vector_tiling.h"

namespace npusim {

namespace {

// Whether operator `reader` takes its input from DRAM whatever the plan says.
bool reads_through_dram(const LayerDescriptor& reader) {
  return reader.binary || reader.input_layout != TensorLayout::Nhwc ||
         (runs_on_array(reader.op) && reader.access != LoadAccess::Im2col);
}

}  // namespace

std::vector<TensorLifetime> tensor_lifetimes(const Program& p) {
  std::vector<TensorLifetime> t(p.layers.size());
  for (size_t l = 0; l < p.layers.size(); ++l) {
    const LayerDescriptor& d = p.layers[l];
    t[l].producer = t[l].last_reader = uint32_t(l);
    t[l].needs_dram = d.output_bits != 0 || d.output_layout != TensorLayout::Nhwc || d.binary;
  }
  const auto read = [&](int32_t from, size_t reader) {
    if (from < 0 || size_t(from) >= t.size()) return;
    TensorLifetime& x = t[size_t(from)];
    x.last_reader = std::max(x.last_reader, uint32_t(reader));
    ++x.readers;
    if (reads_through_dram(p.layers[reader])) x.needs_dram = true;
  };
  for (size_t l = 0; l < p.layers.size(); ++l) {
    read(p.layers[l].input_from_layer, l);
    for (const auto& m : p.layers[l].more_inputs) read(m.from_layer, l);
  }
  return t;
}

std::vector<TensorLifetime> tensor_lifetimes(const Program& p, const NetworkConfig& net) {
  std::vector<TensorLifetime> t = tensor_lifetimes(p);
  for (size_t l = 0; l < t.size() && l < net.tensor_names.size(); ++l)
    t[l].graph_output =
        std::find(net.outputs.begin(), net.outputs.end(), net.tensor_names[l]) != net.outputs.end();
  return t;
}

OperatorSpan guarded_span(const TensorLifetime& t, size_t operators) {
  return guarded_span(t.producer, t.last_reader, operators);
}

OperatorSpan guarded_span(uint32_t first, uint32_t last, size_t operators) {
  return {first == 0 ? 0 : first - 1, uint32_t(std::min<size_t>(size_t(last) + 1, operators - 1))};
}

uint64_t weight_load_bytes(const Instruction& in, const LayerDescriptor& d) {
  if (in.kernel_part()) return uint64_t(in.k_count()) * d.R * d.S * in.channel_count();
  return d.kernel_offset(in.k_end) - d.kernel_offset(in.k_begin);
}

std::vector<WeightBlock> weight_blocks(const Program& p) {
  std::vector<WeightBlock> blocks;
  std::vector<int32_t> block_of(p.layers.size(), -1);
  std::map<uint64_t, size_t> by_address;  // weights_address -> index in blocks
  for (uint32_t l = 0; l < p.layers.size(); ++l) {
    const LayerDescriptor& d = p.layers[l];
    if (!op_info(d.op).weights || d.K == 0) continue;
    const auto [it, added] = by_address.emplace(d.weights_address, blocks.size());
    if (added) blocks.push_back({d.weights_address, d.weight_block_bytes(), {}, 0});
    blocks[it->second].users.push_back(l);
    block_of[l] = int32_t(it->second);
  }
  for (const Instruction& in : p.instructions)
    if (in.op == Opcode::LoadWeights && block_of[in.layer] >= 0)
      blocks[size_t(block_of[in.layer])].loaded_bytes += weight_load_bytes(in, p.layers[in.layer]);
  return blocks;
}

std::vector<WeightBlock> kept_weight_blocks(const Program& p) {
  std::vector<WeightBlock> kept;
  if (std::none_of(p.layers.begin(), p.layers.end(),
                   [](const LayerDescriptor& d) { return d.weights_resident; }))
    return kept;
  for (WeightBlock& b : weight_blocks(p))
    if (p.layers[b.users.front()].weights_resident) kept.push_back(std::move(b));
  return kept;
}

uint64_t piece_bytes(const Instruction& in, const LayerDescriptor& d, LayerViews& views) {
  // A column piece holds its window of columns and its columns' sums.
  std::shared_ptr<const LayerDescriptor> view;
  const LayerDescriptor& v = views.seen_by(in, d, view);
  const RowRange rows = tile_rows_for(v, in.out_row_begin, in.out_row_end);
  return uint64_t(rows.count()) * v.tile_row_bytes(in.k_count()) +
         uint64_t(in.row_count()) * v.out_w * in.k_count() * 4;
}

std::vector<uint64_t> largest_pieces(const Program& p) {
  std::vector<uint64_t> piece(p.layers.size(), 0);
  LayerViews views;
  for (const Instruction& in : p.instructions)
    if (in.op == Opcode::LoadInput)
      piece[in.layer] = std::max(piece[in.layer], piece_bytes(in, p.layers[in.layer], views));
  return piece;
}

std::vector<uint64_t> operator_working_sets(const Program& p, const HardwareConfig& hw) {
  const uint64_t halves = hw.buffering == Buffering::PingPong ? 2 : 1;
  const std::vector<uint64_t> piece = largest_pieces(p);
  std::vector<uint64_t> vector(p.layers.size(), 0);
  for (const Instruction& in : p.instructions)
    if (in.op == Opcode::Vector)
      vector[in.layer] =
          std::max(vector[in.layer],
                   vector_instruction_bytes(p.layers[in.layer], in.row_count(), in.k_count()));
  std::vector<uint64_t> bytes(p.layers.size(), 0);
  for (size_t l = 0; l < p.layers.size(); ++l) {
    const LayerDescriptor& d = p.layers[l];
    uint64_t weights = 0, params = 0;
    if (runs_on_array(d.op)) {
      const uint64_t kernel = d.binary                   ? uint64_t(d.R) * d.S * d.pixel_bytes()
                              : d.channels_per_part != 0 ? uint64_t(d.R) * d.S * d.channels_per_part
                                                         : d.kernel_coefficients();
      weights = uint64_t(d.k_tile) * kernel * std::max<uint32_t>(d.weight_buffers, 1);
      params = d.params_region_bytes;
    }
    const uint64_t units = d.units != 0 ? d.units : hw.compute.units;
    bytes[l] = weights + params + units * halves * piece[l] + vector[l];
  }
  return bytes;
}

namespace {

// Something the plan keeps in the cache: a kept output or a weight block.
struct Kept {
  std::string subject;  // for errors: "layer X: its output", "layer X: its weights"
  std::string name;     // "layer X's output", "layer X's weights"
  uint64_t offset = 0, bytes = 0;
  OperatorSpan span;
  uint32_t first = 0, last = 0;  // its live operators, unguarded
};

}  // namespace

void check_residency(const Program& p, const NetworkConfig& net, const HardwareConfig& hw) {
  bool any = false;
  for (const LayerDescriptor& d : p.layers) any = any || d.output_resident || d.weights_resident;
  if (!any) return;
  const std::vector<TensorLifetime> life = tensor_lifetimes(p, net);
  std::vector<Kept> kept;
  for (size_t l = 0; l < p.layers.size(); ++l) {
    const LayerDescriptor& d = p.layers[l];
    if (!d.output_resident) continue;
    const std::string who = "layer " + d.name + ": its output is placed in the cache ";
    if (d.output_on_chip)
      throw ProgramError(who + "and in the key-value region (resident_offset with kv_on_chip)");
    if (life[l].graph_output || life[l].readers == 0)
      throw ProgramError(who + "but it is an output of the workload, which must reach DRAM");
    if (life[l].needs_dram)
      throw ProgramError(who +
                         "but it or a reader uses a format only DRAM serves (packed "
                         "binary words, a planar layout or a host-lowered input)");
    kept.push_back({"layer " + d.name + ": its output", "layer " + d.name + "'s output",
                    d.resident_offset, d.output_bytes(), guarded_span(life[l], p.layers.size()),
                    life[l].producer, life[l].last_reader});
  }
  for (const WeightBlock& b : weight_blocks(p)) {
    const LayerDescriptor& first = p.layers[b.users.front()];
    for (const uint32_t u : b.users) {
      const LayerDescriptor& d = p.layers[u];
      if (d.weights_resident != first.weights_resident ||
          (d.weights_resident && d.weights_offset != first.weights_offset))
        throw ProgramError(
            "layers " + first.name + " and " + d.name + " share weights_address " +
            std::to_string(b.address) + " but not its place: " +
            (first.weights_resident ? std::to_string(first.weights_offset) : "DRAM") + " against " +
            (d.weights_resident ? std::to_string(d.weights_offset) : "DRAM"));
    }
    if (first.weights_resident)
      kept.push_back({"layer " + first.name + ": its weight block",
                      "layer " + first.name + "'s weight block", first.weights_offset, b.bytes,
                      guarded_span(b.users.front(), b.users.back(), p.layers.size()),
                      b.users.front(), b.users.back()});
  }
  const std::vector<uint64_t> used = operator_working_sets(p, hw);
  const uint64_t cache = hw.tile_cache_bytes();
  for (size_t k = 0; k < kept.size(); ++k) {
    const Kept& x = kept[k];
    const std::string who = x.subject + " is placed in the cache ";
    const uint64_t top = x.offset + x.bytes;
    for (uint32_t i = x.span.first; i <= x.span.last; ++i)
      if (top + used[i] > cache)
        throw ProgramError(who + "at " + std::to_string(x.offset) + " B below the top (" +
                           std::to_string(x.bytes) + " B), but operator " + p.layers[i].name +
                           "'s buffers use " + std::to_string(used[i]) + " B of the cache's " +
                           std::to_string(cache) + " B");
    for (size_t o = 0; o < k; ++o) {
      const Kept& e = kept[o];
      if (x.offset < e.offset + e.bytes && e.offset < top && x.span.overlaps(e.span))
        throw ProgramError(who + "over bytes that " + e.name +
                           " holds while it is still to be read (operators " +
                           std::to_string(e.first) + " to " + std::to_string(e.last) + ")");
    }
  }
}

}  // namespace npusim
