// What one vector instruction's output rows cost the vector unit's lanes and
// special-function units: the operator's cost line (cost::vector_row_work)
// applied to a layer's descriptor. Shared by the vector unit (models/) and the
// compiler's estimate, which links this library, not the hardware model.
#pragma once

#include <cstdint>

#include "sim/program/program.h"

namespace npusim::cost {

// Element operations one output row of `k_count` channels costs on the lanes
// (cost::vector_stage_cycles); a sequence operator's row covers all K channels.
uint64_t vector_row_element_ops(const LayerDescriptor& L, uint32_t k_count);
// Special-function operations the row costs (cost::vector_special_cycles):
// 0 but for softmax and the norms.
uint64_t vector_row_special_ops(const LayerDescriptor& L);

}  // namespace npusim::cost
