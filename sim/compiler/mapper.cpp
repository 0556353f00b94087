#include "sim/compiler/mapper.h"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "models/cost/cost_model.h"
#include "sim/compiler/estimate_memo.h"
#include "sim/compiler/feature_stationary_estimate.h"
#include "sim/compiler/kernel_parts.h"
#include "sim/compiler/piece_cost.h"
#include "sim/compiler/vector_estimate.h"
#include "sim/program/vector_tiling.h"

namespace npusim {
namespace {

using cost::ceil_div;

constexpr uint32_t kMaxWeightShare = 64;  // weights get at least 1/64 of the cache
constexpr uint32_t kMaxVectorShare = 64;  // the vector unit keeps at least 1/64 of its region
constexpr uint32_t kKTileStep = 8;        // k-tiles in multiples of 8 besides the array rows

}  // namespace

const MappingCandidate* chosen_candidate(const std::vector<MappingCandidate>& candidates,
                                         const HardwareConfig& hw) {
  const MappingCandidate* best = nullptr;
  for (const MappingCandidate& c : candidates)
    if (best == nullptr || c.estimate.total < best->estimate.total) best = &c;
  if (best == nullptr || hw.compiler.traffic_margin <= 0) return best;
  const double limit = double(best->estimate.total) * (1 + hw.compiler.traffic_margin);
  const MappingCandidate* lean = best;
  for (const MappingCandidate& c : candidates) {
    if (double(c.estimate.total) > limit) continue;
    const uint64_t time = bus_time(c.estimate), lean_time = bus_time(lean->estimate);
    if (time < lean_time || (time == lean_time && c.estimate.total < lean->estimate.total))
      lean = &c;
  }
  return lean;
}

MappingEstimate estimate_mapping(const LayerConfig& L, const HardwareConfig& hw,
                                 const LayerTilingPlan& plan, uint32_t output_bits) {
  if (L.op == OpKind::BatchMatMul && L.N > 1) {
    // Each image loads its own keys or values and runs its pieces (the
    // emitter's image-outer loop): N times one image.
    LayerConfig one = L;
    one.N = 1;
    MappingEstimate e = estimate_mapping(one, hw, plan, output_bits);
    e.total *= L.N, e.weights *= L.N, e.compute *= L.N, e.bus *= L.N;
    return e;
  }
  // A feature-stationary layer of one weight tile runs the weight-stationary
  // program but for its first input load, issued before the weights (the
  // same bytes and, run alone, the same time).
  if (plan.loop_order == LoopOrder::FeatureStationary && plan.k_tile < L.K)
    return estimate_feature_stationary(L, hw, plan, output_bits);
  if (plan.channels_per_part != 0) return estimate_kernel_parts(L, hw, plan, output_bits);
  MappingEstimate e;
  const uint64_t latency = hw.dram.latency_cycles;
  const LayerPieces shapes = layer_pieces(L, hw, plan);
  const uint32_t n_pieces = shapes.n_pieces, full_pieces = shapes.full_pieces;
  const PieceShape full_shape = shapes.full_shape, last_shape = shapes.last_shape;
  const uint32_t last_count = shapes.last_count();
  const uint64_t pieces = uint64_t(L.N) * n_pieces;
  const uint64_t per_unit = ceil_div(pieces, hw.compute.units);
  const bool pingpong = hw.buffering == Buffering::PingPong;
  // The busiest unit's time on one tile's pieces: with one weight slot every
  // tile waits for its slowest unit, unit 0 of the round-robin, which takes
  // ceil(pieces / units) pieces and as many of the longer (full) ones as any
  // unit. With two slots a unit runs on into the next tile: the emitter deals
  // the layer's pieces round-robin, tile after tile, so the busiest unit is
  // the one whose pieces over the whole layer take longest (a unit may take
  // the same longer piece of every tile), a tile's share of it each tile;
  // but tile t + 2's weights wait for tile t's last piece, so two tiles take
  // at least one tile's slowest unit plus one weight load.
  const uint64_t k_tiles = ceil_div(L.K, plan.k_tile);
  const uint32_t units = hw.compute.units;
  const uint64_t full_per_unit = std::min(per_unit, ceil_div(uint64_t(L.N) * full_pieces, units));
  // Each unit's full and shorter pieces over the layer, counted over one
  // period of the deal (lcm(pieces, units) pieces) and scaled.
  std::vector<std::pair<uint64_t, uint64_t>> layer_pieces_of_unit;
  if (plan.weight_buffers > 1 && units > 1) {
    layer_pieces_of_unit.assign(units, {0, 0});
    const uint64_t dealt = pieces * k_tiles, period = std::lcm(pieces, uint64_t(units));
    const uint64_t periods = dealt / period, rest = dealt % period;
    for (uint64_t g = 0; g < std::min(period, dealt); ++g) {
      auto& [full, last] = layer_pieces_of_unit[g % units];
      (g % n_pieces < full_pieces ? full : last) += periods + (g < rest ? 1 : 0);
    }
  }
  const auto unit_share = [&](uint64_t full_piece, uint64_t last_piece, uint64_t weight_cycles) {
    const uint64_t slowest = full_per_unit * full_piece + (per_unit - full_per_unit) * last_piece;
    if (layer_pieces_of_unit.empty()) return slowest;
    uint64_t busiest = 0;
    for (const auto& [full, last] : layer_pieces_of_unit)
      busiest = std::max(busiest, full * full_piece + last * last_piece);
    const uint64_t spread = ceil_div(busiest, k_tiles);
    return std::min(slowest, std::max(spread, ceil_div(slowest + weight_cycles, 2)));
  };
  // LoadParams: the layer's parameters first, or each tile's with its weights.
  e.weights = plan.params_per_tile ? 0 : cost::dram_data_cycles(hw.dram, 1, uint64_t(L.K) * 8);
  uint64_t total = e.weights;
  // One weight tile of k_count kernels from k0, `hidden` cycles of its load behind the previous
  // tile's compute: its cycles, and its shares of the estimate's parts.
  const auto tile = [&](const PieceCost& full, const PieceCost& last, uint32_t k_count,
                        uint64_t hidden) {
    MappingEstimate t;
    // The tile's kernels and, loaded with them, its channels' parameters.
    const uint64_t kernel_bytes = uint64_t(k_count) * tiling_kernel_bytes(L);
    const uint64_t param_bytes = plan.params_per_tile ? uint64_t(k_count) * 8 : 0;
    t.weights = cost::dram_data_cycles(hw.dram, 1, kernel_bytes) +
                (param_bytes > 0 ? cost::dram_data_cycles(hw.dram, 1, param_bytes) : 0);
    // The busiest unit: its share of the pieces (the shorter ones at their
    // own cycles), each waiting for its own load when single-buffered.
    // With two halves, piece i + 2's load starts when piece i's compute
    // ends, the moment piece i's store starts, and shares the bus with it,
    // so a unit finishes at best one piece per (load + store + latency +
    // compute) / 2 cycles.
    const auto piece_cycles = [&](const PieceCost& piece) {
      const uint64_t cycle = piece.fill_bus + latency + piece.compute;
      return pingpong ? std::max(piece.compute, ceil_div(cycle + piece.store_bus, 2)) : cycle;
    };
    t.compute = unit_share(piece_cycles(full), piece_cycles(last), t.weights);
    t.bus = uint64_t(L.N) * (uint64_t(full_pieces) * (full.load_bus + full.store_bus) +
                             uint64_t(last_count) * (last.load_bus + last.store_bus));
    // The pieces' port cycles, and the weight tile's own write into the cache.
    const uint64_t ports =
        uint64_t(L.N) * (uint64_t(full_pieces) * full.ports + uint64_t(last_count) * last.ports) +
        cost::cache_access_cycles(hw.cache, kernel_bytes + param_bytes);
    // The busiest unit's first piece waits for the first pieces of the units
    // before it too: their input loads share the bus, one after another.
    const uint64_t fill = std::min<uint64_t>(hw.compute.units, pieces) * full.fill_bus;
    // The weight tile is loaded alone (single-buffered, or the layer's first
    // tile) or partly behind the previous tile's compute (two slots), then
    // the pieces stream: compute-bound after the first fill, or bus-bound.
    t.total = cost::prefetched_tile_cycles(t.weights, hidden, fill, t.compute, t.bus, ports,
                                           cost::cache_parallel_accesses(hw.cache), latency);
    return t;
  };
  const auto add = [&e, &total](const MappingEstimate& t, uint64_t times) {
    e.weights += times * t.weights, e.compute += times * t.compute, e.bus += times * t.bus;
    total += times * t.total;
  };
  // With two weight slots, tile t + 1's load follows tile t's last input
  // load on the in-order load engine and overlaps the compute of the pieces
  // still to run then: the last min(pieces per unit, halves) of tile t.
  const uint64_t halves = pingpong ? 2 : 1;
  const auto hidden_after = [&](const PieceCost& full) {
    return plan.weight_buffers > 1 ? std::min(per_unit, halves) * full.compute : 0;
  };
  const auto costs = [&](PieceShape shape, uint32_t k0, uint32_t k_count) {
    return piece_cost(L, hw, plan, shape, k0, k_count, output_bits);
  };
  // Where a piece's cost depends on where its k-tile starts, every tile is costed.
  const bool by_k_begin = piece_cost_depends_on_k_begin(L, hw);
  uint64_t hidden = 0, drain = 0;
  if (by_k_begin) {
    // Tile i starts at k0 = i * k_tile; its pieces cost alike wherever it
    // starts at the same place in a group (piece_cost_depends_on_k_begin), and the
    // places repeat every `period` tiles. A full tile's estimate depends on
    // its place and the place of the tile before (whose compute it hides
    // behind), so it too repeats every period: each place is costed once and
    // counted as often as it comes (a batch_matmul has hundreds of small
    // k-tiles over a few places in its heads).
    const uint32_t group_k = L.K / L.groups;
    const uint64_t period = group_k / std::gcd(plan.k_tile, group_k);
    const uint32_t full_tiles = L.K / plan.k_tile, rest = L.K % plan.k_tile;
    const uint64_t places = std::min<uint64_t>(period, full_tiles);
    std::vector<PieceCost> full_of(places), last_of(places);
    for (uint64_t j = 0; j < places; ++j) {
      const uint32_t k0 = uint32_t(j * plan.k_tile);
      full_of[j] = costs(full_shape, k0, plan.k_tile);
      last_of[j] = last_count ? costs(last_shape, k0, plan.k_tile) : full_of[j];
    }
    if (full_tiles > 0) {
      add(tile(full_of[0], last_of[0], plan.k_tile, 0), 1);  // tile 0: nothing hidden
      // Tiles 1 .. full_tiles - 1 at place j = i mod period, behind place j - 1.
      for (uint64_t j = 0; j < places; ++j) {
        const uint64_t first = j == 0 ? period : j;
        if (first >= full_tiles) continue;
        const uint64_t times = (full_tiles - 1 - first) / period + 1;
        const uint64_t before = (j + period - 1) % period;
        add(tile(full_of[j], last_of[j], plan.k_tile, hidden_after(full_of[before])), times);
      }
      const uint64_t last_place = (full_tiles - 1) % period;
      hidden = hidden_after(full_of[last_place]);
      drain = last_of[last_place].drain;
    }
    if (rest > 0) {
      const uint32_t k0 = full_tiles * plan.k_tile;
      const PieceCost rest_full = costs(full_shape, k0, rest);
      const PieceCost rest_last = last_count ? costs(last_shape, k0, rest) : rest_full;
      add(tile(rest_full, rest_last, rest, hidden), 1);
      drain = rest_last.drain;
    }
  } else {
    // Otherwise the tiles of k_tile kernels are alike: the first (nothing
    // hidden), the others (each hiding behind the one before), then the
    // shorter last tile, if any.
    const uint32_t full_tiles = L.K / plan.k_tile, rest = L.K % plan.k_tile;
    const PieceCost full = costs(full_shape, 0, plan.k_tile);
    const PieceCost last = last_count ? costs(last_shape, 0, plan.k_tile) : full;
    add(tile(full, last, plan.k_tile, 0), 1);
    if (full_tiles > 1) add(tile(full, last, plan.k_tile, hidden_after(full)), full_tiles - 1);
    drain = last.drain;
    if (rest > 0) {
      const PieceCost rest_full = costs(full_shape, full_tiles * plan.k_tile, rest);
      const PieceCost rest_last =
          last_count ? costs(last_shape, full_tiles * plan.k_tile, rest) : rest_full;
      add(tile(rest_full, rest_last, rest, hidden_after(full)), 1);
      drain = rest_last.drain;
    }
  }
  e.total = total + drain;
  return e;
}

uint64_t estimate_of_program_layer(const LayerConfig& L, const HardwareConfig& hw,
                                   const LayerDescriptor& d, bool params_per_tile) {
  HardwareConfig in_use = hw;
  if (d.units != 0) in_use.compute.units = d.units;  // 0: every unit
  // Kernel parts: the plan of a part's layer (kernel_part_candidates).
  const LayerConfig part = d.channels_per_part != 0 ? kernel_part_layer(L, d.channels_per_part) : L;
  LayerTilingPlan plan = d.cols_per_piece != 0
                             ? make_column_plan(L, hw, d.k_tile, d.cols_per_piece, d.output_bits)
                             : make_plan(part, hw, d.k_tile, d.rows_per_piece,
                                         d.rows_per_compute_stage, d.output_bits);
  plan.weight_buffers = d.weight_buffers;
  plan.params_per_tile = params_per_tile;
  plan.input_channel_tiles = d.input_channel_tiles;
  plan.loop_order = d.loop_order;
  plan.channels_per_part = d.channels_per_part;
  return estimate_mapping(L, in_use, plan, d.output_bits).total;
}

// Input channel tiles for a k-tile of k kernels: a grouped layer that allows
// them (can_tile_input_channels), k below K and whole groups.
bool channel_tiles_allowed(const LayerConfig& L, const HardwareConfig& hw, uint32_t k) {
  return k < L.K && k % (L.K / L.groups) == 0 && can_tile_input_channels(L, hw);
}

namespace {

// k_tile_candidates' walk; `first_only`: stop at the first k-tile found (has_k_tile).
std::vector<uint32_t> walk_k_tiles(const LayerConfig& L, const HardwareConfig& hw,
                                   const CachePartition& part, uint32_t output_bits,
                                   bool first_only) {
  const LoadAccess access = L.access_on(hw);
  const uint64_t acc_bytes = uint64_t(hw.compute.accumulator_kib) * 1024;
  const bool columns = column_pieces_refusal(L, hw, output_bits).empty();
  const auto k_allowed = [&](uint32_t k) {
    if (k == 0 || k > L.K) return false;
    if (output_bits != 0 && k < L.K && k % output_bits != 0) return false;
    if (part.params_per_tile && uint64_t(k) * 8 * 2 > part.params_region_bytes) return false;
    if (k * tiling_kernel_bytes(L) > part.weight_region_bytes) return false;
    return (uint64_t(L.out_w()) * k * 4 <= acc_bytes &&
            (max_piece_rows(L, k, access, part.half_bytes) > 0 ||
             (channel_tiles_allowed(L, hw, k) &&
              max_piece_rows(L, k, access, part.half_bytes, true) > 0))) ||
           (columns && max_piece_cols(L, k, part.half_bytes, acc_bytes) > 0);
  };
  std::vector<uint32_t> ks;
  if (k_allowed(L.K)) {
    ks.push_back(L.K);
    if (first_only) return ks;
  }
  // Multiples of the array rows, and of 8: a tile a smaller array would
  // take (48 kernels on 48 rows) stays a candidate on a larger one (64 rows),
  // so the cheapest estimate does not rise with the array. Walked from the
  // largest below K down, the two sequences merged (a layer of 2,048 kernels
  // asks of 256 values, not of 2,047).
  const uint32_t rows = hw.compute.array_rows;
  const uint32_t below = L.K > 0 ? L.K - 1 : 0;
  uint32_t by_rows = below / rows * rows, by_step = below / kKTileStep * kKTileStep;
  while (by_rows > 0 || by_step > 0) {
    const uint32_t k = std::max(by_rows, by_step);
    if (k_allowed(k)) {
      ks.push_back(k);
      if (first_only) return ks;
    }
    if (by_rows == k) by_rows -= rows;
    if (by_step == k) by_step -= kKTileStep;
  }
  if (ks.empty())
    for (uint32_t k = std::min(L.K, hw.compute.array_rows) - 1; k > 0; --k)
      if (k_allowed(k)) {
        ks.push_back(k);
        break;
      }
  return ks;
}

}  // namespace

std::vector<uint32_t> k_tile_candidates(const LayerConfig& L, const HardwareConfig& hw,
                                        const CachePartition& part, uint32_t output_bits) {
  return walk_k_tiles(L, hw, part, output_bits, false);
}

bool has_k_tile(const LayerConfig& L, const HardwareConfig& hw, const CachePartition& part,
                uint32_t output_bits) {
  return !walk_k_tiles(L, hw, part, output_bits, true).empty();
}

bool mapping_fits(const LayerConfig& L, const HardwareConfig& hw, const CachePartition& part,
                  uint32_t output_bits) {
  if (hw.mapper == Mapper::Greedy) return plan_layer(L, hw, part, output_bits).fits;
  return has_k_tile(L, hw, part, output_bits) || kernel_parts_fit(L, hw, part, output_bits);
}

std::string mapping_signature(const LayerConfig& L, uint32_t output_bits) {
  std::ostringstream k;
  k << L.N << ' ' << L.C << ' ' << L.H << ' ' << L.W << ' ' << L.K << ' ' << L.R << ' ' << L.S
    << ' ' << L.stride << ' ' << L.padding << ' ' << L.groups << ' ' << int(L.op) << ' '
    << L.quantized << ' ' << int(L.quant.output.type) << ' ' << L.ceil_mode << ' ' << int(L.dtype)
    << ' ' << L.binary.bits << ' ' << (L.access ? int(*L.access) : -1) << ' ' << int(L.input_layout)
    << ' ' << int(L.output_layout) << ' ' << output_bits;
  if (L.general)
    k << " g " << L.general->stride_w << ' ' << L.general->pad_left << ' ' << L.general->pad_bottom
      << ' ' << L.general->pad_right << ' ' << L.general->dilation_h << ' '
      << L.general->dilation_w;
  return k.str();
}

std::vector<uint32_t> unit_counts(const HardwareConfig& hw) {
  std::vector<uint32_t> units;
  for (uint32_t u = hw.compute.units; u >= 1; --u)
    if (u + 8 > hw.compute.units || (u & (u - 1)) == 0) units.push_back(u);
  return units;
}

CachePartition choose_partition(const NetworkConfig& net, const HardwareConfig& hw,
                                std::unordered_map<std::string, LayerTilingPlan>* mappings,
                                MachineEstimates* memo, double limit, bool* over_limit) {
  if (over_limit != nullptr) *over_limit = false;
  const auto all_fit = [&](const CachePartition& part) {
    for (size_t l = 0; l < net.layers.size(); ++l)
      if (runs_on_array(net.layers[l].op) &&
          !mapping_fits(net.layers[l], hw, part, output_bits_of(net, l)))
        return false;
    return true;
  };
  // The vector region: vector.buffer_kib, or half of it, a quarter .. 1/64,
  // never below what the vector operators' smallest instructions need.
  std::vector<LayerDescriptor> vector_operators;
  uint64_t vector_need = 0;
  for (size_t l = 0; l < net.layers.size(); ++l)
    if (!runs_on_array(net.layers[l].op)) {
      vector_operators.push_back(describe_operator(net, l, hw));
      vector_need = std::max(vector_need, vector_minimum_bytes(vector_operators.back()));
    }
  const auto vector_shares = [&]() {
    std::vector<uint32_t> shares = {1};
    for (uint32_t share = 2; vector_need > 0 && share <= kMaxVectorShare; share *= 2)
      if (vector_region_bytes(hw, share) >= vector_need) shares.push_back(share);
    return shares;
  }();
  const CachePartition seed003 = partition_cache(net, hw);
  // When nothing fits, the partition the compile error speaks of: seed 003's
  // with the smallest vector region, the most room the array layers had.
  const CachePartition none_fits =
      partition_cache(net, hw, 2, hw.compiler.units, false, vector_shares.back());
  // The greedy mapper shrinks the vector region only when no partition with
  // all of it fits every array layer.
  if (hw.mapper == Mapper::Greedy) {
    for (const uint32_t vector_share : vector_shares) {
      const CachePartition first =
          partition_cache(net, hw, 2, hw.compiler.units, false, vector_share);
      if (all_fit(first)) return first;
      for (uint32_t share = 4; share <= kMaxWeightShare; share *= 2) {
        const CachePartition part =
            partition_cache(net, hw, share, hw.compiler.units, false, vector_share);
        if (all_fit(part)) return part;
      }
      // Last, parameters tile by tile: banks for a weight tile, not a layer.
      for (uint32_t share = 2; share <= kMaxWeightShare; share *= 2) {
        const CachePartition part =
            partition_cache(net, hw, share, hw.compiler.units, true, vector_share);
        if (all_fit(part)) return part;
      }
    }
    return none_fits;
  }
  // Cost: every vector region, weight share and number of units in use; the
  // fewest estimated cycles over the network's operators wins (seed 003's
  // partition on a tie). A machine with more units or cache can always
  // leave some idle, so it has every choice a smaller one has.
  const std::vector<uint32_t> units =
      hw.compiler.units != 0 ? std::vector<uint32_t>{hw.compiler.units} : unit_counts(hw);
  CachePartition best = seed003;
  uint64_t best_cycles = UINT64_MAX;  // the best partition within the limit
  // Some partition fits every array layer (without a limit: best_cycles is set). Until one
  // does, every partition is summed whole, so with a limit the same partitions are weighed.
  bool found = false;
  // The cycles of the partition the groups' weights below come from: the cheapest summed whole
  // (without a limit, the best).
  uint64_t weighed = UINT64_MAX;
  // A partial sum at which a partition is abandoned: it cannot win, or cannot be within the
  // limit (sums only grow).
  const auto abandoned = [&](uint64_t cycles) {
    return cycles >= best_cycles || (found && limit > 0 && double(cycles) > limit);
  };
  // Per signature, the first candidate with the fewest cycles (choose_mapping's pick) and its
  // cycles (0: none fits).
  std::unordered_map<std::string, std::pair<uint64_t, LayerTilingPlan>> best_of, best_plans;
  // Per signature, the estimates worked out under any partition so far (and,
  // with `memo`, in earlier calls on this machine).
  // Without `memo` no machine key is needed (on() writes the machine as JSON).
  MachineEstimates::BySignature own;
  MachineEstimates::BySignature& estimates = memo != nullptr ? memo->on(hw) : own;
  // Parameters tile by tile are candidates only where a layer's parameters
  // would crowd the cache (their banks over an eighth of it) or where nothing
  // else fits every layer: on larger caches the programs stay as they were.
  const bool params_crowd = seed003.params_region_bytes * 8 > hw.compiler_tile_cache_bytes();
  // Smaller vector regions likewise: only where all of vector.buffer_kib
  // would crowd the cache (over an eighth of it) or nothing else fits.
  const bool vector_crowds =
      !vector_operators.empty() && vector_region_bytes(hw, 1) * 8 > hw.compiler_tile_cache_bytes();
  // The array layers by mapping signature (the same under every partition): a signature's
  // first layer, its output bits and how many layers share it. A partition's cycles are the
  // vector operators' and each signature's pick times its layers; summed in any order they are
  // the same, so the signatures are summed costliest first (by the cheapest partition summed
  // whole so far), which abandons a partition that cannot win as early as possible.
  struct SignatureGroup {
    std::string signature;
    size_t layer = 0;
    uint32_t output_bits = 0;
    uint64_t layers = 0;
    uint64_t weight = 0;  // its layers' cycles under the partition `weighed` is of
  };
  std::vector<SignatureGroup> groups;
  {
    std::unordered_map<std::string, size_t> group_of;
    for (size_t l = 0; l < net.layers.size(); ++l)
      if (runs_on_array(net.layers[l].op)) {
        const uint32_t bits = output_bits_of(net, l);
        std::string signature = mapping_signature(net.layers[l], bits);
        const auto [it, fresh] = group_of.try_emplace(signature, groups.size());
        if (fresh) groups.push_back({std::move(signature), l, bits, 0, 0});
        ++groups[it->second].layers;
      }
  }
  for (const uint32_t vector_share : vector_shares) {
    if (vector_share > 1 && found && !vector_crowds) break;
    // The vector operators' estimate depends on their region alone.
    uint64_t vector_cycles = 0;
    for (const LayerDescriptor& d : vector_operators)
      vector_cycles += estimate_vector_operator(d, hw, vector_region_bytes(hw, vector_share));
    for (const bool params_per_tile : {false, true}) {
      // With a smaller vector region (a crowded cache) parameters per tile are
      // candidates too: where the parameters crowd a smaller cache but not a
      // larger one, the larger keeps the option (ResNet-18's graph at 121 and
      // 128 KiB).
      if (params_per_tile && found && !params_crowd && vector_share == 1) break;
      for (uint32_t u : units)
        for (uint32_t share = 2; share <= kMaxWeightShare; share *= 2) {
          const CachePartition part =
              partition_cache(net, hw, share, u, params_per_tile, vector_share);
          best_of.clear();
          uint64_t cycles = vector_cycles;
          size_t g = 0;
          for (; g < groups.size() && !abandoned(cycles); ++g) {
            const SignatureGroup& group = groups[g];
            const auto [it, fresh] = best_of.try_emplace(group.signature, 0, LayerTilingPlan{});
            if (fresh) {
              const std::vector<MappingCandidate> candidates = mapping_candidates(
                  net.layers[group.layer], hw, part, group.output_bits, &estimates[it->first]);
              if (const MappingCandidate* pick = chosen_candidate(candidates, hw))
                it->second = {pick->estimate.total, pick->plan};
            }
            if (it->second.first == 0) {
              cycles = UINT64_MAX;
              break;
            }
            cycles += it->second.first * group.layers;
          }
          // Until some partition fits, each is summed whole (abandoned() is false).
          const bool summed_whole = g == groups.size() && cycles != UINT64_MAX;
          if (summed_whole) found = true;
          if (summed_whole && cycles < weighed) {
            weighed = cycles;
            for (SignatureGroup& group : groups)
              group.weight = best_of.at(group.signature).first * group.layers;
            std::stable_sort(groups.begin(), groups.end(),
                             [](const SignatureGroup& a, const SignatureGroup& b) {
                               return a.weight > b.weight;
                             });
          }
          if (!abandoned(cycles)) best = part, best_cycles = cycles, best_plans.swap(best_of);
        }
    }
  }
  if (!found) return none_fits;
  if (best_cycles == UINT64_MAX) {  // every partition that fits is above the limit
    if (over_limit != nullptr) *over_limit = true;
    return seed003;
  }
  if (mappings != nullptr)
    for (auto& [signature, cycles_and_plan] : best_plans)
      mappings->emplace(signature, std::move(cycles_and_plan.second));
  return best;
}

std::vector<MappingCandidate> mapping_candidates(const LayerConfig& L, const HardwareConfig& hw,
                                                 const CachePartition& part, uint32_t output_bits,
                                                 PlanEstimates* memo) {
  std::vector<MappingCandidate> out = whole_kernel_candidates(L, hw, part, output_bits, true, memo);
  // Kernel parts where whole kernels do not fit, or fit only in k-tiles
  // that leave some of the array's rows idle.
  uint32_t widest = 0;
  for (const MappingCandidate& c : out) widest = std::max(widest, c.plan.k_tile);
  if (out.empty() || widest < std::min(L.K, hw.compute.array_rows))
    for (MappingCandidate& c : kernel_part_candidates(L, hw, part, output_bits, memo))
      out.push_back(std::move(c));
  return out;
}

std::vector<MappingCandidate> whole_kernel_candidates(const LayerConfig& L,
                                                      const HardwareConfig& hw,
                                                      const CachePartition& part,
                                                      uint32_t output_bits, bool estimated,
                                                      PlanEstimates* memo) {
  std::vector<MappingCandidate> out;
  out.reserve(64);  // most layers' candidates, without growing
  // The pieces go round-robin to the partition's units.
  HardwareConfig hu = hw;
  if (part.units != 0) hu.compute.units = part.units;
  const auto estimate = [&](const LayerTilingPlan& plan) {
    if (!estimated) return MappingEstimate{};
    return remembered_estimate(memo, plan, hu.compute.units,
                               [&] { return estimate_mapping(L, hu, plan, output_bits); });
  };
  const LoadAccess access = L.access_on(hw);
  const uint64_t acc_bytes = uint64_t(hw.compute.accumulator_kib) * 1024;
  const LayerTilingPlan greedy = plan_layer(L, hw, part, output_bits);
  if (greedy.fits) out.push_back({greedy, estimate(greedy)});

  const std::vector<uint32_t> ks = k_tile_candidates(L, hw, part, output_bits);
  const bool columns = column_pieces_refusal(L, hw, output_bits).empty();
  // Feature-stationary loads a piece's rows before its weights, which
  // input_loads after_weights forbids; batch_matmul's loops are its own.
  const bool weigh_orders = hw.loop_order == LoopOrder::Auto &&
                            hw.input_loads == InputLoads::AnyTime && L.op != OpKind::BatchMatMul;
  for (uint32_t k : ks) {
    const bool double_buffered =
        hw.weight_buffers == WeightBuffers::Auto && k < L.K &&
        2 * uint64_t(k) * tiling_kernel_bytes(L) <= part.weight_region_bytes;
    // A plan of the partition's parameter placement, and its twin with two
    // weight slots when two tiles fit the region; under loop_order auto,
    // each also feature-stationary where the layer has several weight tiles
    // and whole pixels (docs/loop-order.md#loop-order-per-layer).
    const auto add = [&](LayerTilingPlan plan) {
      plan.params_per_tile = part.params_per_tile;
      const bool both_orders = weigh_orders && k < L.K && !plan.input_channel_tiles;
      const LoopOrder first = plan.loop_order;  // make_plan's: hw's, or weight-stationary
      for (const uint32_t slots : {1u, 2u}) {
        if (slots == 2 && !double_buffered) break;
        plan.weight_buffers = slots;
        plan.loop_order = first;
        out.push_back({plan, estimate(plan)});
        if (both_orders) {
          plan.loop_order = LoopOrder::FeatureStationary;
          out.push_back({plan, estimate(plan)});
        }
      }
    };
    const size_t before = out.size();
    for (const bool channel_tiles : {false, true}) {
      if (channel_tiles && !channel_tiles_allowed(L, hw, k)) continue;
      const uint32_t max_rows = max_piece_rows(L, k, access, part.half_bytes, channel_tiles);
      if (max_rows == 0 || uint64_t(L.out_w()) * k * 4 > acc_bytes) continue;
      const uint32_t out_h = L.out_h();
      const uint32_t by_acc =
          static_cast<uint32_t>(std::max<uint64_t>(1, acc_bytes / (uint64_t(L.out_w()) * k * 4)));
      uint32_t previous = 0;
      // Seed 003: the fewest pieces that fit (N > 1 with equal pieces), then
      // more (the pieces stay equal).
      const uint32_t min_pieces = hw.pieces == PieceSplit::Equal ? std::min(2u, out_h) : 1u;
      for (uint32_t n = std::max(min_pieces, uint32_t(ceil_div(out_h, max_rows))); n <= out_h;
           ++n) {
        const uint32_t rows = uint32_t(ceil_div(out_h, n));
        if (rows == previous) continue;
        previous = rows;
        LayerTilingPlan plan = make_plan(L, hw, k, rows, std::min(by_acc, rows), output_bits);
        plan.input_channel_tiles = channel_tiles;
        add(plan);
      }
    }
    // Column pieces, only where no piece of whole rows fits this k-tile: the
    // fewest runs of columns that fit, then more (each width once).
    const uint32_t max_cols =
        columns && out.size() == before ? max_piece_cols(L, k, part.half_bytes, acc_bytes) : 0;
    if (max_cols == 0) continue;
    const uint32_t out_w = L.out_w();
    uint32_t previous = 0;
    for (uint32_t n = uint32_t(ceil_div(out_w, max_cols)); n <= out_w; ++n) {
      const uint32_t cols = uint32_t(ceil_div(out_w, n));
      if (cols == previous) continue;
      previous = cols;
      add(make_column_plan(L, hw, k, cols, output_bits));
    }
  }
  return out;
}

namespace {

// Why layer `L` has no mapping in `part`, told with the smallest k-tile (one
// kernel, or one packed word); `whole_rows`: column pieces are not weighed.
std::string unfit_reason(const LayerConfig& L, const HardwareConfig& hw, const CachePartition& part,
                         uint32_t output_bits, bool whole_rows) {
  const uint32_t k = output_bits != 0 && output_bits < L.K ? output_bits : 1;
  if (k * tiling_kernel_bytes(L) > part.weight_region_bytes)
    return std::to_string(k) + " kernel(s) of " + std::to_string(tiling_kernel_bytes(L)) +
           " B exceed the weight region (" + std::to_string(part.weight_region_bytes) + " B)";
  if (uint64_t(L.out_w()) * k * 4 > uint64_t(hw.compute.accumulator_kib) * 1024)
    return "one output row of int32 sums (" + std::to_string(uint64_t(L.out_w()) * k * 4) +
           " B) exceeds the accumulator (compute.accumulator_kib)";
  if (!whole_rows && column_pieces_refusal(L, hw, output_bits).empty())
    return "one output column with a k-tile of " + std::to_string(k) + " needs " +
           std::to_string(column_piece_bytes(L, 1, k)) + " B but a ping-pong half holds " +
           std::to_string(part.half_bytes) + " B";
  return "one output row with a k-tile of " + std::to_string(k) + " needs " +
         std::to_string(piece_bytes(L, 1, k, L.access_on(hw))) + " B but a ping-pong half holds " +
         std::to_string(part.half_bytes) + " B";
}

}  // namespace

LayerTilingPlan choose_mapping(const LayerConfig& L, const HardwareConfig& hw,
                               const CachePartition& part, uint32_t output_bits) {
  if (hw.mapper == Mapper::Greedy) return plan_layer(L, hw, part, output_bits);
  const std::vector<MappingCandidate> candidates = mapping_candidates(L, hw, part, output_bits);
  if (candidates.empty()) {
    LayerTilingPlan plan;
    plan.why = unfit_reason(L, hw, part, output_bits, false);
    // Where kernel parts are weighed, their smallest (one channel) failed too.
    if (kernel_parts_refusal(L, hw).empty())
      plan.why += "; in kernel parts of one channel, " +
                  unfit_reason(kernel_part_layer(L, 1), hw, part, output_bits, true);
    return plan;
  }
  return chosen_candidate(candidates, hw)->plan;
}

}  // namespace npusim
