#include "sim/runner/layer_io.h"

#include <cstring>

#include "sim/reference/binary_reference.h"
#include "sim/reference/reference_conv.h"
#include "sim/tensor/layout.h"

namespace npusim {
namespace {

void put_int32(DramImage& image, uint64_t address, int32_t v) {
  std::memcpy(image.data() + address, &v, sizeof v);  // little-endian host, as the DRAM image
}

reference::BinaryPadding to_reference(BinaryPadMode m) {
  switch (m) {
    case BinaryPadMode::PlusOne:
      return reference::BinaryPadding::PlusOne;
    case BinaryPadMode::MinusOne:
      return reference::BinaryPadding::MinusOne;
    case BinaryPadMode::Skip:
      break;
  }
  return reference::BinaryPadding::Skip;
}

}  // namespace

void lay_out_layer(DramImage& image, const LayerDescriptor& d, const LayerConfig& L,
                   const LayerData& data, const KernelStream& kernels) {
  if (!data.input.data.empty()) {
    if (d.binary) {
      const std::vector<uint8_t> packed = pack_nhwc(data.input, d.bits).bytes();
      std::memcpy(image.data() + d.input_address, packed.data(), packed.size());
    } else {
      const TensorI8 stored =
          d.input_layout == TensorLayout::Nchw ? nhwc_to_nchw(data.input) : data.input;
      std::memcpy(image.data() + d.input_address, stored.data.data(), stored.size());
    }
  }
  // (A batch_matmul has no kernels of its own: its weight tile comes from DRAM at run time.)
  if (!kernels.bytes.empty())
    std::memcpy(image.data() + d.weights_address, kernels.bytes.data(), kernels.bytes.size());
  for (uint32_t k = 0; k < L.K; ++k) {
    const uint64_t at = d.params_address + uint64_t(k) * 8;
    put_int32(image, at, d.binary ? data.threshold[k] : data.bias[k]);
    // A graph operator's bank holds {bias, float32 multiplier} or, with the
    // fixed-point requantiser, {bias, scale | shift << 16}.
    int32_t second = d.binary ? int32_t(data.flip[k]) : 0;
    if (d.quantized && d.requantiser == Requantiser::FixedPoint) {
      second = fixed_point_multiplier(requant_multiplier(L.quant, k)).packed();
    } else if (d.quantized) {
      const float m = requant_multiplier(L.quant, k);
      std::memcpy(&second, &m, 4);
    } else if (!d.binary) {
      second = L.requant.scale[k];
    }
    put_int32(image, at + 4, second);
  }
}

void lay_out_norm_params(DramImage& image, const LayerDescriptor& d, const LayerData& data) {
  for (uint32_t c = 0; c < d.C; ++c) {
    const uint64_t at = d.params_address + uint64_t(c) * 8;
    put_int32(image, at, data.bias.empty() ? 0 : data.bias[c]);
    put_int32(image, at + 4, int32_t(data.weights.data[c]));
  }
}

TensorI8 read_output(const DramImage& image, const LayerDescriptor& d) {
  if (d.output_bits == 0) {
    const bool planar = d.output_layout == TensorLayout::Nchw;
    TensorI8 out(planar ? std::vector<uint32_t>{d.N, d.K, d.out_h, d.out_w}
                        : std::vector<uint32_t>{d.N, d.out_h, d.out_w, d.K});
    std::memcpy(out.data.data(), image.data() + d.output_address, out.size());
    return planar ? nchw_to_nhwc(out) : out;
  }
  PackedTensor p;
  p.n = d.N, p.c = d.K, p.h = d.out_h, p.w = d.out_w, p.bits = d.output_bits;
  p.words.resize(uint64_t(p.n) * p.groups() * p.h * p.w);
  const uint32_t word_bytes = p.bits / 8;
  const uint8_t* src = reinterpret_cast<const uint8_t*>(image.data() + d.output_address);
  for (uint64_t i = 0; i < p.words.size(); ++i) {
    uint64_t word = 0;
    for (uint32_t b = 0; b < word_bytes; ++b) word |= uint64_t(src[i * word_bytes + b]) << (8 * b);
    p.words[i] = word;
  }
  return unpack_to_nhwc(p);
}

TensorI8 reference_output(const LayerConfig& L, const LayerDescriptor& d, const LayerData& data,
                          const TensorI8& input) {
  if (L.is_binary()) {
    reference::BinaryConvParams p;
    p.stride = L.stride, p.padding = L.padding, p.pad_mode = to_reference(L.binary.padding);
    p.threshold = data.threshold, p.flip = data.flip;
    return reference::conv2d_binary(input, data.weights, p);
  }
  reference::ConvParams p;
  p.stride = L.stride, p.padding = L.padding, p.relu = L.relu;
  p.bias = data.bias, p.scale = L.requant.scale, p.shift = L.requant.shift;
  const TensorI8 out = reference::conv2d_int8(input, data.weights, p);
  return d.output_bits == 0 ? out : reference::sign_to_pm1(out);
}

}  // namespace npusim
