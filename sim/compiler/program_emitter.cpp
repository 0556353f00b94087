// Emits the instruction stream of compile_network (declared in tiler.h).
// Loop nest per layer: for each k-tile: load its weights; for each image and
// each piece: load the piece's input rows into a half, compute, store.
// Dependencies are exact: data (RAW through the cache), buffer space (WAR on a
// half, the weight region or a parameter bank) and memory (RAW through DRAM:
// a layer reading rows the previous layer stores).
// Seed 001: each layer's input loads are the fetch stream of the address
// generator, configured by an AGU_INIT into register set `layer % sets`. A
// set's first AGU_INIT leads the program. With ping-pong buffering the
// generator has two sets, and the AGU_INIT of layer l+1 follows layer l's
// first fetch, so it is written while layer l streams; with one set (single
// buffering) it comes just before the layer's first fetch and waits for the
// previous layer's stream to end.
#include <algorithm>
#include <array>
#include <map>

#include "sim/compiler/tiler.h"

namespace npusim {
namespace {

uint64_t align64(uint64_t a) { return (a + 63) / 64 * 64; }

struct StoreRecord {
  uint32_t id, batch, row_begin, row_end;
};

class Emitter {
 public:
  Emitter(const NetworkConfig& net, const HardwareConfig& hw) : net_(net), hw_(hw) {
    const uint32_t units = hw.compute.units;
    last_compute_of_half_.assign(units, {kNone, kNone});
    last_store_of_half_.assign(units, {kNone, kNone});
    last_compute_of_unit_.assign(units, kNone);
    next_half_.assign(units, 0);
  }

  Program run() {
    const CachePartition part = partition_cache(net_, hw_);
    uint64_t dram = 0;
    for (size_t l = 0; l < net_.layers.size(); ++l) {
      const LayerConfig& L = net_.layers[l];
      const uint32_t output_bits = output_bits_of(net_, l);
      const LayerTilingPlan plan = plan_layer(L, hw_, part, output_bits);
      if (!plan.fits) throw CompileError("layer " + L.name + " does not fit: " + plan.why);
      LayerDescriptor d = describe_layer(L, plan, part);
      d.output_bits = output_bits;
      const bool chained = l > 0 && net_.chained[l];
      if (chained && !d.binary && program_.layers[l - 1].output_layout != d.input_layout)
        throw CompileError("layer " + L.name + " reads its input " + to_string(d.input_layout) +
                           " but " + program_.layers[l - 1].name + " stores it " +
                           to_string(program_.layers[l - 1].output_layout));
      if (chained) {
        d.input_address = program_.layers[l - 1].output_address;
        d.input_from_layer = static_cast<int32_t>(l - 1);
      } else {
        d.input_address = dram;
        dram = align64(dram + L.input_bytes());
      }
      d.weights_address = dram;
      dram = align64(dram + L.weight_bytes());
      d.params_address = dram;
      dram = align64(dram + d.params_bytes());
      d.output_address = dram;
      dram = align64(dram + d.output_bytes());
      // Where the host materialises the lowered matrix (host_im2col, mec).
      d.lowered_address = dram;
      dram = align64(dram + uint64_t(d.N) * d.lowered_bytes_per_image());
      program_.layers.push_back(d);
      if (l == 0)
        for (uint32_t set = 0; set < register_sets() && set < net_.layers.size(); ++set)
          emit_agu_init(set);
      emit_layer(static_cast<uint32_t>(l), plan, chained);
    }
    program_.dram_bytes = dram;
    validate_program(program_);
    return std::move(program_);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  LayerDescriptor describe_layer(const LayerConfig& L, const LayerTilingPlan& plan,
                                 const CachePartition& part) const {
    LayerDescriptor d;
    d.name = L.name;
    d.N = L.N, d.C = L.C, d.H = L.H, d.W = L.W, d.K = L.K, d.R = L.R, d.S = L.S;
    d.stride = L.stride, d.padding = L.padding, d.out_h = L.out_h(), d.out_w = L.out_w();
    d.relu = L.relu;
    d.shift = L.requant.shift;
    // Binary layers load their packed rows on the fly (docs/binary.md).
    d.access = L.access_on(hw_);
    d.binary = L.is_binary();
    d.bits = L.binary.bits;
    d.pad_mode = L.binary.padding;
    d.input_layout = L.input_layout;
    d.output_layout = L.output_layout;
    d.k_tile = plan.k_tile;
    d.rows_per_piece = plan.rows_per_piece;
    d.rows_per_compute_stage = plan.rows_per_compute_stage;
    d.half_bytes = part.half_bytes;
    d.weight_region_bytes = part.weight_region_bytes;
    d.params_region_bytes = part.params_region_bytes;
    return d;
  }

  Instruction& add(Opcode op, uint32_t layer) {
    Instruction& in = program_.instructions.emplace_back();
    in.id = static_cast<uint32_t>(program_.instructions.size() - 1);
    in.op = op;
    in.layer = layer;
    return in;
  }

  static void depend(Instruction& in, uint32_t producer, DependencyKind kind) {
    if (producer == kNone) return;
    for (const Dependency& d : in.deps)
      if (d.producer == producer && d.kind == kind) return;
    in.deps.push_back({producer, kind});
  }

  static uint32_t stages_for(uint32_t rows, uint32_t rows_per_stage) {
    return (rows + rows_per_stage - 1) / rows_per_stage;
  }

  void emit_layer(uint32_t l, const LayerTilingPlan& plan, bool chained) {
    const LayerDescriptor& d = program_.layers[l];
    const uint32_t bank = l % 2;
    Instruction& params = add(Opcode::LoadParams, l);
    params.half = bank;
    params.k_begin = 0, params.k_end = d.K;
    depend(params, last_store_of_bank_[bank], DependencyKind::BufferSpace);
    const uint32_t params_id = params.id;
    uint32_t last_store = kNone;

    const bool pingpong = hw_.buffering == Buffering::PingPong;
    uint32_t piece_counter = 0;
    for (uint32_t k0 = 0; k0 < d.K; k0 += d.k_tile) {
      const uint32_t k1 = std::min(d.K, k0 + d.k_tile);
      Instruction& w = add(Opcode::LoadWeights, l);
      w.k_begin = k0, w.k_end = k1;
      w.stages = (k1 - k0 + hw_.compute.array_rows - 1) / hw_.compute.array_rows;
      for (uint32_t id : last_compute_of_unit_) depend(w, id, DependencyKind::BufferSpace);
      const uint32_t weights_id = w.id;

      for (uint32_t n = 0; n < d.N; ++n) {
        for (uint32_t r0 = 0; r0 < d.out_h; r0 += d.rows_per_piece) {
          const uint32_t r1 = std::min(d.out_h, r0 + d.rows_per_piece);
          const uint32_t unit = piece_counter++ % hw_.compute.units;
          const uint32_t half = pingpong ? next_half_[unit] : 0;
          next_half_[unit] ^= 1u;
          const uint32_t stages = stages_for(r1 - r0, plan.rows_per_compute_stage);

          const bool first_fetch = last_fetch_of_layer_.count(l) == 0;
          if (agu_init_of_layer_.count(l) == 0) emit_agu_init(l);
          Instruction& load = add(Opcode::LoadInput, l);
          set_tile(load, unit, half, n, k0, k1, r0, r1, stages);
          depend(load, last_compute_of_half_[unit][half], DependencyKind::BufferSpace);
          depend(load, agu_init_of_layer_[l], DependencyKind::Data);
          if (chained) add_memory_deps(load, l - 1, n, input_rows_for(d, r0, r1));
          const uint32_t load_id = load.id;
          last_fetch_of_layer_[l] = load_id;
          if (first_fetch && pingpong && l + 1 >= 2 && l + 1 < net_.layers.size())
            emit_agu_init(l + 1);

          Instruction& compute = add(Opcode::Compute, l);
          set_tile(compute, unit, half, n, k0, k1, r0, r1, stages);
          depend(compute, weights_id, DependencyKind::Data);
          depend(compute, load_id, DependencyKind::Data);
          depend(compute, last_store_of_half_[unit][half], DependencyKind::BufferSpace);
          last_compute_of_half_[unit][half] = compute.id;
          last_compute_of_unit_[unit] = compute.id;
          const uint32_t compute_id = compute.id;

          Instruction& store = add(Opcode::Store, l);
          set_tile(store, unit, half, n, k0, k1, r0, r1,
                   stages_for(r1 - r0, plan.rows_per_store_batch));
          depend(store, compute_id, DependencyKind::Data);
          depend(store, params_id, DependencyKind::Data);
          last_store_of_half_[unit][half] = store.id;
          stores_[l].push_back({store.id, n, r0, r1});
          last_store = store.id;
        }
      }
    }
    last_store_of_bank_[bank] = last_store;
  }

  uint32_t register_sets() const { return hw_.buffering == Buffering::PingPong ? 2 : 1; }

  // AGU_INIT of layer l into its register set; the set is free once the
  // last fetch of the layer that used it before has completed.
  void emit_agu_init(uint32_t l) {
    const uint32_t sets = register_sets();
    Instruction& init = add(Opcode::AguInit, l);
    init.half = l % sets;
    init.k_begin = 0, init.k_end = net_.layers[l].K;
    if (l >= sets) {
      const auto previous = last_fetch_of_layer_.find(l - sets);
      if (previous != last_fetch_of_layer_.end())
        depend(init, previous->second, DependencyKind::BufferSpace);
    }
    agu_init_of_layer_[l] = init.id;
  }

  static void set_tile(Instruction& in, uint32_t unit, uint32_t half, uint32_t n, uint32_t k0,
                       uint32_t k1, uint32_t r0, uint32_t r1, uint32_t stages) {
    in.unit = unit, in.half = half, in.batch = n;
    in.k_begin = k0, in.k_end = k1;
    in.out_row_begin = r0, in.out_row_end = r1;
    in.stages = stages;
  }

  // The rows a load reads must have been stored (all channels) by the producer layer.
  void add_memory_deps(Instruction& load, uint32_t producer_layer, uint32_t n, RowRange rows) {
    for (const StoreRecord& s : stores_[producer_layer]) {
      if (s.batch != n) continue;
      if (int64_t(s.row_end) <= rows.begin || int64_t(s.row_begin) >= rows.end) continue;
      depend(load, s.id, DependencyKind::Memory);
    }
  }

  const NetworkConfig& net_;
  const HardwareConfig& hw_;
  Program program_;
  std::vector<std::array<uint32_t, 2>> last_compute_of_half_;
  std::vector<std::array<uint32_t, 2>> last_store_of_half_;
  std::vector<uint32_t> last_compute_of_unit_;
  std::vector<uint32_t> next_half_;
  uint32_t last_store_of_bank_[2] = {kNone, kNone};
  std::map<uint32_t, std::vector<StoreRecord>> stores_;
  std::map<uint32_t, uint32_t> agu_init_of_layer_;
  std::map<uint32_t, uint32_t> last_fetch_of_layer_;
};

}  // namespace

Program compile_network(const NetworkConfig& net, const HardwareConfig& hw) {
  if (net.layers.empty()) throw CompileError("network has no layers");
  return Emitter(net, hw).run();
}

}  // namespace npusim
