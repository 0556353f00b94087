#include "sim/cli/explain_mapping.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/compiler/mapper.h"
#include "sim/compiler/tiler.h"
#include "sim/compiler/vector_estimate.h"
#include "sim/config/json_reader.h"
#include "sim/program/batch_rows.h"
#include "sim/program/vector_tiling.h"

namespace npusim::cli {
namespace {

void print_partition(const CachePartition& part, const HardwareConfig& hw) {
  std::printf(
      "mapper %s; partition: weights %llu B, params %llu B%s, half %llu B, %u of %u units%s%s\n",
      to_string(hw.mapper), (unsigned long long)part.weight_region_bytes,
      (unsigned long long)part.params_region_bytes,
      part.params_per_tile ? " (per weight tile)" : "", (unsigned long long)part.half_bytes,
      part.units, hw.compute.units,
      part.vector_region_bytes
          ? (", vector " + std::to_string(part.vector_region_bytes) + " B").c_str()
          : "",
      // A part of the array, set by the compile trials or by the user
      // (docs/compile-trials.md#array-in-use).
      hw.uses_part_of_array()
          ? (", array " + std::to_string(hw.rows_in_use()) + "x" +
             std::to_string(hw.cols_in_use()) + " of " + std::to_string(hw.compute.array_rows) +
             "x" + std::to_string(hw.compute.array_cols) + " in use")
                .c_str()
          : "");
}

// A mapping in words, for the lines that compare two.
std::string mapping_in_words(const LayerTilingPlan& p) {
  return "k_tile " + std::to_string(p.k_tile) + ", " + std::to_string(p.pieces) + " pieces of " +
         std::to_string(p.rows_per_piece) + " rows, stages of " +
         std::to_string(p.rows_per_compute_stage) + " rows, " +
         (p.weight_buffers > 1 ? "two weight slots" : "one weight tile") +
         (p.input_channel_tiles ? ", the k-tile's input channels" : "") +
         (p.cols_per_piece != 0 ? ", rows cut into columns of " + std::to_string(p.cols_per_piece)
                                : "") +
         (p.loop_order == LoopOrder::FeatureStationary ? ", feature-stationary" : "") +
         (p.channels_per_part != 0
              ? ", kernel parts of " + std::to_string(p.channels_per_part) + " channels"
              : "");
}

// The "order" column: seed 004 rule 1's loop order.
const char* order_column(const LayerTilingPlan& p) {
  return p.loop_order == LoopOrder::FeatureStationary ? "feature" : "weight";
}

// The "input" column: what a piece holds of its rows.
std::string piece_input(const LayerTilingPlan& p) {
  if (p.cols_per_piece != 0) return "cols=" + std::to_string(p.cols_per_piece);
  if (p.channels_per_part != 0) return "ch=" + std::to_string(p.channels_per_part);
  return p.input_channel_tiles ? "k-tile" : "all";
}

std::string signed_cycles(uint64_t a, uint64_t b) {  // a - b, with its sign
  return a >= b ? "+" + std::to_string(a - b) : "-" + std::to_string(b - a);
}

}  // namespace

int explain_mapping(const NetworkConfig& workload, const HardwareConfig& machine) {
  // Mapped for the part of the array the program uses (compiler.array_rows/cols).
  const HardwareConfig hw = array_in_use(machine);
  NetworkConfig storage;
  const NetworkConfig& net = program_view(workload, storage);  // as compile_network maps it
  const CachePartition part = choose_partition(net, hw);
  HardwareConfig in_use = hw;
  in_use.compute.units = part.units;
  print_partition(part, machine);
  std::printf("%-24s %10s %7s %7s %10s %11s %12s %12s %8s %6s %s\n", "layer", "candidates",
              "k_tile", "pieces", "rows/piece", "rows/stage", "estimate", "greedy_est", "weights",
              "input", "order");
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const LayerConfig& L = net.layers[l];
    if (!runs_on_array(L.op)) {
      // A vector operator: its instructions' rows and channels in the partition's region.
      const LayerDescriptor d = describe_operator(net, l, hw);
      const std::optional<VectorTile> tile = fit_vector_instruction(d, part.vector_region_bytes);
      if (!tile) {
        std::printf(
            "%-24s %10s  does not fit: one instruction needs %llu B of the vector "
            "region\n",
            L.name.c_str(), "vector", (unsigned long long)vector_minimum_bytes(d));
        continue;
      }
      std::printf("%-24s %10s %7u %7s %10s %11u %12llu %12s %8s %6s %s\n", L.name.c_str(), "vector",
                  tile->k_tile, "-", "-", tile->rows,
                  (unsigned long long)estimate_vector_operator(d, hw, part.vector_region_bytes),
                  "-", "-", "-", "-");
      continue;
    }
    const uint32_t bits = output_bits_of(net, l);
    const size_t candidates = mapping_candidates(L, hw, part, bits).size();
    const LayerTilingPlan plan = choose_mapping(L, hw, part, bits);
    if (!plan.fits) {
      std::printf("%-24s %10zu  does not fit: %s\n", L.name.c_str(), candidates, plan.why.c_str());
      continue;
    }
    const LayerTilingPlan greedy = plan_layer(L, hw, part, bits);
    const std::string greedy_estimate =
        greedy.fits ? std::to_string(estimate_mapping(L, in_use, greedy, bits).total) : "-";
    std::printf("%-24s %10zu %7u %7u %10u %11u %12llu %12s %8s %6s %s\n", L.name.c_str(),
                candidates, plan.k_tile, plan.pieces, plan.rows_per_piece,
                plan.rows_per_compute_stage,
                (unsigned long long)estimate_mapping(L, in_use, plan, bits).total,
                greedy_estimate.c_str(), plan.weight_buffers > 1 ? "double" : "single",
                piece_input(plan).c_str(), order_column(plan));
  }
  return kOk;
}

int explain_layer(const NetworkConfig& workload, const HardwareConfig& machine,
                  const std::string& layer, size_t shown) {
  const HardwareConfig hw = array_in_use(machine);  // as explain_mapping
  NetworkConfig storage;
  const NetworkConfig& net = program_view(workload, storage);
  std::vector<std::string> array_layers;
  std::optional<size_t> found;
  for (size_t l = 0; l < net.layers.size(); ++l) {
    if (net.layers[l].name == layer) found = l;
    if (runs_on_array(net.layers[l].op)) array_layers.push_back(net.layers[l].name);
  }
  if (!found) {
    const std::string hint = nearest_key(layer, array_layers);
    std::string list;
    for (size_t i = 0; i < array_layers.size() && i < 8; ++i)
      list += (i ? ", " : "") + array_layers[i];
    if (array_layers.size() > 8) list += ", ... (" + std::to_string(array_layers.size()) + ")";
    throw std::runtime_error(
        "--explain-layer: expected the name of an array layer of the workload, found \"" + layer +
        "\"" + (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
        "; its array layers: " + list);
  }
  const LayerConfig& L = net.layers[*found];
  if (!runs_on_array(L.op))
    throw std::runtime_error("--explain-layer: \"" + layer +
                             "\" is a vector operator: it has no array mappings to rank "
                             "(--explain-mapping prints its instruction tile)");
  const CachePartition part = choose_partition(net, hw);
  print_partition(part, machine);
  const uint32_t bits = output_bits_of(net, *found);
  const std::vector<MappingCandidate> candidates = mapping_candidates(L, hw, part, bits);
  if (candidates.empty()) {
    std::printf("%s: no candidate fits: %s\n", layer.c_str(),
                choose_mapping(L, hw, part, bits).why.c_str());
    return kOk;
  }
  // The cost mapper takes the first candidate with the fewest cycles: a
  // stable sort by estimate puts it first.
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return candidates[a].estimate.total < candidates[b].estimate.total;
  });
  std::printf("%s: %zu candidates fit; ranked by estimated cycles\n", layer.c_str(),
              candidates.size());
  std::printf("%5s %7s %7s %10s %11s %8s %7s %12s %12s %12s %12s %s\n", "rank", "k_tile", "pieces",
              "rows/piece", "rows/stage", "weights", "input", "estimate", "weight_load", "array",
              "bus", "order");
  const size_t rows = shown == 0 ? order.size() : std::min(shown, order.size());
  for (size_t r = 0; r < rows; ++r) {
    const MappingCandidate& c = candidates[order[r]];
    std::printf("%5zu %7u %7u %10u %11u %8s %7s %12llu %12llu %12llu %12llu %s\n", r + 1,
                c.plan.k_tile, c.plan.pieces, c.plan.rows_per_piece, c.plan.rows_per_compute_stage,
                c.plan.weight_buffers > 1 ? "double" : "single", piece_input(c.plan).c_str(),
                (unsigned long long)c.estimate.total, (unsigned long long)c.estimate.weights,
                (unsigned long long)c.estimate.compute, (unsigned long long)c.estimate.bus,
                order_column(c.plan));
  }
  if (rows < order.size())
    std::printf("(the %zu cheapest of %zu; --candidates 0 lists every one)\n", rows, order.size());

  const MappingCandidate& best = candidates[order[0]];
  // compiler.traffic_margin may take a leaner candidate than rank 1.
  const MappingCandidate* chosen = chosen_candidate(candidates, hw);
  // The rank (from 1) of the candidate enumerated at `index`.
  const auto rank_of = [&order](size_t index) {
    return size_t(std::find(order.begin(), order.end(), index) - order.begin()) + 1;
  };
  // mapping_candidates puts the greedy mapping first when it fits.
  if (plan_layer(L, hw, part, bits).fits) {
    std::printf("greedy mapping (%s): rank %zu, %llu cycles\n",
                mapping_in_words(candidates[0].plan).c_str(), rank_of(0),
                (unsigned long long)candidates[0].estimate.total);
  }
  std::printf("%s: rank 1 (%s), the fewest estimated cycles, %llu\n",
              chosen != &best             ? "fewest"
              : hw.mapper == Mapper::Cost ? "chosen"
                                          : "the cost mapper would choose",
              mapping_in_words(best.plan).c_str(), (unsigned long long)best.estimate.total);
  size_t ties = 0;
  while (ties + 1 < order.size() &&
         candidates[order[ties + 1]].estimate.total == best.estimate.total)
    ++ties;
  if (ties > 0)
    std::printf("  ties with %zu later candidate(s): the first enumerated wins\n", ties);
  if (ties + 1 < order.size()) {
    const MappingCandidate& next = candidates[order[ties + 1]];
    std::printf(
        "  runner-up: rank %zu (%s), %llu cycles, +%.1f %%: weight_load %s, array %s, bus %s\n",
        ties + 2, mapping_in_words(next.plan).c_str(), (unsigned long long)next.estimate.total,
        100.0 * double(next.estimate.total - best.estimate.total) / double(best.estimate.total),
        signed_cycles(next.estimate.weights, best.estimate.weights).c_str(),
        signed_cycles(next.estimate.compute, best.estimate.compute).c_str(),
        signed_cycles(next.estimate.bus, best.estimate.bus).c_str());
  }
  if (chosen != &best) {
    std::printf(
        "%s: rank %zu (%s), %llu cycles, +%.1f %%: within compiler.traffic_margin = %g of the "
        "fewest, the least DRAM bus time (weight_load + bus = %llu, against %llu)\n",
        hw.mapper == Mapper::Cost ? "taken instead" : "the cost mapper would take instead",
        rank_of(size_t(chosen - candidates.data())), mapping_in_words(chosen->plan).c_str(),
        (unsigned long long)chosen->estimate.total,
        100.0 * double(chosen->estimate.total - best.estimate.total) / double(best.estimate.total),
        hw.compiler.traffic_margin, (unsigned long long)bus_time(chosen->estimate),
        (unsigned long long)bus_time(best.estimate));
  }
  std::printf(
      "weight_load: weight and parameter loads; array: the busiest unit's array time; bus: "
      "input loads and stores; the estimate overlaps them (docs/mapping.md#the-estimate)\n");
  return kOk;
}

}  // namespace npusim::cli
