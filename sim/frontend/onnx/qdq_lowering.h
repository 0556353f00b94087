// QDQ form -> QOperator form, before import (docs/onnx.md#qdq). A float
// operator whose inputs all come from DequantizeLinear nodes and whose output
// goes (through an optional Relu or Clip) into one QuantizeLinear becomes the
// integer operator ONNX Runtime fuses the pattern into: Conv -> QLinearConv,
// MatMul -> QLinearMatMul, Gemm -> QGemm, Add -> QLinearAdd, Mul -> QLinearMul,
// a table activation (the operator table's onnx_qdq: Sigmoid, HardSigmoid,
// HardSwish, Gelu, QuickGelu with alpha 1 for SiLU) -> QLinear<op> (ORT's contrib
// QLinearSigmoid, npusim's own for the others), AveragePool /
// GlobalAveragePool -> QLinearAveragePool / QLinearGlobalAveragePool, Concat
// -> QLinearConcat, MaxPool -> MaxPool on the quantised tensor, a linear or cubic Resize
// -> npusim's QLinearResize (x triple, y pair, then the Resize's other inputs). A Relu or Clip
// in between is kept as the attributes npusim_clip_min / npusim_clip_max
// (real units) on the new node, and the original op type as npusim_qdq_op. A Relu or Clip standing
// alone (DequantizeLinear -> Relu | Clip -> QuantizeLinear) becomes an integer Clip of the
// quantised tensor, then a requantisation (one-input QLinearConcat) where the scales or zero points
// differ, computing what ONNX Runtime does; one it cannot write so is marked for the importer to
// refuse (npusim_refused_expected / npusim_refused_found). Flatten / Reshape of a dequantised
// tensor move to the quantised one. Nodes outside these patterns are left as they are (the importer
// then names what it cannot run).
#pragma once

#include <onnx/onnx_pb.h>

namespace npusim {

// Rewrites `graph` in place; returns how many patterns it lowered.
int lower_qdq(onnx::GraphProto& graph);

}  // namespace npusim
