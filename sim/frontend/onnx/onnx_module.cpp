// The entry point of libnpusim_onnx.so, the ONNX module: the npusim
// executable loads it with dlopen only when a workload is an ONNX model
// (sim/cli/onnx_loader.cpp), so that every other run skips loading libonnx and
// libprotobuf and their start-up work (docs/performance.md#start-up). Built
// into the module only, not into the npusim_frontend library.
#include "sim/frontend/onnx/onnx_import.h"

extern "C" __attribute__((visibility("default"))) const npusim::OnnxFrontend*
npusim_onnx_frontend() {
  static const npusim::OnnxFrontend frontend{&npusim::import_onnx};
  return &frontend;
}
