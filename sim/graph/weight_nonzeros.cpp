#include "sim/graph/weight_nonzeros.h"

#include "sim/graph/op_table.h"

namespace npusim {

std::vector<uint32_t> count_kernel_nonzeros(const int8_t* weights, uint32_t K, uint64_t taps,
                                            const std::vector<int8_t>& zero_of_kernel) {
  std::vector<uint32_t> nonzeros(K, 0);
  // A kernel's "zero" is its weight zero point (0 for plain int8 layers):
  // coefficients equal to it contribute (w - zp) = 0 and are skipped.
  for (uint32_t k = 0; k < K; ++k) {
    const int8_t z = zero_of_kernel.empty() ? int8_t(0) : zero_of_kernel[k];
    const int8_t* coefficients = weights + k * taps;
    uint32_t count = 0;
    for (uint64_t i = 0; i < taps; ++i) count += coefficients[i] != z;
    nonzeros[k] = count;
  }
  return nonzeros;
}

std::vector<uint32_t> count_column_nonzeros(const int8_t* rows_of_k, uint64_t rows, uint32_t K,
                                            const std::vector<int8_t>& zero_of_kernel) {
  std::vector<int8_t> zeros = zero_of_kernel;
  zeros.resize(K, 0);
  std::vector<uint32_t> nonzeros(K, 0);
  for (uint64_t i = 0; i < rows; ++i) {
    const int8_t* row = rows_of_k + i * K;
    for (uint32_t f = 0; f < K; ++f) nonzeros[f] += row[f] != zeros[f];
  }
  return nonzeros;
}

std::vector<int8_t> kernel_zeros(const LayerConfig& layer) {
  std::vector<int8_t> zeros;
  if (layer.quantized)
    for (uint32_t k = 0; k < layer.K; ++k)
      zeros.push_back(int8_t(layer.quant.weight_zero_point_of(k)));
  return zeros;
}

SharedValues<uint32_t> model_weight_nonzeros(const LayerConfig& layer) {
  if (!runs_on_array(layer.op) || layer.is_binary() || layer.op == OpKind::BatchMatMul) return {};
  if (!layer.weight_nonzeros.empty())
    return layer.weight_nonzeros.size() == layer.K ? layer.weight_nonzeros
                                                   : SharedValues<uint32_t>{};
  const uint64_t taps = uint64_t(layer.R) * layer.S * layer.group_channels();
  if (layer.weight_values.empty() || layer.weight_values.size() != taps * layer.K) return {};
  return count_kernel_nonzeros(layer.weight_values.values().data(), layer.K, taps,
                               kernel_zeros(layer));
}

void keep_only_weight_nonzeros(LayerConfig& layer) {
  if (layer.weight_values.empty()) return;
  SharedValues<uint32_t> counts = model_weight_nonzeros(layer);
  if (counts.empty()) return;
  layer.weight_nonzeros = std::move(counts);
  layer.weight_values = {};
}

}  // namespace npusim
