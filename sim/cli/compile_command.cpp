// `npusim compile`: write the program the compiler makes for a workload and a
// hardware config as JSON lines, to read, edit by hand, and replay with
// `npusim run --program FILE`; or, with --explain-mapping, print the mapping
// the compiler chooses for each array layer and its estimate (docs/mapping.md).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "sim/cli/child_process.h"
#include "sim/cli/commands.h"
#include "sim/cli/workload_options.h"
#include "sim/compiler/mapper.h"
#include "sim/compiler/tiler.h"
#include "sim/compiler/vector_estimate.h"
#include "sim/program/batch_rows.h"
#include "sim/program/trace_io.h"
#include "sim/program/vector_tiling.h"
#include "sim/runner/runner.h"

namespace npusim::cli {
namespace {

struct CompileArguments {
  WorkloadOptions in;
  std::string output;
  bool explain_mapping = false;
};

// One line per array layer: how many candidates fit, the chosen mapping, its
// estimate, the greedy mapping's estimate under the same partition, and
// whether the weight region holds one tile or two (double-buffered).
int explain_mapping(const NetworkConfig& workload, const HardwareConfig& hw) {
  NetworkConfig storage;
  const NetworkConfig& net = program_view(workload, storage);  // as compile_network maps it
  const CachePartition part = choose_partition(net, hw);
  HardwareConfig in_use = hw;
  in_use.compute.units = part.units;
  std::printf(
      "mapper %s; partition: weights %llu B, params %llu B%s, half %llu B, %u of %u units%s\n",
      to_string(hw.mapper), (unsigned long long)part.weight_region_bytes,
      (unsigned long long)part.params_region_bytes,
      part.params_per_tile ? " (per weight tile)" : "", (unsigned long long)part.half_bytes,
      part.units, hw.compute.units,
      part.vector_region_bytes
          ? (", vector " + std::to_string(part.vector_region_bytes) + " B").c_str()
          : "");
  std::printf("%-24s %10s %7s %7s %10s %11s %12s %12s %8s %s\n", "layer", "candidates", "k_tile",
              "pieces", "rows/piece", "rows/stage", "estimate", "greedy_est", "weights", "input");
  for (size_t l = 0; l < net.layers.size(); ++l) {
    const LayerConfig& L = net.layers[l];
    if (!runs_on_array(L.op)) {
      // A vector operator: its instructions' rows and channels in the partition's region.
      const LayerDescriptor d = describe_operator(net, l, hw);
      const std::optional<VectorTile> tile = fit_vector_instruction(d, part.vector_region_bytes);
      if (!tile) {
        std::printf(
            "%-24s %10s  does not fit: one instruction needs %llu B of the vector "
            "region\n",
            L.name.c_str(), "vector", (unsigned long long)vector_minimum_bytes(d));
        continue;
      }
      std::printf("%-24s %10s %7u %7s %10s %11u %12llu %12s %8s %s\n", L.name.c_str(), "vector",
                  tile->k_tile, "-", "-", tile->rows,
                  (unsigned long long)estimate_vector_operator(d, hw, part.vector_region_bytes),
                  "-", "-", "-");
      continue;
    }
    const uint32_t bits = output_bits_of(net, l);
    const size_t candidates = mapping_candidates(L, hw, part, bits).size();
    const LayerTilingPlan plan = choose_mapping(L, hw, part, bits);
    if (!plan.fits) {
      std::printf("%-24s %10zu  does not fit: %s\n", L.name.c_str(), candidates, plan.why.c_str());
      continue;
    }
    const LayerTilingPlan greedy = plan_layer(L, hw, part, bits);
    const std::string greedy_estimate =
        greedy.fits ? std::to_string(estimate_mapping(L, in_use, greedy, bits).total) : "-";
    std::printf("%-24s %10zu %7u %7u %10u %11u %12llu %12s %8s %s\n", L.name.c_str(), candidates,
                plan.k_tile, plan.pieces, plan.rows_per_piece, plan.rows_per_compute_stage,
                (unsigned long long)estimate_mapping(L, in_use, plan, bits).total,
                greedy_estimate.c_str(), plan.weight_buffers > 1 ? "double" : "single",
                plan.input_channel_tiles ? "k-tile" : "all");
  }
  return kOk;
}

int compile(const CompileArguments& a) {
  const HardwareConfig hw = resolve_hardware(a.in);
  const NetworkConfig net = resolve_workload(a.in);
  if (a.explain_mapping) return explain_mapping(net, hw);
  const Program program = compile_for_workload(net, hw);
  const nlohmann::json workload = program_workload(a.in, net, a.output);
  if (a.output.empty() || a.output == "-") {
    write_program_jsonl(std::cout, program, workload, to_json(hw), net.is_graph());
    return kOk;
  }
  refuse_to_overwrite("-o", a.output, input_files(a.in, net));
  make_parent_dirs(a.output);
  std::ofstream out(a.output);
  if (!out) throw std::runtime_error("cannot open " + a.output + " for writing");
  write_program_jsonl(out, program, workload, to_json(hw), net.is_graph());
  out.close();
  if (!out) throw std::runtime_error("error writing " + a.output);
  spdlog::info("wrote {} instructions for {} layers to {}", program.instructions.size(),
               program.layers.size(), a.output);
  return kOk;
}

}  // namespace

void add_compile_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<CompileArguments>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Compile a layer or network for a hardware config and write the program as JSON "
      "lines (one instruction per line, explicit dependencies).");
  add_workload_options(cmd, args->in);
  cmd->add_option("-o,--output", args->output, "Output file (default: standard output)");
  cmd->add_flag("--explain-mapping", args->explain_mapping,
                "Print each array layer's chosen mapping, its estimated cycles and the greedy "
                "mapping's, instead of the program (docs/mapping.md)");
  cmd->callback([args, &action] { action = [args] { return compile(*args); }; });
}

}  // namespace npusim::cli
