#include "models/cost/vector_cost.h"

#include "models/cost/cost_model.h"

namespace npusim::cost {

namespace {

// The input values each output element reads: the pool's window, a linear
// resize's four taps or a cubic one's sixteen (4 rows x 4 columns).
uint64_t row_window(const LayerDescriptor& L) {
  if (L.op != OpKind::Resize) return uint64_t(L.R) * L.S;
  switch (L.resize_mode) {
    case ResizeMode::Linear:
      return 4;
    case ResizeMode::Cubic:
      return 16;
    case ResizeMode::Nearest:
      break;
  }
  return 1;
}

}  // namespace

uint64_t vector_row_element_ops(const LayerDescriptor& L, uint32_t k_count) {
  const uint64_t channels = op_info(L.op).operands == OpOperands::Sequences ? L.K : k_count;
  return vector_row_work(L.op, L.out_w, channels, row_window(L)).element_ops;
}

uint64_t vector_row_special_ops(const LayerDescriptor& L) {
  return vector_row_work(L.op, L.out_w, L.K, row_window(L)).special_ops;
}

}  // namespace npusim::cost
