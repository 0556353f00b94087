#include "sim/compiler/kernel_stream.h"

#include <stdexcept>

#include "sim/tensor/layout.h"

namespace npusim {

KernelStream summary_from_counts(KernelCounts nonzeros, uint32_t R, uint32_t S, uint32_t C,
                                 ComputeMode mode) {
  const uint64_t K = nonzeros.size();
  uint64_t total_nonzeros = 0;
  for (uint32_t n : nonzeros) total_nonzeros += n;
  const uint64_t entries_bytes = K * C + 2 * total_nonzeros;
  const bool entries =
      mode == ComputeMode::ZeroSkip && uint64_t(R) * S <= 255 && entries_bytes < K * R * S * C;
  KernelStream s;
  s.format = entries ? WeightFormat::Entries : WeightFormat::Raw;
  s.nonzeros = std::move(nonzeros);
  return s;
}

KernelStream summarise_kernels(const TensorI8& w, ComputeMode mode,
                               const std::vector<int8_t>& zero_of_kernel) {
  if (w.shape.size() != 4) throw std::invalid_argument("weights must be K,R,S,C");
  const uint32_t K = w.shape[0], R = w.shape[1], S = w.shape[2], C = w.shape[3];
  return summary_from_counts(
      count_kernel_nonzeros(w.data.data(), K, uint64_t(R) * S * C, zero_of_kernel), R, S, C, mode);
}

KernelStream encode_kernels(const TensorI8& w, ComputeMode mode,
                            const std::vector<int8_t>& zero_of_kernel) {
  KernelStream s = summarise_kernels(w, mode, zero_of_kernel);
  if (s.format == WeightFormat::Raw) {
    s.bytes = w.data;
    return s;
  }
  const uint32_t K = w.shape[0], R = w.shape[1], S = w.shape[2], C = w.shape[3];
  const auto zero = [&](uint32_t k) {
    return zero_of_kernel.empty() ? int8_t(0) : zero_of_kernel[k];
  };
  uint64_t total_nonzeros = 0;
  for (uint32_t n : s.nonzeros) total_nonzeros += n;
  s.bytes.reserve(uint64_t(K) * C + 2 * total_nonzeros);
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t c = 0; c < C; ++c) {
      const size_t count_at = s.bytes.size();
      s.bytes.push_back(0);
      uint8_t count = 0;
      for (uint32_t r = 0; r < R; ++r)
        for (uint32_t x = 0; x < S; ++x) {
          const int8_t v = w.data[((uint64_t(k) * R + r) * S + x) * C + c];
          if (v == zero(k)) continue;
          s.bytes.push_back(v);
          s.bytes.push_back(static_cast<int8_t>(static_cast<uint8_t>(r * S + x)));
          ++count;
        }
      s.bytes[count_at] = static_cast<int8_t>(count);
    }
  return s;
}

void attach_kernel_stream(LayerDescriptor& layer, const KernelStream& stream) {
  layer.weight_format = stream.format;
  layer.kernel_nonzeros = stream.nonzeros;
}

KernelStream encode_binary_kernels(const TensorI8& weights, uint32_t bits) {
  // Viewing K,R,S,C as (K*R*S),1,1,C makes pack_nhwc's word order (n, group)
  // the (k, r, s, group) order the array reads.
  TensorI8 taps = weights;
  taps.shape = {weights.shape[0] * weights.shape[1] * weights.shape[2], 1, 1, weights.shape[3]};
  const std::vector<uint8_t> bytes = pack_nhwc(taps, bits).bytes();
  KernelStream stream;
  stream.format = WeightFormat::Raw;
  stream.bytes.assign(bytes.begin(), bytes.end());
  return stream;
}

KernelStream encode_layer_kernels(const LayerConfig& layer, const TensorI8& weights,
                                  ComputeMode mode) {
  if (layer.is_binary()) return encode_binary_kernels(weights, layer.binary.bits);
  if (layer.op == OpKind::BatchMatMul) return KernelStream{};  // kernels come at run time
  return encode_kernels(weights, mode, kernel_zeros(layer));
}

KernelStream summarise_layer_kernels(const LayerConfig& layer, const TensorI8& weights,
                                     ComputeMode mode) {
  if (layer.is_binary()) return KernelStream{};                // raw, no zero-skip counts
  if (layer.op == OpKind::BatchMatMul) return KernelStream{};  // kernels come at run time
  return summarise_kernels(weights, mode, kernel_zeros(layer));
}

}  // namespace npusim
