#include "sim/compiler/network_estimate.h"

#include <optional>
#include <unordered_map>

#include "sim/compiler/mapper.h"
#include "sim/compiler/program_emitter.h"
#include "sim/compiler/vector_estimate.h"
#include "sim/program/batch_rows.h"
#include "sim/program/vector_tiling.h"

namespace npusim {

NetworkEstimate estimate_network(const NetworkConfig& workload, const HardwareConfig& given,
                                 MachineEstimates* memo, double limit) {
  const HardwareConfig hw = array_in_use(given);  // compiler.array_rows/cols, as compiled
  if (workload.layers.empty()) throw CompileError("network has no layers");
  NetworkConfig storage;
  const NetworkConfig& net = program_view(workload, storage);  // as compile_network maps it
  NetworkEstimate e;
  std::unordered_map<std::string, LayerTilingPlan>& mappings = e.mappings;
  bool over_limit = false;
  e.partition = choose_partition(net, hw, &mappings, memo, limit, &over_limit);
  if (over_limit) {
    e.over_limit = true;
    e.cycles = UINT64_MAX;
    return e;
  }
  HardwareConfig in_use = hw;
  in_use.compute.units = e.partition.units;
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const LayerConfig& L = net.layers[l];
    OperatorEstimate o;
    o.name = L.name;
    o.op = L.op;
    if (!runs_on_array(L.op)) {
      const LayerDescriptor d = describe_operator(net, l, hw);
      const std::optional<VectorTile> tile =
          fit_vector_instruction(d, e.partition.vector_region_bytes);
      if (!tile) {
        compile_network(workload, hw);  // throws the compiler's own error
        throw CompileError("operator " + L.name + " does not fit the vector region");
      }
      o.k_tile = tile->k_tile;
      o.rows = tile->rows;
      o.cycles = estimate_vector_operator(d, hw, e.partition.vector_region_bytes);
    } else {
      check_array_operator(net, l, hw);
      const uint32_t bits = output_bits_of(net, l);
      const auto known = mappings.find(mapping_signature(L, bits));
      const LayerTilingPlan plan =
          known != mappings.end() ? known->second : choose_mapping(L, hw, e.partition, bits);
      if (!plan.fits) {
        compile_network(workload, hw);  // throws, naming the smallest cache
        throw CompileError("layer " + L.name + " does not fit: " + plan.why);
      }
      o.k_tile = plan.k_tile;
      o.pieces = plan.pieces;
      o.rows = plan.rows_per_piece;
      o.weight_buffers = plan.weight_buffers;
      o.feature_stationary = plan.loop_order == LoopOrder::FeatureStationary;
      o.cycles = estimate_mapping(L, in_use, plan, bits).total;
      o.macs = L.macs();
    }
    e.cycles += o.cycles;
    e.macs += o.macs;
    e.operators.push_back(std::move(o));
  }
  return e;
}

}  // namespace npusim
