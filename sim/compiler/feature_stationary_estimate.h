// The estimate of a feature-stationary mapping of several weight tiles
// (seed 004 rule 1's second loop order, docs/loop-order.md#loop-order-per-layer):
// each piece's input rows load once and stay in its half while the layer's
// weight tiles load one by one and compute against them, so every piece
// loads every tile again. The weight region holds one tile (or two slots),
// shared by all units, so the tiles' computes follow one another whatever
// the unit count. Built from piece_cost (models/cost_model.h's formulas).
#pragma once

#include <cstdint>

#include "sim/compiler/mapper.h"

namespace npusim {

// Estimated cycles of layer `L` under `plan` (plan.loop_order feature-
// stationary, plan.k_tile < L.K, not batch_matmul), run alone.
MappingEstimate estimate_feature_stationary(const LayerConfig& L, const HardwareConfig& hw,
                                            const LayerTilingPlan& plan, uint32_t output_bits);

}  // namespace npusim
