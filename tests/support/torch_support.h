// Helpers of the tests that export models with torch.onnx and quantise them
// with `npusim quantize` (tests/integration/test_torch_*.cpp).
#pragma once

#include <string>

namespace npusim::test {

// Whether PyTorch, torchvision, python3-onnx and ONNX Runtime are all here; warns
// "SKIPPED: ..." when not (the caller returns).
bool have_torch_and_ort();

// `npusim quantize MODEL -o OUT OPTIONS`, which must succeed; its standard output.
std::string quantise(const std::string& model, const std::string& out,
                     const std::string& options = "");

// A float model that `script` (a torch.onnx export to sys.argv[1]) writes, as
// quantize_NAME/NAME.onnx in the test's folder; the script must succeed.
std::string export_script(const std::string& name, const std::string& script);

}  // namespace npusim::test
