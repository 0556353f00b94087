#include "models/cost/vector_cost.h"

#include "models/cost/cost_model.h"

namespace npusim::cost {

uint64_t vector_row_element_ops(const LayerDescriptor& L, uint32_t k_count) {
  const uint64_t channels = op_info(L.op).operands == OpOperands::Sequences ? L.K : k_count;
  return vector_row_work(L.op, L.out_w, channels, uint64_t(L.R) * L.S).element_ops;
}

uint64_t vector_row_special_ops(const LayerDescriptor& L) {
  return vector_row_work(L.op, L.out_w, L.K, uint64_t(L.R) * L.S).special_ops;
}

}  // namespace npusim::cost
