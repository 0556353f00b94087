// Emits the instruction stream of compile_network (program_emitter.h).
// Loop nest per layer: for each k-tile: load its weights (into the whole
// weight region, or with two weight slots into slot t mod 2, so the load
// waits only for the computes of tile t - 2 and overlaps tile t - 1's); for
// each image and each piece: load the piece's input rows into a half,
// compute, store.
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
#include "sim/compiler/program_emitter.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/compiler/dram_layout.h"
#include "sim/compiler/mapper.h"
#include "sim/compiler/memory_plan.h"
#include "sim/compiler/tiler.h"
#include "sim/program/batch_rows.h"
#include "sim/program/residency.h"
#include "sim/program/vector_tiling.h"

namespace npusim {
namespace {

struct StoreRecord {
  uint32_t id, batch, row_begin, row_end;
};

// The partition and mappings compile_network chooses for the program view `net` on the part of
// the array in use `hw`, when it is given no estimate (network_partition's result).
NetworkEstimate own_partition(const NetworkConfig& net, const HardwareConfig& hw) {
  NetworkEstimate e;
  e.partition = choose_partition(net, hw, &e.mappings);
  return e;
}

class Emitter {
 public:
  // `estimate`: the partition and mappings the program takes (an estimate's, or own_partition's).
  Emitter(const NetworkConfig& net, const HardwareConfig& hw, const NetworkEstimate& estimate)
      : net_(net), hw_(hw), estimate_(estimate) {
    const uint32_t units = hw.compute.units;
    last_compute_of_half_.assign(units, {kNone, kNone});
    last_store_of_half_.assign(units, {kNone, kNone});
    last_compute_of_slot_.assign(units, {kNone, kNone});
    next_half_.assign(units, 0);
    const size_t layers = net.layers.size();
    stores_.resize(layers);
    store_index_.resize(layers);
    agu_init_of_layer_.assign(layers, kNone);
    last_fetch_of_layer_.assign(layers, kNone);
  }

  Program run() {
    mappings_ = estimate_.mappings;
    const CachePartition& part = estimate_.partition;
    units_ = part.units;
    params_per_tile_ = part.params_per_tile;
    DramLayout dram(net_);
    // A graph's input tensors lie first, each NHWC (docs/graphs.md).
    dram.place_graph_inputs(program_);
    for (size_t l = 0; l < net_.layers.size(); ++l)
      if (runs_on_array(net_.layers[l].op)) array_ops_.push_back(uint32_t(l));
    for (size_t l = 0; l < net_.layers.size(); ++l) {
      const LayerConfig& L = net_.layers[l];
      if (!runs_on_array(L.op)) {
        LayerDescriptor d = describe_common(l, part);
        dram.place_vector_operator(d, l, program_);
        program_.layers.push_back(d);
        emit_vector_op(static_cast<uint32_t>(l));
        continue;
      }
      check_array_operator(net_, l, hw_);
      const uint32_t output_bits = output_bits_of(net_, l);
      const std::string signature = mapping_signature(L, output_bits);
      auto known = mappings_.find(signature);
      if (known == mappings_.end())
        known = mappings_.emplace(signature, choose_mapping(L, hw_, part, output_bits)).first;
      const LayerTilingPlan& plan = known->second;
      if (!plan.fits)
        throw CompileError("layer " + L.name + " does not fit: " + plan.why + "; " +
                           smallest_cache());
      LayerDescriptor d = describe_common(l, part);
      d.k_tile = plan.k_tile;
      d.rows_per_piece = plan.rows_per_piece;
      d.rows_per_compute_stage = plan.rows_per_compute_stage;
      d.cols_per_piece = plan.cols_per_piece;
      d.weight_buffers = plan.weight_buffers;
      d.input_channel_tiles = plan.input_channel_tiles;
      d.loop_order = plan.loop_order;
      d.channels_per_part = plan.channels_per_part;
      const int32_t producer = net_.producer_of(l);
      dram.place_array_operator(d, l, program_);
      program_.layers.push_back(d);
      if (l == array_ops_.front())
        for (uint32_t i = 0; i < register_sets() && i < array_ops_.size(); ++i)
          emit_agu_init(array_ops_[i]);
      emit_layer(static_cast<uint32_t>(l), plan, producer);
    }
    program_.dram_bytes = dram.bytes();
    size_halves_to_pieces();
    place_key_value_blocks(program_, hw_.kv_cache_bytes());
    if (hw_.residency == Residency::Auto) plan_residency(program_, net_, hw_);
    validate_program(program_);
    return std::move(program_);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Seed 003: each ping-pong half is allocated to the size of a piece, the
  // largest of the layer's pieces (its input rows and int32 sums); the
  // partition's half only bounds it (N is the fewest pieces that fit there).
  // Operators without input loads (the vector unit's) have no halves.
  void size_halves_to_pieces() {
    const std::vector<uint64_t> piece = largest_pieces(program_);
    for (size_t l = 0; l < program_.layers.size(); ++l) program_.layers[l].half_bytes = piece[l];
  }

  // The operator's registers (describe_operator) and the network-wide cache partition.
  LayerDescriptor describe_common(size_t l, const CachePartition& part) const {
    LayerDescriptor d = describe_operator(net_, l, hw_);
    d.half_bytes = part.half_bytes;
    d.weight_region_bytes = part.weight_region_bytes;
    d.params_region_bytes = part.params_region_bytes;
    d.vector_region_bytes = part.vector_region_bytes;
    d.units = part.units == hw_.compute.units ? 0 : part.units;  // 0: all
    return d;
  }

  // The instructions of a vector operator: as many output rows as fit the
  // partition's vector region with the input rows they read, or one row and
  // equal channel tiles when a whole row does not fit (sim/program/vector_tiling.h).
  VectorTile vector_tile(const LayerDescriptor& d) const {
    const uint64_t region = d.vector_region_bytes;
    if (const std::optional<VectorTile> tile = fit_vector_instruction(d, region)) return *tile;
    const bool splits = vector_splits_channels(d);
    throw CompileError(
        "operator " + d.name + " does not fit: one output row" + (splits ? " of one channel" : "") +
        " needs " + std::to_string(vector_minimum_bytes(d)) + " B of the vector unit's region of " +
        std::to_string(region) + " B (raise vector.buffer_kib)");
  }

  void emit_vector_op(uint32_t l) {
    const LayerDescriptor& d = program_.layers[l];
    for_each_vector_instruction(
        d, vector_tile(d), [&](uint32_t n, uint32_t r0, uint32_t r1, uint32_t k0, uint32_t k1) {
          const RowRange need =
              d.op == OpKind::GlobalAveragePool ? RowRange{0, d.H} : input_rows_for(d, r0, r1);
          const GlobalRows reads = global_rows(n, d.H, need);
          Instruction& v = add(Opcode::Vector, l);
          set_tile(v, 0, 0, n, k0, k1, r0, r1, 1);
          if (d.input_from_layer >= 0) add_memory_deps(v, uint32_t(d.input_from_layer), reads);
          for (size_t i = 0; i < d.more_inputs.size(); ++i)  // per-channel: row n of its producer
            if (d.more_inputs[i].from_layer >= 0)
              add_memory_deps(v, uint32_t(d.more_inputs[i].from_layer),
                              d.per_channel_input(i) ? global_rows(n, 1, {0, 1}) : reads);
          stores_[l].push_back({v.id, n, r0, r1});
        });
  }

  Instruction& add(Opcode op, uint32_t layer) {
    Instruction& in = program_.instructions.emplace_back();
    in.id = static_cast<uint32_t>(program_.instructions.size() - 1);
    in.op = op;
    in.layer = layer;
    // Seed 004 rule 3 (compiler.load_after_store write_buffer): a load waits
    // for the store before it in the seed's stream, the early policy deciding
    // how far. That stream issues each load one piece ahead of its compute
    // (two halves allow it): the load comes after the store emitted before
    // the last compute, not after that compute's own store.
    if (hw_.load_after_store == LoadAfterStore::WriteBuffer &&
        (op == Opcode::LoadInput || op == Opcode::LoadWeights || op == Opcode::LoadParams))
      depend(in, store_before_compute_, DependencyKind::Memory);
    if (op == Opcode::Store) last_store_ = in.id;
    if (op == Opcode::Compute) store_before_compute_ = last_store_;
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

  void emit_layer(uint32_t l, const LayerTilingPlan& plan, int32_t producer) {
    const LayerDescriptor& d = program_.layers[l];
    // Parameter banks alternate between consecutive array operators (the
    // vector operators between them use none), so an operator's parameters
    // wait for the stores of the array operator two before it, never for
    // those of the one just before it.
    // With parameters tile by tile (a small cache), each weight tile brings
    // its own instead (emit_weights_and_params).
    LayerEmission e{l, plan, producer};
    if (!params_per_tile_) {
      e.bank = array_ordinal(l) % 2;
      Instruction& params = add(Opcode::LoadParams, l);
      params.half = e.bank;
      params.k_begin = 0, params.k_end = d.K;
      depend(params, last_store_of_bank_[e.bank], DependencyKind::BufferSpace);
      e.params_id = params.id;
    }

    // Column pieces: each output row's runs of columns, row after row.
    const uint32_t pieces = piece_count(d.out_h, d.rows_per_piece) * d.column_runs();
    if (d.op == OpKind::BatchMatMul) {
      // batch_matmul's kernels are image n's keys or values: every image
      // loads its own, so images are the outer loop (in either order).
      for (uint32_t n = 0; n < d.N; ++n)
        for (uint32_t k0 = 0; k0 < d.K; k0 += d.k_tile) {
          const uint32_t k1 = std::min(d.K, k0 + d.k_tile);
          const uint32_t weights_id = emit_weights_and_params(e, k0, k1, n);
          for (uint32_t p = 0; p < pieces; ++p)
            emit_compute_and_store(e, emit_input_load(e, n, p, k0, k1, weights_id), k0, k1,
                                   weights_id);
        }
    } else if (d.channels_per_part != 0) {
      emit_kernel_parts(e, pieces);
    } else if (d.loop_order == LoopOrder::WeightStationary) {
      // Seed 004 rule 1, weight-stationary: each weight tile, then every piece's rows.
      for (uint32_t k0 = 0; k0 < d.K; k0 += d.k_tile) {
        const uint32_t k1 = std::min(d.K, k0 + d.k_tile);
        const uint32_t weights_id = emit_weights_and_params(e, k0, k1, 0);
        for (uint32_t n = 0; n < d.N; ++n)
          for (uint32_t p = 0; p < pieces; ++p)
            emit_compute_and_store(e, emit_input_load(e, n, p, k0, k1, weights_id), k0, k1,
                                   weights_id);
      }
    } else {
      // Feature-stationary: each piece's rows, then the weight tiles one by
      // one. A layer of one weight tile loads it once; with more, every
      // piece loads them all again.
      const bool one_tile = d.k_tile >= d.K;
      uint32_t weights_id = kNone;
      for (uint32_t n = 0; n < d.N; ++n)
        for (uint32_t p = 0; p < pieces; ++p) {
          const uint32_t first_k1 = std::min(d.K, d.k_tile);
          const PieceSlot piece = emit_input_load(e, n, p, 0, first_k1, kNone);
          for (uint32_t k0 = 0; k0 < d.K; k0 += d.k_tile) {
            const uint32_t k1 = std::min(d.K, k0 + d.k_tile);
            if (!one_tile || weights_id == kNone)
              weights_id = emit_weights_and_params(e, k0, k1, 0);
            emit_compute_and_store(e, piece, k0, k1, weights_id);
          }
        }
    }
  }

  // What the instructions of one layer share while it is emitted.
  struct LayerEmission {
    uint32_t layer;
    const LayerTilingPlan& plan;
    int32_t producer;            // the layer whose output is the input, or -1
    uint32_t params_id = kNone;  // the LoadParams the stores now read, in bank `bank`
    uint32_t bank = 0;
    uint32_t last_store = kNone;
    uint32_t piece_counter = 0;
  };

  // A weight tile and, when parameters go tile by tile, the tile's
  // parameters into the other bank than the tile's before (write after read:
  // the stores of the tile two before, or of an earlier layer).
  uint32_t emit_weights_and_params(LayerEmission& e, uint32_t k0, uint32_t k1, uint32_t n,
                                   uint32_t channel_begin = 0, uint32_t channel_end = 0) {
    const uint32_t weights_id = emit_weights(e.layer, k0, k1, n, channel_begin, channel_end);
    if (params_per_tile_) {
      e.bank = next_params_bank_;
      next_params_bank_ ^= 1;
      Instruction& params = add(Opcode::LoadParams, e.layer);
      params.half = e.bank;
      params.k_begin = k0, params.k_end = k1;
      depend(params, last_store_of_bank_[e.bank], DependencyKind::BufferSpace);
      e.params_id = params.id;
    }
    return weights_id;
  }
  // Where one piece's input rows were loaded.
  struct PieceSlot {
    uint32_t unit, half, n, r0, r1, stages, load_id;
    uint32_t c0 = 0, c1 = 0;  // a column piece's output columns (0, 0: whole rows)
  };

  // A weight tile; `n`: the image whose keys or values a batch_matmul tile
  // holds (0 for weights, which every image shares).
  // `channel_begin`, `channel_end`: a kernel part's input channels (0, 0: all).
  uint32_t emit_weights(uint32_t l, uint32_t k0, uint32_t k1, uint32_t n,
                        uint32_t channel_begin = 0, uint32_t channel_end = 0) {
    const LayerDescriptor& d = program_.layers[l];
    Instruction& w = add(Opcode::LoadWeights, l);
    w.k_begin = k0, w.k_end = k1;
    w.batch = n;
    w.channel_begin = channel_begin, w.channel_end = channel_end;
    w.stages = (k1 - k0 + hw_.compute.array_rows - 1) / hw_.compute.array_rows;
    // Write after read on the weight region: the last computes (every
    // unit) that read the part this tile overwrites, both slots for a
    // whole-region tile, else its own slot (tile t - 2's, or a
    // whole-region tile's before it).
    const uint32_t slot = weight_slot(d, w);
    for (const auto& slots : last_compute_of_slot_)
      for (uint32_t s = 0; s < 2; ++s)
        if (d.weight_buffers == 1 || s == slot) depend(w, slots[s], DependencyKind::BufferSpace);
    // batch_matmul: image n of the second operand must be in memory (every
    // row of it). A decode step's keys are many blocks of many stores: gather
    // them and add each once, rather than depend()'s scan of the list per
    // store (quadratic). Every weight tile of the image needs the same stores,
    // but only the first carries them: the load engine runs its instructions
    // one at a time in program order, and a memory dependency of a weight
    // load is satisfied from a time that depends on the store alone, so a
    // later tile cannot start before they hold. (Carried by every tile they
    // were 28.6 M of a whole TinyLlama decoder's 40.5 M dependencies.)
    if (d.op == OpKind::BatchMatMul) {
      if (operand_stores_layer_ != int64_t(l) || operand_stores_image_ != n) {
        operand_stores_.clear();
        for (const auto& block : d.more_inputs)
          if (block.from_layer >= 0) {
            const uint32_t rows = block.rows / d.N;  // image n's rows of the block
            for_each_store_writing(uint32_t(block.from_layer), global_rows(n, rows, {0, rows}),
                                   [&](uint32_t id) { operand_stores_.push_back(id); });
          }
        std::sort(operand_stores_.begin(), operand_stores_.end());
        operand_stores_.erase(std::unique(operand_stores_.begin(), operand_stores_.end()),
                              operand_stores_.end());
        operand_stores_layer_ = int64_t(l);
        operand_stores_image_ = n;
        w.deps.reserve(w.deps.size() + operand_stores_.size());
        for (const uint32_t id : operand_stores_) w.deps.push_back({id, DependencyKind::Memory});
      }
    }
    return w.id;
  }

  // Piece p of image n into the next half of the next unit. `weights_id`:
  // the k-tile's weight load (seed 004's data loads after weights), or kNone.
  // Kernel parts: `same`, the slot of the piece's first part (the later
  // parts load into its half), and the part's channels [channel_begin, channel_end).
  PieceSlot emit_input_load(LayerEmission& e, uint32_t n, uint32_t p, uint32_t k0, uint32_t k1,
                            uint32_t weights_id, const PieceSlot* same = nullptr,
                            uint32_t channel_begin = 0, uint32_t channel_end = 0) {
    const uint32_t l = e.layer;
    const LayerDescriptor& d = program_.layers[l];
    const bool pingpong = hw_.buffering == Buffering::PingPong;
    // Piece p: rows of seed 003's pieces, or row p / n_cols and its
    // (p mod n_cols)-th run of columns (an equal split, as the seed's rows).
    const uint32_t n_cols = d.column_runs();
    const auto [r0, r1] = d.cols_per_piece == 0
                              ? piece_rows(d.out_h, d.rows_per_piece, hw_.pieces, p)
                              : PieceRows{p / n_cols, p / n_cols + 1};
    const auto [c0, c1] = d.cols_per_piece == 0 ? PieceRows{0, 0}
                                                : piece_rows(d.out_w, d.cols_per_piece,
                                                             PieceSplit::Equal, p % n_cols);
    const uint32_t unit = same ? same->unit : e.piece_counter++ % units_;
    const uint32_t half = same ? same->half : pingpong ? next_half_[unit] : 0;
    if (!same) next_half_[unit] ^= 1u;
    const uint32_t stages = stages_for(r1 - r0, e.plan.rows_per_compute_stage);

    const bool first_fetch = last_fetch_of_layer_[l] == kNone;
    if (agu_init_of_layer_[l] == kNone) emit_agu_init(l);
    Instruction& load = add(Opcode::LoadInput, l);
    set_tile(load, unit, half, n, k0, k1, r0, r1, stages, c0, c1);
    load.channel_begin = channel_begin, load.channel_end = channel_end;
    depend(load, last_compute_of_half_[unit][half], DependencyKind::BufferSpace);
    depend(load, agu_init_of_layer_[l], DependencyKind::Data);
    // Seed 004: data loads wait for the last weight load (as when
    // parameters are folded into the data as it loads).
    if (hw_.input_loads == InputLoads::AfterWeights) depend(load, weights_id, DependencyKind::Data);
    if (e.producer >= 0)
      add_memory_deps(load, uint32_t(e.producer), global_rows(n, d.H, input_rows_for(d, r0, r1)));
    const uint32_t load_id = load.id;
    last_fetch_of_layer_[l] = load_id;
    // The next array operator's register set is written while this one streams.
    const uint32_t ordinal = array_ordinal(l);
    if (first_fetch && pingpong && ordinal + 1 >= 2 && ordinal + 1 < array_ops_.size())
      emit_agu_init(array_ops_[ordinal + 1]);
    return {unit, half, n, r0, r1, stages, load_id, c0, c1};
  }

  void emit_compute_and_store(LayerEmission& e, const PieceSlot& piece, uint32_t k0, uint32_t k1,
                              uint32_t weights_id) {
    emit_store(e, piece, k0, k1, emit_compute(e, piece, k0, k1, weights_id));
  }

  // Kernel parts: the part's channels, and `previous_part`, the compute of
  // the piece's part before (whose sums this one adds to; kNone: the first).
  uint32_t emit_compute(LayerEmission& e, const PieceSlot& piece, uint32_t k0, uint32_t k1,
                        uint32_t weights_id, uint32_t channel_begin = 0, uint32_t channel_end = 0,
                        uint32_t previous_part = kNone) {
    const uint32_t l = e.layer;
    const LayerDescriptor& d = program_.layers[l];
    const uint32_t unit = piece.unit, half = piece.half;
    Instruction& compute = add(Opcode::Compute, l);
    set_tile(compute, unit, half, piece.n, k0, k1, piece.r0, piece.r1, piece.stages, piece.c0,
             piece.c1);
    compute.channel_begin = channel_begin, compute.channel_end = channel_end;
    depend(compute, weights_id, DependencyKind::Data);
    depend(compute, piece.load_id, DependencyKind::Data);
    depend(compute, previous_part, DependencyKind::Data);
    depend(compute, last_store_of_half_[unit][half], DependencyKind::BufferSpace);
    last_compute_of_half_[unit][half] = compute.id;
    const uint32_t slot = weight_slot(d, compute);
    for (uint32_t s = 0; s < 2; ++s)
      if (d.weight_buffers == 1 || s == slot) last_compute_of_slot_[unit][s] = compute.id;
    return compute.id;
  }

  void emit_store(LayerEmission& e, const PieceSlot& piece, uint32_t k0, uint32_t k1,
                  uint32_t compute_id) {
    const uint32_t l = e.layer;
    const uint32_t unit = piece.unit, half = piece.half;
    Instruction& store = add(Opcode::Store, l);
    set_tile(store, unit, half, piece.n, k0, k1, piece.r0, piece.r1,
             stages_for(piece.r1 - piece.r0, e.plan.rows_per_store_batch), piece.c0, piece.c1);
    depend(store, compute_id, DependencyKind::Data);
    depend(store, e.params_id, DependencyKind::Data);
    last_store_of_bank_[e.bank] = store.id;
    last_store_of_half_[unit][half] = store.id;
    stores_[l].push_back({store.id, piece.n, piece.r0, piece.r1});
    e.last_store = store.id;
  }

  // Kernel parts (docs/tiling.md#kernel-parts), weight-stationary: for each
  // k-tile, the pieces a group at a time (one per unit and half, as many as
  // are in flight), and for each part of the input channels its weights once
  // for the group, then each piece's rows of those channels and a compute
  // adding to the piece's sums; after the last part, the group's stores.
  void emit_kernel_parts(LayerEmission& e, uint32_t pieces) {
    const LayerDescriptor& d = program_.layers[e.layer];
    const uint32_t group = units_ * (hw_.buffering == Buffering::PingPong ? 2 : 1);
    const uint32_t total = d.N * pieces;
    for (uint32_t k0 = 0; k0 < d.K; k0 += d.k_tile) {
      const uint32_t k1 = std::min(d.K, k0 + d.k_tile);
      for (uint32_t first = 0; first < total; first += group) {
        const uint32_t last = std::min(total, first + group);
        std::vector<PieceSlot> slots;
        std::vector<uint32_t> computes(last - first, kNone);
        for (uint32_t c0 = 0; c0 < d.C; c0 += d.channels_per_part) {
          const uint32_t c1 = std::min(d.C, c0 + d.channels_per_part);
          // The tile's parameters come with its first weights.
          const uint32_t weights_id = first == 0 && c0 == 0
                                          ? emit_weights_and_params(e, k0, k1, 0, c0, c1)
                                          : emit_weights(e.layer, k0, k1, 0, c0, c1);
          for (uint32_t i = first; i < last; ++i) {
            const uint32_t n = i / pieces, p = i % pieces;
            const PieceSlot* same = c0 == 0 ? nullptr : &slots[i - first];
            const PieceSlot piece = emit_input_load(e, n, p, k0, k1, weights_id, same, c0, c1);
            if (c0 == 0) slots.push_back(piece);
            computes[i - first] =
                emit_compute(e, piece, k0, k1, weights_id, c0, c1, computes[i - first]);
          }
        }
        for (uint32_t i = first; i < last; ++i)
          emit_store(e, slots[i - first], k0, k1, computes[i - first]);
      }
    }
  }

  // The smallest cache.size_kib with which every operator fits (the
  // mappings only gain choices with the cache), as advice for the error.
  std::string smallest_cache() const {
    const auto fits = [&](uint32_t kib) {
      HardwareConfig hw = hw_;
      hw.cache.size_kib = kib;
      hw.compiler.cache_kib = 0;  // the advice is about the whole cache
      const CachePartition part = choose_partition(net_, hw);
      for (size_t l = 0; l < net_.layers.size(); ++l)
        if (runs_on_array(net_.layers[l].op)
                ? !mapping_fits(net_.layers[l], hw, part, output_bits_of(net_, l))
                : vector_minimum_bytes(describe_operator(net_, l, hw)) > part.vector_region_bytes)
          return false;
      return true;
    };
    constexpr uint32_t kMaxKib = 1048576;  // the key's limit
    if (!fits(kMaxKib)) return "no cache up to cache.size_kib = 1048576 fits it";
    uint32_t lo = hw_.cache.size_kib, hi = kMaxKib;  // lo fails, hi fits
    while (hi - lo > 1) {
      const uint32_t mid = lo + (hi - lo) / 2;
      (fits(mid) ? hi : lo) = mid;
    }
    return "the network fits from cache.size_kib = " + std::to_string(hi) +
           " (raise cache.size_kib)";
  }

  uint32_t register_sets() const { return hw_.buffering == Buffering::PingPong ? 2 : 1; }

  // AGU_INIT of array operator l into its register set (its ordinal among the
  // array operators modulo the sets); the set is free once the last fetch of
  // the operator that used it before has completed.
  void emit_agu_init(uint32_t l) {
    const uint32_t sets = register_sets();
    const uint32_t ordinal = array_ordinal(l);
    Instruction& init = add(Opcode::AguInit, l);
    init.half = ordinal % sets;
    init.k_begin = 0, init.k_end = net_.layers[l].K;
    if (ordinal >= sets) {
      const uint32_t previous = last_fetch_of_layer_[array_ops_[ordinal - sets]];
      if (previous != kNone) depend(init, previous, DependencyKind::BufferSpace);
    }
    agu_init_of_layer_[l] = init.id;
  }

  uint32_t array_ordinal(uint32_t l) const {
    return uint32_t(std::lower_bound(array_ops_.begin(), array_ops_.end(), l) - array_ops_.begin());
  }

  // c0, c1: a column piece's output columns (0, 0: whole rows).
  static void set_tile(Instruction& in, uint32_t unit, uint32_t half, uint32_t n, uint32_t k0,
                       uint32_t k1, uint32_t r0, uint32_t r1, uint32_t stages, uint32_t c0 = 0,
                       uint32_t c1 = 0) {
    in.unit = unit, in.half = half, in.batch = n;
    in.k_begin = k0, in.k_end = k1;
    in.out_row_begin = r0, in.out_row_end = r1;
    in.out_col_begin = c0, in.out_col_end = c1;
    in.stages = stages;
  }

  // Calls f(store id), in program order, for each store of the producer
  // layer that writes any of `rows` (counted across the producer's images: a
  // reader may view the tensor as other images than its producer does).
  template <class F>
  void for_each_store_writing(uint32_t producer_layer, GlobalRows rows, F f) {
    const std::vector<std::vector<uint32_t>>& by_row = stores_by_row(producer_layer);
    std::vector<uint32_t>& ids = scratch_ids_;
    ids.clear();
    for (uint64_t r = rows.begin; r < std::min<uint64_t>(rows.end, by_row.size()); ++r)
      ids.insert(ids.end(), by_row[r].begin(), by_row[r].end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (const uint32_t id : ids) f(id);
  }

  // The stores of a layer that write each of its global rows, in program
  // order; indexed as they are emitted (a small cache gives a layer many
  // stores and each load many rows: scanning every store per load was most
  // of a compile).
  const std::vector<std::vector<uint32_t>>& stores_by_row(uint32_t layer) {
    RowIndex& index = store_index_[layer];
    const uint32_t per_image = program_.layers[layer].out_h;
    if (index.by_row.empty()) index.by_row.resize(uint64_t(program_.layers[layer].N) * per_image);
    const std::vector<StoreRecord>& stores = stores_[layer];
    for (; index.indexed < stores.size(); ++index.indexed) {
      const StoreRecord& s = stores[index.indexed];
      const GlobalRows g = global_rows(s.batch, per_image, {s.row_begin, s.row_end});
      for (uint64_t r = g.begin; r < g.end; ++r) index.by_row[r].push_back(s.id);
    }
    return index.by_row;
  }

  // The rows a load reads must have been stored (all channels) by the producer layer.
  void add_memory_deps(Instruction& load, uint32_t producer_layer, GlobalRows rows) {
    // The memory dependencies it has (an operator may read one producer
    // twice), looked up by bisection: a load on a small cache waits for
    // hundreds of stores, and depend()'s scan per store was quadratic.
    std::vector<uint32_t>& known = scratch_known_;
    known.clear();
    for (const Dependency& d : load.deps)
      if (d.kind == DependencyKind::Memory) known.push_back(d.producer);
    std::sort(known.begin(), known.end());
    for_each_store_writing(producer_layer, rows, [&](uint32_t id) {
      if (!std::binary_search(known.begin(), known.end(), id))
        load.deps.push_back({id, DependencyKind::Memory});
    });
  }

  const NetworkConfig& net_;
  const HardwareConfig& hw_;
  // batch_matmul: the stores its second operand's blocks come from (layer operand_stores_layer_).
  std::vector<uint32_t> operand_stores_;
  int64_t operand_stores_layer_ = -1;
  uint32_t operand_stores_image_ = 0;
  Program program_;
  std::vector<std::array<uint32_t, 2>> last_compute_of_half_;
  std::vector<std::array<uint32_t, 2>> last_store_of_half_;
  // Per unit, the last compute that read each weight slot (a whole-region
  // tile reads both).
  std::vector<std::array<uint32_t, 2>> last_compute_of_slot_;
  std::vector<uint32_t> next_half_;
  uint32_t last_store_of_bank_[2] = {kNone, kNone};
  // For compiler.load_after_store: the last store in program order, and the
  // last store before the last compute.
  uint32_t last_store_ = kNone, store_before_compute_ = kNone;
  bool params_per_tile_ = false;  // the partition's: parameters load with each weight tile
  uint32_t next_params_bank_ = 0;
  // By layer index (vectors, not maps: a decoder has tens of thousands of operators, and
  // every load looks its producer up).
  std::vector<std::vector<StoreRecord>> stores_;
  struct RowIndex {
    size_t indexed = 0;  // stores_[layer] entries in by_row
    std::vector<std::vector<uint32_t>> by_row;
  };
  std::vector<RowIndex> store_index_;
  std::vector<uint32_t> scratch_ids_, scratch_known_;
  std::vector<uint32_t> agu_init_of_layer_;    // kNone: not yet emitted
  std::vector<uint32_t> last_fetch_of_layer_;  // kNone: no fetch yet
  // Mappings by mapping_signature: operators of one shape are mapped once.
  std::unordered_map<std::string, LayerTilingPlan> mappings_;
  const NetworkEstimate& estimate_;  // the partition and mappings the program takes
  std::vector<uint32_t> array_ops_;  // indices of the operators that run on the array
  uint32_t units_ = 1;               // the units the pieces use (the partition's)
};

}  // namespace

void check_array_operator(const NetworkConfig& net, size_t l, const HardwareConfig& hw) {
  const LayerConfig& L = net.layers[l];
  if (hw.dataflow == Dataflow::Broadcast && !L.is_binary() && L.access_on(hw) != LoadAccess::Im2col)
    throw CompileError("layer " + L.name +
                       ": compute.dataflow \"broadcast\" shifts the input tile as it lies, so "
                       "it needs load.access \"im2col\"; the layer's access is \"" +
                       to_string(L.access_on(hw)) + "\"");
  const int32_t producer = net.producer_of(l);
  if (producer < 0) return;
  const LayerDescriptor d = describe_operator(net, l, hw);
  const LayerDescriptor from = describe_operator(net, size_t(producer), hw);
  if (!d.binary && from.output_layout != d.input_layout)
    throw CompileError("layer " + L.name + " reads its input " + to_string(d.input_layout) +
                       " but " + from.name + " stores it " + to_string(from.output_layout));
}

Program compile_network(const NetworkConfig& net, const HardwareConfig& hw,
                        const NetworkEstimate* estimate) {
  if (net.layers.empty()) throw CompileError("network has no layers");
  NetworkConfig storage;
  const NetworkConfig& view = program_view(net, storage);
  // The part of the array the program uses (compiler.array_rows/cols).
  const HardwareConfig in_use = array_in_use(hw);
  if (estimate != nullptr) return Emitter(view, in_use, *estimate).run();
  const NetworkEstimate own = own_partition(view, in_use);
  return Emitter(view, in_use, own).run();
}

NetworkEstimate network_partition(const NetworkConfig& net, const HardwareConfig& hw) {
  if (net.layers.empty()) throw CompileError("network has no layers");
  NetworkConfig storage;
  return own_partition(program_view(net, storage), array_in_use(hw));
}

}  // namespace npusim
