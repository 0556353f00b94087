#include "sim/report/report_figures.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "sim/report/energy.h"

namespace npusim {

const std::vector<std::string> kReportCounters = {
    "layer.start_cycle",
    "layer.finish_cycle",
    "layer.cycles",
    "load.busy_cycles",
    "load.instructions",
    "compute.busy_cycles",
    "compute.instructions",
    "compute.work_cycles",
    "compute.macs_performed",
    "compute.macs_useful",
    "store.busy_cycles",
    "store.instructions",
    "store.batches",
    "vector.busy_cycles",
    "stall.data_dependency_cycles",
    "stall.buffer_space_cycles",
    "stall.memory_dependency_cycles",
    "stall.bus_cycles",
    "stall.cache_port_cycles",
    "dram.read_bytes",
    "dram.write_bytes",
    "dram.bus_busy_cycles",
    "cache.read_bytes",
    "cache.write_bytes",
    "cache.peak_occupancy_bytes",
    "cache.allocated_bytes",
    "bound.compute_cycles",
    "bound.memory_cycles",
    "bound.serial_cycles",
};

const std::vector<FigureField> kFigureFields = {
    {"time_us", &Figures::time_us},
    {"hw_mac_util", &Figures::hw_mac_util},
    {"useful_mac_util", &Figures::useful_mac_util},
    {"load_busy", &Figures::load_busy},
    {"compute_busy", &Figures::compute_busy},
    {"store_busy", &Figures::store_busy},
    {"vector_busy", &Figures::vector_busy},
    {"dram_bus_busy", &Figures::dram_bus_busy},
    {"dram_gbps", &Figures::dram_gbps},
    {"dram_peak_share", &Figures::dram_peak_share},
    {"cache_reuse", &Figures::cache_reuse},
    {"energy_uj", &Figures::energy_uj},
    {"dynamic_energy_uj", &Figures::dynamic_energy_uj},
    {"leakage_energy_uj", &Figures::leakage_energy_uj},
    {"compute_energy_uj", &Figures::compute_energy_uj},
    {"cache_energy_uj", &Figures::cache_energy_uj},
    {"dram_energy_uj", &Figures::dram_energy_uj},
};

namespace {

double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

Energy energy_of_layer(const RunSummary& s, uint32_t layer) {
  const StatsRegistry& st = *s.stats;
  const auto at = [&](const char* name) { return st.get(name).at(layer); };
  const LayerConfig& L = s.network->layers[layer];
  return layer_energy(*s.hw, L.is_binary() ? L.binary.bits : 0, at("compute.macs_performed"),
                      at("cache.read_bytes") + at("cache.write_bytes"),
                      DramEvents{at("dram.read_bytes"), at("dram.write_bytes"),
                                 s.hw->dram.model == DramModel::Banked ? at("dram.activates") : 0});
}

// The layer's or run's dynamic energy, plus leakage over its cycles.
void set_energy(const HardwareConfig& hw, Figures& f, const Energy& dynamic) {
  f.dynamic_energy_uj = dynamic.total_pj() * 1e-6;
  f.leakage_energy_uj = leakage_pj(hw, f.cycles) * 1e-6;
  f.energy_uj = f.dynamic_energy_uj + f.leakage_energy_uj;
  f.compute_energy_uj = dynamic.compute_pj * 1e-6;
  f.cache_energy_uj = dynamic.cache_pj * 1e-6;
  f.dram_energy_uj = dynamic.dram_pj * 1e-6;
}

}  // namespace

double dram_peak_gbps(const HardwareConfig& hw) {
  return hw.dram.model == DramModel::Banked ? hw.dram.device.peak_bytes_per_second() / 1e9
                                            : hw.dram.bytes_per_cycle * hw.clock_mhz / 1000.0;
}

double dram_sustained_bytes_per_cycle(const RunSummary& s) {
  return s.hw->dram.model == DramModel::Banked ? s.dram_sustained_bytes_per_cycle
                                               : s.hw->dram.bytes_per_cycle;
}

double dram_sustained_gbps(const RunSummary& s) {
  return dram_sustained_bytes_per_cycle(s) * s.hw->clock_mhz / 1000.0;
}

namespace {

// The single definition of every derived figure; `value` reads a counter for
// the layer or for the whole run.
Figures derive(const HardwareConfig& hw, uint64_t cycles,
               const std::function<uint64_t(const std::string&)>& value) {
  const double c = static_cast<double>(cycles);
  const double peak = static_cast<double>(hw.peak_macs_per_cycle());
  Figures f;
  f.cycles = cycles;
  f.time_us = ratio(c, hw.clock_mhz);
  f.hw_mac_util = ratio(value("compute.macs_performed"), peak * c);
  f.useful_mac_util = ratio(value("compute.macs_useful"), peak * c);
  f.load_busy = ratio(value("load.busy_cycles"), c);
  // compute.busy_cycles is summed over units, so divide by the units too.
  f.compute_busy = ratio(value("compute.busy_cycles"), double(hw.compute.units) * c);
  f.store_busy = ratio(value("store.busy_cycles"), c);
  f.vector_busy = ratio(value("vector.busy_cycles"), c);
  f.dram_bus_busy = ratio(value("dram.bus_busy_cycles"), c);
  // bytes per microsecond / 1000 = GB/s
  f.dram_gbps =
      ratio(double(value("dram.read_bytes") + value("dram.write_bytes")), f.time_us * 1000.0);
  f.dram_peak_share = ratio(f.dram_gbps, dram_peak_gbps(hw));
  f.cache_reuse =
      ratio(value("cache.read_bytes"), std::max<double>(1.0, value("cache.write_bytes")));
  return f;
}

}  // namespace

void validate_summary(const RunSummary& s) {
  if (s.hw == nullptr || s.network == nullptr || s.stats == nullptr)
    throw std::logic_error("report: RunSummary needs hw, network and stats");
  const size_t layers = s.network->layers.size();
  auto count_error = [&](const std::string& what, size_t n) {
    return std::logic_error("report: network has " + std::to_string(layers) + " layers but " +
                            what + " has " + std::to_string(n));
  };
  if (s.stats->layers() != layers) throw count_error("the stats registry", s.stats->layers());
  if (s.checks.size() != layers) throw count_error("RunSummary::checks", s.checks.size());
  if (s.tiling.size() != layers) throw count_error("RunSummary::tiling", s.tiling.size());
  std::string missing;
  for (const std::string& name : kReportCounters)
    if (s.stats->find(name) == nullptr) missing += (missing.empty() ? "" : ", ") + name;
  if (!missing.empty())
    throw std::logic_error("report: the stats registry lacks counter(s) the report reads: " +
                           missing + " (each model must declare its counters)");
}

Figures layer_figures(const RunSummary& s, uint32_t layer) {
  const StatsRegistry& st = *s.stats;
  Figures f = derive(*s.hw, st.get("layer.cycles").at(layer),
                     [&](const std::string& n) { return st.get(n).at(layer); });
  set_energy(*s.hw, f, energy_of_layer(s, layer));
  return f;
}

Figures estimate_figures(const HardwareConfig& hw, uint64_t cycles, uint64_t dense_macs) {
  return derive(hw, cycles, [&](const std::string& n) {
    return n == "compute.macs_performed" || n == "compute.macs_useful" ? dense_macs : 0;
  });
}

Figures total_figures(const RunSummary& s) {
  const StatsRegistry& st = *s.stats;
  Figures f =
      derive(*s.hw, s.total_cycles, [&](const std::string& n) { return st.get(n).total(); });
  Energy total;
  for (uint32_t l = 0; l < st.layers(); ++l) total += energy_of_layer(s, l);
  set_energy(*s.hw, f, total);
  return f;
}

namespace {

std::string times(uint32_t a, uint32_t b) { return std::to_string(a) + "x" + std::to_string(b); }

// A kernel's footprint and strides: "3x3/2", "1x7/1x2", "3x3/1 d2".
std::string window(const LayerConfig& l) {
  std::string out = times(l.R, l.S) + "/" + std::to_string(l.stride);
  if (col_stride(l) != l.stride) out += "x" + std::to_string(col_stride(l));
  if (dil_h(l) != 1 || dil_w(l) != 1)
    out += " d" + std::to_string(dil_h(l)) +
           (dil_w(l) != dil_h(l) ? "x" + std::to_string(dil_w(l)) : "");
  return out;
}

// The operator's name, or in the compact table the shorter one of the long names.
std::string op_name(OpKind op, bool compact) {
  if (compact && op == OpKind::GlobalAveragePool) return "gap";
  if (compact && op == OpKind::AveragePool) return "avgpool";
  if (compact && op == OpKind::BatchMatMul) return "bmm";
  return to_string(op);
}

}  // namespace

std::string shape_string(const LayerConfig& l, ShapeStyle style) {
  const bool compact = style == ShapeStyle::Compact;
  const bool depthwise = l.groups > 1 && l.groups == l.C && l.groups == l.K;
  // Graph operators lead with their operator (depthwise and grouped convs say so).
  std::string out = !l.source_op.empty() && !compact ? l.source_op + " "
                    : !l.quantized                   ? ""
                    : l.op != OpKind::Conv           ? op_name(l.op, compact) + " "
                    : l.groups == 1                  ? (compact ? "" : "conv ")
                    : depthwise                      ? "dwconv "
                                                     : "conv g" + std::to_string(l.groups) + " ";
  if (l.N > 1) out += "n" + std::to_string(l.N) + " ";
  const std::string image = std::to_string(l.C) + "x" + times(l.H, l.W);
  // A sequence operator's tensor is [tokens, C] (docs/transformers.md); a
  // matmul's rows are its output pixels. Only what the operator uses is
  // shown: no kernels or window for elementwise operators.
  const std::string rows = times(l.H * l.W, l.C);
  const std::string heads = "h" + std::to_string(l.seq.heads) + " ";
  // Grouped-query attention: the second operand's heads after a slash.
  const std::string bmm_heads =
      l.seq.kv_heads == l.seq.heads
          ? heads
          : "h" + std::to_string(l.seq.heads) + "/" + std::to_string(l.seq.kv_heads) + " ";
  // Elementwise operators on a sequence ([tokens, C]: W = 1) show it as one.
  const std::string elementwise = l.W == 1 && l.H > 1 ? rows : image;
  const OpInfo& info = op_info(l.op);
  switch (info.family) {
    case OpFamily::Conv:
      out += image + (compact && depthwise ? "" : " k" + std::to_string(l.K)) + " " + window(l);
      break;
    case OpFamily::Matmul:
      switch (info.matmul) {
        case MatmulKind::Weights:
          out += rows + " k" + std::to_string(l.K);
          break;
        case MatmulKind::Produced:  // per head: rows x (C / heads) -> K / heads
          out += bmm_heads + times(l.H * l.W, l.C / std::max(1u, l.seq.heads)) + " k" +
                 std::to_string(l.K / std::max(1u, l.seq.heads));
          break;
      }
      break;
    case OpFamily::Pool:
      switch (info.pool) {
        case PoolKind::Max:
        case PoolKind::Average:
          out += image + " " + window(l);
          break;
        case PoolKind::GlobalAverage:
          out += image;
          break;
      }
      break;
    case OpFamily::Concat:
      out += image + " k" + std::to_string(l.K);
      break;
    case OpFamily::Gather:
      switch (info.gather) {
        case GatherKind::Channels:
          out += image + " k" + std::to_string(l.K);
          break;
        case GatherKind::Resize:
          // Whole factors as "x2x3", any other size as "to 10x8".
          if (uint64_t(l.H) * uint32_t(l.resize_scale_h) == l.out_h() &&
              uint64_t(l.W) * uint32_t(l.resize_scale_w) == l.out_w() &&
              l.resize_scale_h == std::floor(l.resize_scale_h) &&
              l.resize_scale_w == std::floor(l.resize_scale_w))
            out += image + " x" + std::to_string(uint32_t(l.resize_scale_h)) + "x" +
                   std::to_string(uint32_t(l.resize_scale_w));
          else
            out += image + " to " + std::to_string(l.out_h()) + "x" + std::to_string(l.out_w());
          if (l.resize_mode != ResizeMode::Nearest)
            out += std::string(" ") + to_string(l.resize_mode);
          break;
      }
      break;
    case OpFamily::Softmax:
    case OpFamily::Rope:
      out += heads + rows;
      break;
    case OpFamily::Norm:
      out += rows;
      break;
    case OpFamily::Elementwise:
    case OpFamily::Activation:
      out += elementwise;
      break;
  }
  if (l.is_binary()) out += " binary";
  return out;
}

std::string check_string(const LayerCheck& c) {
  if (!c.checked) return "-";
  return c.match ? "ok" : "MISMATCH";
}

std::string bound_string(uint64_t compute_cycles, uint64_t memory_cycles, uint64_t cycles) {
  if (compute_cycles == 0 && memory_cycles == 0) return "-";
  if (cycles > kNeitherBoundFactor * std::max(compute_cycles, memory_cycles)) return "neither";
  return compute_cycles >= memory_cycles ? "compute" : "memory";
}

std::string layer_bound(const RunSummary& s, uint32_t layer) {
  return bound_string(s.stats->get("bound.compute_cycles").at(layer),
                      s.stats->get("bound.memory_cycles").at(layer),
                      s.stats->get("layer.cycles").at(layer));
}

std::string run_bound(const RunSummary& s) {
  const RunBounds b = run_bounds(s);
  return bound_string(b.compute_lower, b.memory_lower, s.total_cycles);
}

std::string compact_bound(const std::string& bound) {
  return bound == "compute"   ? "comp"
         : bound == "memory"  ? "mem"
         : bound == "neither" ? "none"
                              : bound;
}

std::optional<DecoderFigures> decoder_figures(const RunSummary& s) {
  const Counter& finish = s.stats->get("layer.finish_cycle");
  std::vector<uint64_t> pass_end;  // by pass
  for (uint32_t l = 0; l < s.network->layers.size(); ++l) {
    const int32_t pass = s.network->layers[l].pass;
    if (pass < 0) continue;
    if (pass_end.size() <= size_t(pass)) pass_end.resize(size_t(pass) + 1, 0);
    pass_end[size_t(pass)] = std::max(pass_end[size_t(pass)], finish.at(l));
  }
  if (pass_end.empty()) return std::nullopt;
  DecoderFigures d;
  for (const LayerConfig& L : s.network->layers)
    if (L.pass >= 0) {
      d.sequences = L.N;
      break;
    }
  d.first_token_cycles = pass_end[0];
  for (size_t p = 1; p < pass_end.size(); ++p) {
    d.step_end.push_back(pass_end[p]);
    d.step_cycles.push_back(pass_end[p] - std::min(pass_end[p], pass_end[p - 1]));
  }
  if (!d.step_end.empty()) {
    d.mean_step_cycles =
        double(d.step_end.back() - d.first_token_cycles) / double(d.step_end.size());
    d.tokens_per_second = ratio(double(d.sequences) * s.hw->clock_mhz * 1e6, d.mean_step_cycles);
  }
  return d;
}

double cycles_to_ms(const HardwareConfig& hw, double cycles) {
  return ratio(cycles, hw.clock_mhz * 1e3);
}

bool RunBounds::within(uint64_t cycles) const {
  return cycles >= std::max(compute_lower, memory_lower) && cycles <= serial_upper;
}

RunBounds run_bounds(const RunSummary& s) {
  RunBounds b;
  const Counter& compute = s.stats->get("bound.compute_cycles");
  uint64_t array = 0, vector = 0;
  for (uint32_t l = 0; l < compute.layers(); ++l)
    (s.network && l < s.network->layers.size() && !runs_on_array(s.network->layers[l].op)
         ? vector
         : array) += compute.at(l);
  b.compute_lower = std::max(array, vector);
  b.memory_lower = s.stats->get("bound.memory_cycles").total();
  b.serial_upper = s.stats->get("bound.serial_cycles").total();
  return b;
}

MemoryPlanFigures memory_plan_figures(const RunSummary& s) {
  const StatsRegistry& st = *s.stats;
  const auto total = [&](const char* name) {
    const Counter* c = st.find(name);
    return c ? c->total() : 0;
  };
  MemoryPlanFigures f;
  f.dram_bytes = total("dram.read_bytes") + total("dram.write_bytes");
  f.dram_bytes_saved = total("load.resident_bytes") + total("store.resident_bytes") +
                       total("vector.resident_read_bytes") + total("vector.resident_write_bytes") +
                       total("load.weight_resident_bytes");
  for (const LayerTiling& t : s.tiling) {
    if (std::string(t.output_in) == "cache") ++f.outputs_in_cache;
    if (std::string(t.weights_in) == "cache") ++f.weights_in_cache;
  }
  return f;
}

}  // namespace npusim
