#include "sim/cli/model_tensors.h"

#include <stdexcept>

#include "sim/tensor/layout.h"

namespace npusim::cli {
namespace {

// N,H,W,C values -> N,C,H,W order.
std::vector<int32_t> to_nchw(TensorI32 nhwc) { return nhwc_to_nchw(nhwc).data; }

void write_values(const std::string& path, const std::vector<uint32_t>& shape, QuantType type,
                  const std::vector<int32_t>& values) {
  if (type == QuantType::Uint8) {
    TensorU8 t;
    t.shape = shape;
    t.data.assign(values.begin(), values.end());
    write_npy(path, t);
  } else if (type == QuantType::Int8) {
    TensorI8 t;
    t.shape = shape;
    t.data.assign(values.begin(), values.end());
    write_npy(path, t);
  } else {
    TensorI32 t;
    t.shape = shape;
    t.data = values;
    write_npy(path, t);
  }
}

}  // namespace

void write_model_tensors(const SavedTensorPaths& paths, const NetworkConfig& net,
                         const std::vector<OnnxOutput>& outputs,
                         const std::vector<TensorI8>& inputs,
                         const std::vector<TensorI32>& values) {
  for (size_t g = 0; g < net.graph_inputs.size(); ++g) {
    const GraphInput& in = net.graph_inputs[g];
    TensorI32 v({in.N, in.H, in.W, in.C});
    for (uint64_t i = 0; i < v.size(); ++i) {
      const int8_t b = inputs[g].data[i];
      v.data[i] = in.quant.type == QuantType::Uint8 ? int32_t(uint8_t(b)) : b;
    }
    // An input the model declares NHWC is saved as it lies.
    const std::vector<int32_t> nchw = in.onnx_nhwc ? std::move(v.data) : to_nchw(std::move(v));
    const std::string& path = paths.inputs.at(g);
    const std::vector<uint32_t> shape =
        in.onnx_shape.empty() ? std::vector<uint32_t>{in.N, in.C, in.H, in.W} : in.onnx_shape;
    if (!in.quantized_from_float) {
      write_values(path, shape, in.quant.type, nchw);
      continue;
    }
    // A float input: the real values its QuantizeLinear maps back to exactly
    // these integers, (q - zero point) * scale.
    std::vector<float> real(nchw.size());
    for (size_t i = 0; i < nchw.size(); ++i)
      real[i] = float(nchw[i] - in.quant.zero_point) * in.quant.scale;
    write_npy_float(path, shape, real);
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const OnnxOutput& o = outputs[k];
    size_t l = 0;
    while (l < net.tensor_names.size() && net.tensor_names[l] != o.tensor) ++l;
    if (l == net.tensor_names.size() || l >= values.size())
      throw std::logic_error("output " + o.name + ": no operator computes " + o.tensor);
    const LayerConfig& L = net.layers[l];
    const uint32_t N = L.N, H = L.out_h(), W = L.out_w(), K = L.K;
    // A Transpose to NHWC is the order the values lie in.
    const std::vector<int32_t> nchw = o.nhwc ? values[l].data : to_nchw(values[l]);
    // A matmul's output is [N, F] in the model (H = W = 1 here).
    const std::vector<uint32_t> shape = !o.shape.empty() ? o.shape
                                        : o.nhwc         ? std::vector<uint32_t>{N, H, W, K}
                                        : L.op == OpKind::MatMul && H == 1 && W == 1
                                            ? std::vector<uint32_t>{N, K}
                                            : std::vector<uint32_t>{N, K, H, W};
    const std::string& path = paths.outputs.at(k);
    if (!o.dequantize) {
      write_values(path, shape, L.quant.output.type, nchw);
      continue;
    }
    // DequantizeLinear: (q - zero_point) * scale in float32.
    std::vector<float> real(nchw.size());
    for (size_t i = 0; i < nchw.size(); ++i) real[i] = float(nchw[i] - o.zero_point) * o.scale;
    write_npy_float(path, shape, real);
  }
}

}  // namespace npusim::cli
