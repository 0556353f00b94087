// Compiling from the estimate (compile_network's `estimate`, the compile trials'
// shortcut): the program built from estimate_network's (or network_partition's)
// partition and mappings is, byte for byte, the program compile_network chooses
// for itself, and a
// run under compile trials simulates the program its chosen target compiles
// to. The kernel counts a process keeps (kernel_summary_cache.h) are those
// drawn from each layer's own weights.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/compiler/network_estimate.h"
#include "sim/compiler/program_emitter.h"
#include "sim/config/hardware_config.h"
#include "sim/frontend/load_workload.h"
#include "sim/graph/workload.h"
#include "sim/program/trace_io.h"
#include "sim/runner/compile_trials.h"
#include "sim/runner/kernel_summary_cache.h"
#include "sim/runner/runner.h"
#include "sim/workload/layer_data.h"
#include "tests/support/test_support.h"

using namespace npusim;

namespace {

const std::string kNetworks = std::string(NPUSIM_SOURCE_DIR) + "/configs/networks/";

std::string program_text(const Program& p, bool graph) {
  std::ostringstream text;
  write_program_jsonl(text, p, nlohmann::json::object(), nlohmann::json::object(), graph);
  return text.str();
}

// The hardware points: rows told from columns, several units, small and
// large caches, a budget given explicitly and per-layer loop orders.
std::vector<std::pair<std::string, HardwareConfig>> hardware_points() {
  std::vector<std::pair<std::string, HardwareConfig>> points;
  HardwareConfig hw;
  points.emplace_back("default", hw);
  HardwareConfig wide = hw;
  wide.compute.array_rows = 8, wide.compute.array_cols = 24;
  points.emplace_back("8x24 array", wide);
  HardwareConfig tall = hw;
  tall.compute.array_rows = 40, tall.compute.array_cols = 16;
  points.emplace_back("40x16 array", tall);
  HardwareConfig units = hw;
  units.compute.units = 3, units.compiler.units = 2, units.cache.size_kib = 256;
  points.emplace_back("2 of 3 units in 256 KiB", units);
  HardwareConfig auto_order = hw;
  auto_order.loop_order = LoopOrder::Auto, auto_order.cache.size_kib = 128;
  points.emplace_back("loop_order auto in 128 KiB", auto_order);
  HardwareConfig budget = hw;
  budget.cache.size_kib = 2048, budget.compiler.cache_kib = 512;
  points.emplace_back("a 512 KiB budget of 2 MiB", budget);
  HardwareConfig part = hw;
  part.compiler.array_rows = 16, part.compiler.array_cols = 24;
  points.emplace_back("16x24 of a 32x32 array", part);
  return points;
}

}  // namespace

TEST_CASE(
    "a program compiled from the network's estimate or from network_partition is byte for byte "
    "the program compiled without it, for conv, graph, binary and transformer networks on seven "
    "hardware points",
    "[compile_trials][heavy]") {
  for (const std::string name : {"tiny3.json", "mixed_small.json", "resnet18_full.json",
                                 "resnet18_binary.json", "bert_base_1layer.json"}) {
    const NetworkConfig net = load_workload(kNetworks + name);
    for (const auto& [point, hw] : hardware_points()) {
      INFO(name << " on " << point);
      NetworkEstimate estimate;
      try {
        estimate = estimate_network(net, hw);
      } catch (const CompileError&) {
        CHECK_THROWS_AS(compile_network(net, hw), CompileError);  // both refuse it
        continue;
      }
      const std::string without = program_text(compile_network(net, hw), net.is_graph());
      CHECK(program_text(compile_network(net, hw, &estimate), net.is_graph()) == without);
      // What the compile trials keep when they have one program or none to simulate.
      const NetworkEstimate partition = network_partition(net, hw);
      CHECK(program_text(compile_network(net, hw, &partition), net.is_graph()) == without);
      // The trials estimate with compiler.cache_kib 0 and compile for the
      // whole cache named: the same partition.
      if (hw.compiler.cache_kib == 0) {
        HardwareConfig named = hw;
        named.compiler.cache_kib = hw.cache.size_kib;
        CHECK(program_text(compile_network(net, named, &estimate), net.is_graph()) ==
              program_text(compile_network(net, named), net.is_graph()));
      }
    }
  }
}

TEST_CASE(
    "a run under compile trials simulates the program its chosen target compiles to without "
    "the trials' estimates",
    "[compile_trials]") {
  const NetworkConfig net = load_workload(kNetworks + "mixed_small.json");
  HardwareConfig hw;
  hw.compute.units = 3;
  hw.cache.size_kib = 192;
  hw.compute.array_rows = 24, hw.compute.array_cols = 16;
  RunOptions options;
  options.progress = false;  // functional: a timing-only run takes the trial's simulation
  const std::unique_ptr<RunResult> r = run_network(net, hw, options);
  REQUIRE(r->outcome.status == RunOutcome::Status::Completed);
  REQUIRE_FALSE(r->simulated_by_trial);
  // Trials ran and chose among several programs.
  REQUIRE(r->compile_trials.trials.size() >= 2);
  REQUIRE(r->compile_trials.chosen.units != 0);
  const Program fresh = compile_for_workload(net, compile_target(hw, r->compile_trials));
  CHECK(program_text(r->program, net.is_graph()) == program_text(fresh, net.is_graph()));
  // Each trial simulated its own program: the chosen trial's cycles are the run's.
  CHECK(r->compile_trials.chosen.cycles == r->summary.total_cycles);
}

TEST_CASE(
    "the kernel counts a process keeps are each layer's own: layers that differ only in seed, "
    "kernel count, channels or weight zero point count their own weights",
    "[kernel_summary_cache]") {
  const auto conv = [](const std::string& fields) {
    return test::workload(R"({"type": "conv2d", "name": "l", "H": 6, "W": 6, "R": 3, "S": 2, )" +
                          fields + "}")
        .layers.at(0);
  };
  const std::vector<LayerConfig> layers = {
      conv(R"("C": 16, "K": 9, "seed": 3)"), conv(R"("C": 16, "K": 9, "seed": 4)"),
      conv(R"("C": 16, "K": 10, "seed": 3)"), conv(R"("C": 17, "K": 9, "seed": 3)")};
  NetworkConfig net;
  net.layers = layers;
  warm_kernel_counts(net, ComputeMode::ZeroSkip);
  for (size_t i = 0; i < layers.size(); ++i)
    for (ComputeMode mode : {ComputeMode::ZeroSkip, ComputeMode::Dense}) {
      INFO("layer " << i << " " << to_string(mode));
      const KernelStream kept = timing_kernel_summary(layers[i], mode, "");
      const KernelStream drawn =
          summarise_layer_kernels(layers[i], make_layer_weights(layers[i]), mode);
      CHECK(kept.format == drawn.format);
      CHECK(kept.nonzeros == drawn.nonzeros);
    }
  // The same for a graph operator's uint8 weights under two zero points.
  const NetworkConfig graph = load_workload(kNetworks + "resnet18_full.json");
  for (const LayerConfig& L : graph.layers) {
    if (!runs_on_array(L.op) || L.K > 64) continue;
    for (const int32_t zero : {0, 7}) {
      LayerConfig z = L;
      z.quant.weight_type = QuantType::Uint8;
      z.quant.weight_zero_point.assign(1, zero);
      INFO(L.name << " zero point " << zero);
      CHECK(timing_kernel_summary(z, ComputeMode::ZeroSkip, "").nonzeros ==
            summarise_layer_kernels(z, make_layer_weights(z), ComputeMode::ZeroSkip).nonzeros);
    }
    break;
  }
}
