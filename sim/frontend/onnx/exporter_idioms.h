// What framework exporters write around quantised tensors, rewritten into the
// plain QDQ form the lowering (qdq_lowering.h) fuses. Runs after Constant nodes
// are hoisted to initialisers and before the lowering
// (docs/onnx.md#models-as-torchonnx-exports-them):
//  - an identity Cast of a quantised tensor (torch.onnx writes QuantizeLinear ->
//    Cast(to=uint8) -> DequantizeLinear for every activation) is removed, its
//    readers reading the Cast's input;
//  - DequantizeLinear -> Flatten (Reshape, Squeeze, Unsqueeze, Transpose, Slice,
//    Split, a nearest Resize) -> QuantizeLinear (on each output) becomes that node on the
//    quantised tensor, after a requantisation when the scales or zero points differ;
//  - DequantizeLinear -> QuantizeLinear at another scale or zero point
//    becomes a requantisation;
//  - DequantizeLinear -> Pad (constant 0 on H and W) -> AveragePool becomes one
//    AveragePool with those pads and count_include_pad 1;
//  - x * HardSigmoid(x) with alpha 1/6 and beta 1/2 becomes HardSwish(x);
//  - x * Sigmoid(x) (SiLU) becomes com.microsoft QuickGelu(x) with alpha 1.
// Nodes outside these idioms are left as they are.
#pragma once

#include <onnx/onnx_pb.h>

namespace npusim {

// Rewrites `graph` in place; returns how many nodes it removed or replaced.
int rewrite_exporter_idioms(onnx::GraphProto& graph);

}  // namespace npusim
