#include "models/vector/vector_kernels.h"

#include <stdexcept>
#include <string>

#include "models/vector/activation.h"
#include "models/vector/concat.h"
#include "models/vector/elementwise.h"
#include "models/vector/gather.h"
#include "models/vector/norm.h"
#include "models/vector/pool.h"
#include "models/vector/rope.h"
#include "models/vector/softmax.h"

namespace npusim::vector_kernels {

void compute_row(const LayerDescriptor& L, const InputView* inputs, uint32_t oh, uint32_t k_begin,
                 uint32_t k_end, const int8_t* params, int8_t* out_row) {
  const OpInfo& info = op_info(L.op);
  switch (info.family) {
    case OpFamily::Pool:
      switch (info.pool) {
        case PoolKind::Max:
          return max_pool_row(L, inputs[0], oh, k_begin, k_end, out_row);
        case PoolKind::Average:
          // A window over the whole unpadded image is global pooling to ONNX Runtime.
          if (L.R == L.H && L.S == L.W && L.padding == 0 && pad_l(L) == 0 && pad_b(L) == 0 &&
              pad_r(L) == 0)
            return global_average_pool_row(L, inputs[0], k_begin, k_end, out_row);
          return average_pool_row(L, inputs[0], oh, k_begin, k_end, out_row);
        case PoolKind::GlobalAverage:
          return global_average_pool_row(L, inputs[0], k_begin, k_end, out_row);
      }
      break;
    case OpFamily::Elementwise:
      switch (info.elementwise) {
        case ElementwiseKind::Add:
          return add_row(L, inputs, oh, k_begin, k_end, out_row);
        case ElementwiseKind::Mul:
          return mul_row(L, inputs, oh, out_row);
      }
      break;
    case OpFamily::Concat:
      return concat_row(L, inputs, oh, out_row);
    case OpFamily::Gather:
      switch (info.gather) {
        case GatherKind::Channels:
          return gather_row(L, inputs[0], oh, out_row);
        case GatherKind::Resize:
          return resize_row(L, inputs[0], oh, k_begin, k_end, out_row);
      }
      break;
    case OpFamily::Softmax:
      return softmax_row(L, inputs[0], oh, out_row);
    case OpFamily::Norm:  // layernorm and rmsnorm: norm_row tells them apart
      return norm_row(L, inputs[0], oh, params, out_row);
    case OpFamily::Activation:  // table_entry switches on the ActivationFn
      return table_row(L, inputs[0], oh, out_row);
    case OpFamily::Rope:
      return rope_row(L, inputs[0], oh, out_row);
    case OpFamily::Conv:  // the array's
    case OpFamily::Matmul:
      break;
  }
  throw std::logic_error(std::string("vector_kernels::compute_row: ") + to_string(L.op) +
                         " is not a vector unit operator");
}

}  // namespace npusim::vector_kernels
