// `npusim estimate`: the compiler's estimate of a workload on a hardware
// config, without simulating it (sim/compiler/network_estimate.h): one line
// per operator and the total, and with --out a report.json a sweep reads
// like a run's (docs/mapping.md#estimate-only-runs).
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/cli/child_process.h"
#include "sim/cli/commands.h"
#include "sim/cli/workload_options.h"
#include "sim/compiler/network_estimate.h"
#include "sim/io/atomic_file.h"
#include "sim/report/report.h"
#include "sim/report/report_figures.h"
#include "sim/report/units.h"

namespace npusim::cli {
namespace {

struct EstimateArguments {
  WorkloadOptions in;
  std::string out_dir;
  bool quiet = false;
};

nlohmann::json estimate_report(const EstimateArguments& a, const NetworkConfig& net,
                               const HardwareConfig& hw, const NetworkEstimate& e, double wall) {
  nlohmann::json layers = nlohmann::json::array();
  for (const OperatorEstimate& o : e.operators) {
    nlohmann::json j = {{"name", o.name},
                        {"operator", to_string(o.op)},
                        {"estimate_cycles", o.cycles},
                        {"macs", o.macs},
                        {"k_tile", o.k_tile}};
    if (o.macs > 0 || o.pieces > 0) {
      j["pieces"] = o.pieces;
      j["rows_per_piece"] = o.rows;
      j["weight_buffers"] = o.weight_buffers;
      if (o.feature_stationary) j["loop_order"] = "feature_stationary";
    } else {
      j["rows_per_instruction"] = o.rows;
    }
    layers.push_back(j);
  }
  const Figures f = estimate_figures(hw, e.cycles, e.macs);
  const CachePartition& p = e.partition;
  return {
      {"schema_version", kReportSchemaVersion},
      {"tool", "npusim"},
      {"npusim_version", NPUSIM_VERSION},
      {"kind", "estimate"},
      {"command_line", own_command_line()},
      {"hardware_source", a.in.hw_file},
      {"overrides", a.in.overrides},
      {"hardware", to_json(hw)},
      {"workload", {{"name", net.name}, {"layers", net.layers.size()}, {"source", a.in.workload}}},
      {"area", area_json(hw)},
      {"partition",
       {{"weight_region_bytes", p.weight_region_bytes},
        {"params_region_bytes", p.params_region_bytes},
        {"params_per_tile", p.params_per_tile},
        {"half_bytes", p.half_bytes},
        {"vector_region_bytes", p.vector_region_bytes},
        {"units", p.units}}},
      {"totals",
       {{"cycles", e.cycles},
        {"time_us", f.time_us},
        {"macs", e.macs},
        {"hw_mac_util", f.hw_mac_util}}},
      {"layers", layers},
      {"wall_seconds", wall}};
}

int estimate(const EstimateArguments& a) {
  if (a.quiet) spdlog::set_level(spdlog::level::warn);
  const auto start = std::chrono::steady_clock::now();
  const HardwareConfig hw = resolve_hardware(a.in);
  WorkloadOptions workload = a.in;
  workload.weight_values = false;  // the estimate is dense: a model's weights are not read
  const NetworkConfig net = resolve_workload(workload);
  const std::vector<std::string> inputs = input_files(a.in, net);
  if (!a.out_dir.empty()) refuse_to_overwrite("--out", a.out_dir + "/report.json", inputs);
  spdlog::info("estimating {} ({} layers) on hardware '{}', no simulation", net.name,
               net.layers.size(), hw.name);
  const NetworkEstimate e = estimate_network(net, hw);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("estimate  %s on '%s': operators one after another, dense, each alone\n",
              net.name.c_str(), hw.name.c_str());
  std::printf("%-24s %-18s %7s %7s %6s %12s\n", "layer", "operator", "k_tile", "pieces", "rows",
              "estimate");
  for (const OperatorEstimate& o : e.operators)
    std::printf("%-24s %-18s %7u %7s %6u %12llu\n", o.name.c_str(), to_string(o.op), o.k_tile,
                o.pieces ? std::to_string(o.pieces).c_str() : "-", o.rows,
                (unsigned long long)o.cycles);
  std::printf("%-24s %-18s %7s %7s %6s %12llu\n", "total", "", "", "", "",
              (unsigned long long)e.cycles);
  const Figures f = estimate_figures(hw, e.cycles, e.macs);
  std::printf("%s at %g MHz, dense MACs %.1f %% of peak\n", duration_text(f.time_us * 1e-6).c_str(),
              hw.clock_mhz, 100 * f.hw_mac_util);
  if (!a.out_dir.empty()) {
    std::filesystem::create_directories(a.out_dir);
    const std::string path = a.out_dir + "/report.json";
    write_file_atomically(path, estimate_report(a, net, hw, e, wall).dump(2) + "\n");
    spdlog::info("wrote {}", path);
  }
  return kOk;
}

}  // namespace

void add_estimate_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<EstimateArguments>();
  CLI::App* cmd = app.add_subcommand(
      "estimate",
      "Estimate a layer or network's cycles from the compiler's mappings without simulating it "
      "(fast first-pass sweeps; docs/mapping.md#estimate-only-runs).");
  add_workload_options(cmd, args->in);
  cmd->add_option("--out", args->out_dir, "Write report.json (kind \"estimate\") into this folder");
  cmd->add_flag("-q,--quiet", args->quiet, "Only warnings and errors on stderr");
  cmd->callback([args, &action] { action = [args] { return estimate(*args); }; });
}

}  // namespace npusim::cli
