#include "tests/support/torch_support.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/test_support.h"

namespace npusim::test {

bool have_torch_and_ort() {
  if (std::system("/usr/bin/python3 -c 'import torch, torchvision, onnx' > /dev/null 2>&1") == 0 &&
      have_onnx_runtime())
    return true;
  WARN("SKIPPED: needs python3-torch, python3-torchvision, python3-onnx and onnxruntime-node");
  return false;
}

std::string quantise(const std::string& model, const std::string& out, const std::string& options) {
  const CliResult q = run_cli("quantize " + model + " -o " + out + options);
  INFO(q.out << q.err);
  REQUIRE(q.exit_code == 0);
  return q.out;
}

std::string export_script(const std::string& name, const std::string& script) {
  const std::string dir = temp_dir() + "/quantize_" + name;
  std::filesystem::create_directories(dir);
  const std::string model = dir + "/" + name + ".onnx", path = dir + "/" + name + ".py";
  std::ofstream(path) << script;
  const std::string cmd = "/usr/bin/python3 " + path + " " + model + " > /dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return model;
}

}  // namespace npusim::test
