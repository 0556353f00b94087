// `npusim run DECODER --prefill P --decode D` (docs/decoders.md#decoder-workloads):
// the options replace the decoder's two counts before it expands, the run is
// bit-exact and reports D decode steps; on any other workload they are refused.
#include <catch2/catch.hpp>
#include <string>

#include "tests/support/test_support.h"

using npusim::test::run_cli;
using npusim::test::run_report;
using npusim::test::write_temp_file;

TEST_CASE("decoder workloads: --prefill and --decode set the tokens and steps, bit-exact",
          "[decoder][cli]") {
  const std::string path = write_temp_file(
      "small_decoder.json",
      R"({"name": "small", "decoder": {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2,
          "ffn": 96, "prefill": 16, "decode": 1}})");
  const nlohmann::json as_written = run_report("run " + path);
  CHECK(as_written.at("decoder").at("decode_steps").size() == 1);
  const nlohmann::json r = run_report("run " + path + " --prefill 8 --decode 3");
  for (const auto& layer : r.at("layers")) CHECK(layer.at("check").at("match") == true);
  CHECK(r.at("decoder").at("decode_steps").size() == 3);
  // 2 layers x 18 operators per pass, 1 prefill + 3 steps.
  CHECK(r.at("layers").size() == 2 * 18 * 4);
  CHECK(r.at("layers")[0].at("shape").at("H") == 8);  // the prefill's 8 tokens

  const auto plain =
      run_cli("run " + std::string(NPUSIM_SOURCE_DIR) + "/configs/layers/conv1x1.json --decode 2");
  CHECK(plain.exit_code == 2);
  CHECK_THAT(plain.err, Catch::Contains("is not one") && Catch::Contains("\"decoder\""));
}
